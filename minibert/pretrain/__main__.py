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
from ..config import BertConfig, ConfigError
from ..tokenizer import TokenizerError
from ..training.cli import add_flags, fields_of, overrides_of, parse_known
from ..training.watchdog import TrainingDiverged
from .cost import plan_text
from .curves import diagnose
from .data import DataError
from .loop import pretrain
from .recipes import RECIPES, PretrainConfig, recipe


def parser(defaults: PretrainConfig) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m minibert.pretrain", description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--config", default="tiny", help=f"a preset: {', '.join(RECIPES)}")
    p.add_argument("--resume", default=None, help="'auto' (the newest checkpoint of out_dir) or a checkpoint folder")
    plan = p.add_argument_group("--plan: print what the run costs and how its batch is split, and stop")
    plan.add_argument("--plan", action="store_true", help="print the plan, run nothing")
    plan.add_argument("--device", default="H100", help="an accelerator of minibert.pretrain.metrics.PEAK_TFLOPS")
    plan.add_argument("--devices", type=int, default=1, help="how many of them (processes)")
    plan.add_argument("--mfu", type=float, default=0.4, help="the model FLOPs utilisation to assume")
    add_flags(p, PretrainConfig, defaults, skip={"model_overrides"})
    add_flags(p, BertConfig, None, prefix="model.")
    return p


def parse(argv: list[str]) -> tuple[PretrainConfig, argparse.Namespace]:
    name = "tiny"
    if "--config" in argv and argv.index("--config") + 1 < len(argv):
        name = argv[argv.index("--config") + 1]
    base = recipe(name)  # an unknown preset fails here, naming the presets
    args = parse_known(parser(base), argv)
    overrides = {**base.model_overrides, **overrides_of(args, "model.")}
    return recipe(name, **{**fields_of(args, PretrainConfig), "model_overrides": overrides}), args


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    try:
        cfg, args = parse(argv)
        if args.plan:
            print(plan_text(cfg, device=args.device, devices=args.devices, mfu=args.mfu))
            return
        metrics = pretrain(cfg, resume=args.resume, command="python -m minibert.pretrain " + shlex.join(argv))
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
