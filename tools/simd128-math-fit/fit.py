#!/usr/bin/python3
"""Fits the polynomial coefficients of cpp/kernels/simd128_math.h and prints their f32 error on
dense grids.

Run with Debian's /usr/bin/python3 (numpy). Least squares at Chebyshev nodes, weighted for relative
error, against Python's double-precision math.exp / math.erf / math.erfc; then the f32 evaluation
is simulated exactly as the vector code does it (Horner in f32, same reductions) and its worst error
in ulps is printed. Output: the coefficient lists pasted into cpp/kernels/simd128_math.h.
"""
import math

import numpy as np

f32 = np.float32


def cheb_nodes(a, b, n):
    k = np.arange(n)
    return (a + b) / 2 + (b - a) / 2 * np.cos((2 * k + 1) * np.pi / (2 * n))


def fit(xs, ys, deg, weights):
    v = np.vander(xs, deg + 1, increasing=True)
    c, *_ = np.linalg.lstsq(v * weights[:, None], ys * weights, rcond=None)
    return c


def horner32(c, x):
    acc = f32(c[-1]) * np.ones_like(x)
    for ci in c[-2::-1]:
        acc = (acc * x + f32(ci)).astype(f32)
    return acc


# exp(r) = 1 + r + r^2 q(r) on [-ln2/2, ln2/2]
half_ln2 = math.log(2) / 2
xs = cheb_nodes(-half_ln2, half_ln2, 400)
exp_q = fit(xs, (np.exp(xs) - 1 - xs) / xs**2, 4, xs**2 / np.exp(xs))


def exp32(x):
    x = np.asarray(x, f32)
    n = np.rint((x * f32(1.44269504088896341)).astype(f32)).astype(f32)
    r = (x - n * f32(0.693145751953125)).astype(f32)
    r = (r - n * f32(1.428606765330187045e-06)).astype(f32)
    p = (f32(1) + (r + ((r * r).astype(f32) * horner32(exp_q, r)).astype(f32)).astype(f32)).astype(f32)
    return (p * np.ldexp(f32(1), n.astype(np.int32)).astype(f32)).astype(f32)


# erf(x) = x + x p(x^2) on [0, 1]
xs = cheb_nodes(0, 1, 600)
erf_small = fit(xs**2, np.array([math.erf(v) / v for v in xs]), 6, np.array([v / math.erf(v) for v in xs]))
erf_small[0] -= 1.0
# erfc(x) e^(x^2) = q(1/x) on [1, 4]
xs = cheb_nodes(1, 4, 800)
ys = np.array([math.erfc(v) * math.exp(v * v) for v in xs])
erf_tail = fit(1 / xs, ys, 10, 1 / ys)


def erf32(x):
    x = np.asarray(x, f32)
    a = np.abs(x).astype(f32)
    small = (x + (x * horner32(erf_small, (x * x).astype(f32))).astype(f32)).astype(f32)
    c = np.minimum(np.maximum(a, f32(1)), f32(4)).astype(f32)
    q = horner32(erf_tail, (f32(1) / c).astype(f32))
    big = np.copysign((f32(1) - (exp32(-(c * c).astype(f32)) * q).astype(f32)).astype(f32), x).astype(f32)
    return np.where(a < f32(1), small, big).astype(f32)


def ulps(got, want):
    return np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want).astype(f32)).astype(np.float64)


xs = np.linspace(-87, 88, 2000001).astype(f32)
print("exp: max error %.3f ulp" % ulps(exp32(xs), np.exp(xs.astype(np.float64))).max())
xs = np.concatenate([np.linspace(-6, 6, 3000001), np.logspace(-30, 0.8, 20000)]).astype(f32)
print("erf: max error %.3f ulp" % ulps(erf32(xs), np.array([math.erf(float(v)) for v in xs])).max())
gelu = (f32(0.5) * xs * (f32(1) + erf32((xs * f32(0.70710678118654752440)).astype(f32)))).astype(np.float64)
exact = 0.5 * xs.astype(np.float64) * (1 + np.array([math.erf(float(v) / math.sqrt(2)) for v in xs]))
print("gelu: max |error| / max(1, |y|) %.3g" % np.max(np.abs(gelu - exact) / np.maximum(1, np.abs(exact))))
for name, c in (("exp q", exp_q), ("erf small", erf_small), ("erf tail", erf_tail)):
    print(name + ":", ", ".join("%.9gf" % f32(v) for v in c))
