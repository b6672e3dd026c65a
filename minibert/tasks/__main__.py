"""`python -m minibert.tasks prepare [--out data/tasks] [--corpus data/corpus] [--cache data/cache]
[--cards data/cards/tasks] [--force]`, and `python -m minibert.tasks text NAME [--out FILE] [--force]`: a task's
training text without its labels, for task-adaptive pre-training."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..hub import FetchError
from .build import COURSE_TASKS, prepare, write_file
from .catalog import DATA_DIR, task_text
from .common import SPLITS, TaskError


def summary(manifest: dict) -> str:
    """The table printed at the end of a run: examples per split and the label balance of train."""
    lines = [f"{'task':<22}{'train':>8}{'dev':>8}{'test':>8}  train balance"]
    for task in COURSE_TASKS:
        counts = manifest["tasks"][task.name]["counts"]
        labels = counts["train"]["labels"]
        total = sum(labels.values())
        balance = ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in labels.items())
        lines.append(f"{task.name:<22}" + "".join(f"{counts[s]['examples']:>8,}" for s in SPLITS) + f"  {balance}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minibert.tasks", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="make the course's fine-tuning tasks and their cards")
    p.add_argument("--out", type=Path, default=Path("data/tasks"), help="where the tasks go (default data/tasks)")
    p.add_argument("--corpus", type=Path, default=Path("data/corpus"), help="the prepared course corpus")
    p.add_argument("--cache", type=Path, default=Path("data/cache"), help="downloaded packages (default data/cache)")
    p.add_argument("--cards", type=Path, default=Path("data/cards/tasks"), help="dataset cards")
    p.add_argument("--force", action="store_true", help="prepare again even if the output is up to date")
    t = sub.add_parser("text", help="write a task's training text without its labels, as a pre-training corpus")
    t.add_argument("name", help="a task, e.g. sentiment")
    t.add_argument("--data-dir", type=Path, default=None, help="where the task is (default data/tasks)")
    t.add_argument("--out", type=Path, default=None, help="the corpus file (default data/tasks/NAME/train.txt)")
    t.add_argument("--force", action="store_true", help="overwrite --out even if it holds other text")
    args = parser.parse_args(argv)
    if args.command == "text":
        return text(args)

    start = time.perf_counter()
    print(f"preparing the fine-tuning tasks in {args.out}", flush=True)
    try:
        manifest = prepare(args.out, args.corpus, args.cache, args.cards, force=args.force)
    except (TaskError, FetchError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(summary(manifest))
    changed = manifest["changed"]
    print(f"wrote {', '.join(changed)}" if changed else f"up to date: nothing written ({args.out})")
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0


def text(args) -> int:
    """`text NAME`: the train split's text, one document per example; dev and test are never written."""
    try:
        corpus = task_text(args.name, args.data_dir)
    except TaskError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    out = args.out or (args.data_dir or DATA_DIR) / args.name / "train.txt"
    data = corpus.encode("utf-8")
    if out.is_dir():
        print(f"error: --out {out} is a folder; give the file to write, e.g. {out / 'train.txt'}", file=sys.stderr)
        return 1
    if out.exists() and out.read_bytes() != data and not args.force:
        # A typo in --out must not cost a file: only the text this command writes is replaced silently.
        print(f"error: {out} exists and holds other text ({out.stat().st_size:,} bytes); nothing was written. "
              "Choose another --out, or pass --force to overwrite it.", file=sys.stderr)
        return 1
    write_file(out, data)  # whole or not at all
    print(f"wrote {out}: {corpus.count(chr(10) * 2):,} documents, {len(corpus.split()):,} words of {args.name}'s "
          "train split, labels left out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
