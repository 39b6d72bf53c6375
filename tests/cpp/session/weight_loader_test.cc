// Loading the weights: the plan from the header alone, the buffer the data section streams into,
// and finish, which binds the one plan into the model (and refuses a load left unfinished).
#include "session/weight_loader.h"

#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <string>

#include "session/fixture_files.h"

namespace laya {
namespace {

const std::string kTiny = testing::reference_dir("tiny-fanin") + "/checkpoint";

struct Checkpoint {
  LayaConfig config;
  std::string file = testing::read_file(kTiny + "/model.safetensors");
  safetensors::Header header;

  Checkpoint() {
    auto parsed = parse_config(testing::read_file(kTiny + "/rl_agent_config.json"),
                               testing::read_file(kTiny + "/encoder/config.json"));
    REQUIRE(parsed.ok());
    config = parsed.value();
    std::array<std::byte, 8> prefix{};
    std::memcpy(prefix.data(), file.data(), 8);
    auto length = safetensors::read_header_length(prefix, file.size());
    REQUIRE(length.ok());
    auto h = safetensors::parse_header(std::string_view(file).substr(8, length.value()), file.size());
    REQUIRE(h.ok());
    header = h.value();
  }
  const std::byte* data() const { return reinterpret_cast<const std::byte*>(file.data()) + header.data_offset; }
};

}  // namespace

TEST_CASE("a loader plans a buffer for the data section and binds it, once written, into the model") {
  Checkpoint c;
  auto loader = WeightLoader::create(c.config, c.header, WeightsMode::kAsStored);
  REQUIRE(loader.ok());
  const WeightPlan& plan = loader.value()->weight_plan();
  CHECK(plan.pointer != nullptr);
  CHECK(plan.data_offset == c.header.data_offset);
  CHECK(plan.data_length == c.header.data_length);
  CHECK(plan.stage == nullptr);
  CHECK(loader.value()->bytes() == c.header.data_length);
  std::memcpy(plan.pointer, c.data(), plan.data_length);
  REQUIRE(loader.value()->written(plan.data_length).ok());
  auto bound = loader.value()->finish(c.config);
  REQUIRE_MESSAGE(bound.ok(), (bound.ok() ? "" : bound.error().message));
  const BoundModel& model = *bound.value();
  CHECK(model.data.get() == plan.pointer);  // the weights stay where they were streamed
  CHECK(model.data_length == c.header.data_length);
  CHECK_FALSE(model.model.decision.ops.empty());
  CHECK(model.model.decision.logits.has_value());
  CHECK(model.model.embedding.pooled.has_value());
  for (const WeightView& w : model.model.weights) {
    if (w.shape.size() == 1) CHECK(w.dtype == DType::kF32);  // vectors bound as F32
  }
}

TEST_CASE("a header whose tensors do not fit the config is refused, naming what is missing") {
  Checkpoint c;
  std::erase_if(c.header.tensors, [](const safetensors::TensorEntry& t) { return t.name == "encoder.final_norm.weight"; });
  auto loader = WeightLoader::create(c.config, c.header, WeightsMode::kAsStored);
  REQUIRE_FALSE(loader.ok());
  CHECK(loader.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK(loader.error().message.find("encoder.final_norm.weight") != std::string::npos);
}

TEST_CASE("quantizing while loading streams through a window, and an unfinished stream does not bind") {
  Checkpoint c;
  auto loader = WeightLoader::create(c.config, c.header, WeightsMode::kQ8);
  REQUIRE(loader.ok());
  const WeightPlan& plan = loader.value()->weight_plan();
  CHECK(plan.stage != nullptr);
  CHECK(plan.stage_bytes == kQ8StageBytes);
  CHECK(plan.data_length == c.header.data_length);  // the source's data section
  CHECK(loader.value()->bytes() < c.header.data_length);  // held at the q8 size
  CHECK_FALSE(loader.value()->written(1).ok());  // a q8 load reports windows, not writes
  auto unfinished = loader.value()->finish(c.config);
  REQUIRE_FALSE(unfinished.ok());
  CHECK(unfinished.error().message == "model.safetensors: the data section ended before every weight was quantized");
}

TEST_CASE("a load that is not quantized has no window to report") {
  Checkpoint c;
  auto loader = WeightLoader::create(c.config, c.header, WeightsMode::kAsStored);
  REQUIRE(loader.ok());
  const Status staged = loader.value()->staged(16);
  REQUIRE_FALSE(staged.ok());
  CHECK(staged.error().message == "weightsStaged: the weights were not planned to be quantized while loading");
}

}  // namespace laya
