"""One more hand case of exercise 2.2's checker, at the edge of the input range: float64 inputs
(nothing may pass through float32 on the way)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..common import ExerciseError, expect_close
from ._shared import SHAPE_ERRORS, _call_pure
from .scaled_mistakes import _pair


def _float64(fn) -> None:
    # 9. float64 q, k, v with padding: the result must stay float64 and agree with the float64 reference to
    #    1e-10 (a softmax taken in float32 and cast back is off by ~1e-8).
    g = torch.Generator().manual_seed(64)
    q, k, v = (torch.randn(2, 3, 5, 6, generator=g, dtype=torch.float64) for _ in range(3))
    key_mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 0, 0, 0]])
    attn_mask = key_mask.bool()[:, None, None, :]
    name = "float64 q, k, v (B = 2, nh = 3, T = 5, hs = 6, random), key_mask [[1, 1, 1, 1, 0], [1, 1, 0, 0, 0]]"
    out, probs = _pair(name, _call_pure(fn, name, SHAPE_ERRORS, q, k, v, key_mask))
    expected_probs = F.scaled_dot_product_attention(q, k, torch.eye(5, dtype=torch.float64).expand(2, 3, 5, 5),
                                                    attn_mask=attn_mask)
    for what, got in (("probs", probs), ("out", out)):
        if isinstance(got, torch.Tensor) and got.dtype != torch.float64:
            raise ExerciseError(f"{name}: your {what} have dtype {got.dtype}, expected torch.float64\n  hint: keep the "
                                "inputs' dtype: a softmax taken in float32 (dtype=torch.float32, .float()) must not "
                                "change a float64 result")
    hint = "in float64 the result must agree to 1e-10: did a step pass through float32?"
    expect_close(name + ", probs", probs, expected_probs, atol=1e-10, rtol=1e-10, hint=hint)
    expect_close(name + ", out", out, expected_probs @ v, atol=1e-10, rtol=1e-10, hint=hint)
