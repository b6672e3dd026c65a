"""The checkers of exercises 2.5 and 2.6: multi-head self-attention from its projection weights over
rows that pack several sequences (each attended alone), and one head's output for one query, from
slices of those weights."""

from __future__ import annotations

import math

import torch

from ...config import BertConfig
from ...model import SelfAttention
from ..common import ExerciseError, expect_close, passed
from ._shared import SHAPE_ERRORS, _call_pure, _diagnose, _expect, _model, _t
from .multi_head_extremes import one_head_extremes, packed_float64

NAMES = [f"{p}.{w}" for p in ("query", "key", "value", "output") for w in ("weight", "bias")]


def _weights(attn: SelfAttention) -> dict:
    return {name: t.detach().clone() for name, t in attn.state_dict().items() if name in NAMES}


def _call_with_weights(fn, name, x, mask, weights, *rest, hints=SHAPE_ERRORS):
    """Call with copies, then check that neither x, the mask nor any weight was changed in place."""
    copies = {k: v.clone() for k, v in weights.items()}
    args = (x,) + (() if mask is None else (mask,))
    got = _call_pure(fn, name, hints, *args, copies, *rest)
    for key, before in weights.items():
        if not torch.equal(copies[key], before):
            raise ExerciseError(f"{name}: your function changed weights[{key!r}] in place\n  hint: an in-place "
                                "operation (.t_(), +=, ...) alters the caller's weights; use out-of-place forms")
    return got


def _allowed(ids: torch.Tensor, masking: str) -> torch.Tensor:
    """(B, 1, T, T) booleans: may query i see key j? From sequence_ids (B, T), 0 at padding."""
    ids = ids.long()
    real = ids != 0
    same = ids[:, :, None] == ids[:, None, :]                                  # (B, T_q, T_k)
    allowed = {"packed": same & real[:, None, :],
               "padding": real[:, None, :].expand_as(same)}[masking]            # every real key of the row
    return allowed[:, None]


def _reference(x, ids, w, nh, *, transpose=True, split="heads", merge="heads", scale="hs", output=True,
               masking="packed", key_weights="key"):
    """Packed multi-head self-attention as written, or as a known mistake writes it (float64)."""
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
    if masking != "none":
        scores = scores.masked_fill(~_allowed(ids, masking), torch.finfo(scores.dtype).min)
    context = scores.softmax(-1) @ v                                           # (B, nh, T, hs)
    merged = {"heads": lambda c: c.transpose(1, 2).reshape(B, T, H),
              "interleaved": lambda c: c.permute(0, 2, 3, 1).reshape(B, T, H),
              "no transpose": lambda c: c.reshape(B, T, H)}[merge](context)
    return lin(merged, "output") if output else merged


def _packed_mistakes(x, ids, w, nh):
    r = lambda **kw: (lambda: _reference(x, ids, w, nh, **kw))  # noqa: E731
    return [
        (r(masking="padding"), "a token attended to the other sequences of its row: hiding the padding is not "
                               "enough; key j is visible to query i only when sequence_ids[j] == sequence_ids[i]"),
        (r(transpose=False), "nn.Linear computes x @ W.T + b (its weight is (out, in)); you multiplied by W itself"),
        (r(split="interleaved"), "your heads are interleaved, each taking every nh-th feature; head h owns the "
                                 "contiguous slice h·hs .. (h+1)·hs - 1: split H as (nh, hs), not (hs, nh), and "
                                 "merge back in the same order"),
        (r(split="view"), "viewing (B, T, H) straight as (B, nh, T, hs) re-reads memory in order; which axes "
                          "did that glue together? Cut H first, then move the head axis"),
        (r(merge="no transpose"), "merging without moving the head axis back glues together numbers of different "
                                  "tokens: undo the split's steps in reverse order"),
        (r(merge="interleaved"), "your merge interleaves the heads' features; each head's hs features go back to "
                                 "one contiguous slice: flatten (nh, hs), not (hs, nh)"),
        (r(scale="H"), "you divided the scores by √H, the hidden size; d is the size of one head, hs = H / nh"),
        (r(output=False), "the output projection is missing: the merged heads go through output.weight and "
                          "output.bias"),
        (r(key_weights="query"), "your keys were computed with the query weights; keys use key.weight and "
                                 "key.bias"),
    ]


PACKED_ERRORS = {**SHAPE_ERRORS, "must match the size of tensor b": (
    "the scores are (B, nh, T, T); a (B, T, T) mask lines its batch axis up with the heads: give it a head "
    "axis, (B, 1, T, T)")}


def _padding_is_finite(name, got, ids) -> None:
    """Every output finite: a NaN at a padding position reaches the real tokens in the next layer
    (a hidden key still multiplies its value: 0 · NaN = NaN)."""
    if not isinstance(got, torch.Tensor) or got.shape[:2] != ids.shape or torch.isfinite(got).all():
        return
    bad = ~torch.isfinite(got.detach()).all(-1)                                # (B, T)
    b, t = (int(i) for i in torch.nonzero(bad)[0])
    if not (bad & (ids != 0)).any():
        raise ExerciseError(
            f"{name}: your output is NaN or inf at padding positions (first: row {b}, position {t}); the real "
            "tokens are right\n  hint: a padding query has no visible key, so its whole row of scores is hidden; "
            "what does softmax return for a row of -inf? In the next layer that NaN, as a hidden key's value, "
            "multiplies its probability 0 (0 · NaN = NaN) and spreads to every token of the row. Hide with the "
            "most negative finite number, torch.finfo(dtype).min")
    raise ExerciseError(f"{name}: your output is NaN or inf (first at row {b}, position {t}, a real token)")


def _packed_ids(lengths: list[list[int]], T: int) -> torch.Tensor:
    """sequence_ids (B, T): row b holds sequences of lengths[b] one after the other (ids 1, 2, ...), then 0s."""
    ids = torch.zeros(len(lengths), T, dtype=torch.long)
    for b, row in enumerate(lengths):
        counts = torch.tensor(row, dtype=torch.long)
        ids[b, :sum(row)] = torch.repeat_interleave(torch.arange(1, len(row) + 1), counts)
    return ids


def _each_sequence_alone(attn: SelfAttention, x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """minibert's SelfAttention run on each packed sequence by itself, put back in place; 0 at padding."""
    out = torch.zeros_like(x)
    with torch.no_grad():
        for b in range(ids.shape[0]):
            for k in ids[b].unique().tolist():
                if k != 0:
                    where = ids[b] == k
                    out[b, where] = attn(x[b, where][None], None)[0][0]
    return out


def packed_attention(fn) -> None:
    """Check `fn(x, sequence_ids, weights, num_heads) -> (B, T, H)`."""
    # 1. Two one-token sequences in one row (B = 1, T = 2, H = 4, nh = 2): alone, a token attends only to
    #    itself, so its output is its value, projected twice. value.weight W_v = a cyclic shift, rows
    #    [0,1,0,0], [0,0,1,0], [0,0,0,1], [1,0,0,0] (row r picks x[r + 1]), value.bias [0, 0, 0, 10],
    #    output.weight = I, output.bias = [1, 1, 1, 1]: x = [1, 2, 3, 4] -> [2, 3, 4, 1] + [0, 0, 0, 10] + 1
    #    = [3, 4, 5, 12]; x = [5, 6, 7, 8] -> [6, 7, 8, 5] + [0, 0, 0, 10] + 1 = [7, 8, 9, 16]. A token that
    #    also sees the other sequence averages in the other value, and receives something between the two.
    shift = _t([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]])
    w = {n: torch.zeros(4, 4) if n.endswith("weight") else torch.zeros(4) for n in NAMES}
    w.update({"query.weight": shift.T.clone(), "key.weight": torch.eye(4), "value.weight": shift,
              "value.bias": _t([0, 0, 0, 10]), "output.weight": torch.eye(4), "output.bias": _t([1, 1, 1, 1])})
    x, ids = _t([[[1, 2, 3, 4], [5, 6, 7, 8]]]), torch.tensor([[1, 2]])
    name = ("two one-token sequences in one row: x = [[[1, 2, 3, 4], [5, 6, 7, 8]]], sequence_ids [[1, 2]], "
            "num_heads = 2, value.weight the cyclic shift [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]], "
            "value.bias [0, 0, 0, 10], output.weight I, output.bias [1, 1, 1, 1]")
    got = _call_with_weights(fn, name, x, ids, w, 2, hints=PACKED_ERRORS)
    _padding_is_finite(name, got, ids)
    # Here attention is the identity, so a split by .view alone and a merge without the transpose give the
    # same numbers: the hint names every mistake the output matches, and one only when it alone does.
    named = [why for compute, why in _packed_mistakes(x, ids, w, 2) if _diagnose(got, [(compute, why)])]
    _expect(name, got, _t([[[3, 4, 5, 12], [7, 8, 9, 16]]]), hint=(
        named[0] if len(named) == 1 else "your output is what each of these mistakes gives here: "
        + "; or ".join(named) if named else
        "each token is a sequence of its own here, so it sees only itself: out = (x W_vᵀ + b_v) W_oᵀ + b_o"))

    # Random: minibert's SelfAttention run on each sequence alone, against rows that pack several sequences
    # (lengths per row), padded to T; a sequence of one token, a full row and a row of padding included.
    cases = [(6, 16, 4, [[3, 2], [6]]), (7, 24, 6, [[2, 2, 2], [1, 4], [7]]), (8, 12, 3, [[4, 1, 2], [3, 3], []]),
             (9, 30, 5, [[5, 4]]), (5, 8, 2, [[1, 1, 1, 1], [2]])]
    for seed, (T, H, nh, lengths) in enumerate(cases):
        attn = _model(BertConfig(hidden_size=H, num_attention_heads=nh), SelfAttention, 300 + seed)
        x = torch.randn(len(lengths), T, H, generator=torch.Generator().manual_seed(300 + seed))
        ids = _packed_ids(lengths, T)
        expected = _each_sequence_alone(attn, x, ids)
        name = (f"random case {seed + 1}: x of shape {tuple(x.shape)}, num_heads = {nh}, sequence lengths "
                f"{lengths} per row (sequence_ids {ids.tolist()}), compared with minibert's SelfAttention run "
                "on each sequence alone")
        weights = _weights(attn)
        got = _call_with_weights(fn, name, x, ids, weights, nh, hints=PACKED_ERRORS)
        _padding_is_finite(name, got, ids)
        hint = ""
        if isinstance(got, torch.Tensor) and got.shape == expected.shape:
            real = (ids != 0)[..., None]
            got = got.detach().double().masked_fill(~real, 0.0)                # padding outputs are free
            if not torch.allclose(got, expected.double(), atol=1e-5, rtol=1e-4):
                hint = _diagnose(got, [(lambda c=c: c().masked_fill(~real, 0.0), m)
                                       for c, m in _packed_mistakes(x, ids, weights, nh)])
        expect_close(name, got, expected.double(), atol=1e-5, hint=hint)
    packed_float64(fn, lambda name, *args: _call_with_weights(fn, name, *args, hints=PACKED_ERRORS), _packed_ids,
                   _each_sequence_alone, _weights)
    passed("packed_attention", f"1 hand-computed case and {len(cases) + 1} random ones agree with minibert's "
                               "SelfAttention run on each sequence alone")


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
    extra = one_head_extremes(fn, lambda name, x, w, *rest: _call_with_weights(fn, name, x, None, w, *rest),
                              _one_head, _as_tensor)
    passed("one_head", f"1 hand-computed case and {len(cases) + extra} random ones agree with minibert's SelfAttention")


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
