// The GEMM kernels a WebGPU load can be asked for (options.gpuKernels.gemm), named here with no
// WebGPU type in sight: the public options import this file, and their shipped declarations must
// compile in a project that has no @webgpu/types. kernels/gemm-tiled.ts holds each tile's shape.

/** The register tilings, `t<rows>x<columns>` of the output a workgroup computes. */
export const kGemmTileNames = ['t32x32', 't32x64', 't64x64', 't128x64', 't64x128', 't32x128'] as const;

export type GemmTileName = (typeof kGemmTileNames)[number];

/** Which GEMM kernel the steps use: 'auto' (a tile by the bucket's rows), 'scalar', or one tile. */
export type GemmChoice = 'auto' | 'scalar' | GemmTileName;

export const kGemmChoices: readonly GemmChoice[] = ['auto', 'scalar', ...kGemmTileNames];
