#include "safetensors/header.h"

#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "safetensors/test_writer.h"

using laya::ErrorCode;
using laya::safetensors::parse_file_header;
using laya::safetensors::parse_header;
using laya::safetensors::read_header_length;

namespace {

std::array<std::byte, 8> le64(uint64_t n) {
  std::array<std::byte, 8> out{};
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::byte>((n >> (8 * i)) & 0xFF);
  return out;
}

// parse_header on `header` followed by `data_length` bytes of data.
laya::Result<laya::safetensors::Header> parse_with_data(const std::string& header, uint64_t data_length) {
  return parse_header(header, 8 + header.size() + data_length);
}

std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

struct HostileHeader {
  const char* fault;
  std::string header;
  uint64_t data_length;
  ErrorCode code;
  std::vector<std::string> message_parts;
};

// Two good tensors: a F32 [2, 2] at [0, 16) and b F16 [3] at [16, 22).
std::string entry(const std::string& name, const std::string& dtype, const std::string& shape,
                  const std::string& offsets) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":" + offsets + "}";
}
const std::string kA = entry("a", "F32", "[2,2]", "[0,16]");
const std::string kB = entry("b", "F16", "[3]", "[16,22]");

}  // namespace

TEST_CASE("a well-formed header lists its tensors, metadata and data section") {
  std::vector<laya::testing::TensorSpec> specs = {
      {"w", "F16", {2, 3}, std::vector<std::byte>(12)},
      {"v", "BF16", {4}, std::vector<std::byte>(8)},
      {"s", "F32", {}, std::vector<std::byte>(4)},
      {"empty", "F32", {0, 5}, {}},
  };
  auto file = laya::testing::safetensors_file(specs);
  auto header = parse_file_header(file);
  REQUIRE_MESSAGE(header.ok(), header.error().message);
  const auto& h = header.value();
  CHECK(h.data_offset == file.size() - 24);
  CHECK(h.data_length == 24);
  REQUIRE(h.tensors.size() == 4);
  CHECK(h.tensors[0].name == "w");
  CHECK(h.tensors[0].dtype == laya::DType::kF16);
  CHECK(h.tensors[0].shape == std::vector<int64_t>{2, 3});
  CHECK(h.tensors[1].dtype == laya::DType::kBF16);
  CHECK(h.tensors[1].begin == 12);
  CHECK(h.tensors[1].end == 20);
  CHECK(h.tensors[2].shape.empty());
  REQUIRE(h.find("s") != nullptr);
  CHECK(h.find("s")->byte_size() == 4);
  CHECK(h.find("missing") == nullptr);
  REQUIRE(h.metadata.size() == 1);
  CHECK(h.metadata[0] == std::pair<std::string, std::string>{"format", "pt"});
}

TEST_CASE("an empty header with no data is a valid, empty checkpoint") {
  auto header = parse_with_data("{}", 0);
  REQUIRE(header.ok());
  CHECK(header.value().tensors.empty());
}

TEST_CASE("the header length is little-endian and must fit the file") {
  auto n = read_header_length(le64(0x0102), 0x0102 + 8);
  REQUIRE(n.ok());
  CHECK(n.value() == 0x0102);

  struct Case {
    const char* fault;
    uint64_t length;
    uint64_t file_size;
    const char* part;
  };
  const Case cases[] = {
      {"empty file", 0, 0, "the file is 0 bytes"},
      {"file shorter than the length prefix", 5, 7, "the file is 7 bytes"},
      {"length zero", 0, 100, "header length is 0"},
      {"absurd length", 100'000'001, 200'000'000, "exceeds the limit"},
      {"length near 2^64", ~uint64_t{0} - 4, 100, "exceeds the limit"},
  };
  for (const Case& c : cases) {
    const std::string fault = c.fault;
    CAPTURE(fault);
    auto r = read_header_length(le64(c.length), c.file_size);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidCheckpoint);
    CHECK(r.error().message.rfind("safetensors header: ", 0) == 0);
    CHECK_MESSAGE(r.error().message.find(c.part) != std::string::npos, r.error().message);
  }
}

TEST_CASE("a file that ends inside its header is truncated, naming the bytes the header needs and those present") {
  auto r = read_header_length(le64(93), 100, "model.safetensors");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK(r.error().message == "model.safetensors is truncated: its header needs 101 bytes, only 100 are present");
}

TEST_CASE("a whole-file parse rejects an empty or truncated file") {
  auto empty = parse_file_header({});
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().code == ErrorCode::kInvalidCheckpoint);
  auto file = laya::testing::file_with_header("{}", {});
  file.pop_back();  // the header's closing brace is cut off
  auto truncated = parse_file_header(file);
  REQUIRE_FALSE(truncated.ok());
  CHECK(truncated.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK(truncated.error().message == "the safetensors file is truncated: its header needs 10 bytes, only 9 are present");
}

TEST_CASE("a file cut short in its data is one line naming the bytes its header needs and those present") {
  // a and b tile 22 bytes of data; the file holds 20 of them.
  const std::string header = "{" + kA + "," + kB + "}";
  const uint64_t needed = 8 + header.size() + 22;
  auto r = parse_header(header, needed - 2, "model.safetensors");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK(r.error().message == "model.safetensors is truncated: its header needs " + std::to_string(needed) +
                                 " bytes, only " + std::to_string(needed - 2) + " are present");
  // Without a name the message still reads as a truncation.
  auto unnamed = parse_with_data(header, 0);
  REQUIRE_FALSE(unnamed.ok());
  CHECK(unnamed.error().message == "the safetensors file is truncated: its header needs " + std::to_string(needed) +
                                       " bytes, only " + std::to_string(needed - 22) + " are present");
}

TEST_CASE("a real checkpoint cut in half is reported as truncated, not tensor by tensor") {
  auto file = read_file(std::string(LAYA_FIXTURES_DIR) + "/reference/tiny-fanin/checkpoint/model.safetensors");
  const size_t whole = file.size();
  file.resize(whole / 2);
  auto r = parse_file_header(file, "model.safetensors");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK(r.error().message == "model.safetensors is truncated: its header needs " + std::to_string(whole) +
                                 " bytes, only " + std::to_string(whole / 2) + " are present");
}

TEST_CASE("a short file whose header has other faults lists the shortfall among them") {
  // b leaves a gap before it and ends past the 20 bytes of data.
  const std::string header = "{" + kA + "," + entry("b", "F16", "[3]", "[18,24]") + "}";
  auto r = parse_header(header, 8 + header.size() + 20, "model.safetensors");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK(r.error().message == "safetensors header: 2 problems: bytes [16, 18) of the data section belong to no tensor "
                             "(a gap before b [18, 24)); model.safetensors is truncated: its header needs " +
                                 std::to_string(8 + header.size() + 24) + " bytes, only " +
                                 std::to_string(8 + header.size() + 20) + " are present");
}

TEST_CASE("hostile headers are rejected with the right code and a message naming the fault") {
  const ErrorCode kInvalid = ErrorCode::kInvalidCheckpoint;
  const HostileHeader cases[] = {
      {"not JSON", "{\"a\":", 0, kInvalid, {"invalid JSON at byte"}},
      {"not a JSON object", "[1, 2]", 0, kInvalid, {"expected a JSON object, got an array"}},
      {"a string header", "\"hi\"", 0, kInvalid, {"expected a JSON object, got a string"}},
      {"unknown dtype", "{" + entry("a", "I64", "[2,2]", "[0,32]") + "}", 32, ErrorCode::kUnsupportedModel,
       {"tensor a has dtype I64", "F32, F16, BF16 and I8 (q8)"}},
      {"made-up dtype", "{" + entry("a", "Q4", "[2]", "[0,1]") + "}", 1, ErrorCode::kUnsupportedModel,
       {"tensor a has dtype Q4"}},
      {"dtype not a string", "{\"a\":{\"dtype\":5,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, kInvalid,
       {"tensor a: dtype must be a string, got 5"}},
      {"shape vs byte length", "{" + entry("a", "F32", "[2,3]", "[0,16]") + "," + kB + "}", 22, kInvalid,
       {"tensor a: shape [2, 3] of F32 needs 24 bytes, but data_offsets [0, 16] hold 16"}},
      {"offsets reversed", "{" + kA + "," + entry("b", "F16", "[3]", "[22,16]") + "}", 22, kInvalid,
       {"tensor b: data_offsets [22, 16] end before they begin"}},
      {"offsets not two integers", "{" + kA + "," + entry("b", "F16", "[3]", "[16]") + "}", 22, kInvalid,
       {"tensor b: data_offsets must be an array of two non-negative integers"}},
      {"negative offset", "{" + kA + "," + entry("b", "F16", "[3]", "[-6,0]") + "}", 22, kInvalid,
       {"tensor b: data_offsets must be an array of two non-negative integers"}},
      {"fractional offset", "{" + kA + "," + entry("b", "F16", "[3]", "[16.0,22]") + "}", 22, kInvalid,
       {"tensor b: data_offsets must be"}},
      {"overlapping ranges", "{" + kA + "," + entry("b", "F16", "[3]", "[10,16]") + "}", 16, kInvalid,
       {"tensor b [10, 16) overlaps tensor a [0, 16)"}},
      {"a gap between tensors", "{" + kA + "," + entry("b", "F16", "[3]", "[18,24]") + "}", 24, kInvalid,
       {"bytes [16, 18) of the data section belong to no tensor", "before b [18, 24)"}},
      {"a gap at the start", "{" + entry("a", "F32", "[2,2]", "[4,20]") + "}", 20, kInvalid,
       {"bytes [0, 4) of the data section belong to no tensor"}},
      {"trailing bytes", "{" + kA + "," + kB + "}", 30, kInvalid, {"8 trailing bytes after the last tensor"}},
      {"data but no tensors", "{}", 3, kInvalid, {"3 trailing bytes"}},
      {"duplicate names", "{" + kA + "," + kB + "," + kA + "}", 22, kInvalid, {"tensor a appears more than once"}},
      {"entry not an object", "{\"a\":5}", 0, kInvalid, {"tensor a: expected an object, got a number"}},
      {"missing key", "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, kInvalid,
       {"tensor a: missing \"shape\""}},
      {"extra key", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}", 4, kInvalid,
       {"tensor a: unexpected key \"x\""}},
      {"repeated key", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
       kInvalid, {"tensor a: key \"shape\" appears more than once"}},
      {"shape not an array", "{" + entry("a", "F32", "4", "[0,16]") + "}", 16, kInvalid,
       {"tensor a: shape must be an array of non-negative integers, got 4"}},
      {"negative dimension", "{" + entry("a", "F32", "[-2,2]", "[0,16]") + "}", 16, kInvalid,
       {"tensor a: shape dimension 0 is -2"}},
      {"fractional dimension", "{" + entry("a", "F32", "[2,2.0]", "[0,16]") + "}", 16, kInvalid,
       {"tensor a: shape dimension 1 is 2.0"}},
      {"dimension beyond int64", "{" + entry("a", "F32", "[99999999999999999999]", "[0,16]") + "}", 16, kInvalid,
       {"tensor a: shape dimension 0 is 99999999999999999999"}},
      {"element count overflows", "{" + entry("a", "F32", "[4294967296,4294967296,2]", "[0,16]") + "}", 16,
       kInvalid, {"tensor a: shape [4294967296, 4294967296, 2] has more elements than fit in 64 bits"}},
      {"byte count overflows", "{" + entry("a", "F32", "[4611686018427387904,2]", "[0,16]") + "}", 16, kInvalid,
       {"tensor a: shape [4611686018427387904, 2] holds more bytes than fit in 64 bits"}},
      {"metadata not an object", "{\"__metadata__\":[],\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}",
       4, kInvalid, {"__metadata__ must be an object of strings, got an array"}},
      {"metadata value not a string", "{\"__metadata__\":{\"format\":1}}", 0, kInvalid,
       {"__metadata__ entry \"format\" must be a string, got a number"}},
      {"metadata twice", "{\"__metadata__\":{},\"__metadata__\":{}}", 0, kInvalid,
       {"__metadata__ appears more than once"}},
  };
  for (const HostileHeader& c : cases) {
    const std::string fault = c.fault;
    CAPTURE(fault);
    auto r = parse_with_data(c.header, c.data_length);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == c.code);
    CHECK(r.error().message.rfind("safetensors header: ", 0) == 0);
    for (const std::string& part : c.message_parts) {
      CHECK_MESSAGE(r.error().message.find(part) != std::string::npos, r.error().message);
    }
  }
}

TEST_CASE("a header longer than the file is rejected before it is parsed") {
  auto r = parse_header("{}", 5);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK(r.error().message.find("does not fit in the 5-byte file") != std::string::npos);
}

TEST_CASE("every problem of a header is listed in one message") {
  const std::string header = "{" + entry("a", "F32", "[2,3]", "[0,16]") + "," +  // size mismatch
                             entry("b", "F16", "[3]", "[18,24]") + "," +         // gap before it
                             entry("c", "U8", "[2]", "[24,26]") + "," +          // unsupported dtype
                             "\"d\":[]}";                                        // not an object
  auto r = parse_with_data(header, 30);                                          // 4 trailing bytes
  REQUIRE_FALSE(r.ok());
  // A malformed file is invalid_checkpoint even when one of its tensors also has an unknown dtype.
  CHECK(r.error().code == ErrorCode::kInvalidCheckpoint);
  const std::string& m = r.error().message;
  CHECK_MESSAGE(m.find("5 problems") != std::string::npos, m);
  for (const char* part : {"tensor a: shape [2, 3] of F32 needs 24 bytes", "bytes [16, 18)", "tensor c has dtype U8",
                           "tensor d: expected an object", "4 trailing bytes"}) {
    CHECK_MESSAGE(m.find(part) != std::string::npos, m);
  }
}

TEST_CASE("both reference fixture checkpoints have valid headers") {
  struct Fixture {
    const char* name;
    size_t tensors;
    laya::DType matrix_dtype;
  };
  for (const Fixture& f : {Fixture{"tiny-fanin", 62, laya::DType::kF32}, Fixture{"small-fanin", 74, laya::DType::kF16}}) {
    const std::string name = f.name;
    CAPTURE(name);
    auto file = read_file(std::string(LAYA_FIXTURES_DIR) + "/reference/" + f.name + "/checkpoint/model.safetensors");
    auto header = parse_file_header(file);
    REQUIRE_MESSAGE(header.ok(), header.error().message);
    const auto& h = header.value();
    CHECK(h.tensors.size() == f.tensors);
    CHECK(h.data_offset + h.data_length == file.size());
    const auto* emb = h.find("encoder.embeddings.tok_embeddings.weight");
    REQUIRE(emb != nullptr);
    CHECK(emb->dtype == f.matrix_dtype);
    CHECK(emb->begin == 0);
    const auto* temperature = h.find("temperature");
    REQUIRE(temperature != nullptr);
    CHECK(temperature->dtype == laya::DType::kF32);
    CHECK(temperature->end == h.data_length);
  }
}

TEST_CASE("truncated and corrupted copies of a real header are rejected or parsed, never crash") {
  auto file = read_file(std::string(LAYA_FIXTURES_DIR) + "/reference/tiny-fanin/checkpoint/model.safetensors");
  auto n = read_header_length(std::span<const std::byte, 8>(file.data(), 8), file.size());
  REQUIRE(n.ok());
  const std::string header(reinterpret_cast<const char*>(file.data()) + 8, n.value());
  int truncated_accepted = 0;
  for (size_t len = 0; len < header.size(); len += 3) {
    truncated_accepted += parse_header(header.substr(0, len), file.size()).ok();
  }
  CHECK(truncated_accepted == 0);
  // Single-byte corruptions: most are rejected; those that parse must still describe tensors that
  // tile the data section. Some must parse (a changed letter of a name or of the metadata), or the
  // tiling check below never ran.
  size_t corrupted_accepted = 0;
  for (size_t i = 0; i < header.size(); i += 5) {
    for (char c : {'"', '{', ']', '9', '-', ' ', 'e'}) {
      std::string corrupted = header;
      corrupted[i] = c;
      auto r = parse_header(corrupted, file.size());
      if (!r.ok()) continue;
      ++corrupted_accepted;
      uint64_t covered = 0;
      for (const auto& t : r.value().tensors) covered += t.byte_size();
      CHECK(covered == r.value().data_length);
    }
  }
  CHECK(corrupted_accepted > 0);
}
