"""Command lines from dataclasses: every field of a run's config becomes a flag, with its type, its
default (the chosen preset's value) and a did-you-mean for a misspelt one.

    p = argparse.ArgumentParser(prog="python -m minibert.pretrain")
    add_flags(p, PretrainConfig, recipe("tiny"), skip={"model_overrides"})   # --max-steps, --lr, --nsp/--no-nsp...
    add_flags(p, BertConfig, None, prefix="model.")                          # --model.hidden_size ...
    args = parse_known(p, argv)                                              # unknown flags: an error naming the closest
"""

from __future__ import annotations

import argparse
import dataclasses
import json

from ..config import SEED, Rule, above, did_you_mean, one_of, type_rule
from .accelerator import MIXED_PRECISION

# The rules of the settings both loops share, worded once for pre-training's and fine-tuning's RULES.
LOOP_RULES: dict[str, Rule] = {
    "weight_decay": above(0, "AdamW's decoupled weight decay; BERT uses 0.01", or_equal=True),
    "max_grad_norm": above(0, "the clipping threshold on the gradients' global norm; BERT uses 1.0"),
    "mixed_precision": one_of(MIXED_PRECISION, "the autocast dtype (auto: bf16 on a GPU that has it, else no)"),
    "seed": SEED,
}


def _value(text: str, annotation: str):
    """A flag's text as the field's type (annotations are strings under `from __future__ import annotations`)."""
    if text.lower() == "none" and "None" in annotation:
        return None
    if annotation.startswith("bool"):  # "bool | None": --flag true|false|none
        if text.lower() not in ("true", "false"):
            raise argparse.ArgumentTypeError(f"{text!r}: give true, false or none")
        return text.lower() == "true"
    if annotation.startswith("int"):
        return int(text)
    if annotation.startswith("float"):
        return float(text)
    return text


def as_flag(name: str) -> str:
    """A setting as the command line spells it: max_grad_norm -> --max-grad-norm."""
    return "--" + name.replace("_", "-")


def settings_help(cls, rules: dict[str, Rule]) -> dict[str, str]:
    """--help's line for each field of `cls`: its rule and what it is (config.Rule), or its type."""
    helps = {}
    for f in dataclasses.fields(cls):
        if rule := rules.get(f.name) or type_rule(f.type):
            text = rule.text + (" or None" if "None" in f.type else "") + (f": {rule.why}" if rule.why else "")
            helps[f.name] = text.replace("%", "%%")  # argparse formats help with %
    return helps


def add_flags(parser: argparse.ArgumentParser, cls, defaults, *, prefix: str = "", skip=(), helps=None) -> None:
    """One flag per field of dataclass `cls`. With `defaults` (an instance) each flag defaults to its
    value; with a `prefix` (e.g. "model.") the flags are overrides, parsed as JSON, default None.
    `helps`: a field's line in --help (without one, argparse shows no default either)."""
    helps = helps or {}
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        if prefix:
            parser.add_argument(f"--{prefix}{f.name}", dest=f"{prefix}{f.name}", type=json.loads, default=None,
                                help=helps.get(f.name, f"override {f.name}"))
            continue
        flag, default, text = as_flag(f.name), getattr(defaults, f.name), helps.get(f.name, f.type)
        if f.type == "bool":
            parser.add_argument(flag, dest=f.name, action=argparse.BooleanOptionalAction, default=default, help=text)
        elif f.type.startswith("tuple[float"):
            parser.add_argument(flag, dest=f.name, type=float, nargs=len(default), default=default, help=text)
        else:
            parser.add_argument(flag, dest=f.name, type=lambda t, a=f.type: _value(t, a), default=default, help=text)


def parse_known(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Parse `argv`; an unknown flag is an error that names the closest known one."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        flags = [a for a in parser._option_string_actions if a.startswith("--")]
        hints = [did_you_mean(u.split("=")[0], flags, quote=False) for u in unknown]
        parser.error("unknown setting(s): " + ", ".join(hints))
    return args


def fields_of(args: argparse.Namespace, cls) -> dict:
    """The parsed values that are fields of dataclass `cls`."""
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in vars(args).items() if k in names}


def overrides_of(args: argparse.Namespace, prefix: str) -> dict:
    """The `--PREFIX.FIELD` overrides that were given, without the prefix."""
    return {k[len(prefix):]: v for k, v in vars(args).items() if k.startswith(prefix) and v is not None}
