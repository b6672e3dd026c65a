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


def _call_pure(fn, name, hints: dict, *args):
    """`_call_with_hints` on copies of the tensor arguments, then a check that your function left
    them as they were (an in-place `masked_fill_`, `/=` or `transpose_` changes the caller's tensor)."""
    copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    got = _call_with_hints(fn, name, hints, *copies)
    for i, (before, after) in enumerate(zip(args, copies)):
        if isinstance(before, torch.Tensor) and not (before.shape == after.shape and before.dtype == after.dtype
                                                      and torch.equal(before, after)):
            raise ExerciseError(f"{name}: your function changed its argument {i + 1} in place (shape "
                                f"{tuple(before.shape)} -> {tuple(after.shape)})\n  hint: an in-place operation "
                                "(masked_fill_, +=, /=, transpose_, ...) alters the caller's tensor; use the "
                                "out-of-place form (masked_fill, x = x / s), which returns a new tensor")
    return got


def _diagnose(got, variants) -> str:
    """The message of the first known mistake whose result `got` equals; `variants` yields
    (a function computing that mistake's result, message). Errors in a variant are skipped."""
    for compute, message in variants:
        try:
            wrong = compute()
        except Exception:  # that mistake does not even run on this input
            continue
        if isinstance(got, torch.Tensor) and isinstance(wrong, torch.Tensor) and got.shape == wrong.shape \
                and torch.allclose(got.detach().double(), wrong.double(), atol=1e-4, rtol=1e-4, equal_nan=True):
            return message
    return ""


SHAPE_ERRORS = {  # text of a PyTorch error -> what usually causes it in these exercises
    "Expected size for first two dimensions of batch2": (
        "k.T on a 4-D tensor reverses all four axes; transpose only the last two: k.transpose(-2, -1) (or k.mT)"),
    "shapes cannot be multiplied": (
        "check which axes you multiply: scores = q @ k.transpose(-2, -1) has shape (B, nh, T_q, T_k)"),
    "view size is not compatible": (
        "after a transpose the tensor is not contiguous in memory, so .view cannot flatten it; use .reshape "
        "(or .contiguous().view)"),
    "must match the size of tensor b": (
        "two shapes do not broadcast; a (B, T_k) key mask must become (B, 1, 1, T_k) to broadcast against the "
        "(B, nh, T_q, T_k) scores"),
    "The shape of the mask": (
        "the mask must broadcast against the (B, nh, T_q, T_k) scores: (B, 1, 1, T_k) for keys"),
}
