// Hostile checkpoints end to end through Session, the way the loaders drive it (header_bytes_needed,
// plan_weights, write the data, finish_weights), built from the tiny-fanin reference checkpoint
// with one fault each: every one is rejected before a weight byte is used, with the right code and
// a message naming the fault, leaves no half-loaded session, and the same session then loads the
// good file. Also: an allocation that cannot succeed is out_of_memory, and repeated failed loads
// release what they took (the asan build's LeakSanitizer watches this file).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "laya/checkpoint.h"
#include "laya/config.h"
#include "safetensors/header.h"
#include "safetensors/test_writer.h"
#include "session/fixture_files.h"
#include "session/session.h"

namespace laya {
namespace {

using testing::TensorSpec;

std::vector<std::byte> to_bytes(const std::string& s) {
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}

const std::string& checkpoint_dir() {
  static const std::string dir = testing::reference_dir("tiny-fanin") + "/checkpoint";
  return dir;
}

// The reference checkpoint's tensors, in file order, with their bytes.
const std::vector<TensorSpec>& good_tensors() {
  static const std::vector<TensorSpec> tensors = [] {
    const std::vector<std::byte> file = to_bytes(testing::read_file(checkpoint_dir() + "/model.safetensors"));
    auto header = safetensors::parse_file_header(file);
    REQUIRE(header.ok());
    std::vector<TensorSpec> out;
    for (const auto& t : header.value().tensors) {
      const std::byte* begin = file.data() + header.value().data_offset + t.begin;
      out.push_back({t.name, std::string(dtype_name(t.dtype)), t.shape, std::vector<std::byte>(begin, begin + t.byte_size())});
    }
    return out;
  }();
  return tensors;
}

std::vector<std::byte> data_of(const std::vector<TensorSpec>& tensors) {
  std::vector<std::byte> data;
  for (const TensorSpec& t : tensors) data.insert(data.end(), t.bytes.begin(), t.bytes.end());
  return data;
}

// The good file with the header text passed through `edit` (data unchanged).
std::vector<std::byte> with_header_edit(const std::function<void(std::string&)>& edit) {
  std::string header = testing::header_json_for(good_tensors());
  edit(header);
  return testing::file_with_header(header, data_of(good_tensors()));
}

std::vector<std::byte> with_tensors_edit(const std::function<void(std::vector<TensorSpec>&)>& edit) {
  std::vector<TensorSpec> tensors = good_tensors();
  edit(tensors);
  return testing::safetensors_file(tensors);
}

size_t index_of(const std::vector<TensorSpec>& tensors, const std::string& name) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return i;
  }
  FAIL("no tensor " << name);
  return 0;
}

// Replaces the first occurrence of `from` in `s`, which must be there.
void replace_once(std::string& s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "no " << from);
  s.replace(at, from.size(), to);
}

// Loads `file` the way the TypeScript loader does; the first error met, or ok.
Status load(Session& session, const std::vector<std::byte>& file) {
  const std::span<const std::byte> bytes(file);
  LAYA_ASSIGN_OR_RETURN(uint64_t needed, session.header_bytes_needed(bytes.first(std::min<size_t>(8, bytes.size())), file.size()));
  if (needed > file.size()) return invalid_checkpoint("test: header runs past the file");
  LAYA_ASSIGN_OR_RETURN(WeightPlan plan, session.plan_weights(bytes.first(needed), file.size()));
  std::memcpy(plan.pointer, file.data() + plan.data_offset, file.size() - plan.data_offset);
  return session.finish_weights();
}

void configure(Session& session) { testing::configure_from(session, checkpoint_dir()); }

size_t good_size() { return testing::safetensors_file(good_tensors()).size(); }

// The whole message for a file cut short: one line, not a problem per tensor.
std::string truncated(size_t needed, size_t present) {
  return "model.safetensors is truncated: its header needs " + std::to_string(needed) + " bytes, only " +
         std::to_string(present) + " are present";
}

struct HostileCheckpoint {
  const char* fault;
  std::function<std::vector<std::byte>()> file;
  ErrorCode code;
  std::vector<std::string> message_parts;
};

std::vector<HostileCheckpoint> hostile_checkpoints() {
  const std::string kEmb = "encoder.embeddings.tok_embeddings.weight";  // [512, 64] F32
  const std::string kScorer = "scorer.1.weight";                        // [64, 64] F32
  return {
      {"an empty file", [] { return std::vector<std::byte>{}; }, ErrorCode::kInvalidCheckpoint,
       {"model.safetensors", "0 bytes"}},
      {"a file shorter than the length prefix", [] { return std::vector<std::byte>(5); },
       ErrorCode::kInvalidCheckpoint, {"model.safetensors", "5 bytes"}},
      {"a header length beyond the file",
       [] {
         auto f = with_header_edit([](std::string&) {});
         f.resize(8 + 100);  // the header claims thousands of bytes
         return f;
       },
       ErrorCode::kInvalidCheckpoint, {"header"}},
      {"an absurdly large header length",
       [] {
         auto f = with_header_edit([](std::string&) {});
         for (int i = 0; i < 8; ++i) f[i] = std::byte{0xFF};
         return f;
       },
       ErrorCode::kInvalidCheckpoint, {"header"}},
      {"a header that is a JSON array", [] { return testing::file_with_header("[1,2,3]", {}); },
       ErrorCode::kInvalidCheckpoint, {"header", "object"}},
      {"a header that is not JSON", [] { return testing::file_with_header("{\"a\": tru", {}); },
       ErrorCode::kInvalidCheckpoint, {"header"}},
      {"an unknown dtype",
       [=] { return with_header_edit([&](std::string& h) { replace_once(h, "\"" + kEmb + "\":{\"dtype\":\"F32\"", "\"" + kEmb + "\":{\"dtype\":\"Q4_K\""); }); },
       ErrorCode::kUnsupportedModel, {kEmb, "Q4_K"}},
      {"a shape that disagrees with the byte length",
       [=] { return with_header_edit([&](std::string& h) { replace_once(h, "\"shape\":[512,64]", "\"shape\":[512,63]"); }); },
       ErrorCode::kInvalidCheckpoint, {kEmb}},
      {"a file missing its last 4 bytes",
       [] {
         auto f = with_tensors_edit([](std::vector<TensorSpec>&) {});
         f.resize(f.size() - 4);  // the last tensor's end now lies past the file
         return f;
       },
       ErrorCode::kInvalidCheckpoint, {truncated(good_size(), good_size() - 4)}},
      {"overlapping tensors",
       [] {
         return with_header_edit([](std::string& h) {
           // scorer.3.bias [1] F32 at [a, a+4): point it at the 4 bytes before, inside scorer.3.weight.
           const size_t at = h.find("\"scorer.3.bias\"");
           REQUIRE(at != std::string::npos);
           const size_t open = h.find("\"data_offsets\":[", at) + 16;
           const size_t comma = h.find(',', open);
           const size_t close = h.find(']', comma);
           const uint64_t begin = std::stoull(h.substr(open, comma - open));
           h.replace(open, close - open, std::to_string(begin - 4) + "," + std::to_string(begin));
         });
       },
       ErrorCode::kInvalidCheckpoint, {"scorer.3.bias"}},
      {"a gap between tensors",
       [=] {
         std::vector<TensorSpec> t = good_tensors();
         std::vector<std::byte> data;
         std::string header = "{";
         size_t offset = 0;
         for (const TensorSpec& s : t) {
           if (s.name == kScorer) offset += 4;  // 4 unused bytes before it
           data.resize(offset);
           data.insert(data.end(), s.bytes.begin(), s.bytes.end());
           header += std::string(header.size() > 1 ? "," : "") + "\"" + s.name + "\":{\"dtype\":\"" + s.dtype +
                     "\",\"shape\":" + testing::shape_json(s.shape) + ",\"data_offsets\":[" + std::to_string(offset) +
                     "," + std::to_string(offset + s.bytes.size()) + "]}";
           offset += s.bytes.size();
         }
         return testing::file_with_header(header + "}", data);
       },
       ErrorCode::kInvalidCheckpoint, {"gap"}},
      {"trailing bytes after the last tensor",
       [] {
         auto f = with_tensors_edit([](std::vector<TensorSpec>&) {});
         f.resize(f.size() + 16);
         return f;
       },
       ErrorCode::kInvalidCheckpoint, {"16"}},
      {"a duplicate tensor name",
       [=] {
         return with_header_edit([&](std::string& h) {
           // The second entry of the same name, with the first's offsets.
           const size_t at = h.find("\"" + kEmb + "\":");
           const size_t end = h.find('}', at);
           h.insert(end + 1, "," + h.substr(at, end + 1 - at));
         });
       },
       ErrorCode::kInvalidCheckpoint, {kEmb}},
      {"a missing tensor",
       [=] { return with_tensors_edit([&](std::vector<TensorSpec>& t) { t.erase(t.begin() + index_of(t, kScorer)); }); },
       ErrorCode::kInvalidCheckpoint, {kScorer, "missing"}},
      {"an extra tensor",
       [] {
         return with_tensors_edit([](std::vector<TensorSpec>& t) {
           t.push_back({"head.layers.9.linear1.weight", "F32", {2}, std::vector<std::byte>(8)});
         });
       },
       ErrorCode::kInvalidCheckpoint, {"head.layers.9.linear1.weight"}},
      {"a transposed shape with the right byte count",
       [=] { return with_tensors_edit([&](std::vector<TensorSpec>& t) { t[index_of(t, kEmb)].shape = {64, 512}; }); },
       ErrorCode::kInvalidCheckpoint, {kEmb, "[64, 512]", "[512, 64]"}},
      {"a file cut in half",
       [] {
         auto f = with_tensors_edit([](std::vector<TensorSpec>&) {});
         f.resize(f.size() / 2);
         return f;
       },
       ErrorCode::kInvalidCheckpoint, {truncated(good_size(), good_size() / 2)}},
  };
}

TEST_CASE("every hostile checkpoint is rejected before any weight is used, naming its fault") {
  const std::vector<std::byte> good = testing::safetensors_file(good_tensors());
  size_t rejected = 0;
  const auto table = hostile_checkpoints();
  for (const HostileCheckpoint& h : table) {
    CAPTURE(h.fault);
    Session session;
    configure(session);
    Status s = load(session, h.file());
    REQUIRE_FALSE(s.ok());
    CHECK_MESSAGE(s.error().code == h.code, s.error().message);
    for (const std::string& part : h.message_parts) {
      CHECK_MESSAGE(s.error().message.find(part) != std::string::npos, "\"" << part << "\" not in: " << s.error().message);
    }
    // Nothing half-loaded: no weights held, the session does not answer...
    CHECK_FALSE(session.ready());
    CHECK(session.memory().weights_bytes == 0);
    auto answered = session.forward_decisions(Batch{}, false);
    CHECK_FALSE(answered.ok());
    // ...and the same session then takes the good file.
    Status retry = load(session, good);
    CHECK_MESSAGE(retry.ok(), (retry.ok() ? "" : retry.error().message));
    CHECK(session.ready());
    if (!s.ok()) ++rejected;
  }
  std::printf("hostile checkpoints: %zu tried, %zu rejected\n", table.size(), rejected);
}

TEST_CASE("a checkpoint cut short anywhere is one line naming the bytes its header needs and those present") {
  const std::vector<std::byte> good = testing::safetensors_file(good_tensors());
  const size_t header_end = 8 + testing::header_json_for(good_tensors()).size();
  for (size_t present : {good.size() - 1, good.size() - 4, good.size() / 2, header_end, header_end - 1, size_t{108}}) {
    CAPTURE(present);
    const std::vector<std::byte> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(present));
    Session session;
    configure(session);
    Status s = load(session, cut);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::kInvalidCheckpoint);
    // Inside the header only the header's own length is known; past it, the whole file's.
    CHECK(s.error().message == truncated(present < header_end ? header_end : good.size(), present));
  }
}

TEST_CASE("a header declaring a data section too large to allocate is out_of_memory, and a small load still works") {
  // A config at the engine's size limits (4096 layers, vocabulary and MLP width 2^24) and a header
  // listing exactly the tensors it implies, F32: a data section of about 48 TiB that a streamed
  // source says exists. Every check passes; only the allocation can fail.
  std::string rl = testing::read_file(checkpoint_dir() + "/rl_agent_config.json");
  std::string enc = testing::read_file(checkpoint_dir() + "/encoder/config.json");
  replace_once(enc, "\"vocab_size\": 512", "\"vocab_size\": 16777216");
  replace_once(enc, "\"intermediate_size\": 96", "\"intermediate_size\": 16777216");
  replace_once(enc, "\"num_hidden_layers\": 4", "\"num_hidden_layers\": 4096");
  auto config = parse_config(rl, enc);
  REQUIRE_MESSAGE(config.ok(), (config.ok() ? "" : config.error().message));
  std::string header = "{";
  uint64_t offset = 0;
  for (const ExpectedTensor& t : checkpoint_layout(config.value()).tensors) {
    uint64_t bytes = 4;
    for (int64_t dim : t.shape) bytes *= static_cast<uint64_t>(dim);
    header += std::string(header.size() > 1 ? "," : "") + "\"" + t.name + "\":{\"dtype\":\"F32\",\"shape\":" +
              testing::shape_json(t.shape) + ",\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + bytes) + "]}";
    offset += bytes;
  }
  header += "}";
  REQUIRE(offset > (uint64_t{1} << 45));
  const std::vector<std::byte> prefix = testing::file_with_header(header, {});
  const uint64_t file_size = prefix.size() + offset;

  Session session;
  Status configured = session.configure(rl, enc, testing::read_file(checkpoint_dir() + "/tokenizer/tokenizer.json"),
                                        testing::read_file(checkpoint_dir() + "/tokenizer/tokenizer_config.json"));
  REQUIRE_MESSAGE(configured.ok(), (configured.ok() ? "" : configured.error().message));
  auto needed = session.header_bytes_needed(std::span(prefix).first(8), file_size);
  REQUIRE(needed.ok());
  CHECK(needed.value() == prefix.size());
  auto plan = session.plan_weights(prefix, file_size);
  REQUIRE_FALSE(plan.ok());
  CHECK_MESSAGE(plan.error().code == ErrorCode::kOutOfMemory, plan.error().message);
  CHECK_MESSAGE(plan.error().message.find("model.safetensors") != std::string::npos, plan.error().message);
  CHECK(session.memory().weights_bytes == 0);
  CHECK_FALSE(session.ready());

  Session small;
  configure(small);
  Status s = load(small, testing::safetensors_file(good_tensors()));
  CHECK_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
}

TEST_CASE("repeated failed loads keep nothing (LeakSanitizer checks this in the asan build)") {
  const auto table = hostile_checkpoints();
  for (int round = 0; round < 5; ++round) {
    for (const HostileCheckpoint& h : table) {
      Session session;
      configure(session);
      CHECK_FALSE(load(session, h.file()).ok());
    }
  }
}

}  // namespace
}  // namespace laya
