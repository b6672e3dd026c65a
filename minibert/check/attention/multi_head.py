"""The checkers of exercises 2.5 and 2.6: multi-head self-attention from its projection weights, end
to end, and one head's output for one query, from slices of those weights."""

from __future__ import annotations

import math

import torch

from ...config import BertConfig
from ...model import SelfAttention
from ..common import ExerciseError, expect_close, passed
from ._shared import SHAPE_ERRORS, _call_pure, _diagnose, _expect, _model, _t

NAMES = [f"{p}.{w}" for p in ("query", "key", "value", "output") for w in ("weight", "bias")]


def _weights(attn: SelfAttention) -> dict:
    return {name: t.detach().clone() for name, t in attn.state_dict().items() if name in NAMES}


def _call_with_weights(fn, name, x, mask, weights, *rest):
    """Call with copies, then check that neither x, the mask nor any weight was changed in place."""
    copies = {k: v.clone() for k, v in weights.items()}
    args = (x,) + (() if mask is None else (mask,))
    got = _call_pure(fn, name, SHAPE_ERRORS, *args, copies, *rest)
    for key, before in weights.items():
        if not torch.equal(copies[key], before):
            raise ExerciseError(f"{name}: your function changed weights[{key!r}] in place\n  hint: an in-place "
                                "operation (.t_(), +=, ...) alters the caller's weights; use out-of-place forms")
    return got


def _reference(x, mask, w, nh, *, transpose=True, split="heads", merge="heads", scale="hs", output=True,
               masking="keys", key_weights="key"):
    """Multi-head self-attention as written, or as a known mistake writes it (float64)."""
    x = x.double()
    w = {k: v.double() for k, v in w.items()}
    B, T, H = x.shape
    hs = H // nh
    lin = (lambda t, n: t @ w[n + ".weight"].T + w[n + ".bias"]) if transpose else \
        (lambda t, n: t @ w[n + ".weight"] + w[n + ".bias"])
    splits = {"heads": lambda t: t.view(B, T, nh, hs).transpose(1, 2),
              "interleaved": lambda t: t.view(B, T, hs, nh).permute(0, 3, 1, 2),
              "view": lambda t: t.reshape(B, nh, T, hs)}
    q, k, v = (splits[split](lin(x, n)) for n in ("query", key_weights, "value"))
    scores = q @ k.transpose(-2, -1) / math.sqrt({"hs": hs, "H": H}[scale])
    if mask is not None and masking != "none":
        m = mask.bool()[:, None, None, :] if masking == "keys" else mask.bool()[:, None, :, None]
        scores = scores.masked_fill(~m, torch.finfo(scores.dtype).min)
    context = scores.softmax(-1) @ v                                           # (B, nh, T, hs)
    merged = {"heads": lambda c: c.transpose(1, 2).reshape(B, T, H),
              "interleaved": lambda c: c.permute(0, 2, 3, 1).reshape(B, T, H),
              "no transpose": lambda c: c.reshape(B, T, H)}[merge](context)
    return lin(merged, "output") if output else merged


def _multi_head_mistakes(x, mask, w, nh):
    r = lambda **kw: (lambda: _reference(x, mask, w, nh, **kw))  # noqa: E731
    return [
        (r(transpose=False), "nn.Linear computes x @ W.T + b (its weight is (out, in)); you multiplied by W itself"),
        (r(split="interleaved"), "your heads are interleaved, each taking every nh-th feature; head h owns the "
                                 "contiguous slice h·hs .. (h+1)·hs - 1: split H as (nh, hs), not (hs, nh), and "
                                 "merge back in the same order"),
        (r(split="view"), "viewing (B, T, H) straight as (B, nh, T, hs) re-reads memory in order; view as "
                          "(B, T, nh, hs), then transpose(1, 2)"),
        (r(merge="no transpose"), "merging without the transpose glues together numbers of different tokens; "
                                  "transpose(1, 2) back to (B, T, nh, hs), then reshape to (B, T, H)"),
        (r(merge="interleaved"), "your merge interleaves the heads' features; each head's hs features go back to "
                                 "one contiguous slice: flatten (nh, hs), not (hs, nh)"),
        (r(scale="H"), "you divided the scores by √H, the hidden size; d is the size of one head, hs = H / nh"),
        (r(output=False), "the output projection is missing: the merged heads go through output.weight and "
                          "output.bias"),
        (r(masking="none"), "attention_mask was not applied: padded keys must get probability 0"),
        (r(masking="queries"), "you masked the padded queries (rows) instead of the padded keys (columns)"),
        (r(key_weights="query"), "your keys were computed with the query weights; keys use key.weight and "
                                 "key.bias"),
    ]


def multi_head(fn) -> None:
    """Check `fn(x, attention_mask, weights, num_heads) -> (B, T, H)`."""
    # 1. One token (B = T = 1, H = 4, nh = 2): attention over a single key is the identity, so the output is
    #    the token's value, projected twice. value.weight W_v = a cyclic shift, rows [0,1,0,0], [0,0,1,0],
    #    [0,0,0,1], [1,0,0,0]; x = [1, 2, 3, 4]: x W_vᵀ = [2, 3, 4, 1] (row r of W_v picks x[r + 1]),
    #    + value.bias [0, 0, 0, 10] = [2, 3, 4, 11]; output.weight = I, output.bias = [1, 1, 1, 1]:
    #    [3, 4, 5, 12]. With x @ W_v instead of W_vᵀ: [4, 1, 2, 3] + [0, 0, 0, 10] + 1 = [5, 2, 3, 14].
    shift = _t([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]])
    w = {n: torch.zeros(4, 4) if n.endswith("weight") else torch.zeros(4) for n in NAMES}
    w.update({"query.weight": shift.T.clone(), "key.weight": torch.eye(4), "value.weight": shift,
              "value.bias": _t([0, 0, 0, 10]), "output.weight": torch.eye(4), "output.bias": _t([1, 1, 1, 1])})
    x = _t([[[1, 2, 3, 4]]])
    name = ("one token x = [[[1, 2, 3, 4]]], num_heads = 2, value.weight the cyclic shift [[0, 1, 0, 0], "
            "[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]], value.bias [0, 0, 0, 10], output.weight I, output.bias "
            "[1, 1, 1, 1], attention_mask [[1]]")
    got = _call_with_weights(fn, name, x, torch.tensor([[1]]), w, 2)
    mistake = _diagnose(got, _multi_head_mistakes(x, torch.tensor([[1]]), w, 2))
    _expect(name, got, _t([[[3, 4, 5, 12]]]), hint=mistake or "with one token every head puts probability 1 on it: "
                                                              "out = (x W_vᵀ + b_v) W_oᵀ + b_o")

    # Random: minibert's SelfAttention (SDPA path) with the same weights, on padded batches.
    cases = [(2, 5, 16, 4, [5, 3]), (3, 7, 24, 6, [7, 7, 2]), (3, 6, 12, 3, [6, 4, 5]), (1, 9, 30, 5, [9]),
             (2, 4, 8, 2, [4, 1])]
    for seed, (B, T, H, nh, lengths) in enumerate(cases):
        attn = _model(BertConfig(hidden_size=H, num_attention_heads=nh), SelfAttention, 300 + seed)
        x = torch.randn(B, T, H, generator=torch.Generator().manual_seed(300 + seed))
        mask = (torch.arange(T)[None, :] < torch.tensor(lengths)[:, None]).long()  # (B, T)
        with torch.no_grad():
            expected = attn(x, mask.bool()[:, None, None, :])[0]
        name = (f"random case {seed + 1}: x of shape ({B}, {T}, {H}), num_heads = {nh}, real lengths {lengths}, "
                "compared with minibert's SelfAttention")
        weights = _weights(attn)
        got = _call_with_weights(fn, name, x, mask, weights, nh)
        if isinstance(got, torch.Tensor) and got.shape == expected.shape and not torch.allclose(
                got.detach().double(), expected.double(), atol=1e-5, rtol=1e-4):
            hint = _diagnose(got, _multi_head_mistakes(x, mask, weights, nh))
            expect_close(name, got, expected, atol=1e-5, hint=hint)
        expect_close(name, got, expected, atol=1e-5)
    passed("multi_head", f"1 hand-computed case and {len(cases)} random ones agree with minibert's SelfAttention")


# ---------------------------------------------------------------------------------------------------
# Exercise 2.6: one head, one query, from slices of the weights

def _one_head(x, w, nh, head, i, *, rows=True, scale="hs", softmax="keys"):
    """Head `head`'s output for query i of x (T, H), as written or as a known mistake writes it: (hs,)."""
    x = x.double()
    T, H = x.shape
    hs = H // nh
    part = slice(head * hs, (head + 1) * hs)
    def proj(n):  # (T, hs): head `head`'s slice of the projection
        W, b = w[n + ".weight"].double(), w[n + ".bias"].double()
        return x @ (W[part] if rows else W[:, part].T).T + b[part]
    q, k, v = proj("query"), proj("key"), proj("value")
    scores = q @ k.T / math.sqrt({"hs": hs, "H": H, "d": hs * hs}[scale])    # (T, T)
    p = scores.softmax(-1)[i] if softmax == "keys" else scores.softmax(0)[:, i]
    return p @ v                                                              # (hs,)


def one_head(fn) -> None:
    """Check `fn(x, weights, num_heads, head, i) -> (hs,)`: head `head`'s output for query i."""
    # 1. H = 2, nh = 2 (hs = 1), head 0, query 0. Query and key weights I, biases 0, value.weight
    #    [[0, 1], [0, 0]] (head 0's value is feature 1 of x). x = [[√ln3, 5], [0, 7]]: head 0's query
    #    and keys are feature 0, so the scores of query 0 are [ln3, 0] (√hs = 1), softmax [3/4, 1/4],
    #    and the values are [5, 7]: 3/4·5 + 1/4·7 = 5.5. Slicing columns of value.weight (W[:, 0]) gives
    #    values x·[0, 0] = 0; scaling by √H = √2 gives softmax([ln3/√2, 0]).
    s = math.sqrt(math.log(3))
    w = {n: torch.zeros(2, 2) if n.endswith("weight") else torch.zeros(2) for n in NAMES}
    w.update({"query.weight": torch.eye(2), "key.weight": torch.eye(2), "value.weight": _t([[0, 1], [0, 0]]),
              "output.weight": torch.eye(2)})
    x = _t([[s, 5], [0, 7]])
    name = ("x = [[√ln 3, 5], [0, 7]] (T = 2, H = 2), num_heads = 2, head 0, query i = 0; query and key weights "
            "I, value.weight [[0, 1], [0, 0]], biases 0")
    got = _as_tensor(_call_with_weights(fn, name, x, None, w, 2, 0, 0))
    _head_shape(name, got, 2, 2, 2)
    p = 3 ** (1 / math.sqrt(2))
    _expect(name, got, _t([5.5]), bugs=[
        (_t([0.0]), "nn.Linear's weight is (out, in): head h's outputs are the *rows* h·hs .. (h+1)·hs - 1 of "
                    "each weight (and that slice of the bias), not its columns"),
        (_t([(5 * p + 7) / (p + 1)]), "you divided by √H; d is the size of one head, hs = H / num_heads")],
        hint="q_i = x[i] @ W_q[rows of the head].T + b_q[rows of the head], the same slice for keys and values; "
             "out = Σ_j softmax_j(q_i · k_j / √hs) v_j")
    # Random: minibert's SelfAttention, its context vector of head h at query i (before W_O).
    cases = [(5, 18, 3, 2, 3), (7, 24, 6, 5, 0), (6, 12, 3, 0, 5), (4, 8, 1, 0, 2)]
    for seed, (T, H, nh, head, i) in enumerate(cases):
        attn = _model(BertConfig(hidden_size=H, num_attention_heads=nh), SelfAttention, 600 + seed)
        x = torch.randn(1, T, H, generator=torch.Generator().manual_seed(600 + seed))
        with torch.no_grad():
            _, probs = attn(x, None, need_probs=True)                      # (1, nh, T, T)
            expected = probs[0, head, i] @ attn.split_heads(attn.value(x))[0, head]   # (hs,)
        name = (f"random case {seed + 1}: x of shape ({T}, {H}), num_heads = {nh}, head {head}, query i = {i}, "
                "compared with minibert's SelfAttention")
        weights = _weights(attn)
        got = _as_tensor(_call_with_weights(fn, name, x[0], None, weights, nh, head, i))
        _head_shape(name, got, T, H, nh)
        hint = _diagnose(got, [
            (lambda: _one_head(x[0], weights, nh, head, i, rows=False), "nn.Linear's weight is (out, in): the head "
             "owns rows h·hs .. (h+1)·hs - 1 of each weight, not columns"),
            (lambda: _one_head(x[0], weights, nh, head, i, scale="H"), "you divided by √H; divide by √hs"),
            (lambda: _one_head(x[0], weights, nh, head, i, scale="d"), "you divided by hs; divide by √hs"),
            (lambda: _one_head(x[0], weights, nh, head, i, softmax="queries"),
             "you used column i of the probabilities (how much each query attends to token i); query i's weights "
             "are row i, a softmax over the keys")]) if isinstance(got, torch.Tensor) else ""
        expect_close(name, got, expected, atol=1e-5, hint=hint)
    passed("one_head", f"1 hand-computed case and {len(cases)} random ones agree with minibert's SelfAttention")


def _head_shape(name, got, T, H, nh):
    """One head's output for one query is (hs,); other shapes name what was returned instead."""
    hs = H // nh
    if isinstance(got, torch.Tensor) and tuple(got.shape) != (hs,):
        hint = {(T, hs): "that is every query's output; return query i's row only",
                (1, hs): "return a vector of shape (hs,), not a (1, hs) matrix: index the row, or .squeeze(0)",
                (H,): "that is a vector of the full width H; one head's output has hs = H / num_heads values",
                (T,): "that is query i's probabilities; multiply them with the head's values"}
        if T == H:  # (T,) and (H,) are the same shape here: name both
            hint[(T,)] = ("that is a vector of the full width H (every head), or query i's probabilities; one "
                          "head's output has hs = H / num_heads values")
        raise ExerciseError(f"{name}: expected shape ({hs},), received shape {tuple(got.shape)}\n  hint: "
                            + hint.get(tuple(got.shape), "one vector of hs = H / num_heads values"))


def _as_tensor(got):
    """A list of numbers or a numpy array is a fine answer too."""
    if isinstance(got, (list, tuple)) or type(got).__module__ == "numpy":
        try:
            return torch.as_tensor(got, dtype=torch.float64)
        except (TypeError, ValueError, RuntimeError):
            return got
    return got
