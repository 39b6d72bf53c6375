// The kernel tables: complete, each kernel named after its function (LAYA_KERNEL), so for its op,
// instruction set and, where it reads one weight dtype only, that dtype; and kSimd128 falling back to
// the scalar table where this build has no SIMD128 kernels.
#include "kernels/kernel_table.h"

#include <doctest/doctest.h>

#include <string>

namespace laya::kernels {
namespace {

// Each weight dtype with the tag kernel names use for it.
struct DtypeTag {
  DType dtype;
  const char* tag;
};
constexpr DtypeTag kDtypes[] = {{DType::kF32, "_f32_"}, {DType::kF16, "_f16_"}, {DType::kBF16, "_bf16_"},
                                {DType::kI8, "_q8_"}};

// What a kernel's name should say beyond its op and instruction set.
enum class Dtypes { kNotPerDtype, kOne, kEvery };

// Calls f(op, what, dtypes, dtype tag or "", kernel of t, the scalar table's kernel for the same op and
// dtype) for every kernel of t, so a check sees each entry beside its scalar counterpart.
template <class F>
void for_each_kernel(const KernelTable& t, F f) {
  const KernelTable& s = scalar_kernel_table();
  const auto by_dtype = [&](const char* op, const auto& of_t, const auto& of_s) {
    for (const DtypeTag& d : kDtypes) {
      const auto& k = of_t.of(d.dtype);
      int users = 0;
      for (const DtypeTag& other : kDtypes) users += of_t.of(other.dtype).fn == k.fn ? 1 : 0;
      const Dtypes dtypes = users == 1 ? Dtypes::kOne : Dtypes::kEvery;
      f(op, std::string(op) + " " + dtype_name(d.dtype), dtypes, d.tag, k, of_s.of(d.dtype));
    }
  };
  const auto single = [&](const char* op, const auto& k_t, const auto& k_s) {
    f(op, op, Dtypes::kNotPerDtype, "", k_t, k_s);
  };
  by_dtype("embed", t.embed, s.embed);
  single("layer_norm", t.layer_norm, s.layer_norm);
  by_dtype("gemm", t.gemm, s.gemm);
  single("quantize_activations", t.quantize_activations, s.quantize_activations);
  single("int8_gemm", t.int8_gemm, s.int8_gemm);
  single("rope", t.rope, s.rope);
  single("attention", t.attention, s.attention);
  single("geglu", t.geglu, s.geglu);
  by_dtype("add_type", t.add_type, s.add_type);
  single("gather_markers", t.gather_markers, s.gather_markers);
  single("act_features", t.act_features, s.act_features);
  single("mean_pool", t.mean_pool, s.mean_pool);
}

}  // namespace

TEST_CASE("every kernel of both tables is present and named for its op, instruction set and dtype") {
  for (Isa isa : {Isa::kScalar, Isa::kSimd128}) {
    const KernelTable& t = kernel_table(isa);
    const std::string suffix = std::string("_") + isa_name(t.isa);
    int own = 0;
    for_each_kernel(t, [&](const std::string& op, const std::string& what, Dtypes dtypes, const char* dtype_tag,
                           const auto& k, const auto& scalar) {
      INFO(isa_name(isa) << " " << what << ": " << k.name);
      REQUIRE((k.fn != nullptr));  // in parentheses: doctest cannot print a function pointer
      const std::string name = k.name;
      CHECK(name.starts_with(op + "_"));
      // A kernel the SIMD128 table borrows from the scalar table keeps its scalar name, so a step's
      // name says it runs the scalar kernel; every other kernel is named for its table's isa.
      const bool borrowed = k.fn == scalar.fn;
      if (borrowed) CHECK(name == scalar.name);
      CHECK(name.ends_with(borrowed ? "_scalar" : suffix));
      // A kernel written for one weight dtype names it; one that reads every dtype names none.
      if (dtypes == Dtypes::kOne) CHECK(name.find(dtype_tag) != std::string::npos);
      if (dtypes == Dtypes::kEvery) {
        for (const DtypeTag& d : kDtypes) CHECK(name.find(d.tag) == std::string::npos);
      }
      own += borrowed ? 0 : 1;
    });
    CHECK((t.gemm_scratch_floats != nullptr));
    CHECK((t.int8_gemm_scratch_floats != nullptr));
    CHECK((t.attention_scratch_floats != nullptr));
    // Only the SIMD128 table has kernels of its own: GEMM in 4 dtypes, the activation quantizer and
    // the integer GEMM, LayerNorm, RoPE, attention, GeGlu; the others have no SIMD twin.
    CHECK(own == (t.isa == Isa::kSimd128 ? 10 : 0));
  }
}

TEST_CASE("LAYA_KERNEL names a kernel after its function") {
  const Kernel<GeGluFn> k = LAYA_KERNEL(geglu_f32_scalar);
  CHECK((k.fn == &geglu_f32_scalar));
  CHECK(std::string(k.name) == "geglu_f32_scalar");
}

TEST_CASE("kSimd128 gives the SIMD128 table where this build has it, and the scalar table elsewhere") {
  CHECK(kernel_table(Isa::kScalar).isa == Isa::kScalar);
  CHECK(&kernel_table(Isa::kScalar) == &scalar_kernel_table());
  if (simd128_compiled()) {
    CHECK(kernel_table(Isa::kSimd128).isa == Isa::kSimd128);
  } else {
    CHECK(&kernel_table(Isa::kSimd128) == &scalar_kernel_table());
  }
  CHECK(kernel_table(best_isa()).isa == best_isa());
}

TEST_CASE("a per-dtype kernel is looked up by the weights' dtype, q8 for kI8") {
  const KernelTable& t = kernel_table(Isa::kScalar);
  CHECK(&t.gemm.of(DType::kF32) == &t.gemm.f32);
  CHECK(&t.gemm.of(DType::kF16) == &t.gemm.f16);
  CHECK(&t.gemm.of(DType::kBF16) == &t.gemm.bf16);
  CHECK(&t.gemm.of(DType::kI8) == &t.gemm.q8);
}

}  // namespace laya::kernels
