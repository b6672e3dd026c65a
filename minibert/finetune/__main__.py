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
from ..config import ConfigError, at_least, check_settings
from ..inputs import InputError
from ..tasks import TASKS, TaskError
from ..tokenizer import TokenizerError
from ..training.cli import add_flags, as_flag, fields_of, parse_known, settings_help
from ..training.watchdog import TrainingDiverged
from .recipes import GRID, MODELS, RULES, FinetuneConfig
from .results import ResultsError, record, results_path
from .sweep import selected_sweep, sweep, table

# The command's own counts (the run's settings are FinetuneConfig's, with their rules in recipes.py).
COUNTS = {"seeds": at_least(1, "the number of runs of each setting (seeds seed, seed+1, ...); Table 6 averages 5"),
          "samples": at_least(1, "the number of training samples drawn, each run --seeds times"),
          "select_seeds": at_least(1, "the number of runs of each learning rate when choosing one")}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m minibert.finetune", description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter,
                                epilog=f"tasks: {', '.join(TASKS)}; models: "
                                + "; ".join(f"{k}: {v}" for k, v in MODELS.items()))
    p.add_argument("--seeds", type=int, default=1, help="random restarts per setting (seed, seed+1, ...)")
    p.add_argument("--grid", action="store_true",
                   help="Appendix A.3's grid: batch 16/32, lr 5e-5/3e-5/2e-5, 2-4 epochs")
    p.add_argument("--samples", type=int, default=1,
                   help="training samples of --max-train-examples (sample 0, 1, ...), each with --seeds runs")
    p.add_argument("--select-lr", default=None, metavar="LR,LR,...",
                   help="choose each sample's learning rate among these, on a held-out fifth of its training "
                   "examples (--select-seeds runs each), then run --seeds at the chosen one on --eval-split")
    p.add_argument("--select-epochs", default=None, metavar="E,E,...",
                   help="choose the number of passes among these too, with the learning rate (every pair is "
                   "tried on the train slice)")
    p.add_argument("--select-seeds", type=int, default=2, help="runs per learning rate when choosing one")
    p.add_argument("--resume", action="store_true",
                   help="keep the runs that already finished in --out-dir; start the others (again)")
    p.add_argument("--record", metavar="NAME", default=None,
                   help="also store every run, with its provenance, in results/finetune/NAME.json (for the chapters)")
    add_flags(p, FinetuneConfig, FinetuneConfig(), helps=settings_help(FinetuneConfig, RULES))
    return p


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parse_known(parser(), argv)
        check_settings({k: getattr(args, k) for k in COUNTS}, COUNTS, names=as_flag)
        check_settings(fields_of(args, FinetuneConfig), RULES, FinetuneConfig, names=as_flag)
        lrs, passes = learning_rates(args.select_lr), epoch_counts(args.select_epochs)
        if args.grid and (lrs or passes or args.samples > 1):
            raise ConfigError("--grid runs A.3's grid on one sample; --select-lr, --select-epochs and --samples are "
                              "another way of choosing: give one or the other")
        cfg = FinetuneConfig(**fields_of(args, FinetuneConfig))
        if args.samples > 1 and cfg.max_train_examples is None:
            raise ConfigError(f"--samples {args.samples} draws samples of --max-train-examples examples; give it too")
        if args.record:
            results_path(args.record)  # a bad name fails now, not after the runs
        command, started = "python -m minibert.finetune " + shlex.join(argv), datetime.datetime.now(datetime.timezone.utc)
        selection = None
        if lrs or passes or args.samples > 1:
            runs, chose = selected_sweep(cfg, seeds=args.seeds, samples=args.samples, lrs=lrs, epochs=passes,
                                         select_seeds=args.select_seeds, command=command, resume=args.resume)
            selection = {"split": "train-slice", "lrs": lrs or [cfg.lr], **({"epochs": passes} if passes else {}),
                         "seeds": args.select_seeds if lrs or passes else 0, "runs": chose}
        else:
            runs = sweep(cfg, seeds=args.seeds, space=GRID if args.grid else None, command=command,
                         resume=args.resume)
        if args.record:
            path = record(args.record, cfg, runs, command=command, started=started, selection=selection)
            print(f"stored in {path}")
    except (ConfigError, ResultsError, TaskError, CheckpointError, InputError, TokenizerError, FileExistsError,
            FileNotFoundError, TrainingDiverged) as e:
        sys.exit(f"error: {e}{flag_hint(e)}")  # a mistake to fix, not a crash: the message says what, no traceback
    Path(cfg.out_dir).mkdir(parents=True, exist_ok=True)
    (Path(cfg.out_dir) / "sweep.json").write_text(json.dumps(runs, indent=2) + "\n", encoding="utf-8")
    print(table(runs))


def flag_hint(error: Exception) -> str:
    """The flag that does what an error's advice does in Python: a checkpoint fine-tuned for
    another label count gets a fresh head with --ignore-mismatched-heads."""
    if isinstance(error, CheckpointError) and "ignore_mismatched_heads=True" in str(error):
        return "; on the command line, add --ignore-mismatched-heads"
    return ""


def learning_rates(text: str | None) -> list[float] | None:
    """"3e-4,1e-3" -> [0.0003, 0.001]; an entry that is not a positive number is an error naming it."""
    if text is None:
        return None
    rates = []
    for item in text.split(","):
        try:
            rates.append(float(item))
        except ValueError:
            rates.append(-1.0)
        if not rates[-1] > 0:
            raise ConfigError(f"--select-lr {text!r}: {item!r} is not a positive learning rate "
                              "(give them comma-separated, e.g. 3e-4,1e-3,3e-3)")
    return rates


def epoch_counts(text: str | None) -> list[int] | None:
    """"3,10" -> [3, 10]; an entry that is not a positive whole number is an error naming it."""
    if text is None:
        return None
    counts = []
    for item in text.split(","):
        if not item.strip().isdigit() or int(item) < 1:
            raise ConfigError(f"--select-epochs {text!r}: {item!r} is not a positive whole number of passes "
                              "(give them comma-separated, e.g. 3,10)")
        counts.append(int(item))
    return counts


if __name__ == "__main__":
    main()
