"""CPU benchmark: minibert's fast tokenizer vs the raw Hugging Face `tokenizers` library, same text.

Measures MB/s of UTF-8 text, batch-encoding every line of real English text (`real_text.py`:
Python's help topics, then the installed packages' descriptions; ~28k lines, ~1.6 MB):
  * single texts: minibert `tok(lines)` against raw `encode_batch(lines)` plus reading `ids`,
    `type_ids` and `attention_mask` of every encoding, the same lists minibert returns (headline);
  * the same, against raw `encode_batch(lines)` alone: Rust objects, nothing read into Python;
  * pairs (consecutive lines): `tok(firsts, seconds)` against raw `encode_batch` of the zipped
    pairs plus the three fields;
  * the pure-Python reference (`fast=False`) once, on a subset, against the fast path there:
    why the fast path exists.
The raw tokenizer is the `tokenizer.json` shipped with all-MiniLM-L6-v2 (same uncased vocab as
minibert's), its truncation and padding switched off so both do the same work; the two must give
identical input_ids on every line before anything is timed. Calls are interleaved in rounds,
reversing the order each round; ratio = median of per-round ratios of minibert's MB/s to raw's.

Run:  python benchmarks/tokenizer.py
      python benchmarks/tokenizer.py --lines 2000 --rounds 3 --reference-lines 200 --threads 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import tokenizers

import minibert
from real_text import real_lines
from timing import interleaved, paired_ratio, ratio_cell, write_results


def load_raw(path) -> tokenizers.Tokenizer:
    """The model's own Rust tokenizer, its truncation and padding to 128 off, like minibert's defaults."""
    raw = tokenizers.Tokenizer.from_file(str(path))
    raw.no_truncation()
    raw.no_padding()
    return raw


def raw_fields(raw: tokenizers.Tokenizer, inputs: list) -> dict[str, list]:
    """Raw `encode_batch`, read into the Python lists minibert returns."""
    encodings = raw.encode_batch(inputs)
    return {"input_ids": [e.ids for e in encodings], "token_type_ids": [e.type_ids for e in encodings],
            "attention_mask": [e.attention_mask for e in encodings]}


def summarise(times: dict[str, list[float]], mb: float, ours: str, base: str) -> dict:
    """Median MB/s of each, and ours/base as the median of per-round ratios: pairing the calls of a
    round cancels drifts in machine load that a ratio of two medians would keep."""
    ratio, iqr = paired_ratio(times[ours], times[base])
    return dict(ours_mb_per_s=mb / statistics.median(times[ours]),
                base_mb_per_s=mb / statistics.median(times[base]), ratio=ratio, ratio_iqr=iqr)


def reference_speed(tok, vocab_path, subset: list[str], args) -> dict:
    """MB/s of the pure-Python reference, one call on `subset`, and of the fast path there."""
    reference = minibert.Tokenizer.from_vocab(vocab_path, lowercase=True, fast=False)
    t0 = time.perf_counter()
    ref_ids = reference(subset)["input_ids"]
    ref_s = time.perf_counter() - t0
    if ref_ids != tok(subset)["input_ids"]:
        raise SystemExit("the reference and the fast path give different input_ids")
    fast_s = statistics.median(interleaved({"ours": lambda: tok(subset)}, args.warmup, args.rounds)["ours"])
    mb = megabytes(subset)
    return dict(lines=len(subset), mb=mb, reference_mb_per_s=mb / ref_s, fast_mb_per_s=mb / fast_s,
                fast_over_reference=ref_s / fast_s)


def megabytes(texts: list[str]) -> float:
    """Size of the texts in UTF-8, in MB (10**6 bytes)."""
    return sum(len(t.encode("utf-8")) for t in texts) / 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=7, help="timed rounds (one call of each per round)")
    p.add_argument("--warmup", type=int, default=1, help="untimed calls of each first")
    p.add_argument("--lines", type=int, default=None, help="use the first N lines (default: all)")
    p.add_argument("--reference-lines", type=int, default=3000,
                   help="lines for the one timed call of the pure-Python reference")
    p.add_argument("--threads", type=int, default=None,
                   help="RAYON_NUM_THREADS, the Rust thread pool of tokenizers (default: one per CPU)")
    p.add_argument("--json", metavar="PATH", help="also write the results dict as JSON")
    args = p.parse_args()
    if args.threads:  # read by rayon when it builds its pool, at the first parallel call: not yet
        os.environ["RAYON_NUM_THREADS"] = str(args.threads)
    threads = os.environ.get("RAYON_NUM_THREADS") or f"default ({os.cpu_count()} CPUs)"

    lines = real_lines()[:args.lines]
    firsts, seconds = lines[0::2][:len(lines) // 2], lines[1::2]
    zipped = list(zip(firsts, seconds))
    mb, mb_pairs = megabytes(lines), megabytes(firsts + seconds)
    folder = minibert.minilm_path()
    tok = minibert.Tokenizer.from_vocab(folder / "vocab.txt", lowercase=True, fast=True)
    raw = load_raw(folder / "tokenizer.json")
    print(f"tokenizers {tokenizers.__version__}, threads {threads}")
    print(f"text: {len(lines):,} lines, {mb:.2f} MB ({len(firsts):,} pairs, {mb_pairs:.2f} MB); "
          f"warm-up {args.warmup}, timed rounds {args.rounds}")

    # Sanity check: a benchmark of two tokenizers that disagree would mean nothing.
    ours_ids = tok(lines)["input_ids"]
    if (ours_ids != raw_fields(raw, lines)["input_ids"]
            or tok(firsts, seconds)["input_ids"] != raw_fields(raw, zipped)["input_ids"]):
        raise SystemExit("minibert and raw tokenizers give different input_ids: nothing to compare")
    print(f"input_ids identical on every line and pair ({sum(map(len, ours_ids)):,} tokens)")

    single = interleaved({"ours": lambda: tok(lines), "raw": lambda: raw_fields(raw, lines),
                    "raw bare": lambda: raw.encode_batch(lines)}, args.warmup, args.rounds)
    pairs = interleaved({"ours": lambda: tok(firsts, seconds), "raw": lambda: raw_fields(raw, zipped)},
                  args.warmup, args.rounds)
    rows = {"single texts vs raw + fields": summarise(single, mb, "ours", "raw"),
            "single texts vs raw bare": summarise(single, mb, "ours", "raw bare"),
            "pairs vs raw + fields": summarise(pairs, mb_pairs, "ours", "raw")}

    ref = reference_speed(tok, folder / "vocab.txt", lines[:args.reference_lines], args)

    results = dict(tokenizers=tokenizers.__version__, threads=threads, lines=len(lines), mb=mb,
                   pairs=len(firsts), pairs_mb=mb_pairs, warmup=args.warmup, rounds=args.rounds,
                   comparisons=rows, reference=ref, seconds=dict(single=single, pairs=pairs))
    print()
    print("| measurement | minibert MB/s | tokenizers MB/s | minibert / tokenizers (IQR) |")
    print("|---|---:|---:|---:|")
    for name, r in rows.items():
        print(f"| {name} | {r['ours_mb_per_s']:.2f} | {r['base_mb_per_s']:.2f} | {ratio_cell(r)} |")
    print(f"\npure-Python reference (fast=False), {ref['lines']:,} lines, {ref['mb']:.2f} MB: "
          f"{ref['reference_mb_per_s']:.3f} MB/s; the fast path is {ref['fast_over_reference']:.0f}x faster there "
          f"({ref['fast_mb_per_s']:.2f} MB/s)")
    write_results(args.json, results)


if __name__ == "__main__":
    main()
