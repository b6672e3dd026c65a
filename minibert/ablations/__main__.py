"""`python -m minibert.ablations TABLE [TABLE ...] [--budget short] [--status] [--worker K/N]`

Pre-trains the variants of the paper's ablation tables (5, 6, 8; Table 7 uses a real BERT) on the
course corpus under one budget and seed set, fine-tunes each on the course's tasks, and writes
results/ablations/table-N.json cell by cell. Run it again to continue a run that was stopped.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..checkpoint import CheckpointError
from ..config import ConfigError, at_least, check_settings
from ..pretrain import TrainingDiverged
from ..training.cli import as_flag
from .budget import BUDGETS, budget
from .run import run_tables
from .store import RESULTS, ResultsError, progress, summary
from .tables import TABLES

SEEDS = at_least(1, "the number of seeds, 0 ... N-1, each pre-training and fine-tuning every variant anew; "
                    f"the short budget has {len(BUDGETS['short'].seeds)}")


def parser() -> argparse.ArgumentParser:
    about = " ".join(__doc__.split("\n\n")[1].split())  # the docstring's second paragraph, whole
    p = argparse.ArgumentParser(prog="python -m minibert.ablations", description=about,
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("tables", nargs="+", metavar="TABLE", help=f"any of {', '.join(TABLES)}, or 'all'")
    p.add_argument("--budget", default="short", help=f"one of {', '.join(BUDGETS)} (minibert/ablations/budget.py)")
    p.add_argument("--seeds", type=int, default=None, help=f"{SEEDS.text}: {SEEDS.why} (without it: the budget's)")
    p.add_argument("--out-dir", default="runs/ablations", help="where the pre-trained and fine-tuned models go")
    p.add_argument("--results", default=str(RESULTS), help="where the tables' results files go")
    p.add_argument("--status", action="store_true", help="only say how much of each table is filled")
    p.add_argument("--summary", action="store_true", help="only print the stored tables (mean ± sd over seeds, [the paper])")
    p.add_argument("--columns-only", action="store_true",
                   help="only measure the columns that stored cells lack (a column added since); start no new cell")
    p.add_argument("--worker", default="0/1", help="K/N: run the K-th of N shares of the work (N processes at once)")
    return p


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parser().parse_args(argv)
    tables = list(TABLES) if args.tables == ["all"] else args.tables
    try:
        if unknown := [t for t in tables if t not in TABLES]:
            raise ConfigError(f"no table {', '.join(unknown)}; the ablation tables are {', '.join(TABLES)} (or 'all')")
        k, _, n = args.worker.partition("/")
        if not (k.isdigit() and n.isdigit() and int(k) < int(n)):
            raise ConfigError(f"--worker {args.worker!r}: give K/N with 0 <= K < N, e.g. 0/2 and 1/2 for two processes")
        if args.seeds is not None:
            check_settings({"seeds": args.seeds}, {"seeds": SEEDS}, names=as_flag)
        chosen = budget(args.budget, **({"seeds": tuple(range(args.seeds))} if args.seeds is not None else {}))
        if args.status or args.summary:
            print(progress(tables, chosen, args.results))
            for t in tables if args.summary else ():
                print(f"\nTable {t} · {TABLES[t].title}\n\n{summary(t, args.results)}")
            return
        run_tables(tables, chosen, out=args.out_dir, results=Path(args.results), worker=(int(k), int(n)),
                   new_cells=not args.columns_only, command="python -m minibert.ablations " + shlex.join(argv))
    except (ConfigError, ResultsError, CheckpointError, FileExistsError, FileNotFoundError, TrainingDiverged) as e:
        sys.exit(f"error: {e}")
    print(progress(tables, chosen, args.results))


if __name__ == "__main__":
    main()
