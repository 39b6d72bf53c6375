#!/usr/bin/python3
"""Writes the reference tables the cpp/decide tests check against, computed by CPython and numpy
(the independent reference for upstream's number handling): Python float repr / json.dumps /
round, Python str repr, numpy float32 exp / log and pairwise sums.

Run with Debian's interpreter, which has numpy: /usr/bin/python3 scripts/decide_reference_tables.py
Needs an x86-64 CPU with AVX2+FMA3 or AVX512F so that numpy takes its SIMD exp/log loops (the ones
upstream runs on). Output: tests/data/decide/*.jsonl, one JSON object per line.
"""
import json
import math
import os
import random
import struct
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "decide")


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_f32(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def f64_from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def write(name, rows):
    with open(os.path.join(OUT, name), "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=True) + "\n")
    print("wrote", name, len(rows), "lines")


def python_floats(rng):
    texts = ["0.0", "-0.0", "1.0", "1", "0.1", "0.5", "1e-05", "0.0001", "0.00012", "1e16", "1e+16",
             "9999999999999998.0", "1234567890123456.0", "12345678901234567.0", "1e22", "1e23",
             "1.5e300", "1e308", "1.7976931348623157e308", "1e400", "-1e400", "5e-324", "2.5e-324",
             "1e-400", "2.2250738585072014e-308", "2.225073858507201e-308", "123.456", "100000.0",
             "0.3", "2.675", "1e-7", "1.5e-07", "3.14159", "-2.5", "4.35", "0.1234567890123456789",
             "9007199254740993", "9007199254740993.0", "1E5", "1e5", "-1e-05", "6.02214076e23"]
    for e in range(-330, 310, 7):
        texts.append("1e%d" % e)
    values = []
    for _ in range(1500):  # random bit patterns over every binade
        b = rng.getrandbits(64)
        x = f64_from_bits(b)
        if math.isfinite(x):
            values.append(x)
    for e in range(-1074, 1024, 3):  # powers of two and their neighbours: lopsided intervals
        p = math.ldexp(1.0, e)
        values += [p, math.nextafter(p, 0), math.nextafter(p, math.inf)]
    for _ in range(500):
        values.append(rng.random() * 10 ** rng.randint(-8, 20))
    texts += ["%.17g" % v for v in values]
    rows = []
    for t in texts:
        x = float(t)
        rows.append({"text": t, "repr": repr(x), "json": json.dumps(x),
                     "round4": repr(round(x, 4)) if math.isfinite(x) else repr(x)})
    return rows


def python_rounds(rng):
    xs = [m / 32 for m in range(-64, 65)]  # exact ties at the fifth decimal
    xs += [m / 100000 for m in range(0, 200001, 37)]
    xs += [rng.random() for _ in range(3000)]
    xs += [float(np.float32(rng.random())) for _ in range(3000)]
    xs += [0.00005, 0.00015, 0.99995, 0.49995, 1e-20, -1e-20, 123456.78905]
    return [{"x": "%.17g" % x, "round4": repr(round(x, 4))} for x in xs]


def python_str_reprs():
    cps = list(range(0, 0x100)) + [0x100, 0x37e, 0x600, 0x61c, 0x6dd, 0x1680, 0x180e, 0x2000, 0x200a,
                                   0x200b, 0x200f, 0x2010, 0x2027, 0x2028, 0x2029, 0x202a, 0x202f,
                                   0x2030, 0x205f, 0x2060, 0x2066, 0x206f, 0x3000, 0x3001, 0x4e2d,
                                   0xe000, 0xf8ff, 0xf900, 0xfdd0, 0xfeff, 0xfff9, 0xfffc, 0xfffd,
                                   0xfffe, 0xffff, 0x1f600, 0x1fffe, 0xe0001, 0xe0100, 0xf0000,
                                   0x10ffff]
    rows = [{"s": chr(c), "repr": repr(chr(c))} for c in cps]
    for s in ["q", "it's", 'say "hi"', "both ' and \"", "back\\slash", "tab\tnew\nline\r",
              "caf\u00e9 \u4e2d\u6587 \U0001f600", "", "'", '"', "\x00\x7f"]:
        rows.append({"s": s, "repr": repr(s)})
    return rows


def numpy_exp_log(rng):
    rows = []
    exp_in = [0.0, -0.0, 1.0, -1.0, 88.72283935546875, 88.7228, 88.8, -103.97208404541015625,
              -103.9, -104.0, -87.3, -87.4, -100.0, -126.0 * math.log(2), math.inf, -math.inf]
    exp_in += [rng.uniform(-110.0, 90.0) for _ in range(3000)]
    exp_in += [rng.uniform(-40.0, 0.0) for _ in range(3000)]  # z - max z of a softmax
    exp_in += [rng.uniform(-1e-3, 1e-3) for _ in range(300)]
    x = np.array(exp_in, dtype=np.float32)
    y = np.exp(x)
    rows += [{"f": "exp", "x": "%08x" % f32_bits(a), "y": "%08x" % f32_bits(b)} for a, b in zip(x, y)]
    log_in = [1.0, 0.5, 2.0, 1e-12, 0.70710677, 0.70710683, 1.4142135, 3.4028235e38, 1.1754944e-38,
              1e-40, 1.4e-45, math.inf]
    log_in += [10 ** rng.uniform(-12.0, 0.0) for _ in range(3000)]  # clipped probabilities
    log_in += [bits_f32(rng.randrange(1, 0x7f800000)) for _ in range(3000)]
    x = np.array(log_in, dtype=np.float32)
    y = np.log(x)
    rows += [{"f": "log", "x": "%08x" % f32_bits(a), "y": "%08x" % f32_bits(b)} for a, b in zip(x, y)]
    return rows


def numpy_sums(rng):
    rows = []
    lengths = list(range(1, 20)) + [63, 64, 65, 127, 128, 129, 130, 200, 255, 256, 257, 300, 1000, 1030]
    for n in lengths:
        a = np.array([rng.uniform(-1, 1) * 10 ** rng.randint(-6, 6) for _ in range(n)], dtype=np.float32)
        rows.append({"dtype": "f32", "x": ["%08x" % f32_bits(v) for v in a], "sum": "%08x" % f32_bits(a.sum())})
        d = np.array([rng.uniform(-1, 1) * 10 ** rng.randint(-6, 6) for _ in range(n)], dtype=np.float64)
        rows.append({"dtype": "f64", "x": [repr(float(v)) for v in d], "sum": repr(float(d.sum()))})
    return rows


def main():
    if sys.version_info < (3, 8):
        sys.exit("needs Python 3.8+")
    rng = random.Random(20261202)
    os.makedirs(OUT, exist_ok=True)
    write("python_floats.jsonl", python_floats(rng))
    write("python_rounds.jsonl", python_rounds(rng))
    write("python_str_reprs.jsonl", python_str_reprs())
    write("numpy_exp_log.jsonl", numpy_exp_log(rng))
    write("numpy_sums.jsonl", numpy_sums(rng))


if __name__ == "__main__":
    main()
