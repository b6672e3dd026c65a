"""Checkers for the exercises of chapter 02, embeddings and attention.

    check.embeddings(my_embed)                 Exercise 2.1, the input representation
    check.scaled_attention(my_attention)       Exercise 2.2, softmax(QKᵀ/√d)V with a key mask
    check.padding_mask(my_padding_mask)        Exercise 2.3, the additive (B, 1, 1, T) mask
    check.split_heads(my_split_heads)          Exercise 2.4, (B, T, H) -> (B, nh, T, hs)
    check.merge_heads(my_merge_heads)          Exercise 2.5, (B, nh, T, hs) -> (B, T, H)

(The attention checker is `scaled_attention`, not `attention`: this module is already called
`attention`.)

Hand-computed cases come first; each names its input and, where the received value is the one a
classic mistake gives, says which mistake. The expected values are worked out in the comments. The
random cases then compare with minibert (`Embeddings`, `SelfAttention`) and with PyTorch's
`F.scaled_dot_product_attention`.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ..config import BertConfig
from ..model import Embeddings, SelfAttention
from .common import ExerciseError, _short, call, expect_close, passed

__all__ = ["embeddings", "scaled_attention", "padding_mask", "split_heads", "merge_heads"]


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


# ---------------------------------------------------------------------------------------------------
# Exercise 2.1: LayerNorm(word[ids] + segment[types] + position[0..T-1])

def _embed_case(fn, name, ids, types, word, position, segment, weight=None, bias=None, eps=1e-12):
    word, position, segment = _t(word), _t(position), _t(segment)
    H = word.shape[1]
    weight = torch.ones(H) if weight is None else _t(weight)
    bias = torch.zeros(H) if bias is None else _t(bias)
    return call(fn, name, _t(ids, torch.long), _t(types, torch.long), word, position, segment, weight, bias, eps)


def embeddings(fn) -> None:
    """Check `fn(input_ids, token_type_ids, word, position, segment, ln_weight, ln_bias, eps)`."""
    hand = 0
    Z = [0.0, 0.0, 0.0, 0.0]

    # 1. One token; only its word row is non-zero: x = [1, 1, 3, 3], mean 2, biased variance
    #    ((-1)² + (-1)² + 1² + 1²) / 4 = 1, so LayerNorm gives [-1, -1, 1, 1] (γ = 1, β = 0).
    #    Dividing by H - 1 = 3 instead gives variance 4/3 and [-1, -1, 1, 1] · √(3/4).
    name = "one token, word row [1, 1, 3, 3], zero position and segment rows, γ = 1, β = 0, eps = 1e-12"
    got = _embed_case(fn, name, [[1]], [[0]], [Z, [1, 1, 3, 3]], [Z, Z, Z], [Z, Z])
    _expect(name, got, _t([[[-1, -1, 1, 1]]]),
            bugs=[(_t([[[-1, -1, 1, 1]]]) * math.sqrt(3 / 4),
                   "you divided by H - 1 (torch.var's default, the unbiased variance); LayerNorm divides by H: "
                   "x.var(-1, unbiased=False), or ((x - mean) ** 2).mean(-1)")],
            hint="LayerNorm per token: (x - mean) / sqrt(var + eps) * ln_weight + ln_bias, mean and variance "
                 "over the last axis (the H features)")
    hand += 1

    # 2. The same token with eps = 3, γ = [1, 2, 3, 4], β = [1, 0, 0, -1]: (x - mean) / √(1 + 3) =
    #    [-0.5, -0.5, 0.5, 0.5], times γ = [-0.5, -1, 1.5, 2], plus β = [0.5, -1, 1.5, 1].
    #    eps ignored: [-1, -1, 1, 1] · γ + β = [0, -2, 3, 3]. eps outside the root, / (1 + 3): [0.75, -0.5, 0.75, 0].
    name = "the token of case 1 with eps = 3, ln_weight γ = [1, 2, 3, 4], ln_bias β = [1, 0, 0, -1]"
    got = _embed_case(fn, name, [[1]], [[0]], [Z, [1, 1, 3, 3]], [Z, Z, Z], [Z, Z],
                      weight=[1, 2, 3, 4], bias=[1, 0, 0, -1], eps=3.0)
    _expect(name, got, _t([[[0.5, -1, 1.5, 1]]]),
            bugs=[(_t([[[0, -2, 3, 3]]]),
                   "the eps argument was not used: divide by sqrt(var + eps) with the eps given"),
                  (_t([[[0.75, -0.5, 0.75, 0]]]),
                   "eps goes inside the square root: sqrt(var + eps), not sqrt(var) + eps")],
            hint="normalise, then scale by ln_weight (γ) and shift by ln_bias (β), feature by feature")
    hand += 1

    # 3. Positions. Word rows are constant vectors [i, i, i, i] (LayerNorm removes a constant), the
    #    segment rows are zero, and position row p is a pattern of ±1 (mean 0, variance 1, so
    #    LayerNorm returns it unchanged). Tokens [4, 2, 3] at positions 0, 1, 2 give rows 0, 1, 2.
    P = [[1, 1, -1, -1], [1, -1, 1, -1], [1, -1, -1, 1], [-1, -1, 1, 1], [-1, 1, -1, 1], [-1, 1, 1, -1]]
    name = ("token ids [[4, 2, 3]] (word row i = [i, i, i, i]), zero segment rows, position table P of 6 "
            f"rows {P}")
    got = _embed_case(fn, name, [[4, 2, 3]], [[0, 0, 0]], [[i] * 4 for i in range(5)], P, [Z, Z])
    _expect(name, got, _t([[P[0], P[1], P[2]]]),
            bugs=[(_t([[P[1], P[2], P[3]]]), "positions run 0, 1, ..., T - 1: the first token gets row 0 of the "
                                             "position table, not row 1"),
                  (_t([[P[4], P[2], P[3]]]), "you looked the position table up by token id; token t gets row t, "
                                             "whatever the token is: position[torch.arange(T)]"),
                  (torch.zeros(1, 3, 4), "the position embeddings are missing: add position[t] to token t")],
            hint="the output at position t must be LayerNorm(... + position[t]), t = 0, 1, ..., T - 1")
    hand += 1

    # 4. Segments. All four tokens are id 1 (word row [2, 2, 2, 2]), position row t = [t, t, t, t]
    #    (constants again), and the segment rows are ±1 patterns S0, S1: the output is
    #    [S0, S0, S1, S1] for token types [0, 0, 1, 1]. Without the segment rows x is constant: 0.
    S = [[1, 1, -1, -1], [-1, 1, 1, -1]]
    name = (f"token ids [[1, 1, 1, 1]], token_type_ids [[0, 0, 1, 1]], segment table {S}, constant word and "
            "position rows")
    got = _embed_case(fn, name, [[1, 1, 1, 1]], [[0, 0, 1, 1]], [Z, [2] * 4], [[t] * 4 for t in range(4)], S)
    _expect(name, got, _t([[S[0], S[0], S[1], S[1]]]),
            bugs=[(torch.zeros(1, 4, 4),
                   "the segment (token type) embeddings are missing: add segment[token_type_ids]"),
                  (_t([[S[1]] * 4]), "the segment row is chosen by token_type_ids, not by input_ids")],
            hint="token t adds row token_type_ids[b, t] of the segment table")
    hand += 1

    # 5. A batch of two with all three tables. Word rows w1 = [2, 0, 0, 0], w2 = [0, 0, 2, 0], w0 = 0;
    #    position rows p0 = 0, p1 = [0, 0, 0, 2]; segment rows s0 = 0, s1 = [0, 2, 0, 0].
    #    (0, 0): w1 + s0 + p0 = [2, 0, 0, 0]: mean 0.5, deviations 0.5·[3, -1, -1, -1], variance
    #    0.25·12/4 = 0.75, std 0.5·√3, so [3, -1, -1, -1]/√3. Likewise (0, 1): w2 + s1 + p1 = [0, 2, 2, 2]
    #    -> [-3, 1, 1, 1]/√3; (1, 0): w2 + s0 + p0 -> [-1, -1, 3, -1]/√3;
    #    (1, 1): w0 + s0 + p1 -> [-1, -1, -1, 3]/√3.
    name = ("a batch of two: input_ids [[1, 2], [2, 0]], token_type_ids [[0, 1], [0, 0]], word rows "
            "[0, 0, 0, 0], [2, 0, 0, 0], [0, 0, 2, 0], position rows [0, 0, 0, 0], [0, 0, 0, 2], [0, 2, 0, 0], "
            "segment rows [0, 0, 0, 0], [0, 2, 0, 0]")
    got = _embed_case(fn, name, [[1, 2], [2, 0]], [[0, 1], [0, 0]], [Z, [2, 0, 0, 0], [0, 0, 2, 0]],
                      [Z, [0, 0, 0, 2], [0, 2, 0, 0]], [Z, [0, 2, 0, 0]])
    expected = _t([[[3, -1, -1, -1], [-3, 1, 1, 1]], [[-1, -1, 3, -1], [-1, -1, -1, 3]]]) / math.sqrt(3)
    _expect(name, got, expected, hint="each of the B·T outputs is LayerNorm(word[id] + segment[type] + position[t])")
    hand += 1

    # Random: minibert's Embeddings in eval mode (no dropout), its weights handed to your function.
    cases = [(2, 7, 1e-12), (3, 20, 1e-5), (1, 1, 0.5), (4, 13, 1e-12)]
    for seed, (B, T, eps) in enumerate(cases):
        config = BertConfig(vocab_size=50, hidden_size=24, num_attention_heads=4, max_position_embeddings=20,
                            type_vocab_size=2, layer_norm_eps=eps)
        E = _model(config, Embeddings, seed)
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for table in (E.word_embeddings, E.position_embeddings, E.token_type_embeddings):
                table.weight.copy_(torch.randn(table.weight.shape, generator=g))
            E.layer_norm.weight.copy_(1 + 0.5 * torch.randn(config.hidden_size, generator=g))
            E.layer_norm.bias.copy_(0.5 * torch.randn(config.hidden_size, generator=g))
            input_ids = torch.randint(0, config.vocab_size, (B, T), generator=g)
            token_type_ids = torch.randint(0, 2, (B, T), generator=g)
            expected = E(input_ids, token_type_ids)
            name = (f"random case {seed + 1}: B={B}, T={T}, H={config.hidden_size}, vocab {config.vocab_size}, "
                    f"{config.max_position_embeddings} positions, eps={eps}, compared with minibert.model.Embeddings")
            got = call(fn, name, input_ids.clone(), token_type_ids.clone(), E.word_embeddings.weight.clone(),
                       E.position_embeddings.weight.clone(), E.token_type_embeddings.weight.clone(),
                       E.layer_norm.weight.clone(), E.layer_norm.bias.clone(), eps)
        expect_close(name, got, expected, atol=1e-5)
    passed("embeddings", f"{hand} hand-computed cases and {len(cases)} random ones agree with minibert")


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


# ---------------------------------------------------------------------------------------------------
# Exercises 2.4 and 2.5: (B, T, H) <-> (B, nh, T, hs)

def _call_reshaping(fn, name, *args):
    return _call_with_hints(fn, name, {"view size is not compatible": (
        "after a transpose the tensor is not contiguous in memory, so .view cannot flatten it; use .reshape "
        "(or .contiguous().view)")}, *args)


def split_heads(fn) -> None:
    """Check `fn(x, num_heads)`: (B, T, H) -> (B, nh, T, hs)."""
    hand = 0
    # x = arange(24) as (B, T, H) = (1, 2, 12): token 0 holds 0..11, token 1 holds 12..23. With nh = 3
    # heads of hs = 4, head h owns features 4h..4h+3 of every token: head h, token t = 12t + 4h + [0..3].
    x = torch.arange(24.0).view(1, 2, 12)
    name = "x = torch.arange(24.).view(1, 2, 12) (B = 1, T = 2, H = 12), num_heads = 3 (hs = 4)"
    got = _call_reshaping(fn, name, x.clone(), 3)
    shape_hints = {(1, 2, 3, 4): "this is (B, T, nh, hs): the head axis must come before the token axis, "
                                 "transpose(1, 2)",
                   (1, 4, 2, 3): "this is (B, hs, T, nh): split H as (nh, hs), heads first, then move the head axis"}
    if isinstance(got, torch.Tensor) and tuple(got.shape) in shape_hints:
        raise ExerciseError(f"{name}: expected shape (1, 3, 2, 4) = (B, nh, T, hs), received shape "
                            f"{tuple(got.shape)}\n  hint: {shape_hints[tuple(got.shape)]}")
    expected = _t([[[[0, 1, 2, 3], [12, 13, 14, 15]],
                    [[4, 5, 6, 7], [16, 17, 18, 19]],
                    [[8, 9, 10, 11], [20, 21, 22, 23]]]])
    _expect(name, got, expected, bugs=[
        # view(B, nh, T, hs) reads memory in order: head 0 gets token 0's features 0..7
        (torch.arange(24.0).view(1, 3, 2, 4),
         "view(B, nh, T, hs) just re-reads memory, so head 0 got features 0..7 of token 0 instead of "
         "features 0..3 of each token; view as (B, T, nh, hs), then transpose(1, 2)"),
        # H split as (hs, nh): head h takes every third feature, h, h + 3, h + 6, h + 9
        (_t([[[[0, 3, 6, 9], [12, 15, 18, 21]], [[1, 4, 7, 10], [13, 16, 19, 22]], [[2, 5, 8, 11], [14, 17, 20, 23]]]]),
         "your heads take every nh-th feature; head h owns a contiguous slice, features h·hs .. (h+1)·hs - 1: "
         "split H as (nh, hs), not (hs, nh)")],
        hint="head h, token t must hold x[b, t, h·hs:(h+1)·hs]")
    hand += 1

    cases = [(2, 5, 64, 4), (3, 7, 24, 6), (1, 9, 30, 5), (2, 1, 8, 8)]
    for seed, (B, T, H, nh) in enumerate(cases):
        attn = _model(BertConfig(hidden_size=H, num_attention_heads=nh), SelfAttention, 300 + seed)
        x = torch.randn(B, T, H, generator=torch.Generator().manual_seed(300 + seed))
        name = (f"random case {seed + 1}: x of shape ({B}, {T}, {H}), num_heads = {nh}, compared with "
                "SelfAttention.split_heads")
        got = _call_reshaping(fn, name, x.clone(), nh)
        expect_close(name, got, attn.split_heads(x), atol=0, rtol=0)
    passed("split_heads", f"{hand} hand-computed case and {len(cases)} random ones agree with minibert")


def merge_heads(fn) -> None:
    """Check `fn(x)`: (B, nh, T, hs) -> (B, T, H), the inverse of split_heads."""
    hand = 0
    # x = arange(24) as (B, nh, T, hs) = (1, 3, 2, 4): head h, token t holds 8h + 4t + [0..3]. Token t
    # of the result is the concatenation, over heads h = 0, 1, 2, of x[0, h, t].
    x = torch.arange(24.0).view(1, 3, 2, 4)
    name = "x = torch.arange(24.).view(1, 3, 2, 4) (B = 1, nh = 3, T = 2, hs = 4)"
    got = _call_reshaping(fn, name, x.clone())
    expected = _t([[[0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19],
                    [4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23]]])
    _expect(name, got, expected, bugs=[
        (torch.arange(24.0).view(1, 2, 12),
         "a reshape without the transpose glues together numbers of different tokens (token 0 got head 0's "
         "two tokens); transpose(1, 2) back to (B, T, nh, hs) first, then reshape to (B, T, H)"),
        (_t([[[0, 8, 16, 1, 9, 17, 2, 10, 18, 3, 11, 19], [4, 12, 20, 5, 13, 21, 6, 14, 22, 7, 15, 23]]]),
         "your features are interleaved across heads; each head's hs features go back to one contiguous slice: "
         "flatten (nh, hs), not (hs, nh)")],
        hint="token t of the result is the concatenation, over heads h = 0 .. nh-1, of x[b, h, t]")
    hand += 1

    cases = [(2, 5, 64, 4), (3, 7, 24, 6), (1, 9, 30, 5), (2, 1, 8, 8)]
    for seed, (B, T, H, nh) in enumerate(cases):
        attn = _model(BertConfig(hidden_size=H, num_attention_heads=nh), SelfAttention, 400 + seed)
        x = torch.randn(B, T, H, generator=torch.Generator().manual_seed(400 + seed))
        name = (f"random case {seed + 1}: x of shape ({B}, {T}, {H}) split into {nh} heads by "
                "SelfAttention.split_heads; merging must give x back")
        got = _call_reshaping(fn, name, attn.split_heads(x).clone())
        expect_close(name, got, x, atol=0, rtol=0)
    passed("merge_heads", f"{hand} hand-computed case and {len(cases)} random ones agree with minibert")
