"""The checkers of chapter 02's exercises: the solutions pass, the stubs raise NotImplementedError,
and the mistakes learners really make are caught with a message that names the mistake."""

import math
from pathlib import Path

import pytest
import torch

from minibert import check
from minibert.check import ExerciseError

ROOT = Path(__file__).resolve().parents[1]
NAME = "02_attention.ipynb"
CHECKERS = {  # checker -> the function its exercise defines
    "embeddings": "my_embed",
    "scaled_attention": "my_attention",
    "padding_mask": "my_padding_mask",
    "split_heads": "my_split_heads",
    "merge_heads": "my_merge_heads",
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


# --- Exercise 2.1: the input representation -------------------------------------------------------

def _layer_norm(x, w, b, eps, unbiased=False):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=unbiased) + eps) * w + b


def embed_unbiased_variance(ids, types, word, position, segment, w, b, eps):
    x = word[ids] + segment[types] + position[torch.arange(ids.shape[1])]
    return _layer_norm(x, w, b, eps, unbiased=True)  # torch.var's default


def embed_positions_from_one(ids, types, word, position, segment, w, b, eps):
    x = word[ids] + segment[types] + position[torch.arange(1, ids.shape[1] + 1)]
    return _layer_norm(x, w, b, eps)


def embed_without_segments(ids, types, word, position, segment, w, b, eps):
    return _layer_norm(word[ids] + position[torch.arange(ids.shape[1])], w, b, eps)


def embed_positions_by_token_id(ids, types, word, position, segment, w, b, eps):
    return _layer_norm(word[ids] + segment[types] + position[ids], w, b, eps)


def embed_eps_outside_the_root(ids, types, word, position, segment, w, b, eps):
    x = word[ids] + segment[types] + position[torch.arange(ids.shape[1])]
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / (x.var(-1, keepdim=True, unbiased=False).sqrt() + eps) * w + b


def embed_fixed_eps(ids, types, word, position, segment, w, b, eps):
    x = word[ids] + segment[types] + position[torch.arange(ids.shape[1])]
    return _layer_norm(x, w, b, 1e-12)  # BERT's value, not the argument


# --- Exercise 2.2: scaled dot-product attention ---------------------------------------------------

def _attention(q, k, v, key_mask=None, *, scale=None, dim=-1, fill=None, rows=False, transpose=False):
    hs = q.shape[-1]
    scores = k @ q.transpose(-2, -1) if transpose else q @ k.transpose(-2, -1)
    scores = scores * (hs**-0.5 if scale is None else scale)
    if key_mask is not None:
        m = key_mask.bool()[:, None, :, None] if rows else key_mask.bool()[:, None, None, :]
        scores = scores.masked_fill(~m, torch.finfo(scores.dtype).min if fill is None else fill)
    probs = scores.softmax(dim=dim)
    return probs @ v, probs


def attention_unscaled(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, scale=1.0)


def attention_scaled_by_d(q, k, v, key_mask=None):
    return _attention(q, k, v, key_mask, scale=1 / q.shape[-1])


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


def attention_mask_not_made_boolean(q, k, v, key_mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask[:, None, None, :], float("-inf"))  # fails for 0/1 integers
    probs = scores.softmax(-1)
    return probs @ v, probs


def attention_mask_after_softmax(q, k, v, key_mask=None):
    probs = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(-1)
    if key_mask is not None:
        probs = probs * key_mask[:, None, None, :]  # zeroes the [PAD] column, rows no longer sum to 1
    return probs @ v, probs


# --- Exercise 2.3: the additive padding mask ------------------------------------------------------

NEG = torch.finfo(torch.float32).min


def mask_on_queries(attention_mask):
    return (1.0 - attention_mask.float())[:, None, :, None] * NEG  # (B, 1, T, 1)


def mask_inverted(attention_mask):
    return attention_mask.float()[:, None, None, :] * NEG  # hides the real tokens


def mask_multiplicative(attention_mask):
    return attention_mask.float()[:, None, None, :]  # the 0/1 mask, meant to multiply


def mask_not_broadcastable(attention_mask):
    return (1.0 - attention_mask.float()) * NEG  # (B, T)


def mask_times_minus_infinity(attention_mask):
    return (1.0 - attention_mask.float())[:, None, None, :] * float("-inf")  # 0 × -inf = NaN


def mask_not_negative_enough(attention_mask):
    return (1.0 - attention_mask.float())[:, None, None, :] * -100.0


# --- Exercises 2.4 and 2.5: splitting and merging heads --------------------------------------------

def split_by_view_only(x, num_heads):
    B, T, H = x.shape
    return x.view(B, num_heads, T, H // num_heads)


def split_without_transpose(x, num_heads):
    B, T, H = x.shape
    return x.view(B, T, num_heads, H // num_heads)


def split_hs_before_nh(x, num_heads):
    B, T, H = x.shape
    return x.view(B, T, H // num_heads, num_heads).transpose(1, 2)  # (B, hs, T, nh)


def split_hs_before_nh_permuted(x, num_heads):
    B, T, H = x.shape
    return x.view(B, T, H // num_heads, num_heads).permute(0, 3, 1, 2)  # right shape, strided heads


def merge_without_transpose(x):
    B, nh, T, hs = x.shape
    return x.reshape(B, T, nh * hs)


def merge_interleaved(x):
    B, nh, T, hs = x.shape
    return x.permute(0, 2, 3, 1).reshape(B, T, nh * hs)


def merge_with_view(x):
    B, nh, T, hs = x.shape
    return x.transpose(1, 2).view(B, T, nh * hs)


BUGS = [
    ("embeddings", embed_unbiased_variance, r"divided by H - 1"),
    ("embeddings", embed_positions_from_one, r"first token gets row 0"),
    ("embeddings", embed_without_segments, r"segment \(token type\) embeddings are missing"),
    ("embeddings", embed_positions_by_token_id, r"looked the position table up by token id"),
    ("embeddings", embed_eps_outside_the_root, r"eps goes inside the square root"),
    ("embeddings", embed_fixed_eps, r"eps argument was not used"),
    ("scaled_attention", attention_unscaled, r"√d too large"),
    ("scaled_attention", attention_scaled_by_d, r"divided the scores by d = hs = 4; divide by √d"),
    ("scaled_attention", attention_softmax_over_queries, r"normalises over the queries"),
    ("scaled_attention", attention_scores_transposed, r"scores are transposed"),
    ("scaled_attention", attention_mask_on_queries, r"masked the padded query \(row 2\) instead of the padded key"),
    ("scaled_attention", attention_mask_on_queries_with_minus_infinity, r"NaN.*\n.*mask a whole row \(a query\)"),
    ("scaled_attention", attention_mask_filled_with_zero, r"exp\(0\) is not 0"),
    ("scaled_attention", attention_mask_ignored, r"key_mask was not applied"),
    ("scaled_attention", attention_mask_after_softmax, r"must sum to 1 .* before the softmax"),
    ("scaled_attention", attention_mask_not_made_boolean, r"dtype torch.int64 .*\n.*key_mask.bool\(\)"),
    ("padding_mask", mask_on_queries, r"received shape \(2, 1, 3, 1\)\n.*masks the queries"),
    ("padding_mask", mask_inverted, r"inverted"),
    ("padding_mask", mask_multiplicative, r"added to the scores, not multiplied"),
    ("padding_mask", mask_not_broadcastable, r"received shape \(2, 3\)\n.*does not broadcast"),
    ("padding_mask", mask_times_minus_infinity, r"NaN.*\n.*\n.*\n.*0 × \(-inf\)"),
    ("padding_mask", mask_not_negative_enough, r"must get a large negative value"),
    ("split_heads", split_by_view_only, r"view\(B, nh, T, hs\) just re-reads memory"),
    ("split_heads", split_without_transpose, r"this is \(B, T, nh, hs\).*transpose\(1, 2\)"),
    ("split_heads", split_hs_before_nh, r"this is \(B, hs, T, nh\)"),
    ("split_heads", split_hs_before_nh_permuted, r"every nh-th feature"),
    ("merge_heads", merge_without_transpose, r"reshape without the transpose"),
    ("merge_heads", merge_interleaved, r"interleaved across heads"),
    ("merge_heads", merge_with_view, r"not contiguous in memory.*\.reshape"),
]


@pytest.mark.parametrize("checker, bug, message", BUGS, ids=[bug.__name__ for _, bug, _ in BUGS])
def test_a_realistic_bug_is_named(checker, bug, message):
    with pytest.raises(ExerciseError, match=message):
        getattr(check, checker)(bug)


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
