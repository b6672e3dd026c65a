"""The checkers of chapter 02's exercises: the solutions pass, the stubs raise NotImplementedError,
the mistakes learners really make are caught with a message that names the mistake, and correct
code in other styles (einsum, loops, float64, Google's -10000) is accepted."""

import math
import warnings
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from minibert import check
from minibert.check import ExerciseError

ROOT = Path(__file__).resolve().parents[1]
NAME = "02_attention.ipynb"
CHECKERS = {  # checker -> the function its exercise defines
    "embeddings": "my_embed",
    "scaled_attention": "my_attention",
    "padding_mask": "my_padding_mask",
    "causal_mask": "my_causal_mask",
    "packed_attention": "my_packed_attention",
    "one_head": "my_one_head",
}


def test_every_checker_is_exported():
    assert set(CHECKERS) <= set(check.__all__)


@pytest.mark.parametrize("checker", CHECKERS)
def test_the_solution_passes(checker, solutions, capsys):
    getattr(check, checker)(solutions[CHECKERS[checker]])
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {checker}:") and out.count("\n") == 1


@pytest.mark.parametrize("checker", CHECKERS)
def test_the_stub_raises_not_implemented(checker, stubs):
    with pytest.raises(NotImplementedError, match="Exercise 2\\."):
        getattr(check, checker)(stubs[CHECKERS[checker]])


# --- Exercise 2.1: the input representation, token types from the [SEP]s ---------------------------

def token_types(ids, sep):  # correct: 1 after the first [SEP] through the second, by counting
    is_sep = (ids == sep).long()
    before = is_sep.cumsum(-1) - is_sep
    return ((before == 1) & (is_sep.sum(-1, keepdim=True) >= 2)).long()  # a row with one [SEP] is all 0


def types_by_scanning(ids, sep):  # correct, another style: a loop over each row
    rows = []
    for row in ids.tolist():
        seen, types = 0, []
        for i in row:
            types.append(1 if seen == 1 and row.count(sep) >= 2 else 0)
            seen += i == sep
        rows.append(types)
    return torch.tensor(rows)


def lone_sep_padding_typed_with_b(ids, sep):  # 1 after the first [SEP], even when no second [SEP] follows
    is_sep = (ids == sep).long()
    return ((is_sep.cumsum(-1) - is_sep) == 1).long()


def embed_with(types_of):  # a learner's 2.1 whose token types come from `types_of(ids, sep)`
    def fn(ids, sep, word, position, segment, w, b, eps):
        x = word[ids] + segment[types_of(ids, sep)] + position[torch.arange(ids.shape[1])]
        return _layer_norm(x, w, b, eps)
    fn.__name__ = types_of.__name__
    return fn


def padding_taken_as_id_zero(ids, sep):  # type 1 after the first [SEP] unless the id is 0, taken for [PAD]
    is_sep = (ids == sep).long()
    return ((is_sep.cumsum(-1) - is_sep >= 1) & (ids != 0)).long()


def sep_typed_with_b(ids, sep):  # the first [SEP] typed 1, and everything after it
    return ((ids == sep).long().cumsum(-1) >= 1).long()


def padding_typed_with_b(ids, sep):  # after the first [SEP] to the end of the row
    is_sep = (ids == sep).long()
    return ((is_sep.cumsum(-1) - is_sep) >= 1).long()


def second_sep_typed_with_a(ids, sep):
    is_sep = (ids == sep).long()
    return (((is_sep.cumsum(-1) - is_sep) == 1) & (is_sep == 0)).long()


def all_type_a(ids, sep):
    return torch.zeros_like(ids)

def _layer_norm(x, w, b, eps, unbiased=False, dim=-1):
    mean = x.mean(dim, keepdim=True)
    return (x - mean) / torch.sqrt(x.var(dim, keepdim=True, unbiased=unbiased) + eps) * w + b


def embed_unbiased_variance(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)
    x = word[ids] + segment[types] + position[torch.arange(ids.shape[1])]
    return _layer_norm(x, w, b, eps, unbiased=True)  # torch.var's default


def embed_positions_from_one(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)
    x = word[ids] + segment[types] + position[torch.arange(1, ids.shape[1] + 1)]
    return _layer_norm(x, w, b, eps)


def embed_without_segments(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)
    return _layer_norm(word[ids] + position[torch.arange(ids.shape[1])], w, b, eps)


def embed_positions_by_token_id(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)
    return _layer_norm(word[ids] + segment[types] + position[ids], w, b, eps)


def embed_eps_outside_the_root(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)
    x = word[ids] + segment[types] + position[torch.arange(ids.shape[1])]
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / (x.var(-1, keepdim=True, unbiased=False).sqrt() + eps) * w + b


def embed_fixed_eps(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)
    x = word[ids] + segment[types] + position[torch.arange(ids.shape[1])]
    return _layer_norm(x, w, b, 1e-12)  # BERT's value, not the argument


def embed_positions_from_batch_size(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)
    x = word[ids] + segment[types] + position[torch.arange(ids.shape[0])][:, None]  # B, not T
    return _layer_norm(x, w, b, eps)


def embed_segment_by_token_id(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)
    x = word[ids] + segment[ids.clamp(max=segment.shape[0] - 1)] + position[torch.arange(ids.shape[1])]
    return _layer_norm(x, w, b, eps)


def embed_layer_norm_over_tokens(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)
    x = word[ids] + segment[types] + position[torch.arange(ids.shape[1])]
    return _layer_norm(x, w, b, eps, dim=1)  # statistics over the T tokens, not the H features


def embed_adds_into_the_table(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)
    word[ids] += segment[types] + position[torch.arange(ids.shape[1])]  # writes into the caller's table
    return _layer_norm(word[ids], w, b, eps)


def embed_with_torch_layer_norm(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)  # correct, another style
    x = word[ids] + segment[types] + position[torch.arange(ids.shape[1])][None]
    return F.layer_norm(x, x.shape[-1:], w, b, eps)


def embed_with_loops(ids, sep, word, position, segment, w, b, eps):
    types = token_types(ids, sep)  # correct, plain Python loops
    rows = []
    for b_ in range(ids.shape[0]):
        seq = []
        for t in range(ids.shape[1]):
            x = word[int(ids[b_, t])] + segment[int(types[b_, t])] + position[t]
            mean = sum(x.tolist()) / len(x)
            var = sum((v - mean) ** 2 for v in x.tolist()) / len(x)
            seq.append((x - mean) / math.sqrt(var + eps) * w + b)
        rows.append(torch.stack(seq))
    return torch.stack(rows)


# --- Exercise 2.2: scaled dot-product attention ---------------------------------------------------

def _attention(q, k, v, key_mask=None, *, scale=None, dim=-1, fill=None, rows=False, transpose=False,
               inverted=False, first=False, heads_axis=False):
    hs = q.shape[-1]
    scores = k @ q.transpose(-2, -1) if transpose else q @ k.transpose(-2, -1)
    scores = scores * (hs**-0.5 if scale is None else scale)
    if key_mask is not None:
        m = key_mask.bool()
        m = ~m if inverted else m
        m = m[:1].expand_as(m) if first else m
        m = m[:, None, :] if heads_axis else m[:, None, :, None] if rows else m[:, None, None, :]
        scores = scores.masked_fill(~m, torch.finfo(scores.dtype).min if fill is None else fill)
    probs = scores.softmax(dim=dim)
    return probs @ v, probs


def attention_unscaled(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, scale=1.0)


def attention_scaled_by_d(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, scale=1 / q.shape[-1])


def attention_scaled_by_hidden_size(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, scale=(q.shape[1] * q.shape[-1]) ** -0.5)  # √(nh·hs) = √H


def attention_softmax_over_queries(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, dim=-2)


def attention_mask_on_queries(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, rows=True)


def attention_mask_on_queries_with_minus_infinity(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, rows=True, fill=float("-inf"))  # the padded query's row: all -inf


def attention_mask_filled_with_zero(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, fill=0.0)


def attention_mask_ignored(q, k, v, key_mask=None):
    return _attention(q, k, v)


def attention_scores_transposed(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, transpose=True)


def attention_mask_inverted(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, inverted=True)


def attention_first_sequences_mask_for_all(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, first=True)


def attention_mask_lined_up_with_heads(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, heads_axis=True)  # (B, 1, T) -> broadcast as (1, B, 1, T)


def attention_minus_infinity(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, fill=float("-inf"))  # NaN for a sequence that is all padding


def attention_mask_not_made_boolean(q, k, v, key_mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask[:, None, None, :], -1e9)  # fails for 0/1 integers
    probs = scores.softmax(-1)
    return probs @ v, probs


def attention_fill_minus_1e9(q, k, v, key_mask=None):  # right in float32; float16 cannot hold -1e9
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], -1e9)
    probs = scores.softmax(-1)
    return probs @ v, probs


def attention_additive_minus_1e9(q, k, v, key_mask=None):  # Google's additive mask, -1e9 instead of -10000
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores + (1.0 - key_mask[:, None, None, :].to(scores.dtype)) * -1e9  # -inf in float16
    probs = scores.softmax(-1)
    return probs @ v, probs


def attention_additive_finfo_min(q, k, v, key_mask=None):  # the fill fits, but a negative score plus it does not
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores + (~key_mask.bool())[:, None, None, :].to(scores.dtype) * torch.finfo(scores.dtype).min
    probs = scores.softmax(-1)
    return probs @ v, probs


def attention_mask_after_softmax(q, k, v, key_mask=None):
    probs = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(-1)
    if key_mask is not None:
        probs = probs * key_mask[:, None, None, :]  # zeroes the [PAD] column, rows no longer sum to 1
    return probs @ v, probs


def attention_scales_the_callers_query(q, k, v, key_mask=None):
    q /= math.sqrt(q.shape[-1])  # in place: the caller's q is divided too
    return _attention(q, k, v, key_mask, scale=1.0)


def attention_transpose_with_T(q, k, v, key_mask=None):
    with warnings.catch_warnings():  # torch warns that .T on more than 2 axes is deprecated: that is the bug
        warnings.simplefilter("ignore", UserWarning)
        scores = q @ k.T / math.sqrt(q.shape[-1])  # .T reverses all four axes
    probs = scores.softmax(-1)
    return probs @ v, probs


def attention_assumes_square_scores(q, k, v, key_mask=None):
    B, nh, T, hs = q.shape
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool().view(B, 1, 1, T), torch.finfo(scores.dtype).min)  # T_q, not T_k
    probs = scores.softmax(-1)
    return probs @ v, probs


def attention_ones_mask_of_query_length(q, k, v, key_mask=None):  # one code path, but the mask has T_q columns
    B, nh, T, hs = q.shape
    if key_mask is None:
        key_mask = torch.ones(B, T, dtype=torch.bool)  # T = T_q: right only in self-attention
    return _attention(q, k, v, key_mask)


def attention_padding_at_the_end(q, k, v, key_mask=None):  # hides the keys after each row's count of real ones
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        real = key_mask.long().sum(-1)[:, None, None, None]  # (B, 1, 1, 1)
        scores = scores.masked_fill(torch.arange(k.shape[-2]) >= real, torch.finfo(scores.dtype).min)
    probs = scores.softmax(-1)
    return probs @ v, probs


def attention_einsum(q, k, v, key_mask=None):  # correct, another style
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / q.shape[-1] ** 0.5
    if key_mask is not None:
        scores = torch.where(key_mask.bool()[:, None, None, :], scores, torch.tensor(-1e4, dtype=scores.dtype))
    probs = torch.softmax(scores, dim=-1)
    return [torch.einsum("bhqk,bhkd->bhqd", probs, v), probs]  # a list, not a tuple


def attention_google_additive(q, k, v, key_mask=None):  # correct: Google's adder of -10000
    scores = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(float(q.shape[-1])))
    if key_mask is not None:
        scores = scores + (1.0 - key_mask.to(scores.dtype)[:, None, None, :]) * -10000.0
    probs = F.softmax(scores, dim=-1)
    return torch.matmul(probs, v), probs


def attention_loop_over_heads(q, k, v, key_mask=None):  # correct: one (T_q, T_k) matrix at a time
    B, nh = q.shape[:2]
    outs, all_probs = torch.zeros(B, nh, q.shape[2], v.shape[-1], dtype=q.dtype), []
    for b in range(B):
        for h in range(nh):
            scores = q[b, h] @ k[b, h].T / math.sqrt(q.shape[-1])
            if key_mask is not None:
                scores = scores.masked_fill(key_mask[b] == 0, torch.finfo(q.dtype).min)
            p = scores.softmax(-1)
            outs[b, h] = p @ v[b, h]
            all_probs.append(p)
    return outs, torch.stack(all_probs).view(B, nh, q.shape[2], k.shape[2])


def attention_in_float64(q, k, v, key_mask=None):  # correct: computed in double, returned as such
    out, probs = _attention(q.double(), k.double(), v.double(), key_mask)
    return out, probs


def attention_out_left_in_float64(q, k, v, key_mask=None):  # probs cast back to q's dtype, out forgotten
    out, probs = _attention(q.double(), k.double(), v.double(), key_mask)
    return out, probs.to(q.dtype)


def attention_logsumexp_of_cleaned_scores(q, k, v, key_mask=None):  # correct: 0.3% off in float16 at scores -20
    scores = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(q.shape[3]))
    if key_mask is not None:
        keep = key_mask.to(torch.bool)[:, None, None, :]
        scores = torch.nan_to_num(scores.masked_fill(~keep, float("-inf")))  # -inf -> the dtype's lowest number
    probs = torch.exp(scores - torch.logsumexp(scores, dim=3, keepdim=True))
    return torch.matmul(probs, v), probs


# --- Exercise 2.3: the additive padding mask ------------------------------------------------------

NEG = torch.finfo(torch.float32).min


def mask_on_queries(attention_mask, dtype=torch.float32):
    return (1.0 - attention_mask.to(dtype))[:, None, :, None] * torch.finfo(dtype).min  # (B, 1, T, 1)


def mask_inverted(attention_mask, dtype=torch.float32):
    return attention_mask.to(dtype)[:, None, None, :] * torch.finfo(dtype).min  # hides the real tokens


def mask_multiplicative(attention_mask, dtype=torch.float32):
    return attention_mask.to(dtype)[:, None, None, :]  # the 0/1 mask, meant to multiply


def mask_not_broadcastable(attention_mask, dtype=torch.float32):
    return (1.0 - attention_mask.to(dtype)) * torch.finfo(dtype).min  # (B, T)


def mask_times_minus_infinity(attention_mask, dtype=torch.float32):
    return (1.0 - attention_mask.to(dtype))[:, None, None, :] * float("-inf")  # 0 × -inf = NaN


def mask_not_negative_enough(attention_mask, dtype=torch.float32):
    return (1.0 - attention_mask.to(dtype))[:, None, None, :] * -100.0


def mask_minus_infinity(attention_mask, dtype=torch.float32):
    real = attention_mask.bool()[:, None, None, :]
    return torch.zeros(real.shape, dtype=dtype).masked_fill(~real, float("-inf"))


def mask_integer(attention_mask, dtype=torch.float32):
    return (1 - attention_mask[:, None, None, :]) * -10000  # an int64 tensor


def mask_float32_min_in_every_dtype(attention_mask, dtype=torch.float32):
    real = attention_mask.bool()[:, None, None, :]
    return torch.zeros(real.shape, dtype=dtype).masked_fill(~real, NEG)  # -inf in float16


def mask_ignores_dtype(attention_mask, dtype=torch.float32):
    real = attention_mask.bool()[:, None, None, :]
    return torch.zeros(real.shape).masked_fill(~real, -10000.0)  # always float32


def mask_batch_on_the_query_axis(attention_mask, dtype=torch.float32):
    return (1.0 - attention_mask.to(dtype))[None, None] * -10000.0  # (1, 1, B, T)


def mask_flattened_batch(attention_mask, dtype=torch.float32):
    return ((1.0 - attention_mask.to(dtype)) * -10000.0).reshape(1, 1, 1, -1)  # (1, 1, 1, B·T)


def mask_changes_the_callers_mask(attention_mask, dtype=torch.float32):
    attention_mask.sub_(1)  # 1 -> 0, 0 -> -1, in place
    return attention_mask.to(dtype)[:, None, None, :] * -torch.finfo(dtype).min


def _mask_cached_by_shape():
    cache = {}

    def mask(attention_mask, dtype=torch.float32):  # a cache whose key leaves out where the padding is
        key = (tuple(attention_mask.shape), dtype)
        if key not in cache:
            cache[key] = (1.0 - attention_mask.to(dtype)[:, None, None, :]) * torch.finfo(dtype).min
        return cache[key]

    return mask


def mask_google(attention_mask, dtype=torch.float32):  # correct: modeling.py's adder
    return (1.0 - attention_mask.to(dtype)[:, None, None, :]) * -10000.0


def mask_where(attention_mask, dtype=torch.float32):  # correct: transformers' torch.where form
    return torch.where(attention_mask[:, None, None, :] == 1, torch.tensor(0.0, dtype=dtype),
                       torch.tensor(torch.finfo(dtype).min, dtype=dtype))


# --- Exercise 2.4: the causal mask ----------------------------------------------------------------

def _tril(T):
    return torch.ones(T, T, dtype=torch.bool).tril()


def causal_future(attention_mask):
    return torch.ones(attention_mask.shape[1], attention_mask.shape[1], dtype=torch.bool).triu() \
        & attention_mask.bool()[:, None, None, :]


def causal_without_the_diagonal(attention_mask):
    return torch.ones(attention_mask.shape[1], attention_mask.shape[1], dtype=torch.bool).tril(-1) \
        & attention_mask.bool()[:, None, None, :]


def causal_ignores_padding(attention_mask):
    B, T = attention_mask.shape
    return _tril(T).expand(B, 1, T, T)


def causal_padding_on_queries(attention_mask):
    return _tril(attention_mask.shape[1]) & attention_mask.bool()[:, None, :, None]


def causal_padding_on_both(attention_mask):
    m = attention_mask.bool()
    return _tril(m.shape[1]) & m[:, None, :, None] & m[:, None, None, :]


def causal_first_sequence_for_all(attention_mask):
    B, T = attention_mask.shape
    return _tril(T) & attention_mask[0].bool().expand(B, T)[:, None, None, :]  # row 0's padding everywhere


def causal_float(attention_mask):
    return (_tril(attention_mask.shape[1]) & attention_mask.bool()[:, None, None, :]).float()


def causal_only(attention_mask):
    return _tril(attention_mask.shape[1])  # (T, T)


def causal_without_head_axis(attention_mask):
    return _tril(attention_mask.shape[1]) & attention_mask.bool()[:, None, :]  # (B, T, T)


def causal_changes_the_callers_mask(attention_mask):
    attention_mask.bool()
    attention_mask[:, 0] = 1  # "the first token is always real": written into the caller's tensor
    return _tril(attention_mask.shape[1]) & attention_mask.bool()[:, None, None, :]


def causal_of_integers(attention_mask):  # the right pattern as int64 0/1: SDPA and masked_fill refuse it
    T = attention_mask.shape[1]
    return torch.ones(T, T, dtype=torch.long).tril() & attention_mask[:, None, None, :]


def causal_by_comparison(attention_mask):  # correct: j <= i, compared as integers
    T = attention_mask.shape[1]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    return (j <= i)[None, None] & (attention_mask[:, None, None, :] == 1)


def causal_with_loops(attention_mask):  # correct: plain Python
    B, T = attention_mask.shape
    return torch.tensor([[[[j <= i and bool(attention_mask[b, j]) for j in range(T)] for i in range(T)]]
                         for b in range(B)])


# --- Exercise 2.5: multi-head attention over packed sequences ------------------------------------

def _visible(ids, masking):
    """(B, 1, T, T): may query i see key j? The learner's usual ways of building it from sequence_ids."""
    same = ids[:, :, None] == ids[:, None, :]
    real = (ids != 0)[:, None, :]
    return {"packed": same & real, "padding": real.expand_as(same), "same": same}[masking][:, None]


def _mha(x, ids, w, nh, *, transpose=True, split="heads", merge="heads", scale=None, output=True,
         masking="packed", key="key", fill=-1e9):
    B, T, H = x.shape
    hs = H // nh
    lin = (lambda t, n: t @ w[n + ".weight"].T + w[n + ".bias"]) if transpose else \
        (lambda t, n: t @ w[n + ".weight"] + w[n + ".bias"])
    if split == "heads":
        sp = lambda t: t.view(B, T, nh, hs).transpose(1, 2)  # noqa: E731
    elif split == "interleaved":
        sp = lambda t: t.view(B, T, hs, nh).permute(0, 3, 1, 2)  # noqa: E731
    else:
        sp = lambda t: t.view(B, nh, T, hs)  # noqa: E731
    q, k, v = sp(lin(x, "query")), sp(lin(x, key)), sp(lin(x, "value"))
    scores = q @ k.transpose(-2, -1) / math.sqrt(scale or hs)
    if masking != "none":
        scores = scores.masked_fill(~_visible(ids, masking), fill)
    c = scores.softmax(-1) @ v
    if merge == "heads":
        c = c.transpose(1, 2).reshape(B, T, H)
    elif merge == "view":
        c = c.transpose(1, 2).view(B, T, H)
    elif merge == "interleaved":
        c = c.permute(0, 2, 3, 1).reshape(B, T, H)
    else:
        c = c.reshape(B, T, H)
    return lin(c, "output") if output else c


def mha_weight_not_transposed(x, ids, w, nh):
    return _mha(x, ids, w, nh, transpose=False)


def mha_heads_interleaved(x, ids, w, nh):
    return _mha(x, ids, w, nh, split="interleaved")


def mha_split_by_view_only(x, ids, w, nh):
    return _mha(x, ids, w, nh, split="view")


def mha_merge_without_transpose(x, ids, w, nh):
    return _mha(x, ids, w, nh, merge="no transpose")


def mha_merge_with_view(x, ids, w, nh):
    return _mha(x, ids, w, nh, merge="view")


def mha_merge_interleaved(x, ids, w, nh):
    return _mha(x, ids, w, nh, merge="interleaved")


def mha_scaled_by_hidden_size(x, ids, w, nh):
    return _mha(x, ids, w, nh, scale=x.shape[-1])


def mha_without_output_projection(x, ids, w, nh):
    return _mha(x, ids, w, nh, output=False)


def mha_mask_ignored(x, ids, w, nh):
    return _mha(x, ids, w, nh, masking="none")


def mha_padding_hidden_only(x, ids, w, nh):  # the chapter's padding mask: sequences see each other
    return _mha(x, ids, w, nh, masking="padding")


def mha_minus_infinity(x, ids, w, nh):  # a padding query's row is all -inf: softmax gives NaN there
    return _mha(x, ids, w, nh, fill=float("-inf"))


def mha_mask_without_head_axis(x, ids, w, nh):  # a (B, T, T) mask lines its B axis up with the heads
    B, T, H = x.shape
    hs = H // nh
    q, k, v = ((x @ w[n + ".weight"].T + w[n + ".bias"]).view(B, T, nh, hs).transpose(1, 2)
               for n in ("query", "key", "value"))
    visible = (ids[:, :, None] == ids[:, None, :]) & (ids != 0)[:, None, :]              # (B, T, T)
    scores = (q @ k.transpose(-2, -1) / math.sqrt(hs)).masked_fill(~visible, -1e9)
    return (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, H) @ w["output.weight"].T + w["output.bias"]


def mha_keys_from_query_weights(x, ids, w, nh):
    return _mha(x, ids, w, nh, key="query")


def mha_transposes_the_callers_weights(x, ids, w, nh):
    for name in ("query", "key", "value", "output"):
        w[name + ".weight"].t_()  # in place, so that x @ W works: the caller's weights are transposed
    return _mha(x, ids, w, nh, transpose=False)


def mha_with_linear_and_sdpa(x, ids, w, nh):  # correct: F.linear and the fused kernel, padding seeing itself
    B, T, H = x.shape
    q, k, v = (F.linear(x, w[n + ".weight"], w[n + ".bias"]).unflatten(-1, (nh, H // nh)).transpose(1, 2)
               for n in ("query", "key", "value"))
    c = F.scaled_dot_product_attention(q, k, v, attn_mask=_visible(ids, "same"))
    return F.linear(c.transpose(1, 2).flatten(2), w["output.weight"], w["output.bias"])


def mha_one_sequence_at_a_time(x, ids, w, nh):  # correct: cut each sequence out, attend, put it back
    B, T, H = x.shape
    hs = H // nh
    out = torch.zeros_like(x)
    for b in range(B):
        for k in set(ids[b].tolist()) - {0}:
            where = ids[b] == k
            s = x[b, where]                                                       # (n, H)
            q, kk, v = ((s @ w[n + ".weight"].T + w[n + ".bias"]).view(-1, nh, hs).transpose(0, 1)
                        for n in ("query", "key", "value"))
            c = torch.einsum("hqk,hkd->qhd", (q @ kk.mT / math.sqrt(hs)).softmax(-1), v).reshape(-1, H)
            out[b, where] = c @ w["output.weight"].T + w["output.bias"]
    return out


def mha_loop_over_heads(x, ids, w, nh):  # correct: one head at a time, Google's additive -10000
    H = x.shape[-1]
    hs = H // nh
    allowed = ((ids[:, :, None] == ids[:, None, :]) & (ids != 0)[:, None, :]).float()   # (B, T, T)
    outs = []
    for h in range(nh):
        r = slice(h * hs, (h + 1) * hs)
        q, k, v = (x @ w[n + ".weight"][r].T + w[n + ".bias"][r] for n in ("query", "key", "value"))
        scores = torch.einsum("bqd,bkd->bqk", q, k) / math.sqrt(hs) + (1.0 - allowed) * -10000.0
        outs.append(scores.softmax(-1) @ v)
    return torch.cat(outs, dim=-1) @ w["output.weight"].T + w["output.bias"]


# --- Exercise 2.6: one head, one query ------------------------------------------------------------

def _head(x, w, nh, head, i, *, cols=False, scale=None, column=False, everything=False):
    T, H = x.shape
    hs = H // nh
    r = slice(head * hs, (head + 1) * hs)
    proj = (lambda n: x @ w[n + ".weight"][:, r] + w[n + ".bias"][r]) if cols else \
        (lambda n: x @ w[n + ".weight"][r].T + w[n + ".bias"][r])
    q, k, v = proj("query"), proj("key"), proj("value")
    p = (q @ k.T / math.sqrt(scale or hs))
    if everything:
        return p.softmax(-1) @ v
    return (p.softmax(0)[:, i] if column else p.softmax(-1)[i]) @ v


def head_weight_columns(x, w, nh, head, i):
    return _head(x, w, nh, head, i, cols=True)


def head_scaled_by_hidden_size(x, w, nh, head, i):
    return _head(x, w, nh, head, i, scale=x.shape[-1])


def head_scaled_by_d(x, w, nh, head, i):
    return _head(x, w, nh, head, i, scale=(x.shape[-1] // nh) ** 2)


def head_column_of_probabilities(x, w, nh, head, i):
    return _head(x, w, nh, head, i, column=True)


def head_every_query(x, w, nh, head, i):
    return _head(x, w, nh, head, i, everything=True)  # (T, hs)


def head_full_width(x, w, nh, head, i):
    return torch.cat([_head(x, w, nh, h, i) for h in range(nh)])  # (H,): every head


def head_probabilities_only(x, w, nh, head, i):
    T, H = x.shape
    r = slice(head * (H // nh), (head + 1) * (H // nh))
    q, k = (x @ w[n + ".weight"][r].T + w[n + ".bias"][r] for n in ("query", "key"))
    return (k @ q[i] / math.sqrt(H // nh)).softmax(0)  # (T,)


def head_with_python_loops(x, w, nh, head, i):  # correct: dot products written out
    T, H = x.shape
    hs = H // nh
    rows = range(head * hs, (head + 1) * hs)
    def vec(name, t):
        return [sum(float(w[name + ".weight"][r, c]) * float(x[t, c]) for c in range(H))
                + float(w[name + ".bias"][r]) for r in rows]
    q = vec("query", i)
    keys, values = [vec("key", t) for t in range(T)], [vec("value", t) for t in range(T)]
    scores = [sum(a * b for a, b in zip(q, kj)) / math.sqrt(hs) for kj in keys]
    top = max(scores)
    e = [math.exp(s - top) for s in scores]
    p = [x_ / sum(e) for x_ in e]
    return torch.tensor([sum(p[j] * values[j][d] for j in range(T)) for d in range(hs)], dtype=torch.float64)


def head_as_a_list(x, w, nh, head, i):  # correct: a plain list of floats
    return head_with_python_loops(x, w, nh, head, i).tolist()


def head_as_a_row(x, w, nh, head, i):
    return _head(x, w, nh, head, i)[None]  # (1, hs)


def head_from_the_whole_layer(x, w, nh, head, i):  # correct: compute every head, then pick one
    T, H = x.shape
    hs = H // nh
    q, k, v = ((x @ w[n + ".weight"].T + w[n + ".bias"]).view(T, nh, hs).transpose(0, 1)
               for n in ("query", "key", "value"))
    return (torch.softmax(q @ k.mT / hs**0.5, dim=-1) @ v)[head, i]


# --- Edge-of-range inputs: large offsets, very negative or large scores, float64, bfloat16 -----------------

def embed_one_pass_variance(ids, sep, word, position, segment, w, b, eps):  # E[x²] - E[x]²: cancels on a large mean
    x = word[ids] + segment[token_types(ids, sep)] + position[torch.arange(ids.shape[1])]
    mean = x.mean(-1, keepdim=True)
    var = (x * x).mean(-1, keepdim=True) - mean * mean
    return (x - mean) / torch.sqrt(var + eps) * w + b


def embed_in_float32(ids, sep, word, position, segment, w, b, eps):  # float64 tables silently cast down
    x = word[ids].float() + segment[token_types(ids, sep)].float() + position[torch.arange(ids.shape[1])].float()
    return _layer_norm(x, w.float(), b.float(), eps)


def embed_ids_flattened_with_view(ids, sep, word, position, segment, w, b, eps):  # .view: non-contiguous ids fail
    B, T = ids.shape
    x = word[ids.view(-1)].view(B, T, -1) + segment[token_types(ids, sep)] + position[torch.arange(T)]
    return _layer_norm(x, w, b, eps)


def embed_ids_flattened_with_reshape(ids, sep, word, position, segment, w, b, eps):  # correct: reshape copies
    B, T = ids.shape
    x = word[ids.reshape(-1)].reshape(B, T, -1) + segment[token_types(ids, sep)] + position[torch.arange(T)]
    return _layer_norm(x, w, b, eps)


def attention_softmax_in_float32(q, k, v, key_mask=None):  # "for stability": float64 inputs lose precision
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.float().softmax(-1).to(q.dtype)
    return probs @ v, probs


def mask_half_or_float32_min(attention_mask, dtype=torch.float32):  # float16 handled, bfloat16 forgotten
    fill = torch.finfo(torch.float16).min if dtype == torch.float16 else torch.finfo(torch.float32).min
    return torch.zeros(attention_mask.shape, dtype=dtype)[:, None, None, :].masked_fill(
        attention_mask[:, None, None, :] == 0, fill)


def mask_times_max(attention_mask, dtype=torch.float32):  # correct: (m - 1) · finfo.max, in the dtype asked for
    return (attention_mask[:, None, None, :].to(dtype) - 1) * torch.finfo(dtype).max


def mask_minus_one_before_the_dtype(attention_mask, dtype=torch.float32):  # m - 1 on a uint8 mask is 255
    return ((attention_mask - 1).to(dtype) * torch.finfo(dtype).max)[:, None, None, :]


_TRIANGLE_OF_512 = torch.ones(512, 512, dtype=torch.bool).tril()


def causal_sliced_from_a_buffer(attention_mask):  # a triangle built once for 512 positions
    T = attention_mask.shape[1]
    return _TRIANGLE_OF_512[:T, :T] & attention_mask.bool()[:, None, None, :]


def mha_in_float32(x, ids, w, nh):  # float64 x and weights cast down to float32
    return mha_loop_over_heads(x.float(), ids, {n: t.float() for n, t in w.items()}, nh)


def head_in_float32(x, w, nh, head, i):
    return _head(x.float(), {n: t.float() for n, t in w.items()}, nh, head, i)


def head_softmax_without_the_max(x, w, nh, head, i):  # exp(s) / Σ exp(s): overflows past a score of 88
    T, H = x.shape
    r = slice(head * (H // nh), (head + 1) * (H // nh))
    q, k, v = (x @ w[n + ".weight"][r].T + w[n + ".bias"][r] for n in ("query", "key", "value"))
    e = (k @ q[i] / math.sqrt(H // nh)).exp()
    return e / e.sum() @ v


def head_shifted_by_the_smallest(x, w, nh, head, i):  # exp(s - min s): still overflows on a wide range
    T, H = x.shape
    r = slice(head * (H // nh), (head + 1) * (H // nh))
    q, k, v = (x @ w[n + ".weight"][r].T + w[n + ".bias"][r] for n in ("query", "key", "value"))
    s = k @ q[i] / math.sqrt(H // nh)
    e = (s - s.min()).exp()
    return e / e.sum() @ v


def mha_tokens_flattened_with_view(x, ids, w, nh):  # x.view(B·T, H): refuses a non-contiguous x
    B, T, H = x.shape
    return mha_loop_over_heads(x.view(B * T, H).view(B, T, H), ids, w, nh)


def head_weights_split_with_view(x, w, nh, head, i):  # correct: splitting an axis is a view of any layout
    T, H = x.shape
    hs = H // nh
    q, k, v = (x @ w[n + ".weight"].view(nh, hs, H)[head].T + w[n + ".bias"].view(nh, hs)[head]
               for n in ("query", "key", "value"))
    return (k @ q[i] / math.sqrt(hs)).softmax(0) @ v


BUGS = [
    ("embeddings", embed_unbiased_variance, r"divided by H - 1"),
    ("embeddings", embed_positions_from_one, r"first token gets row 0"),
    ("embeddings", embed_without_segments, r"segment \(token type\) embeddings are missing"),
    ("embeddings", embed_positions_by_token_id, r"looked the position table up by token id"),
    ("embeddings", embed_eps_outside_the_root, r"eps goes inside the square root"),
    ("embeddings", embed_fixed_eps, r"eps argument was not used"),
    ("embeddings", embed_positions_from_batch_size, r"every token got position row 0.*not the batch size"),
    ("embeddings", embed_segment_by_token_id, r"chosen by the token's type, not by its id"),
    ("embeddings", embed_with(sep_typed_with_b), r"(?s)token ids \[\[1, 2, 1, 2\]\].*first \[SEP\] closes sentence A"),
    ("embeddings", embed_with(padding_typed_with_b), r"(?s)a batch of two.*padding after the last \[SEP\]"),
    ("embeddings", embed_with(lone_sep_padding_typed_with_b),
     r"(?s)\[CLS\] a \[SEP\] \[PAD\] \[PAD\].*a row with one \[SEP\] is one sentence.*needs a second \[SEP\]"),
    ("embeddings", embed_with(second_sep_typed_with_a), r"(?s)token ids \[\[1, 2, 1, 2\]\].*second \[SEP\] closes sentence B"),
    ("embeddings", embed_with(padding_taken_as_id_zero),
     r"random case 4.*padding id 1(?s:.*)padding was taken to be id 0; here it is id 1"),
    ("embeddings", embed_with(all_type_a), r"every token got segment row 0"),
    ("embeddings", embed_layer_norm_over_tokens, r"over the last axis \(the H features\)"),
    ("embeddings", embed_adds_into_the_table, r"changed its argument 3 in place"),
    ("scaled_attention", attention_unscaled, r"√d too large"),
    ("scaled_attention", attention_scaled_by_d, r"divided the scores by d = hs = 4; divide by √d"),
    ("scaled_attention", attention_scaled_by_hidden_size, r"√\(nh·hs\), the square root of the hidden size"),
    ("scaled_attention", attention_softmax_over_queries, r"normalises over the queries"),
    ("scaled_attention", attention_scores_transposed, r"scores are transposed"),
    ("scaled_attention", attention_mask_on_queries, r"masked the padded queries \(rows\) instead of the padded keys"),
    ("scaled_attention", attention_mask_on_queries_with_minus_infinity,
     r"NaN.*\n.*mask keys \(columns\), not queries"),
    ("scaled_attention", attention_mask_filled_with_zero, r"exp\(0\) is not 0"),
    ("scaled_attention", attention_mask_ignored, r"key_mask was not applied"),
    ("scaled_attention", attention_fill_minus_1e9, r"in float16: your function raised.*overflow\n.*65,504"),
    ("scaled_attention", attention_additive_minus_1e9, r"in float16: your probs contain NaN.*\n.*65,504"),
    ("scaled_attention", attention_additive_finfo_min, r"every score -20.*NaN or inf\n.*-65524.*instead of adding"),
    ("scaled_attention", attention_mask_after_softmax, r"after the softmax, so rows no longer sum to 1"),
    ("scaled_attention", attention_mask_not_made_boolean, r"dtype torch.int64 .*\n.*key_mask.bool\(\)"),
    ("scaled_attention", attention_mask_inverted, r"your mask is inverted"),
    ("scaled_attention", attention_first_sequences_mask_for_all, r"first sequence's mask"),
    ("scaled_attention", attention_mask_lined_up_with_heads, r"lines up its B axis with the heads"),
    ("scaled_attention", attention_minus_infinity, r"all-padding sequence\n.*-inf"),
    ("scaled_attention", attention_scales_the_callers_query, r"changed its argument 1 in place"),
    ("scaled_attention", attention_padding_at_the_end, r"(?s)padded on the left.*as if padding were always at the end"),
    ("scaled_attention", attention_transpose_with_T, r"k.T on a 4-D tensor reverses all four axes"),
    ("scaled_attention", attention_assumes_square_scores, r"T_q=1, T_k=3|T_q = 1.*raised"),
    ("scaled_attention", attention_ones_mask_of_query_length,
     r"T_q=4, T_k=6.*no key_mask.*raised(?s:.*)one column per key \(T_k = k.shape\[-2\]\)"),
    ("scaled_attention", attention_out_left_in_float64,
     r"out has dtype torch.float64 and probs torch.float32; they must share one dtype\n.*cast back for one of them"),
    ("padding_mask", mask_on_queries, r"received shape \(2, 1, 3, 1\)\n.*masks the queries"),
    ("padding_mask", mask_inverted, r"inverted"),
    ("padding_mask", mask_multiplicative, r"added to the scores, not multiplied"),
    ("padding_mask", mask_not_broadcastable, r"received shape \(2, 3\)\n.*does not broadcast"),
    ("padding_mask", mask_times_minus_infinity, r"NaN.*\n.*\n.*\n.*0 × \(-inf\)"),
    ("padding_mask", mask_not_negative_enough, r"must get a large negative value"),
    ("padding_mask", mask_minus_infinity, r"holds -inf.*\n.*\n.*\n.*all padding"),
    ("padding_mask", mask_integer, r"expected dtype torch.float32, received torch.int64\n.*stays integer"),
    ("padding_mask", mask_float32_min_in_every_dtype, r"does not fit in torch.float16"),
    ("padding_mask", mask_ignores_dtype, r"expected dtype torch.float16, received torch.float32"),
    ("padding_mask", mask_batch_on_the_query_axis, r"received shape \(1, 1, 2, 3\)\n.*batch axis stays first"),
    ("padding_mask", mask_flattened_batch, r"received shape \(1, 1, 1, 6\)\n.*glued the sequences"),
    ("padding_mask", mask_changes_the_callers_mask, r"changed its argument 1 in place"),
    ("padding_mask", _mask_cached_by_shape(), r"padding elsewhere\): you returned the mask of the first case"
                                              r"(?s:.*)cache keyed by shape and dtype"),
    ("causal_mask", causal_future, r"keys after it"),
    ("causal_mask", causal_without_the_diagonal, r"must see itself"),
    ("causal_mask", causal_ignores_padding, r"padding is ignored"),
    ("causal_mask", causal_padding_on_queries, r"hid the padded queries \(rows\); hide only the padded keys"),
    ("causal_mask", causal_padding_on_both, r"hide only the padded keys"),
    ("causal_mask", causal_first_sequence_for_all, r"first sequence's padding"),
    ("causal_mask", causal_float, r"float mask is \*added\*"),
    ("causal_mask", causal_of_integers, r"attention_mask \[\[1, 1, 1, 0\]\].*: the pattern is right, but the mask "
                                        r"holds torch.int64 0/1, not booleans\n.*dtype=torch.bool"),
    ("causal_mask", causal_only, r"received shape \(4, 4\)\n.*causal part alone"),
    ("causal_mask", causal_without_head_axis, r"received shape \(1, 4, 4\)\n.*add the head axis"),
    ("causal_mask", causal_changes_the_callers_mask, r"changed its argument 1 in place"),
    ("packed_attention", mha_weight_not_transposed, r"x @ W.T \+ b"),
    ("packed_attention", mha_heads_interleaved, r"heads are interleaved, each taking every nh-th feature"),
    ("packed_attention", mha_split_by_view_only, r"re-reads memory in order"),
    ("packed_attention", mha_merge_without_transpose, r"each of these mistakes.*re-reads memory.*; or merging "
                                                       r"without moving the head axis back"),
    ("packed_attention", mha_merge_with_view, r"not contiguous in memory.*\.reshape"),
    ("packed_attention", mha_merge_interleaved, r"interleave"),
    ("packed_attention", mha_scaled_by_hidden_size, r"divided the scores by √H"),
    ("packed_attention", mha_without_output_projection, r"output projection is missing"),
    ("packed_attention", mha_mask_ignored, r"attended to the other sequences of its row"),
    ("packed_attention", mha_padding_hidden_only, r"attended to the other sequences of its row"),
    ("packed_attention", mha_mask_without_head_axis, r"\(B, T, T\) mask.*\(B, 1, T, T\)"),
    ("packed_attention", mha_minus_infinity, r"NaN or inf at padding positions.*\n.*row of -inf"),
    ("packed_attention", mha_keys_from_query_weights, r"keys were computed with the query weights"),
    ("packed_attention", mha_transposes_the_callers_weights, r"changed weights\['query.weight'\] in place"),
    ("one_head", head_weight_columns, r"\(out, in\).*rows"),
    ("one_head", head_scaled_by_hidden_size, r"divided by √H"),
    ("one_head", head_scaled_by_d, r"divided by hs; divide by √hs"),
    ("one_head", head_column_of_probabilities, r"column i of the probabilities"),
    ("one_head", head_every_query, r"every query's output"),
    ("one_head", head_full_width, r"full width H"),
    ("one_head", head_probabilities_only, r"query i's probabilities"),
    ("one_head", head_as_a_row, r"not a \(1, hs\) matrix"),
    ("embeddings", embed_one_pass_variance, r"large common offset.*\n.*cancels catastrophically"),
    ("embeddings", embed_in_float32, r"float64 tables.*dtype torch.float32, expected torch.float64"),
    ("embeddings", embed_ids_flattened_with_view, r"random case 4.*non-contiguous.*raised RuntimeError"),
    ("scaled_attention", attention_softmax_in_float32, r"float64 q, k, v.*differ(?s:.*)pass through float32"),
    ("padding_mask", mask_half_or_float32_min, r"bfloat16.*raised(?s:.*)torch.finfo\(dtype\).min"),
    ("padding_mask", mask_minus_one_before_the_dtype, r"torch.uint8.*holds \+inf at padding(?s:.*)0 - 1 is 255"),
    ("causal_mask", causal_sliced_from_a_buffer, r"shape \(1, 600\).*raised(?s:.*)fixed size, 512"),
    ("packed_attention", mha_in_float32, r"float64: x.*dtype torch.float32, expected torch.float64"),
    ("packed_attention", mha_tokens_flattened_with_view, r"float64: x.*non-contiguous.*raised RuntimeError"),
    ("one_head", head_in_float32, r"float64: x.*dtype torch.float32, expected torch.float64"),
    ("one_head", head_softmax_without_the_max, r"large scores.*NaN or inf\n.*subtract the row's largest"),
    ("one_head", head_shifted_by_the_smallest, r"large scores.*NaN or inf\n.*subtract the row's largest"),
]

ACCEPTED = [
    ("embeddings", embed_with_torch_layer_norm),
    ("embeddings", embed_with_loops),
    ("embeddings", embed_with(types_by_scanning)),
    ("embeddings", embed_ids_flattened_with_reshape),
    ("scaled_attention", attention_einsum),
    ("scaled_attention", attention_google_additive),
    ("scaled_attention", attention_loop_over_heads),
    ("scaled_attention", attention_in_float64),
    ("scaled_attention", attention_logsumexp_of_cleaned_scores),
    ("padding_mask", mask_google),
    ("padding_mask", mask_where),
    ("padding_mask", mask_times_max),
    ("causal_mask", causal_by_comparison),
    ("causal_mask", causal_with_loops),
    ("packed_attention", mha_with_linear_and_sdpa),
    ("packed_attention", mha_one_sequence_at_a_time),
    ("packed_attention", mha_loop_over_heads),
    ("one_head", head_with_python_loops),
    ("one_head", head_from_the_whole_layer),
    ("one_head", head_as_a_list),
    ("one_head", head_weights_split_with_view),
]


@pytest.mark.parametrize("checker, bug, message", BUGS, ids=[bug.__name__ for _, bug, _ in BUGS])
def test_a_realistic_bug_is_named(checker, bug, message):
    with pytest.raises(ExerciseError, match=message):
        getattr(check, checker)(bug)


@pytest.mark.parametrize("checker, fn", ACCEPTED, ids=[fn.__name__ for _, fn in ACCEPTED])
def test_correct_code_in_another_style_passes(checker, fn, capsys):
    getattr(check, checker)(fn)
    assert capsys.readouterr().out.startswith(f"✓ {checker}:")


def test_the_verdict_does_not_depend_on_the_global_random_state(solutions, capsys):
    # The checkers seed their own generators and leave torch's global one as they found it.
    torch.manual_seed(1)
    before = torch.random.get_rng_state()
    for checker, fn in CHECKERS.items():
        getattr(check, checker)(solutions[fn])
    assert torch.equal(torch.random.get_rng_state(), before)
    assert capsys.readouterr().out.count("✓") == len(CHECKERS)


def test_a_hand_computed_case_shows_both_tensors():
    expected = r"\n  expected \[\[\[\[0.75, 0.25\], \[0.5, 0.5\]\]\]\]"
    received = r"\n  received \[\[\[\[0.9, 0.1\], \[0.5, 0.5\]\]\]\]\n  hint: your scores are √d too large"
    with pytest.raises(ExerciseError, match=expected + received):
        check.scaled_attention(attention_unscaled)
