"""The checker of exercise 3.1: the feed-forward block, GELU(x W1ᵀ + b1) W2ᵀ + b2."""

from __future__ import annotations

import math

import torch
from torch import nn

from ...config import BertConfig
from ...model import FeedForward
from ..common import ExerciseError, call, expect_close, passed
from ._shared import _same, _with_hint

# --- 3.1 the feed-forward block ----------------------------------------------------------------

# Φ, the standard normal CDF, from a table: Φ(1) = 0.8413447461, Φ(0.5) = 0.6914624613,
# Φ(3) = 0.9986501020, Φ(3.5) = 0.9997673709; GELU(x) = x·Φ(x), GELU(0) = 0, and Φ(−x) = 1 − Φ(x).
# Both hand cases use H = 2, I = 3 (so a weight used the wrong way round cannot multiply):
#   W1 = [[1, 0], [0, 1], [1, 1]], b1 = [0, 0, 0.5]   -> pre-activation (x1, x2, x1 + x2 + 0.5)
#   W2 = [[1, 1, 0], [0, 0, 2]],  b2 = [0, -1]        -> output (g1 + g2, 2·g3 − 1)
_FFN_WEIGHTS = dict(w1=[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], b1=[0.0, 0.0, 0.5],
                    w2=[[1.0, 1.0, 0.0], [0.0, 0.0, 2.0]], b2=[0.0, -1.0])
_FFN_HAND = [
    # x = [1, −1]: pre-activation (1, −1, 0.5);
    # g1 + g2 = Φ(1) − Φ(−1) = 2Φ(1) − 1 = 0.6826894921;  2·GELU(0.5) − 1 = Φ(0.5) − 1 = −0.3085375387
    ("x = [[[1, -1]]] (B=1, T=1, H=2)", [[[1.0, -1.0]]], [[[0.6826894921, -0.3085375387]]]),
    # x = [3, 0]: pre (3, 0, 3.5); 3Φ(3) + 0 = 2.995950306, 7Φ(3.5) − 1 = 5.998371596
    # x = [0, 0]: pre (0, 0, 0.5); 0, Φ(0.5) − 1 = −0.3085375387
    ("x = [[[3, 0]], [[0, 0]]] (B=2, T=1, H=2)", [[[3.0, 0.0]], [[0.0, 0.0]]],
     [[[2.995950306, 5.998371596]], [[0.0, -0.3085375387]]]),
]
_LINEAR_LAYOUT = ("w1 and w2 are stored as nn.Linear stores its weight: (out_features, in_features), so "
                  "w1 is (I, H) and w2 is (H, I); a linear layer computes x @ w.T + b (F.linear(x, w, b))")
_TANH_HINT = ("this matches the tanh approximation 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) "
              "(F.gelu(x, approximate='tanh')); BERT's \"gelu\" is the exact one, "
              "x·Φ(x) = 0.5·x·(1 + erf(x/√2)) (F.gelu(x))")


def _ffn_module(w1, b1, w2, b2, act: str = "gelu") -> FeedForward:
    I, H = w1.shape
    ffn = FeedForward(BertConfig(hidden_size=H, num_attention_heads=1, intermediate_size=I, hidden_act=act))
    with torch.no_grad():
        for linear, w, b in ((ffn.intermediate, w1, b1), (ffn.output, w2, b2)):
            linear.weight.copy_(w)
            linear.bias.copy_(b)
    return ffn.eval()


def _ffn_diagnosis(got, x, w1, b1, w2, b2) -> str:
    """Which usual mistake `got` matches, by running minibert's FeedForward with that mistake."""
    with torch.no_grad():
        if _same(got, _ffn_module(w1, b1, w2, b2, "gelu_pytorch_tanh")(x), atol=1e-6):
            return _TANH_HINT
        if _same(got, _ffn_module(w1, b1, w2, b2, "relu")(x)):
            return "this matches ReLU; BERT uses GELU(x) = x·Φ(x) = 0.5·x·(1 + erf(x/√2)) (paper, appendix A.2)"
        linear = _ffn_module(w1, b1, w2, b2)
        linear.act = nn.Identity()
        if _same(got, linear(x)):
            return "this matches the block without its non-linearity: apply GELU between the two linear maps"
        for name, zero in (("b1", (w1, torch.zeros_like(b1), w2, b2)), ("b2", (w1, b1, w2, torch.zeros_like(b2)))):
            if _same(got, _ffn_module(*zero)(x)):
                return f"this matches the block without {name}: add each linear map's bias"
    return "FFN(x) = GELU(x @ w1.T + b1) @ w2.T + b2, with the exact GELU x·Φ(x)"


def _ffn_case(fn, name, x, w1, b1, w2, b2, expected, atol):
    args = {"x": x, "w1": w1, "b1": b1, "w2": w2, "b2": b2}
    copies = {k: v.clone() for k, v in args.items()}
    try:
        got = call(fn, name, *copies.values())
    except ExerciseError as e:
        if isinstance(e.__cause__, RuntimeError) and any(s in str(e.__cause__) for s in ("shape", "size")):
            raise _with_hint(e, _LINEAR_LAYOUT) from None
        raise
    _unchanged(name, args, copies)
    if isinstance(got, torch.Tensor) and got.shape != expected.shape and got.shape[-1] == w1.shape[0]:
        raise ExerciseError(f"{name}: expected shape {tuple(expected.shape)}, received shape {tuple(got.shape)}"
                            f"\n  hint: the block maps H -> I -> H; did you stop after the first linear map?")
    if not _same(got, expected, atol=atol):
        hint = _ffn_diagnosis(got, x, w1, b1, w2, b2) if isinstance(got, torch.Tensor) else ""
        expect_close(name, got, expected, atol=atol, rtol=1e-5, hint=hint)


def _unchanged(name: str, before: dict, after: dict) -> None:
    """The caller's tensors are the model's weights and hidden states: a `w1.t_()` that fixed a shape
    error, or an `x += ...`, corrupts them for every later call."""
    for what, t in before.items():
        if not (after[what].shape == t.shape and torch.equal(after[what], t)):
            raise ExerciseError(f"{name}: your function changed its argument {what} in place (shape {tuple(t.shape)}"
                                f" -> {tuple(after[what].shape)})\n  hint: an in-place operation (.t_(), +=, "
                                "mul_, ...) alters the caller's tensor; use w.T and out-of-place arithmetic")


def feed_forward(fn) -> None:
    """fn(x, w1, b1, w2, b2) -> GELU(x @ w1.T + b1) @ w2.T + b2, x (B, T, H), w1 (I, H), w2 (H, I)."""
    w = {k: torch.tensor(v) for k, v in _FFN_WEIGHTS.items()}
    for name, x, expected in _FFN_HAND:
        _ffn_case(fn, f"hand case {name}, W1 = {_FFN_WEIGHTS['w1']}, b1 = {_FFN_WEIGHTS['b1']}, "
                      f"W2 = {_FFN_WEIGHTS['w2']}, b2 = {_FFN_WEIGHTS['b2']}",
                  torch.tensor(x), w["w1"], w["b1"], w["w2"], w["b2"], torch.tensor(expected), atol=1e-5)
    # Random cases at realistic scales: pre-activations of standard deviation ~1.5, where the exact
    # and the tanh GELU differ by up to 4.7e-4 (chapter 03), so the tolerance must be tighter.
    g = torch.Generator().manual_seed(3_1)
    shapes = [(2, 5, 8, 32), (1, 7, 16, 24), (3, 4, 12, 40), (2, 6, 32, 96), (1, 3, 384, 1536)]
    for B, T, H, I in shapes:
        x = torch.randn(B, T, H, generator=g)
        w1 = torch.randn(I, H, generator=g) * 1.5 / math.sqrt(H)
        b1 = torch.randn(I, generator=g) * 0.5
        w2 = torch.randn(H, I, generator=g) / math.sqrt(I)
        b2 = torch.randn(H, generator=g) * 0.5
        with torch.no_grad():
            expected = _ffn_module(w1, b1, w2, b2)(x)
        _ffn_case(fn, f"random case x {(B, T, H)}, w1 {(I, H)}, w2 {(H, I)}", x, w1, b1, w2, b2, expected,
                  atol=2e-5)
    edge = _edge_cases(fn)
    passed("feed_forward", f"{len(_FFN_HAND)} hand-computed cases and {len(shapes) + edge} random ones agree with "
                           "minibert's FeedForward (exact GELU)")


def _edge_cases(fn) -> int:
    """x that is not contiguous in memory (a transposed batch, as hidden states often are), then every
    tensor in float64 (the result stays float64, exact to 1e-10); returns how many cases passed."""
    g = torch.Generator().manual_seed(3_11)
    w1, b1, w2, b2 = (torch.randn(*shape, generator=g, dtype=torch.float64) / 3
                      for shape in ((20, 6), (20,), (6, 20), (6,)))
    x = torch.randn(4, 3, 6, generator=g, dtype=torch.float64).transpose(0, 1)  # (3, 4, 6), not contiguous
    weights32 = [t.float() for t in (w1, b1, w2, b2)]
    name = "random case x (3, 4, 6) not contiguous in memory (x = t.transpose(0, 1)), w1 (20, 6), w2 (6, 20)"
    with torch.no_grad():
        expected = _ffn_module(*weights32)(x.float())
    try:
        _ffn_case(fn, name, x.float(), *weights32, expected, atol=2e-5)
    except ExerciseError as e:
        if "view size is not compatible" in str(e):
            raise _with_hint(e, "x here is a transposed tensor, not contiguous in memory, so .view cannot flatten "
                                "it; use .reshape, or x @ w1.T directly on the 3-D x") from None
        raise
    name = "random case in float64: x (3, 4, 6), w1 (20, 6), b1, w2 (6, 20), b2 all torch.float64"
    x = x.contiguous()
    expected = nn.functional.gelu(x @ w1.T + b1) @ w2.T + b2  # exact GELU, all in float64
    got = call(fn, name, x.clone(), w1.clone(), b1.clone(), w2.clone(), b2.clone())
    if isinstance(got, torch.Tensor) and got.dtype != torch.float64:
        raise ExerciseError(f"{name}: expected a torch.float64 result, received {got.dtype}\n  hint: compute in the "
                            "inputs' dtype; .float(), or a constant tensor made without dtype=, casts float64 down")
    expect_close(name, got, expected, atol=1e-10, rtol=1e-10,
                 hint="in float64 the result must agree to 1e-10: did a step pass through float32 (or a rounded "
                      "constant such as 1.414 for √2)?")
    return 2
