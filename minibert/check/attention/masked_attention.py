"""The checkers of exercises 2.2 and 2.3: softmax(QKᵀ/√d)V with a key mask, and the additive
(B, 1, 1, T) padding mask."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ...config import BertConfig
from ...model import SelfAttention
from ..common import ExerciseError, _short, call, expect_close, passed
from ._shared import _call_with_hints, _close, _expect, _model, _rounded, _t

# ---------------------------------------------------------------------------------------------------
# Exercise 2.2: softmax(q kᵀ / √hs) v, padded keys masked

def _pair(name, result):
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise ExerciseError(f"{name}: expected a pair (out, probs), received {_short(result, 200)}")
    return result


def _attention_probs(name, probs, expected, bugs, hint):
    """Probabilities first (they say more about a bug than the output does)."""
    if isinstance(probs, torch.Tensor) and probs.shape == expected.shape:
        if torch.isnan(probs).any():
            raise ExerciseError(f"{name}: your probabilities contain NaN: {_rounded(probs)}\n  hint: a NaN row comes "
                                "from a softmax over scores that are all -inf; did you mask a whole row (a query) "
                                "instead of the columns (the keys)?")
        sums = probs.detach().sum(-1)
        if not torch.allclose(sums, torch.ones_like(sums), atol=1e-4) and not any(_close(probs, b) for b, _ in bugs):
            hint = ("each row of probs (one query) must sum to 1 over the keys; mask the scores before the "
                    "softmax, not the probabilities after it, and take the softmax over the last axis")
    _expect(name + ", probs", probs, expected, bugs=bugs, hint=hint)


def scaled_attention(fn) -> None:
    """Check `fn(q, k, v, key_mask=None) -> (out, probs)`."""
    hand = 0
    L3 = math.log(3)
    # 1. B = nh = 1, T = 2, hs = 4, so √d = 2. Keys k0 = [1, 1, 0, 0], k1 = [0, 0, 1, 1]; queries
    #    q0 = [ln3, ln3, 0, 0], q1 = [ln3, ln3, ln3, ln3]. Raw scores q·k: [[2 ln3, 0], [2 ln3, 2 ln3]];
    #    / √d: [[ln3, 0], [ln3, ln3]]; softmax per row: [3/4, 1/4] (e^ln3 = 3) and [1/2, 1/2].
    #    Values v0 = [4, 0, 8, 1], v1 = [0, 4, 0, 1]: out0 = 3/4 v0 + 1/4 v1 = [3, 1, 6, 1], out1 = [2, 2, 4, 1].
    #    Mistakes: no scaling: rows [9/10, 1/10], [1/2, 1/2]. Divided by d = 4: row 0 is softmax([ln3/2, 0])
    #    = [√3, 1]/(√3 + 1). Softmax over the queries (columns sum to 1): [[1/2, 1/4], [1/2, 3/4]].
    #    k @ qᵀ (scores transposed): softmax of [[ln3, ln3], [0, ln3]] = [[1/2, 1/2], [1/4, 3/4]].
    q = _t([[[[L3, L3, 0, 0], [L3, L3, L3, L3]]]])
    k = _t([[[[1, 1, 0, 0], [0, 0, 1, 1]]]])
    v = _t([[[[4, 0, 8, 1], [0, 4, 0, 1]]]])
    name = ("q = [[ln 3, ln 3, 0, 0], [ln 3, ln 3, ln 3, ln 3]], k = [[1, 1, 0, 0], [0, 0, 1, 1]], "
            "v = [[4, 0, 8, 1], [0, 4, 0, 1]] (B = 1, nh = 1, T = 2, hs = 4), key_mask None")
    out, probs = _pair(name, call(fn, name, q.clone(), k.clone(), v.clone()))
    r3 = math.sqrt(3)
    _attention_probs(name, probs, _t([[[[3 / 4, 1 / 4], [1 / 2, 1 / 2]]]]), bugs=[
        (_t([[[[9 / 10, 1 / 10], [1 / 2, 1 / 2]]]]),
         "your scores are √d too large: divide q·kᵀ by √d, where d = hs = 4 here (so by 2)"),
        (_t([[[[r3 / (r3 + 1), 1 / (r3 + 1)], [1 / 2, 1 / 2]]]]),
         "you divided the scores by d = hs = 4; divide by √d = 2"),
        (_t([[[[1 / 2, 1 / 4], [1 / 2, 3 / 4]]]]),
         "your softmax normalises over the queries (the columns sum to 1); take it over the keys, the last "
         "axis: softmax(dim=-1), so that each row (one query) sums to 1"),
        (_t([[[[1 / 2, 1 / 2], [1 / 4, 3 / 4]]]]),
         "your scores are transposed: scores[i, j] = q_i · k_j, that is q @ k.transpose(-2, -1), of shape "
         "(B, nh, T_queries, T_keys)")],
        hint="probs = softmax(q @ kᵀ / √hs) over the last axis (the keys)")
    _expect(name + ", out", out, _t([[[[3, 1, 6, 1], [2, 2, 4, 1]]]]),
            hint="out = probs @ v: row i is query i's probability-weighted average of the value rows")
    hand += 1

    # 2. Case 1 plus a third token, [PAD], with key_mask [[True, True, False]]: k2 = [1, 1, 1, 1],
    #    v2 = [100, 100, 100, 100], and q2 = q0. Key 2 must get probability 0 from every query, so
    #    the rows are those of case 1: [3/4, 1/4, 0], [1/2, 1/2, 0], and for q2 = q0: [3/4, 1/4, 0].
    #    Mistakes. Key 2 not masked (no mask, or the mask on the rows): scaled scores q·k2/2 = ln3 for
    #    q0 and q2, 2 ln3 for q1, so rows [3, 1, 3]/7, [3, 3, 9]/15 = [1/5, 1/5, 3/5], and [3/7, 1/7, 3/7]
    #    (a masked row 2 becomes [1/3, 1/3, 1/3] with a finite fill, NaN with -inf). Score of key 2 set
    #    to 0 (masked_fill with 0, or scores multiplied by the mask): rows softmax([ln3, 0, 0]) =
    #    [3/5, 1/5, 1/5], softmax([ln3, ln3, 0]) = [3/7, 3/7, 1/7], and [3/5, 1/5, 1/5].
    q = _t([[[[L3, L3, 0, 0], [L3, L3, L3, L3], [L3, L3, 0, 0]]]])
    k = _t([[[[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1]]]])
    v = _t([[[[4, 0, 8, 1], [0, 4, 0, 1], [100, 100, 100, 100]]]])
    key_mask = torch.tensor([[True, True, False]])
    name = ("the two tokens of the first case plus a [PAD] token: q2 = q0, k2 = [1, 1, 1, 1], "
            "v2 = [100, 100, 100, 100], key_mask [[True, True, False]]")
    out, probs = _pair(name, call(fn, name, q.clone(), k.clone(), v.clone(), key_mask.clone()))
    unmasked = "the [PAD] key (column 2) gets probability: "
    _attention_probs(name, probs, _t([[[[3 / 4, 1 / 4, 0], [1 / 2, 1 / 2, 0], [3 / 4, 1 / 4, 0]]]]), bugs=[
        (_t([[[[3 / 7, 1 / 7, 3 / 7], [1 / 5, 1 / 5, 3 / 5], [3 / 7, 1 / 7, 3 / 7]]]]),
         unmasked + "key_mask was not applied; set the scores of padded keys to a large negative number before the "
                    "softmax"),
        (_t([[[[3 / 7, 1 / 7, 3 / 7], [1 / 5, 1 / 5, 3 / 5], [1 / 3, 1 / 3, 1 / 3]]]]),
         unmasked + "you masked the padded query (row 2) instead of the padded key (column 2); broadcast the "
                    "mask over the queries: key_mask[:, None, None, :], shape (B, 1, 1, T)"),
        (_t([[[[3 / 5, 1 / 5, 1 / 5], [3 / 7, 3 / 7, 1 / 7], [3 / 5, 1 / 5, 1 / 5]]]]),
         unmasked + "its score was set to 0, and exp(0) is not 0; fill masked scores with a large negative "
                    "number, torch.finfo(scores.dtype).min (or -inf), instead of 0 or multiplying by the mask")],
        hint="every query (padded ones included) must give the [PAD] key probability exactly 0; the mask "
             "hides keys, the columns of the (T, T) scores")
    _expect(name + ", out", out, _t([[[[3, 1, 6, 1], [2, 2, 4, 1], [3, 1, 6, 1]]]]),
            hint="out = probs @ v")
    hand += 1

    # Random: compared with F.scaled_dot_product_attention (out; and probs, as its output for v = the
    # identity matrix) and with the explicit path of minibert's SelfAttention (probs).
    random = 0
    for seed, (B, nh, T, hs, lengths, kind) in enumerate([
            (2, 3, 5, 8, None, None), (3, 2, 6, 16, [6, 4, 2], torch.long), (3, 4, 7, 6, [7, 5, 1], torch.bool)]):
        g = torch.Generator().manual_seed(100 + seed)
        mask = None if lengths is None else (torch.arange(T)[None, :] < torch.tensor(lengths)[:, None])  # (B, T)
        attn_mask = None if mask is None else mask[:, None, None, :]  # (B, 1, 1, T), True = may attend
        minibert_probs = None
        if kind is torch.bool:  # queries, keys and values from a minibert SelfAttention, with its probabilities
            attn = _model(BertConfig(hidden_size=nh * hs, num_attention_heads=nh), SelfAttention, seed)
            x = torch.randn(B, T, nh * hs, generator=g)
            with torch.no_grad():
                q, k, v = (attn.split_heads(lin(x)) for lin in (attn.query, attn.key, attn.value))
                minibert_probs = attn(x, attn_mask, need_probs=True)[1]
            source = "q, k, v from minibert's SelfAttention, compared with its probabilities and with SDPA"
        else:
            q, k, v = (torch.randn(B, nh, T, hs, generator=g) * s for s in (1.5, 1.5, 1.0))
            source = "compared with F.scaled_dot_product_attention"
        with torch.no_grad():
            expected_out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
            expected_probs = F.scaled_dot_product_attention(q, k, torch.eye(T).expand(B, nh, T, T), attn_mask=attn_mask)
        if minibert_probs is not None:
            assert torch.allclose(expected_probs, minibert_probs, atol=1e-6)
        key_mask = None if mask is None else mask.to(kind)
        masked = "no key_mask" if mask is None else f"key_mask of dtype {kind} with real lengths {lengths}"
        name = f"random case {random + 1}: B={B}, nh={nh}, T={T}, hs={hs}, {masked}; {source}"
        args = (q.clone(), k.clone(), v.clone()) + (() if key_mask is None else (key_mask.clone(),))
        hint = "key_mask may hold 0/1 integers: key_mask.bool() turns it into True/False" if kind is torch.long else ""
        out, probs = _pair(name, _call_with_hints(fn, name, {"": hint} if hint else {}, *args))
        expect_close(name + ", probs", probs, expected_probs, atol=1e-5, hint=hint)
        expect_close(name + ", out", out, expected_out, atol=1e-5, hint=hint)
        random += 1
    passed("scaled_attention", f"{hand} hand-computed cases and {random} random ones agree with minibert and "
                               "F.scaled_dot_product_attention")


# ---------------------------------------------------------------------------------------------------
# Exercise 2.3: the additive padding mask, (B, 1, 1, T)

LARGE_NEGATIVE = -1e4  # at or below this, exp(score + mask) underflows to exactly 0 in float32


def _check_mask(name: str, got, attention_mask: torch.Tensor) -> None:
    B, T = attention_mask.shape
    shape = (B, 1, 1, T)
    if not isinstance(got, torch.Tensor):
        raise ExerciseError(f"{name}: expected a tensor of shape {shape}, received {_short(got, 200)}")
    if got.dtype == torch.bool:
        raise ExerciseError(f"{name}: expected a float mask that is added to the scores, received a bool tensor\n"
                            "  hint: 0 keeps a score, a large negative number removes it: return 0.0 where the "
                            "token is real and e.g. torch.finfo(torch.float32).min where it is padding")
    if tuple(got.shape) != shape:
        hints = {(B, 1, T, 1): "(B, 1, T, 1) masks the queries (rows of the scores); the mask must hide keys, the "
                               "last axis: attention_mask[:, None, None, :]",
                 (B, T): "a (B, T) mask does not broadcast against the (B, nh, T, T) scores; add the head and query "
                         "axes: (B, 1, 1, T), e.g. attention_mask[:, None, None, :]"}
        raise ExerciseError(f"{name}: expected shape {shape}, received shape {tuple(got.shape)}\n  hint: "
                            + hints.get(tuple(got.shape), "(B, 1, 1, T): one value per key, broadcast over the "
                                                          "heads and the queries"))
    values, real = got.detach().reshape(B, T).double(), attention_mask.bool()
    where = f"\n  attention_mask {attention_mask.tolist()}\n  received {_short(got)}"
    if torch.isnan(values).any():
        raise ExerciseError(f"{name}: your mask contains NaN{where}\n  hint: 0 × (-inf) is NaN; to use -inf, "
                            "place it with torch.where or masked_fill instead of multiplying")
    if not (values[real] == 0).all():
        if (values[~real] == 0).all() and (values[real] <= LARGE_NEGATIVE).all():
            hint = "your mask is inverted: 0 where attention_mask is 1 (a real token), large negative where it is 0"
        elif ((values == 0) | (values == 1)).all():
            hint = ("this is the 0/1 mask itself; it is added to the scores, not multiplied: return 0 where the "
                    "token is real and a large negative number where it is padding")
        else:
            hint = "real tokens (attention_mask 1) get 0, so that adding the mask leaves their scores unchanged"
        raise ExerciseError(f"{name}: the mask must be exactly 0 where attention_mask is 1{where}\n  hint: {hint}")
    if not (values[~real] <= LARGE_NEGATIVE).all():
        hint = ("padded keys need a large negative number (at most -10000, e.g. torch.finfo(torch.float32).min or "
                "-inf), so that exp(score + mask) is exactly 0")
        if ((values == 0) | (values == 1)).all():
            hint = "this is a 0/1 mask; it is added to the scores, not multiplied: " + hint
        raise ExerciseError(f"{name}: padded positions (attention_mask 0) must get a large negative value{where}"
                            f"\n  hint: {hint}")


def padding_mask(fn) -> None:
    """Check `fn(attention_mask) -> additive mask` of shape (B, 1, 1, T)."""
    hand = 0
    # The mask is 0 for a real token and a large negative number (≤ -1e4, or -inf) for padding, at
    # shape (B, 1, 1, T): for [[1, 1, 0], [1, 0, 0]], [[[[0, 0, -big]]], [[[0, -big, -big]]]].
    for attention_mask, what in [([[1, 1, 0], [1, 0, 0]], "two padded sequences"),
                                 ([[1, 1, 1, 1]], "one sequence without padding: all zeros, shape (1, 1, 1, 4)"),
                                 ([[0, 0, 1, 1, 1]], "padding on the left: the first two keys are masked")]:
        attention_mask = torch.tensor(attention_mask)
        name = f"attention_mask {attention_mask.tolist()} ({what})"
        _check_mask(name, call(fn, name, attention_mask.clone()), attention_mask)
        hand += 1

    # Random: softmax of random scores plus your mask, against minibert's SelfAttention, which hides
    # the same keys with its boolean mask: padded keys get exactly 0, real ones the same probabilities.
    cases = [(4, 9, [9, 6, 3, 1]), (3, 16, [10, 16, 2])]
    for seed, (B, T, lengths) in enumerate(cases):
        config = BertConfig(hidden_size=12, num_attention_heads=3)
        attn = _model(config, SelfAttention, 200 + seed)
        g = torch.Generator().manual_seed(200 + seed)
        x = 2 * torch.randn(B, T, config.hidden_size, generator=g)
        attention_mask = (torch.arange(T)[None, :] < torch.tensor(lengths)[:, None]).long()  # (B, T)
        name = f"random case {seed + 1}: attention_mask of shape ({B}, {T}) with real lengths {lengths}"
        got = call(fn, name, attention_mask.clone())
        _check_mask(name, got, attention_mask)
        with torch.no_grad():
            expected = attn(x, attention_mask.bool()[:, None, None, :], need_probs=True)[1]  # (B, nh, T, T)
            q, k = (attn.split_heads(lin(x)) for lin in (attn.query, attn.key))
            eye = torch.eye(T).expand(B, config.num_attention_heads, T, T)
            # softmax(q kᵀ / √hs + your mask), read off as SDPA's output for v = the identity
            probs = F.scaled_dot_product_attention(q, k, eye, attn_mask=got.detach().to(q.dtype))
        padded = ~attention_mask.bool()[:, None, None, :].expand_as(probs)
        if not (probs[padded] == 0).all():
            raise ExerciseError(f"{name}: after softmax(scores + your mask), padded keys get probability up to "
                                f"{probs[padded].max().item():.3g}, expected exactly 0\n  hint: use a more negative "
                                "number, e.g. torch.finfo(torch.float32).min")
        expect_close(name + ", softmax(scores + your mask) vs minibert's SelfAttention probabilities", probs,
                     expected, atol=1e-6)
    passed("padding_mask", f"{hand} hand-computed cases and {len(cases)} random ones agree with minibert")
