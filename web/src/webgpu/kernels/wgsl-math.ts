// exp, erf and the exact GELU in WGSL: the wasm SIMD kernels' fits (cpp/kernels/simd128_math.h,
// coefficients from tools/simd128-math-fit/fit.py), because WGSL has no erf and its exp only promises
// 3 + 2·|x| ulp. exp is max 1 ulp; erf max 1.8 ulp; GELU within 1.3e-7 · max(1, |y|).
export const kWgslMath = `
// e^x for x <= 88; 0 below ln(2^-126) (and for -inf).
fn exp_f32(x_in: f32) -> f32 {
  if (x_in < -87.3365478515625) { return 0.0; }
  let x = min(x_in, 88.0);
  let n = round(x * 1.44269504088896341);
  var r = x - n * 0.693145751953125;
  r = r - n * 1.428606765330187045e-06;
  let q = 0.499999881 + r * (0.166665182 + r * (0.0416695327 + r * (0.00836891588 + r * 0.00137514074)));
  let p = 1.0 + (r + (r * r) * q);
  return p * bitcast<f32>(u32(i32(n) + 127) << 23u);
}

fn erf_f32(x: f32) -> f32 {
  let a = abs(x);
  if (a < 1.0) {
    // x + x·p(x²): the leading term kept exact.
    let x2 = x * x;
    let p = 0.128379166 + x2 * (-0.376126289 + x2 * (0.112836123 + x2 * (-0.0268548094 + x2 * (0.00519005349
      + x2 * (-0.000802435388 + x2 * 7.89820988e-05)))));
    return x + x * p;
  }
  // 1 − e^(−x²)·q(1/x) on [1, 4]; erf rounds to 1 from 3.92 on.
  let c = min(a, 4.0);
  let t = 1.0 / c;
  let q = 2.5961348e-05 + t * (0.563719213 + t * (0.00301545812 + t * (-0.285186321 + t * (-0.0692685097
    + t * (0.899486005 + t * (-1.52405393 + t * (1.42400491 + t * (-0.810604155 + t * (0.264662623
    + t * -0.0382176042)))))))));
  let e = exp_f32(-(c * c));
  return select(1.0 - e * q, -(1.0 - e * q), x < 0.0);
}

// 0.5·x·(1 + erf(x·√½)), in PyTorch's order of operations (kernels/geglu.h).
fn gelu_f32(x: f32) -> f32 {
  return (0.5 * x) * (1.0 + erf_f32(x * 0.70710678118654752440));
}
`;
