// Weights as the engine sees them: views of checkpoint tensors that live elsewhere (in the one
// buffer the loader streamed the checkpoint's data into). Matrices stay in their stored dtype and
// are converted inside the kernels; the binder hands small vectors over as F32. A q8 matrix
// (docs/q8-format.md) is an I8 tensor plus one F32 scale per group of kQ8Group along its input
// dimension (WeightView::scales).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace laya {

// kI8 is safetensors' I8; as a matrix the engine reads it only as q8: value = q · scale of its group.
enum class DType { kF32, kF16, kBF16, kI8 };

const char* dtype_name(DType dtype);  // "F32", "F16", "BF16", "I8", as safetensors spells them
size_t dtype_size(DType dtype);

// q8 (docs/q8-format.md): one scale per kQ8Group consecutive elements of a row of k, the last group
// of a row shorter when k is not a multiple of it; a [n, k] matrix has [n, q8_groups(k)] scales.
inline constexpr int64_t kQ8Group = 64;
inline constexpr int64_t q8_groups(int64_t k) { return (k + kQ8Group - 1) / kQ8Group; }

// A weight, the index of a tensor in the WeightTable the graph was built against. A distinct type
// so a weight can never be passed where a value is expected.
struct WeightId {
  uint32_t index = 0;
  friend bool operator==(WeightId, WeightId) = default;
};

// How a matrix's elements are ordered. kPanels8 is the SIMD GEMM's order, arranged once at load
// (engine/gemm_panels.h): the [n, k] matrix cut into panels of 8 consecutive rows, each panel stored
// k-major (element (r, c) at ((r / 8)·k + c)·8 + r % 8), so packing a block for the GEMM is one
// contiguous conversion instead of a gather from 8 rows.
enum class WeightLayout { kRows, kPanels8 };
inline constexpr int64_t kPanelRows = 8;

struct WeightView {
  std::string name;            // the checkpoint tensor name, for messages
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;  // as stored, e.g. [n, k] for a Linear weight
  const std::byte* data = nullptr;  // may be unaligned; kernels load through memcpy-safe helpers
  WeightLayout layout = WeightLayout::kRows;
  // kI8 only: the F32 scales (little-endian, any alignment), [n, q8_groups(k)] in rows, or in the
  // same 8-row panels as the data ([n / 8][groups][8]) when layout is kPanels8.
  const std::byte* scales = nullptr;

  int64_t elements() const;
};

using WeightTable = std::vector<WeightView>;

}  // namespace laya
