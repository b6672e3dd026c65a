"""`python -m minibert.pretrain --config tiny [--max-steps 200 --lr 5e-4 --model.num_hidden_layers 3 ...]`

Every field of PretrainConfig is a flag (`--help` lists them with the preset's values); model
fields are `--model.FIELD`. On several processes: `accelerate launch -m minibert.pretrain ...`
(GPUs) or `ACCELERATE_USE_CPU=1 torchrun --nproc_per_node 2 -m minibert.pretrain ...` (CPU).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys

from accelerate import PartialState

from ..checkpoint import CheckpointError
from ..config import BERT_RULES, BertConfig, ConfigError, at_least, check_settings, within
from ..tokenizer import TokenizerError
from ..training.cli import add_flags, as_flag, fields_of, overrides_of, parse_known, settings_help
from ..training.watchdog import TrainingDiverged
from .cost import plan_text
from .curves import diagnose
from .data import DataError
from .loop import pretrain
from .recipes import RECIPES, RULES, PretrainConfig, recipe

PROG = "python -m minibert.pretrain"
# --plan's own settings (the run's are PretrainConfig's, with their rules in recipes.py).
PLAN_RULES = {"devices": at_least(1, "the number of accelerators (processes) the run is planned on"),
              "mfu": within(0, 1, "the share of the accelerators' peak FLOP/s a run reaches; 0.4 is good",
                            low_in=False, high_in=True)}


def parser(defaults: PretrainConfig, name: str = "tiny") -> argparse.ArgumentParser:
    """Every flag, each defaulting to its value in `defaults`, the preset `name` (so --help shows it)."""
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--config", default=name, help=f"a preset: {', '.join(RECIPES)}; every default below is its value")
    p.add_argument("--resume", default=None, help="'auto' (the newest checkpoint of out_dir) or a checkpoint folder")
    plan = p.add_argument_group("--plan: print what the run costs and how its batch is split, and stop")
    plan.add_argument("--plan", action="store_true", help="print the plan, run nothing")
    plan.add_argument("--device", default="H100", help="an accelerator of minibert.pretrain.metrics.PEAK_TFLOPS")
    plan.add_argument("--devices", type=int, default=1, help="how many of them (processes)")
    plan.add_argument("--mfu", type=float, default=0.4, help="the model FLOPs utilisation to assume")
    add_flags(p, PretrainConfig, defaults, skip={"model_overrides"}, helps=settings_help(PretrainConfig, RULES))
    add_flags(p, BertConfig, None, prefix="model.", helps=model_help(defaults))
    return p


def model_help(defaults: PretrainConfig) -> dict[str, str]:
    """--model.FIELD's line in --help: what the preset's model has, as JSON, the flags' language (the
    vocabulary sets vocab_size)."""
    try:
        model = defaults.model_config(defaults.vocab_size).to_dict()
    except (ConfigError, OSError):  # a config.json that is not there yet: the run will say so
        return {}
    return {k: f"override {k}; the preset's model has {json.dumps(v)}".replace("%", "%%")
            for k, v in model.items() if k != "vocab_size"}


def parse(argv: list[str]) -> tuple[PretrainConfig, argparse.Namespace]:
    """A run's settings from the command line: the preset named by --config (`--config mini` or
    `--config=mini`), each flag given replacing its value. A bad value is a ConfigError naming the flag."""
    first = argparse.ArgumentParser(prog=PROG, add_help=False)  # --config alone, spelt as argparse allows
    first.add_argument("--config", default="tiny")
    name = first.parse_known_args(argv)[0].config
    base = recipe(name)  # an unknown preset fails here, naming the presets
    args = parse_known(parser(base, name), argv)
    check_settings(fields_of(args, PretrainConfig), RULES, PretrainConfig, names=as_flag)
    check_settings({k: getattr(args, k) for k in PLAN_RULES}, PLAN_RULES, names=as_flag)
    check_settings(overrides_of(args, "model."), BERT_RULES, BertConfig, names=lambda k: f"--model.{k}")
    overrides = {**base.model_overrides, **overrides_of(args, "model.")}
    return recipe(name, **{**fields_of(args, PretrainConfig), "model_overrides": overrides}), args


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    try:
        cfg, args = parse(argv)
        if args.plan:
            print(plan_text(cfg, device=args.device, devices=args.devices, mfu=args.mfu))
            return
        metrics = pretrain(cfg, resume=args.resume, command="python -m minibert.pretrain " + shlex.join(argv),
                           announce=True)  # first, what the run reads, and a warning if it would memorise it
    except (ConfigError, CheckpointError, DataError, TokenizerError, FileExistsError, TrainingDiverged,
            ValueError) as e:
        sys.exit(f"error: {e}")  # a mistake to fix, not a crash: the message says what, no traceback
    if PartialState().is_main_process:  # one report, however many processes ran
        print(json.dumps(metrics, indent=2))
        findings = diagnose(cfg.out_dir)
        print("\n".join(f"warning: {f}" for f in findings) or "no known failure signature in the log "
              f"(compare the curves: minibert.pretrain.plot_run({cfg.out_dir!r}))", file=sys.stderr)


if __name__ == "__main__":
    main()
