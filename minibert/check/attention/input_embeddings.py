"""The checker of exercise 2.1: the input representation from the ids alone, LayerNorm(word +
segment + position), the token types read off the [SEP]s as the tokenizer writes them."""

from __future__ import annotations

import math

import torch

from ...config import BertConfig
from ...model import Embeddings
from ..common import ExerciseError, expect_close, passed
from ._shared import _call_pure, _expect, _model, _t

# ---------------------------------------------------------------------------------------------------
# Exercise 2.1: LayerNorm(word[ids] + segment[types] + position[0..T-1]), types from the [SEP]s

def token_types(input_ids: torch.Tensor, sep_id: int) -> torch.Tensor:
    """(B, T) token types as the tokenizer writes them for `[CLS] A [SEP] B [SEP] [PAD]...`: 1 from
    the token after the first [SEP] through the second, 0 elsewhere (A, its [SEP], padding, and every
    token of a row with one sentence)."""
    is_sep = (input_ids == sep_id).long()
    upto = is_sep.cumsum(-1)
    before = upto - is_sep  # [SEP]s strictly before each position
    # One [SEP] before t and another at t or after it: t is in B. Padding after a lone [SEP] is not.
    return ((before == 1) & (upto[:, -1:] - before >= 1)).long()


def _type_mistakes(ids: torch.Tensor, sep_id: int):
    """(the (B, T) types a known mistake gives, its message), for rows as the tokenizer writes them."""
    is_sep = (ids == sep_id).long()
    upto, before = is_sep.cumsum(-1), is_sep.cumsum(-1) - is_sep  # [SEP]s up to t, and strictly before t
    lone = "a row with one [SEP] is one sentence, type 0 throughout: the padding after its [SEP] is no sentence B"
    return [(torch.zeros_like(ids), "every token got segment row 0: the tokens after the first [SEP] are sentence "
                                    "B, type 1"),
            (before == 1, f"{lone}; type 1 needs a second [SEP] after it, the one that closes B"),
            (before >= 1, "padding after the last [SEP] has type 0 (the tokenizer pads token_type_ids with 0), and "
                          f"{lone}"),
            (upto >= 1, "the first [SEP] closes sentence A, so it has type 0; B runs from the token after it "
                        "through the second [SEP]; padding is 0"),
            (upto == 1, "the first [SEP] closes sentence A, so it has type 0; B starts after it"),
            ((before == 1) & (is_sep == 0), "the second [SEP] closes sentence B: it has type 1, and padding after "
                                            "it type 0")]


def _layer_norm(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    """LayerNorm over the last axis, γ = 1, β = 0."""
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(((x - mean) ** 2).mean(-1, keepdim=True) + eps)


def _embed_case(fn, name, ids, sep_id, word, position, segment, weight=None, bias=None, eps=1e-12):
    word, position, segment = _t(word), _t(position), _t(segment)
    H = word.shape[1]
    weight = torch.ones(H) if weight is None else _t(weight)
    bias = torch.zeros(H) if bias is None else _t(bias)
    return _call_pure(fn, name, {}, _t(ids, torch.long), sep_id, word, position, segment, weight, bias, eps)


Z = [0.0, 0.0, 0.0, 0.0]  # a zero row of a table (H = 4)


def embeddings(fn) -> None:
    """Check `fn(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps)`: six cases
    worked out by hand (LayerNorm twice, positions, segments, a batch, the [SEP]s and padding), each
    catching its own mistakes, then random pairs and single sentences against minibert's Embeddings."""
    hand = (_variance, _eps_and_affine, _positions, _segments, _a_batch, _separators, _large_offset, _float64)
    for case in hand:
        case(fn)
    random = _random_cases(fn)
    passed("embeddings", f"{len(hand)} hand-computed cases and {random} random ones agree with minibert")


def _variance(fn) -> None:
    # 1. One token; only its word row is non-zero: x = [1, 1, 3, 3], mean 2, biased variance
    #    ((-1)² + (-1)² + 1² + 1²) / 4 = 1, so LayerNorm gives [-1, -1, 1, 1] (γ = 1, β = 0).
    #    Dividing by H - 1 = 3 instead gives variance 4/3 and [-1, -1, 1, 1] · √(3/4).
    name = ("one token, word row [1, 1, 3, 3], no [SEP] (sep_id 0), zero position and segment rows, γ = 1, β = 0, "
            "eps = 1e-12")
    got = _embed_case(fn, name, [[1]], 0, [Z, [1, 1, 3, 3]], [Z, Z, Z], [Z, Z])
    _expect(name, got, _t([[[-1, -1, 1, 1]]]),
            bugs=[(_t([[[-1, -1, 1, 1]]]) * math.sqrt(3 / 4),
                   "you divided by H - 1 (torch.var's default, the unbiased variance); LayerNorm divides by H: "
                   "x.var(-1, unbiased=False), or ((x - mean) ** 2).mean(-1)")],
            hint="LayerNorm per token: (x - mean) / sqrt(var + eps) * ln_weight + ln_bias, mean and variance "
                 "over the last axis (the H features)")


def _eps_and_affine(fn) -> None:
    # 2. The same token with eps = 3, γ = [1, 2, 3, 4], β = [1, 0, 0, -1]: (x - mean) / √(1 + 3) =
    #    [-0.5, -0.5, 0.5, 0.5], times γ = [-0.5, -1, 1.5, 2], plus β = [0.5, -1, 1.5, 1].
    #    eps ignored: [-1, -1, 1, 1] · γ + β = [0, -2, 3, 3]. eps outside the root, / (1 + 3): [0.75, -0.5, 0.75, 0].
    name = "the token of case 1 with eps = 3, ln_weight γ = [1, 2, 3, 4], ln_bias β = [1, 0, 0, -1]"
    got = _embed_case(fn, name, [[1]], 0, [Z, [1, 1, 3, 3]], [Z, Z, Z], [Z, Z],
                      weight=[1, 2, 3, 4], bias=[1, 0, 0, -1], eps=3.0)
    _expect(name, got, _t([[[0.5, -1, 1.5, 1]]]),
            bugs=[(_t([[[0, -2, 3, 3]]]),
                   "the eps argument was not used: divide by sqrt(var + eps) with the eps given"),
                  (_t([[[0.75, -0.5, 0.75, 0]]]),
                   "eps goes inside the square root: sqrt(var + eps), not sqrt(var) + eps")],
            hint="normalise, then scale by ln_weight (γ) and shift by ln_bias (β), feature by feature")


def _positions(fn) -> None:
    # 3. Positions. Word rows are constant vectors [i, i, i, i] (LayerNorm removes a constant), the
    #    segment rows are zero, and position row p is a pattern of ±1 (mean 0, variance 1, so
    #    LayerNorm returns it unchanged). Tokens [4, 2, 3] at positions 0, 1, 2 give rows 0, 1, 2.
    P = [[1, 1, -1, -1], [1, -1, 1, -1], [1, -1, -1, 1], [-1, -1, 1, 1], [-1, 1, -1, 1], [-1, 1, 1, -1]]
    name = ("token ids [[4, 2, 3]] (word row i = [i, i, i, i]), no [SEP] (sep_id 0), zero segment rows, position "
            f"table P of 6 rows {P}")
    got = _embed_case(fn, name, [[4, 2, 3]], 0, [[i] * 4 for i in range(5)], P, [Z, Z])
    _expect(name, got, _t([[P[0], P[1], P[2]]]),
            bugs=[(_t([[P[1], P[2], P[3]]]), "positions run 0, 1, ..., T - 1: the first token gets row 0 of the "
                                             "position table, not row 1"),
                  (_t([[P[4], P[2], P[3]]]), "you looked the position table up by token id; token t gets row t, "
                                             "whatever the token is: position[torch.arange(T)]"),
                  (torch.zeros(1, 3, 4), "the position embeddings are missing: add position[t] to token t"),
                  (_t([[P[0], P[0], P[0]]]), "every token got position row 0: the positions are torch.arange(T) "
                                             "with T = input_ids.shape[1], the sequence length, not the batch size")],
            hint="the output at position t must be LayerNorm(... + position[t]), t = 0, 1, ..., T - 1")


def _segments(fn) -> None:
    # 4. Segments. Tokens [1, 2, 1, 2] with [SEP] = 2, so the types are [0, 0, 1, 1] (A and its [SEP],
    #    then B and its [SEP]); word rows and position row t = [t, t, t, t] are constants, the segment
    #    rows ±1 patterns S0, S1: the output is [S0, S0, S1, S1]. Without the segment rows x is
    #    constant: 0.
    S = [[1, 1, -1, -1], [-1, 1, 1, -1]]
    name = (f"token ids [[1, 2, 1, 2]], sep_id 2 (so A = [1, [SEP]], B = [1, [SEP]]), segment table {S}, "
            "constant word and position rows")
    got = _embed_case(fn, name, [[1, 2, 1, 2]], 2, [Z, [2] * 4, [3] * 4], [[t] * 4 for t in range(4)], S)
    _expect(name, got, _t([[S[0], S[0], S[1], S[1]]]),
            bugs=[(torch.zeros(1, 4, 4),
                   "the segment (token type) embeddings are missing: add segment[token_type_ids]"),
                  (_t([[S[0]] * 4]), "every token got segment row 0: the tokens after the first [SEP] are "
                                     "sentence B, type 1"),
                  (_t([[S[0], S[1], S[1], S[1]]]), "the first [SEP] closes sentence A: it has type 0, and B "
                                                   "starts after it"),
                  (_t([[S[0], S[0], S[1], S[0]]]), "the second [SEP] closes sentence B: it has type 1"),
                  (_t([[S[1]] * 4]), "the segment row is chosen by the token's type, not by its id")],
            hint="token t adds row token_type_ids[b, t] of the segment table: 1 after the first [SEP], through "
                 "the second")


def _a_batch(fn) -> None:
    # 5. A batch of two with all three tables: a pair then padding, [CLS] a [SEP] b [SEP] [PAD] (ids 2, 3, 1, 4, 1,
    #    0; [SEP] = 1), types [0, 0, 0, 1, 1, 0], and one sentence then padding, [CLS] a [SEP] [PAD] [PAD] [PAD]
    #    (ids 2, 3, 1, 0, 0, 0), types all 0: its padding comes after a lone [SEP], so it is no sentence B. Each
    #    output is the LayerNorm of word[id] + segment[type] + position[t]; row 0: [2, 0, 0, 0], [1, 2, 0, 0],
    #    [0, 1, 0, 2], [0, 2, 5, 0], [0, 2, 2, 3], [1, 1, 0, 0]; row 1 the same up to its [SEP], then
    #    [0, 0, 1, 0], [0, 0, 0, 1], [1, 1, 0, 0] (the position rows alone).
    ids = _t([[2, 3, 1, 4, 1, 0], [2, 3, 1, 0, 0, 0]], torch.long)
    W = _t([Z, [0, 0, 0, 2], [2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0]])
    P = _t([Z, [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 1, 0, 0]])
    S = _t([Z, [0, 2, 2, 0]])
    name = (f"a batch of two: input_ids {ids.tolist()} ([CLS] a [SEP] b [SEP] [PAD], and [CLS] a [SEP] [PAD] [PAD] "
            "[PAD]), sep_id 1, so the types are [[0, 0, 0, 1, 1, 0], [0, 0, 0, 0, 0, 0]]; word rows "
            f"{W.int().tolist()}, position rows {P.int().tolist()}, segment rows {S.int().tolist()}")
    got = _embed_case(fn, name, ids.tolist(), 1, W.tolist(), P.tolist(), S.tolist())
    out = lambda types: _layer_norm(W[ids] + S[types.long()] + P[:6])  # noqa: E731  (B, T) types -> outputs
    _expect(name, got, out(_t([[0, 0, 0, 1, 1, 0], [0, 0, 0, 0, 0, 0]], torch.long)),
            bugs=[(out(types), why) for types, why in _type_mistakes(ids, 1)],
            hint="each of the B·T outputs is LayerNorm(word[id] + segment[type] + position[t])")


def _separators(fn) -> None:
    # 6. The [SEP]s and padding: a pair [CLS] a [SEP] b [SEP] [PAD] [PAD] (ids 1, 3, 2, 3, 2, 0, 0, [SEP]
    #    = 2) and one sentence [CLS] a a [SEP] [PAD] [PAD] [PAD]. Constant word and position rows, segment
    #    rows ±1 patterns S0, S1: the pair gives [S0, S0, S0, S1, S1, S0, S0] (padding is type 0, as the
    #    tokenizer pads token_type_ids with 0), the single sentence S0 throughout.
    S = [[1, 1, -1, -1], [-1, 1, 1, -1]]
    ids = _t([[1, 3, 2, 3, 2, 0, 0], [1, 3, 3, 2, 0, 0, 0]], torch.long)
    name = (f"a pair and a single sentence, padded: input_ids {ids.tolist()}, sep_id 2, [PAD] 0, segment table "
            f"{S}, constant word and position rows")
    got = _embed_case(fn, name, ids.tolist(), 2, [[i] * 4 for i in range(4)], [[t] * 4 for t in range(7)], S)
    rows = lambda types: _t(S)[types.long()]  # noqa: E731  (B, T) types -> (B, T, 4): their segment rows
    _expect(name, got, rows(token_types(ids, 2)), bugs=[(rows(types), why) for types, why in _type_mistakes(ids, 2)],
            hint="type 1 from the token after the first [SEP] through the second [SEP], 0 everywhere else")


def _large_offset(fn) -> None:
    # 7. float32 features that share a large offset: every word row is 3000.1 + 0.5 · a ±1 pattern. The mean
    #    is ~3000 and the variance 0.25, so LayerNorm gives the ±1 pattern. A one-pass variance, mean(x²) -
    #    mean(x)², subtracts two numbers near 9e6 whose float32 spacing is 1: the variance it finds is garbage.
    rows = [[1, 1, -1, -1], [1, -1, 1, -1], [-1, 1, 1, -1]]
    word = [[3000.1 + 0.5 * r for r in row] for row in rows]
    name = (f"float32, word rows 3000.1 + 0.5 · {rows} (a large common offset), token ids [[0, 1, 2]], no [SEP] "
            "(sep_id 5), zero position and segment rows, γ = 1, β = 0, eps = 1e-12")
    got = _embed_case(fn, name, [[0, 1, 2]], 5, word, [Z, Z, Z], [Z, Z])
    expect_close(name, got, _t([rows]), atol=1e-2,
                 hint="LayerNorm must not depend on an offset shared by all features: subtract the mean first, then "
                      "average the squared deviations ((x - mean) ** 2).mean(-1); mean(x ** 2) - mean(x) ** 2 "
                      "cancels catastrophically in float32 when the mean is large")


def _float64(fn) -> None:
    # 8. The tables in float64: the result must stay float64 and agree to float64's precision (1e-10),
    #    so nothing may pass through float32 on the way.
    g = torch.Generator().manual_seed(8)
    word, position, segment = (torch.randn(n, 6, generator=g, dtype=torch.float64) for n in (9, 7, 2))
    weight, bias = 1 + torch.randn(6, generator=g, dtype=torch.float64), torch.randn(6, generator=g).double()
    ids = torch.tensor([[3, 5, 4, 6, 4, 0], [3, 7, 4, 0, 0, 0]])
    x = word[ids] + segment[token_types(ids, 4)] + position[:6]
    expected = _layer_norm(x, 1e-12) * weight + bias
    name = (f"float64 tables (V = 9, P = 7, H = 6, random values), input_ids {ids.tolist()}, sep_id 4, "
            "random γ and β in float64, eps = 1e-12")
    got = _call_pure(fn, name, {}, ids, 4, word, position, segment, weight, bias, 1e-12)
    if isinstance(got, torch.Tensor) and got.dtype != torch.float64:
        raise ExerciseError(f"{name}: your result has dtype {got.dtype}, expected torch.float64\n  hint: compute in "
                            "the tables' own dtype; a constant tensor made without dtype= is float32, and "
                            ".float() casts float64 down")
    expect_close(name, got, expected, atol=1e-10, rtol=1e-10,
                 hint="in float64 the result must agree to 1e-10: did a step pass through float32?")


def _random_cases(fn) -> int:
    """minibert's Embeddings in eval mode (no dropout), its weights handed to your function, on rows
    laid out as the tokenizer lays them out (a pair or one sentence, then padding); returns how many
    cases passed."""
    cases = [(2, 7, 1e-12), (3, 20, 1e-5), (1, 1, 0.5), (4, 13, 1e-12)]
    for seed, (B, T, eps) in enumerate(cases):
        # The last case numbers its specials as RoBERTa's vocabulary does (<s> 0, <pad> 1, </s> 2): nothing in
        # the input says which id pads, so the types come from the [SEP]s alone.
        CLS, SEP, PAD = (0, 2, 1) if seed == len(cases) - 1 else (3, 4, 0)
        config = BertConfig(vocab_size=50, hidden_size=24, num_attention_heads=4, max_position_embeddings=20,
                            type_vocab_size=2, layer_norm_eps=eps)
        E = _model(config, Embeddings, seed)
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for table in (E.word_embeddings, E.position_embeddings, E.token_type_embeddings):
                table.weight.copy_(torch.randn(table.weight.shape, generator=g))
            E.layer_norm.weight.copy_(1 + 0.5 * torch.randn(config.hidden_size, generator=g))
            E.layer_norm.bias.copy_(0.5 * torch.randn(config.hidden_size, generator=g))
            input_ids = torch.randint(5, config.vocab_size, (B, T), generator=g)  # ordinary pieces
            for b in range(B):
                n = int(torch.randint(1, T + 1, (), generator=g))  # real tokens, then padding
                input_ids[b, n:] = PAD
                input_ids[b, 0] = CLS
                if n >= 2:
                    input_ids[b, n - 1] = SEP
                if n >= 4 and b % 2 == 0:  # a pair: a [SEP] inside too
                    input_ids[b, int(torch.randint(1, n - 2, (), generator=g))] = SEP
            expected = E(input_ids, token_types(input_ids, SEP))
            # The last case's ids are a transposed view (a batch sliced or transposed upstream): .view refuses it.
            layout = ""
            if seed == len(cases) - 1:
                input_ids, layout = input_ids.T.contiguous().T, " (non-contiguous: a transposed (T, B) tensor's .T)"
            wrong = E(input_ids, _padding_taken_as_zero(input_ids, SEP)) if PAD != 0 else None
            name = (f"random case {seed + 1}: B={B}, T={T}, H={config.hidden_size}, vocab {config.vocab_size}, "
                    f"{config.max_position_embeddings} positions, eps={eps}, sep_id {SEP}, padding id {PAD}, input_ids "
                    f"{input_ids.tolist() if B * T <= 32 else f'({B}, {T})'}{layout}, compared with "
                    "minibert.model.Embeddings")
            got = _call_pure(fn, name, {}, input_ids, SEP, E.word_embeddings.weight, E.position_embeddings.weight,
                             E.token_type_embeddings.weight, E.layer_norm.weight, E.layer_norm.bias, eps)
        if wrong is not None and not torch.allclose(expected, wrong, atol=1e-5):
            _expect(name, got, expected, bugs=[(wrong, f"padding was taken to be id 0; here it is id {PAD}, and id 0 "
                                                       "is a real token: read the types off the [SEP]s alone")])
        expect_close(name, got, expected, atol=1e-5)
    return len(cases)


def _padding_taken_as_zero(ids: torch.Tensor, sep_id: int) -> torch.Tensor:
    """The types of a mistake: type 1 for every token after the first [SEP] whose id is not 0."""
    is_sep = (ids == sep_id).long()
    return ((is_sep.cumsum(-1) - is_sep >= 1) & (ids != 0)).long()
