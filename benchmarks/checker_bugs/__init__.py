"""Learners' mistakes, kept apart from the tests, to measure how often the exercise checkers catch them.

One module per exercise notebook (`ex01_wordpiece.py`, ...). Each holds, for the exercises it covers,
whole learner functions with ONE realistic mistake each (`@EX.bug`, the docstring says the mistake as
the learner would make it) and correct functions written in another style than the solution
(`@EX.correct`: a checker that fails one gives a false alarm). `benchmarks/checker_catch_rate.py`
runs every checker on all of them.

The split, fixed before any checker was changed: all bugs were written first; within each exercise,
in the order written, the 1st, 3rd, 5th, ... bug is "dev" and the 2nd, 4th, 6th, ... is "held-out"
(`Exercise.bug` assigns it from the order, so the tag cannot be chosen by hand). A bug found afterwards
to be correct code is marked `@EX.withdrawn`: it keeps its place in the alternation (the tags of the
others do not move) and counts as a correct variant. Checkers are
improved looking at dev bugs only; held-out is measured once at the end. Tests never import this
package, and its bugs are never copied into tests/.

Batches. Once a held-out bug has been read, it no longer measures anything unseen. So bugs come in
batches (`EX.batch = 2` before the first bug of the second batch): each batch is written, without
reading any checker, before the checkers are changed against it, and the catch rate that counts is
the held-out rate of the newest batch. Batch 1's held-out misses were read after its measurement and
the checkers changed against them; they stay tagged held-out, and are reported with their batch.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

MODULES = ("ex01_wordpiece", "ex02_attention", "ex03_encoder", "ex04_masking", "ex05_pretraining",
           "ex06_analysis", "ex07_sentences", "ex08_spans", "ex09_ablations", "ex10_scale", "ex11_capstone")


@dataclass
class Entry:
    exercise: str   # "2.2"
    checker: str    # the name in minibert.check
    fn: object      # the learner's function
    kind: str       # "bug" or "correct"
    split: str      # "dev" / "held-out" for bugs, "correct" for correct variants
    batch: int = 1  # the batch it was written in (see above)

    @property
    def name(self) -> str:
        return self.fn.__name__

    @property
    def mistake(self) -> str:
        return (self.fn.__doc__ or "").strip().splitlines()[0] if self.fn.__doc__ else ""


@dataclass
class Exercise:
    """One exercise's bugs and correct variants; `checker` is the default minibert.check name."""
    number: str
    checker: str
    entries: list = field(default_factory=list)

    slots: int = 0  # bugs written so far, withdrawn ones included
    batch: int = 1  # the batch the next entries belong to

    def _add(self, fn, kind: str, checker: str | None):
        if kind == "bug":
            split = "dev" if self.slots % 2 == 0 else "held-out"  # the fixed rule: alternate in the order written
        else:
            split = "correct"
        self.slots += kind in ("bug", "withdrawn")
        kind = "correct" if kind == "withdrawn" else kind
        self.entries.append(Entry(self.number, checker or self.checker, fn, kind, split, self.batch))
        return fn

    def bug(self, fn=None, *, checker: str | None = None):
        if fn is None:
            return lambda f: self._add(f, "bug", checker)
        return self._add(fn, "bug", checker)

    def withdrawn(self, fn=None, *, checker: str | None = None):
        """Written as a bug, found to be correct: a correct variant that keeps its bug's slot."""
        if fn is None:
            return lambda f: self._add(f, "withdrawn", checker)
        return self._add(fn, "withdrawn", checker)

    def correct(self, fn=None, *, checker: str | None = None):
        if fn is None:
            return lambda f: self._add(f, "correct", checker)
        return self._add(fn, "correct", checker)


def entries() -> list[Entry]:
    """Every bug and correct variant of every module, in the order written."""
    out = []
    for name in MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        for value in vars(module).values():
            if isinstance(value, Exercise):
                out.extend(value.entries)
    return out
