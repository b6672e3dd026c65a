"""What the attention checkers share: small tensors, tolerant comparisons that name known mistakes,
and minibert modules with seeded weights."""

from __future__ import annotations

import torch

from ...config import BertConfig
from ..common import ExerciseError, call, expect_close


def _t(rows, dtype=torch.float32) -> torch.Tensor:
    return torch.tensor(rows, dtype=dtype)


def _close(a, b, atol: float = 1e-4) -> bool:
    return (isinstance(a, torch.Tensor) and a.shape == b.shape
            and torch.allclose(a.detach().to(b.dtype), b, atol=atol, rtol=1e-4))


def _rounded(t: torch.Tensor):
    return (t.detach().double().round(decimals=4) + 0.0).tolist()  # + 0.0: no "-0.0"


def _expect(name: str, got, expected: torch.Tensor, bugs=(), hint: str = "", atol: float = 1e-5) -> None:
    """expect_close, but when `got` is what a known mistake gives, the hint names that mistake; a small
    hand-computed case shows the whole expected and received tensors."""
    if isinstance(got, torch.Tensor) and got.shape == expected.shape and not _close(got, expected, atol):
        for wrong, why in bugs:
            if _close(got, wrong):
                hint = why
                break
        if expected.numel() <= 48:
            raise ExerciseError(f"{name}:\n  expected {_rounded(expected)}\n  received {_rounded(got)}"
                                + (f"\n  hint: {hint}" if hint else ""))
    expect_close(name, got, expected, atol=atol, hint=hint)


def _call_with_hints(fn, name, hints: dict, *args):
    """`call`, adding a hint when the error your function raised is a known one (matched on its text)."""
    try:
        return call(fn, name, *args)
    except ExerciseError as e:
        for text, hint in hints.items():
            if text in str(e):
                raise ExerciseError(f"{e}\n  hint: {hint}") from e
        raise


def _model(config: BertConfig, cls, seed: int):
    """A minibert module with weights drawn from `seed`, leaving the caller's random state alone."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return cls(config).eval()
