"""What every checker shares: how a mismatch is reported, how a pass is announced.

A checker receives the learner's function, tries hand-computed cases first (each named, so a failure
says which input, what was expected and what came back), then random cases compared with minibert,
with tolerances, and prints one line when everything agrees. A function that still raises
`NotImplementedError` is let through untouched: its message says which exercise is unfinished.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable
from pathlib import Path

import torch

from ..hub import minilm_path
from ..repository import DATA

# The course corpus (made by `make setup`): real sentences for the random cases.
CORPUS = DATA / "corpus"


class ExerciseError(AssertionError):
    """The learner's function gave a wrong result; the message names the case."""


def short(value, limit: int = 400) -> str:
    if isinstance(value, torch.Tensor):
        text = f"tensor of shape {tuple(value.shape)}, dtype {value.dtype}: {value.tolist()!r}"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + " ..."


def call(fn: Callable, name: str, *args, **kwargs):
    """Call the learner's function; any exception other than NotImplementedError is reported with the
    case that raised it."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        raise
    except Exception as e:  # the learner's bug, shown with the input that triggers it
        raise ExerciseError(f"{name}: your function raised {type(e).__name__}: {e}") from e


def expect_equal(name: str, got, expected, hint: str = "") -> None:
    """Exact equality (lists, strings, ints, integer tensors), with a message naming the case."""
    same = (isinstance(got, torch.Tensor) and isinstance(expected, torch.Tensor)
            and got.shape == expected.shape and torch.equal(got, expected)) or (
        not isinstance(got, torch.Tensor) and not isinstance(expected, torch.Tensor) and got == expected)
    if not same:
        raise ExerciseError(f"{name}:\n  expected {short(expected)}\n  received {short(got)}"
                            + (f"\n  hint: {hint}" if hint else ""))


def expect_close(name: str, got, expected: torch.Tensor, *, atol: float = 1e-5, rtol: float = 1e-4,
                 hint: str = "") -> None:
    """Tensors equal up to float rounding; a shape mismatch is named before any value."""
    if not isinstance(got, torch.Tensor):
        raise ExerciseError(f"{name}: expected a tensor of shape {tuple(expected.shape)}, received {short(got)}")
    if got.shape != expected.shape:
        raise ExerciseError(f"{name}: expected shape {tuple(expected.shape)}, received shape {tuple(got.shape)}"
                            + (f"\n  hint: {hint}" if hint else ""))
    got = got.detach().to(expected.dtype)
    if not torch.allclose(got, expected, atol=atol, rtol=rtol):
        diff = (got - expected).abs()
        where = tuple(int(i) for i in torch.nonzero(diff == diff.max())[0])
        raise ExerciseError(f"{name}: values differ by up to {diff.max().item():.3g} (at index {where}: expected "
                            f"{expected[where].item():.6g}, received {got[where].item():.6g})"
                            + (f"\n  hint: {hint}" if hint else ""))


def expect_rate(name: str, count: int, total: int, p: float, *, z: float = 4.0, hint: str = "") -> None:
    """A count of `total` Bernoulli(p) draws within z standard deviations of p·total (z=4: a correct
    function fails about once in 16,000 checks)."""
    sd = math.sqrt(total * p * (1 - p))
    if abs(count - p * total) > z * sd:
        raise ExerciseError(f"{name}: {count} of {total} ({count / total:.4f}), expected about {p:.4f} "
                            f"(± {z * sd / total:.4f})" + (f"\n  hint: {hint}" if hint else ""))


def as_float(value) -> tuple[float | None, str | None]:
    """One number in any reasonable form (a Python int or float, a numpy scalar, a one-element array or
    tensor): (value as a float, None), or (None, what is wrong with it)."""
    if isinstance(value, bool):
        return None, "is a bool, expected a number"
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            return None, f"is a tensor of shape {tuple(value.shape)}, expected one number"
        return float(value.detach().reshape(())), None
    if isinstance(value, numbers.Real):  # int, float, numpy scalars
        return float(value), None
    if type(value).__module__ == "numpy" and getattr(value, "size", None) == 1:  # a one-element array
        return float(value.reshape(())), None
    return None, f"is {type(value).__name__} {value!r}, expected a number"


def corpus_file(name: str = "valid.txt") -> Path:
    path = CORPUS / name
    if not path.is_file():
        raise FileNotFoundError(f"the course corpus is missing ({path}); run `make setup` once to prepare it")
    return path


@functools.lru_cache(maxsize=1)
def valid_lines() -> tuple[str, ...]:
    """The sentences of the corpus's validation split, read once per kernel."""
    return tuple(line for line in corpus_file().read_text(encoding="utf-8").split("\n") if line)


@functools.lru_cache(maxsize=1)
def minilm_model():
    """all-MiniLM-L6-v2's encoder in eval mode, loaded once per kernel; checkers only run it forward."""
    from ..model import BertModel

    return BertModel.from_pretrained(minilm_path()).eval()


@functools.lru_cache(maxsize=1)
def minilm_tokenizer():
    """all-MiniLM-L6-v2's uncased WordPiece tokenizer, loaded once per kernel."""
    from ..tokenizer import Tokenizer

    return Tokenizer.from_pretrained(minilm_path())


def expect_same_gradients(name: str, got: torch.Tensor, expected: torch.Tensor, leaves, *, against: str,
                          hint: str | Callable[[str], str], seed: int, atol: float, rtol: float = 1e-5) -> None:
    """The learner's output `got` and the reference's `expected`, each backpropagated from the same loss,
    (output * w).sum() with w drawn from `seed` so that every number of the output counts; `leaves` are
    (what, the learner's leaf, the reference's leaf), and the first whose gradient differs is named."""
    w = torch.randn(got.shape, generator=torch.Generator().manual_seed(seed), dtype=got.dtype)
    (got * w).sum().backward()
    (expected * w).sum().backward()
    for what, mine, theirs in leaves:
        if mine.grad is None or not torch.allclose(mine.grad, theirs.grad, atol=atol, rtol=rtol):
            raise ExerciseError(f"{name}: the gradient reaching {what} differs from {against}'s\n  hint: "
                                + (hint(what) if callable(hint) else hint))


def passed(what: str, detail: str) -> None:
    print(f"✓ {what}: {detail}")


def optimizer_step(model, optimizer, scheduler, *, clip: float | None = 1.0, scheduler_first: bool = False,
                   zero_grad: bool = True) -> None:
    """What a training loop does after backward(): clip, AdamW's step, the schedule's step, the gradients
    cleared; the switches make its usual mistakes (clip=None, the schedule stepped first, no clearing)."""
    if clip is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    if scheduler_first:
        scheduler.step()
    optimizer.step()
    if not scheduler_first:
        scheduler.step()
    if zero_grad:
        optimizer.zero_grad(set_to_none=True)


def weights_apart(a: list[torch.Tensor], b: list[torch.Tensor], start: list[torch.Tensor]) -> float:
    """How far apart two runs' weights are, relative to how far training moved them from `start`."""
    moved = math.sqrt(sum(float((y - s).pow(2).sum()) for y, s in zip(b, start)))
    return math.sqrt(sum(float((x - y).pow(2).sum()) for x, y in zip(a, b))) / max(moved, 1e-12)
