// The JSON an outside backend reads (web/src/webgpu/program.ts has the same shapes as types): the
// model's tensors and where their bytes are, a graph planned for a bucket as backend-neutral
// steps over one arena, and the batches a request waits for.
#pragma once

#include <string>
#include <vector>

#include "engine/bucket_plan.h"
#include "laya/model.h"
#include "safetensors/header.h"
#include "session/outside_runs.h"

namespace laya::wire {

// GpuModel: {"dataOffset", "dataLength", "weights": [{name, dtype, shape, byteOffset, byteLength,
// scales?}], "vocabSize", "typeCount"}.
std::string outside_model(const ModelPlan& plan, const safetensors::Header& header, const BatchLimits& limits);

// GpuProgram: {"graph", "bucket", "arenaFloats", "steps": [...], "outputs": {...}}, offsets in f32
// elements of the arena.
std::string bucket_program(const Graph& graph, const char* graph_name, const BucketPlan& plan);

// [{"graph", "index", "ids", "seqStarts", "markers", "markerStarts", "qtypes"}...]
std::string pending_batches(const std::vector<OutsideRuns::Pending>& pending);

}  // namespace laya::wire
