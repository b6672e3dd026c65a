"""Cases of exercises 2.5 and 2.6 at the edges of the input range: float64 inputs in a non-contiguous
layout (the result stays float64, exact to 1e-10; `.view` that merges axes of an input fails), and one
head's scores far from 0 (a softmax that does not subtract the largest score overflows)."""

from __future__ import annotations

import torch

from ...config import BertConfig
from ...model import SelfAttention
from ..common import ExerciseError, expect_close
from ._shared import _model

FLOAT64_HINT = "in float64 the result must agree to 1e-10: did a step pass through float32?"


def _expect_float64(name, got, expected) -> None:
    if isinstance(got, torch.Tensor) and got.dtype != torch.float64:
        raise ExerciseError(f"{name}: your result has dtype {got.dtype}, expected torch.float64\n  hint: compute in "
                            "the dtype of x and the weights; .float(), or a constant tensor made without dtype=, "
                            "brings float64 down to float32")
    expect_close(name, got, expected, atol=1e-10, rtol=1e-10, hint=FLOAT64_HINT)


def _strided(t: torch.Tensor) -> torch.Tensor:
    """The same values in a transposed memory layout: `.view` refuses such a tensor, `.reshape` copes."""
    return t.mT.contiguous().mT if t.ndim >= 2 else t


def packed_float64(fn, call, packed_ids, each_alone, weights_of) -> None:
    """2.5 in float64: two rows packing three and two sequences, against minibert in float64. x and the
    weights are non-contiguous (x a transposed (T, B, H) tensor, as a slice or a permute leaves it)."""
    attn = _model(BertConfig(hidden_size=12, num_attention_heads=3), SelfAttention, 390).double()
    x = torch.randn(6, 2, 12, generator=torch.Generator().manual_seed(390), dtype=torch.float64).transpose(0, 1)
    ids = packed_ids([[2, 3, 1], [4]], 6)
    expected = each_alone(attn, x, ids)
    name = (f"float64: x of shape (2, 6, 12) and float64 weights, all non-contiguous (x = a (6, 2, 12) tensor "
            f"transposed), num_heads = 3, sequence_ids {ids.tolist()}, compared with minibert's SelfAttention in "
            "float64 run on each sequence alone")
    got = call(name, x, ids, {k: _strided(t) for k, t in weights_of(attn).items()}, 3)
    if isinstance(got, torch.Tensor) and got.shape == expected.shape:
        got = got.detach().masked_fill((ids == 0)[..., None], 0.0)  # padding outputs are free
    _expect_float64(name, got, expected)


def one_head_extremes(fn, call, reference, as_tensor) -> int:
    """2.6 in float64, then in float32 with scores in the hundreds; returns how many cases passed."""
    g = torch.Generator().manual_seed(690)
    names = [f"{p}.{w}" for p in ("query", "key", "value", "output") for w in ("weight", "bias")]
    w = {n: torch.randn((8, 8) if n.endswith("weight") else (8,), generator=g, dtype=torch.float64) for n in names}
    x = torch.randn(5, 8, generator=g, dtype=torch.float64)
    name = ("float64: x of shape (5, 8) and float64 weights (random), all non-contiguous (transposed layouts), "
            "num_heads = 2, head 1, query i = 2")
    strided = {n: _strided(t) for n, t in w.items()}
    _expect_float64(name, as_tensor(call(name, _strided(x), strided, 2, 1, 2)), reference(x, w, 2, 1, 2))
    # Scores in the hundreds (x · 6, range over 100): exp overflows float32 past 88, so the softmax must
    # subtract the row's largest score (torch's softmax does); subtracting the smallest does not help.
    x32, w32 = (6 * x).float(), {n: t.float() for n, t in w.items()}
    expected = reference(x32, w32, 2, 0, 4)
    name = ("float32 with large scores (in the hundreds): x of shape (5, 8), random weights, num_heads = 2, head 0, "
            "query i = 4")
    got = as_tensor(call(name, x32, w32, 2, 0, 4))
    if isinstance(got, torch.Tensor) and got.shape == expected.shape and not torch.isfinite(got).all():
        raise ExerciseError(f"{name}: your output contains NaN or inf\n  hint: exp of a score in the hundreds "
                            "overflows float32 (past 88); softmax(s) = softmax(s - max s): subtract the row's "
                            "largest score first, or call torch's softmax, which does")
    expect_close(name, got, expected.float(), atol=1e-4, rtol=1e-4)
    return 2
