// Making a q8 checkpoint (docs/q8-format.md) from an F32 / F16 / BF16 one: the plan of the q8 file
// from the source header alone (plan_q8), and the quantization of the data section as it streams
// in, in order, through a bounded window (Q8Streamer: `load(..., { weights: 'q8' })`). The
// converter (`laya-wasm quantize`) uses the plan and quantize_rows_q8 (graph/q8.h) tensor by
// tensor; the loader uses the plan and the streamer; both round with the same function, so a
// converted file and an on-the-fly load hold the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "safetensors/header.h"
#include "util/status.h"

namespace laya {

// Whether the converter quantizes a tensor: every float matrix (2-D, at least one element); vectors
// (norms, biases, temperature) are copied as they are.
bool quantized_in_q8(const safetensors::TensorEntry& t);

struct Q8Tensor {
  size_t source = 0;       // index into the source header's tensors
  bool quantized = false;  // values (+ scales entry right after), or a copy
  size_t values = 0;       // index of its entry in the q8 header's tensors
  size_t scales = 0;       // quantized only: index of the scales entry
};

struct Q8Plan {
  safetensors::Header header;  // the q8 file's header: offsets in its data section, the marker
  std::string header_json;     // its JSON text, padded with spaces to a multiple of 8 bytes
  std::vector<Q8Tensor> tensors;  // in the order of the source's data section (and of the q8 file's)
  uint64_t file_size() const { return 8 + header_json.size() + header.data_length; }
};

// The q8 file of a source header: same tensor order as the source's data section, each quantized
// matrix followed by its scales; source `__metadata__` kept (a previous marker dropped) and the
// marker added. A source that already is a q8 checkpoint, or holds I8, is invalid_request.
Result<Q8Plan> plan_q8(const safetensors::Header& source);

// The data section of the source, consumed in order in pieces of any size, written into the q8
// data section at `target` (plan.header.data_length bytes). Memory: one row of the widest matrix,
// as stored and as f32. A matrix value that is not finite is invalid_checkpoint naming it.
class Q8Streamer {
 public:
  Q8Streamer(const safetensors::Header& source, const Q8Plan& plan, std::byte* target);

  // The next bytes of the source data section.
  Status consume(std::span<const std::byte> bytes);
  // Bytes of the q8 data section complete so far, from its start.
  uint64_t target_written() const { return target_written_; }
  bool done() const { return consumed_ == source_length_; }

 private:
  struct Item {
    std::string name;
    DType dtype;
    uint64_t source_begin, source_bytes;
    uint64_t target_values, target_scales;  // offsets in the q8 data section
    int64_t rows = 0, cols = 0;             // quantized only
    bool quantized = false;
  };
  Status finish_row(const Item& item);

  std::vector<Item> items_;
  std::byte* target_;
  uint64_t source_length_ = 0;
  uint64_t consumed_ = 0;
  size_t item_ = 0;
  uint64_t in_item_ = 0;  // bytes of items_[item_] consumed
  uint64_t target_written_ = 0;
  std::vector<std::byte> row_;  // a partly received row
  std::vector<float> row_f32_;
  int64_t row_index_ = 0;
};

// A whole q8 file from a whole source file in memory (tests and native tools).
Result<std::vector<std::byte>> quantize_checkpoint_file(std::span<const std::byte> file);

}  // namespace laya
