"""Checkers for the exercises: `from minibert import check`, then `check.wordpiece_encode(my_encode)`.

Each checker receives your function, tries hand-computed cases first (a failure names the input, the
expected and the received result), then random cases compared with minibert's own implementation,
and prints one line starting with ✓ when everything agrees. Nothing here contains a solution: the
checkers compare with minibert, whose code is the reference you can read.

A chapter's checkers load when one of them is first asked for, so `check.wordpiece_encode` for
chapter 01 loads the tokenizer's checkers, not fine-tuning's or the ablations' (and their scipy,
scikit-learn and seqeval).
"""

from __future__ import annotations

import importlib

from .common import ExerciseError

# The rooms in the chapters' order: a name is looked up in the first rooms first.
ROOMS = ("wordpiece", "attention", "encoder", "masking", "analysis", "pretraining", "sentences", "spans",
         "ablations", "scale", "capstone")


def __getattr__(name: str):
    """`check.NAME`: the checker from the first room whose __all__ names it (that room loads now)."""
    if name == "__all__":
        return ["ExerciseError", *(n for room in ROOMS for n in _room(room).__all__)]
    if name in ROOMS:
        return _room(name)
    for room in ROOMS:
        module = _room(room)
        if name in module.__all__:
            return getattr(module, name)
    from ..config import did_you_mean
    raise AttributeError(f"minibert.check has no checker {did_you_mean(name, __getattr__('__all__'))}; "
                         "`check.__all__` lists them")


def __dir__() -> list[str]:
    return sorted({*globals(), *ROOMS, *__getattr__("__all__")})


def _room(room: str):
    return importlib.import_module(f".{room}", __name__)
