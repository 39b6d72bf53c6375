// Session::finish_weights failing after plan_weights allocated the data section: tiny-fanin with a
// NaN in a norm weight, which the binder refuses (laya/model.h). The error is invalid_checkpoint
// naming the tensor, the buffer is released (the memory report is empty, the allocator's bytes in
// use drop back, and 20 more failures leave exactly as many C++ objects alive), and the same
// session then loads the good file and answers.
#include "session/session.h"

#include <doctest/doctest.h>
#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "safetensors/header.h"
#include "session/fixture_files.h"
#include "util/json.h"

// Live C++ allocations in this test executable: every form the library may call is replaced, so
// that what one allocates the matching one frees. (GCC's -Wmismatched-new-delete cannot see that
// these replacements pair malloc with free.) The weights buffer itself is C memory (aligned_alloc),
// seen through mallinfo below.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
namespace {
std::atomic<long> g_live{0};
void* counted(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p != nullptr) g_live.fetch_add(1, std::memory_order_relaxed);
  return p;
}
void release(void* p) {
  if (p == nullptr) return;
  g_live.fetch_sub(1, std::memory_order_relaxed);
  std::free(p);
}
}  // namespace

void* operator new(std::size_t n) {
  if (void* p = counted(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }

namespace laya {
namespace {

const std::string kTiny = testing::reference_dir("tiny-fanin") + "/checkpoint";

// Bytes the C allocator has handed out (heap chunks and mmapped blocks). glibc counts chunks parked
// in its per-thread cache as in use, so this is compared with a margin, far below the 1 MB buffer.
size_t heap_in_use() {
#if defined(__GLIBC__)
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
#else
  const struct mallinfo info = mallinfo();
  return static_cast<size_t>(info.uordblks) + static_cast<size_t>(info.hblkhd);
#endif
}

void* volatile g_sink;  // keeps the probe allocation from being optimised away

// Whether heap_in_use() sees this program's allocations (a sanitizer's allocator bypasses it).
bool heap_measurable() {
  const size_t before = heap_in_use();
  g_sink = std::malloc(size_t{1} << 20);
  const size_t during = heap_in_use();
  std::free(g_sink);
  return during >= before + (size_t{1} << 20);
}

// tiny-fanin's model.safetensors with element 17 of encoder.final_norm.weight (F32) set to NaN.
std::string file_with_nan_norm() {
  std::string file = testing::read_file(kTiny + "/model.safetensors");
  auto header = safetensors::parse_file_header(std::span(reinterpret_cast<const std::byte*>(file.data()), file.size()));
  REQUIRE(header.ok());
  const safetensors::TensorEntry* norm = header.value().find("encoder.final_norm.weight");
  REQUIRE(norm != nullptr);
  REQUIRE(norm->dtype == DType::kF32);
  const uint32_t nan = 0x7FC00000u;
  std::memcpy(file.data() + header.value().data_offset + norm->begin + 17 * 4, &nan, 4);  // little-endian host
  return file;
}

// As the TypeScript loader does it: plan from the header, write the data section where the plan
// says, bind.
Status load_file(Session& session, const std::string& file) {
  auto bytes = std::span(reinterpret_cast<const std::byte*>(file.data()), file.size());
  auto needed = session.header_bytes_needed(bytes.first(8), file.size());
  REQUIRE(needed.ok());
  auto plan = session.plan_weights(bytes.first(needed.value()), file.size());
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
  std::memcpy(plan.value().pointer, file.data() + plan.value().data_offset, plan.value().data_length);
  return session.finish_weights();
}

TEST_CASE("finish_weights refusing planned weights frees them, and the same session then loads good weights") {
  Session session;
  testing::configure_from(session, kTiny);
  const std::string bad = file_with_nan_norm();
  const std::string good = testing::read_file(kTiny + "/model.safetensors");
  const size_t data_length = good.size() - 8 - 1024;  // at least: the header is shorter than 1 KiB
  const bool measurable = heap_measurable();
  const size_t configured = heap_in_use();

  Status failed = load_file(session, bad);
  const size_t after_failure = heap_in_use();
  const long live_after_failure = g_live.load();
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK(failed.error().message ==
        "model.safetensors: encoder.final_norm.weight holds nan at element 17; a norm weight or bias that is not "
        "finite makes every output non-finite");
  CHECK_FALSE(session.ready());
  const MemoryReport report = session.memory();
  CHECK(report.weights_bytes == 0);
  CHECK(report.arena_bytes == 0);

  int refused = 0;
  for (int i = 0; i < 20; ++i) refused += load_file(session, bad).ok() ? 0 : 1;
  const size_t after_more = heap_in_use();
  CHECK(refused == 20);
  CHECK(g_live.load() == live_after_failure);  // nothing bind_model or the plan built is left behind
  if (measurable) {
    // The data section (over 1 MB) is not held after the first failure, nor after 20 more.
    CHECK(after_failure < configured + data_length / 16);
    CHECK(after_more < after_failure + data_length / 16);
  } else {
    MESSAGE("this allocator is not visible to mallinfo (a sanitizer build): the C byte counts are not checked");
  }

  Status loaded = load_file(session, good);
  REQUIRE_MESSAGE(loaded.ok(), (loaded.ok() ? "" : loaded.error().message));
  CHECK(session.ready());
  CHECK(session.memory().weights_bytes >= data_length);
  auto questions = json::parse(R"({"q": {"type": "choice", "instructions": "w7 w8", "criteria": ["w9", "w10"]}})", "q");
  REQUIRE(questions.ok());
  auto answer = session.predict(json::Value::string("w5 w6"), questions.value(), decide::Dialect::current());
  REQUIRE_MESSAGE(answer.ok(), (answer.ok() ? "" : answer.error().message));
  CHECK(answer.value().find("\"choice\": \"w") != std::string::npos);
}

}  // namespace
}  // namespace laya
