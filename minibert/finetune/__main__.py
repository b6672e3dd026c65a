"""`python -m minibert.finetune --task sentiment --model minilm [--seeds 3] [--grid] [--lr 3e-5 ...]`

Fine-tunes a pre-trained BERT (`minilm`, `course`, a checkpoint folder or a Hugging Face Hub id;
`--init random` for the same architecture with fresh weights) on a task of `minibert.tasks`, and
ends with the task's metric per seed and its mean ± sd. Every field of FinetuneConfig is a flag.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shlex
import sys
from pathlib import Path

from ..checkpoint import CheckpointError
from ..config import ConfigError
from ..inputs import InputError
from ..tasks import TASKS, TaskError
from ..tokenizer import TokenizerError
from ..training.cli import add_flags, fields_of, parse_known
from ..training.watchdog import TrainingDiverged
from .recipes import GRID, MODELS, FinetuneConfig
from .results import ResultsError, record, results_path
from .sweep import sweep, table


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m minibert.finetune", description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter,
                                epilog=f"tasks: {', '.join(TASKS)}; models: "
                                + "; ".join(f"{k}: {v}" for k, v in MODELS.items()))
    p.add_argument("--seeds", type=int, default=1, help="random restarts per setting (seed, seed+1, ...)")
    p.add_argument("--grid", action="store_true",
                   help="Appendix A.3's grid: batch 16/32, lr 5e-5/3e-5/2e-5, 2-4 epochs")
    p.add_argument("--resume", action="store_true",
                   help="keep the runs that already finished in --out-dir; start the others (again)")
    p.add_argument("--record", metavar="NAME", default=None,
                   help="also store every run, with its provenance, in results/finetune/NAME.json (for the chapters)")
    add_flags(p, FinetuneConfig, FinetuneConfig())
    return p


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parse_known(parser(), argv)
        if args.seeds < 1:
            raise ConfigError(f"--seeds {args.seeds}: run at least one seed")
        cfg = FinetuneConfig(**fields_of(args, FinetuneConfig))
        if args.record:
            results_path(args.record)  # a bad name fails now, not after the runs
        command, started = "python -m minibert.finetune " + shlex.join(argv), datetime.datetime.now(datetime.timezone.utc)
        runs = sweep(cfg, seeds=args.seeds, space=GRID if args.grid else None, command=command,
                     resume=args.resume)
        if args.record:
            print(f"stored in {record(args.record, cfg, runs, command=command, started=started)}")
    except (ConfigError, ResultsError, TaskError, CheckpointError, InputError, TokenizerError, FileExistsError,
            FileNotFoundError, TrainingDiverged) as e:
        sys.exit(f"error: {e}")  # a mistake to fix, not a crash: the message says what, no traceback
    Path(cfg.out_dir).mkdir(parents=True, exist_ok=True)
    (Path(cfg.out_dir) / "sweep.json").write_text(json.dumps(runs, indent=2) + "\n", encoding="utf-8")
    print(table(runs))


if __name__ == "__main__":
    main()
