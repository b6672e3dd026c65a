"""CPU benchmark: writing pre-training instances in shards, and whether memory stays flat.

Writes the instances of the course corpus (`data/corpus/train.txt`, made by `make setup`) and of
the same corpus repeated `--scale` times with its documents shuffled each time, with `--workers`
processes, and reports instances/s (in all and per worker) and the peak resident memory of the
main process and of the largest worker. Memory must not grow with the corpus: a shard holds
`docs_per_shard` documents, and at most 2 shards per worker are in flight.

Each size runs in a fresh process, so one peak does not hide the other.

Run:  python benchmarks/shards.py                  # 1x and 20x
      python benchmarks/shards.py --scales 1 4 --workers 1
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import write_results

ONE_RUN = """
import json, resource, sys, time
from minibert.hub import minilm_path
from minibert.pretrain.shards import write_shards
corpus, out, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
t0 = time.perf_counter()
totals = write_shards(corpus, out, vocab=minilm_path() / "vocab.txt", workers=workers)
seconds = time.perf_counter() - t0
print(json.dumps(dict(totals, seconds=seconds,
                      main_peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      worker_peak_mb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)))
"""


def scaled_corpus(source: Path, scale: int, path: Path, seed: int = 0) -> int:
    """`source` repeated `scale` times, the documents shuffled each time; returns its size in bytes."""
    documents = source.read_text(encoding="utf-8").strip("\n").split("\n\n")
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(scale):
            rng.shuffle(documents)
            f.write("\n\n".join(documents) + "\n\n")
    return path.stat().st_size


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", type=Path, default=Path("data/corpus/train.txt"))
    p.add_argument("--scales", type=int, nargs="+", default=[1, 20])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = p.parse_args()
    if not args.corpus.is_file():
        raise SystemExit(f"no corpus at {args.corpus}: run `make setup` (or python -m minibert.corpus prepare)")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for scale in args.scales:
            corpus = Path(tmp) / f"corpus-{scale}x.txt"
            size = scaled_corpus(args.corpus, scale, corpus)
            run = subprocess.run([sys.executable, "-c", ONE_RUN, str(corpus), f"{tmp}/out-{scale}x",
                                  str(args.workers)], capture_output=True, text=True, check=True)
            r = dict(json.loads(run.stdout.strip().splitlines()[-1]), scale=scale, mb=size / 1e6)
            results.append(r)
            corpus.unlink()
    print(f"{args.workers} workers\n")
    print("| corpus | MB | instances | seconds | instances/s | per worker | main peak MB | worker peak MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        rate = r["instances"] / r["seconds"]
        print(f"| {r['scale']}x | {r['mb']:.0f} | {r['instances']:,} | {r['seconds']:.1f} | {rate:,.0f} "
              f"| {rate / args.workers:,.0f} | {r['main_peak_mb']:.0f} | {r['worker_peak_mb']:.0f} |")
    write_results(args.json, results)


if __name__ == "__main__":
    main()
