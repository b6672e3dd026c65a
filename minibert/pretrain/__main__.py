"""`python -m minibert.pretrain --config tiny [--max-steps 200 --lr 5e-4 --model.num_hidden_layers 3 ...]`

Every field of PretrainConfig is a flag (`--help` lists them with the preset's values); model
fields are `--model.FIELD`. On several processes: `accelerate launch -m minibert.pretrain ...`
(GPUs) or `ACCELERATE_USE_CPU=1 torchrun --nproc_per_node 2 -m minibert.pretrain ...` (CPU).
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import shlex
import sys

from accelerate import PartialState

from ..checkpoint import CheckpointError
from ..config import BertConfig, ConfigError
from .curves import diagnose
from .data import DataError
from .loop import TrainingDiverged, pretrain
from .recipes import RECIPES, PretrainConfig, recipe


def _value(text: str, annotation: str):
    if text.lower() == "none" and "None" in annotation:
        return None
    if annotation.startswith("int"):
        return int(text)
    if annotation.startswith("float"):
        return float(text)
    return text


def parser(defaults: PretrainConfig) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m minibert.pretrain", description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--config", default="tiny", help=f"a preset: {', '.join(RECIPES)}")
    p.add_argument("--resume", default=None, help="'auto' (the newest checkpoint of out_dir) or a checkpoint folder")
    for f in dataclasses.fields(PretrainConfig):
        flag, default = "--" + f.name.replace("_", "-"), getattr(defaults, f.name)
        if f.name == "model_overrides":
            continue
        if f.type == "bool":
            p.add_argument(flag, dest=f.name, action=argparse.BooleanOptionalAction, default=default)
        elif f.name == "adam_betas":
            p.add_argument(flag, dest=f.name, type=float, nargs=2, default=default)
        else:
            p.add_argument(flag, dest=f.name, type=lambda t, a=f.type: _value(t, a), default=default)
    for f in dataclasses.fields(BertConfig):
        p.add_argument(f"--model.{f.name}", dest=f"model.{f.name}", type=json.loads, default=None,
                       help=f"override the model's {f.name}")
    return p


def parse(argv: list[str]) -> tuple[PretrainConfig, str | None]:
    name = "tiny"
    if "--config" in argv and argv.index("--config") + 1 < len(argv):
        name = argv[argv.index("--config") + 1]
    base = recipe(name)  # an unknown preset fails here, naming the presets
    p = parser(base)
    args, unknown = p.parse_known_args(argv)
    if unknown:
        flags = [a for a in p._option_string_actions if a.startswith("--")]
        hints = [f"{u} (did you mean {m[0]}?)" if (m := difflib.get_close_matches(u.split("=")[0], flags, 1)) else u
                 for u in unknown]
        p.error("unknown setting(s): " + ", ".join(hints))
    values = vars(args)
    overrides = {k[len("model."):]: v for k, v in values.items() if k.startswith("model.") and v is not None}
    fields = {k: v for k, v in values.items() if k in {f.name for f in dataclasses.fields(PretrainConfig)}}
    return recipe(name, **{**fields, "model_overrides": {**base.model_overrides, **overrides}}), args.resume


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    try:
        cfg, resume = parse(argv)
        metrics = pretrain(cfg, resume=resume, command="python -m minibert.pretrain " + shlex.join(argv))
    except (ConfigError, CheckpointError, DataError, FileExistsError, TrainingDiverged) as e:
        sys.exit(f"error: {e}")  # a mistake to fix, not a crash: the message says what, no traceback
    if PartialState().is_main_process:  # one report, however many processes ran
        print(json.dumps(metrics, indent=2))
        findings = diagnose(cfg.out_dir)
        print("\n".join(f"warning: {f}" for f in findings) or "no known failure signature in the log "
              f"(compare the curves: minibert.pretrain.plot_run({cfg.out_dir!r}))", file=sys.stderr)


if __name__ == "__main__":
    main()
