"""Exercise 2.2 (my_attention): learners' scaled dot-product attention with one mistake each, and correct ones.

Split rule (fixed before any checker changed): within the exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import math

import torch

from . import Exercise
import torch.nn.functional as F
import numpy as np

EX = Exercise("2.2", "scaled_attention")


@EX.bug
def divide_by_hs(q, k, v, key_mask=None):
    """I divided the scores by hs instead of √hs."""
    scores = q @ k.transpose(-2, -1) / q.shape[-1]
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(-1)
    return probs @ v, probs


@EX.bug
def scale_by_key_count(q, k, v, key_mask=None):
    """I scaled by √d with d = k.shape[-2], which I took for the key dimension (it is T_k)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(-1)
    return probs @ v, probs


@EX.bug
def mask_multiplies_scores(q, k, v, key_mask=None):
    """I masked by multiplying the scores by the mask, so a padded key gets score 0, not minus infinity."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores * key_mask[:, None, None, :].to(scores.dtype)
    probs = scores.softmax(-1)
    return probs @ v, probs


@EX.bug
def minus_inf_fill(q, k, v, key_mask=None):
    """I filled the padded keys with float('-inf'), so an all-padding sequence gives NaN."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(key_mask[:, None, None, :] == 0, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    return probs @ v, probs


@EX.bug
def softmax_over_queries(q, k, v, key_mask=None):
    """I took the softmax over dim=-2, thinking each column should sum to 1."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], -1e9)
    probs = scores.softmax(dim=-2)
    return probs @ v, probs


@EX.bug
def minus_1e9_in_any_dtype(q, k, v, key_mask=None):
    """I filled padded keys with -1e9, which overflows to -inf in float16 (NaN on an all-padding row)."""
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.size(-1))
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool().unsqueeze(1).unsqueeze(2), -1e9)
    probs = scores.softmax(-1)
    return torch.matmul(probs, v), probs


@EX.bug
def scales_q_in_place(q, k, v, key_mask=None):
    """I scaled the queries first with q /= √hs, in place (the caller's q changes)."""
    q /= math.sqrt(q.shape[-1])
    scores = q @ k.transpose(-2, -1)
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(-1)
    return probs @ v, probs


@EX.bug
def padding_assumed_on_the_right(q, k, v, key_mask=None):
    """I counted each row's real tokens and masked the keys after them (padding is always at the end, I thought)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        lengths = key_mask.long().sum(-1)
        for b, n in enumerate(lengths.tolist()):
            scores[b, :, :, n:] = torch.finfo(scores.dtype).min
    probs = scores.softmax(-1)
    return probs @ v, probs


@EX.bug
def scale_by_heads(q, k, v, key_mask=None):
    """I divided by √ of q.shape[1], which I thought was the head size (it is the number of heads)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(-1)
    return probs @ v, probs


@EX.withdrawn
def additive_minus_10000(q, k, v, key_mask=None):
    """I added (1 - mask) * -10000 like the old BERT code, so padded keys get a tiny probability, not exactly 0.

    Withdrawn after the first measurement: tests/test_check_attention.py accepts Google's adder of -10000 as
    correct (attention_google_additive), and exp(-10000) is 0 in float32 and float16 for any realistic score."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores + (1.0 - key_mask[:, None, None, :].to(scores.dtype)) * -10000.0
    probs = scores.softmax(-1)
    return probs @ v, probs


@EX.bug
def zero_probs_after_softmax(q, k, v, key_mask=None):
    """I took the softmax first and then set the padded keys' probabilities to 0 (the rows no longer sum to 1)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    probs = scores.softmax(-1)
    if key_mask is not None:
        probs = probs * key_mask[:, None, None, :].to(probs.dtype)
    return probs @ v, probs


@EX.bug
def mask_on_query_axis(q, k, v, key_mask=None):
    """I put the mask on the query axis, key_mask[:, None, :, None], as if the padded rows were the ones to hide."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, :, None], torch.finfo(scores.dtype).min)
    probs = scores.softmax(-1)
    return probs @ v, probs


@EX.correct
def einsum_and_where(q, k, v, key_mask=None):
    """einsum for both products, torch.where for the mask."""
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) * q.shape[-1] ** -0.5
    if key_mask is not None:
        keep = key_mask.bool().view(key_mask.shape[0], 1, 1, -1)
        scores = torch.where(keep, scores, torch.full_like(scores, torch.finfo(scores.dtype).min))
    probs = torch.softmax(scores, dim=-1)
    return torch.einsum("bhqk,bhkd->bhqd", probs, v), probs


@EX.correct
def manual_softmax(q, k, v, key_mask=None):
    """A softmax written by hand: subtract the row max, exponentiate, zero the padded keys, divide."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        keep = key_mask.bool()[:, None, None, :]
        scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    e = (scores - scores.amax(-1, keepdim=True)).exp()
    if key_mask is not None:
        e = e * keep.to(e.dtype)
    probs = e / e.sum(-1, keepdim=True).clamp_min(torch.finfo(e.dtype).tiny)
    return probs @ v, probs


# --- Batch 2: written without reading any checker, before the checkers were changed against it ---
EX.batch = 2


@EX.bug
def hidden_size_scale(q, k, v, key_mask=None):
    """I divided the scores by √H with H = nh·hs, the model's hidden size, not by √ of one head's size."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[1] * q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(-1)
    return probs @ v, probs


@EX.bug
def scaled_only_when_masked(q, k, v, key_mask=None):
    """I put the division by √hs inside `if key_mask is not None:`, so without a mask the scores are not scaled."""
    scores = q @ k.transpose(-2, -1)
    if key_mask is not None:
        scores = scores / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(-1)
    return probs @ v, probs


@EX.bug
def softmax_without_max(q, k, v, key_mask=None):
    """I wrote the softmax by hand as exp(s) / exp(s).sum(-1), without subtracting the row's maximum first."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    e = scores.exp()
    probs = e / e.sum(-1, keepdim=True)
    return probs @ v, probs


@EX.bug
def square_mask_from_queries(q, k, v, key_mask=None):
    """I expanded the mask to a (B, 1, T, T) square with T = q.shape[-2], as I had done for self-attention."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        T = q.shape[-2]
        hide = ~key_mask.bool()[:, None, None, :].expand(-1, 1, T, T)
        scores = scores.masked_fill(hide, torch.finfo(scores.dtype).min)
    probs = scores.softmax(-1)
    return probs @ v, probs


@EX.correct
def loop_over_batch_and_heads(q, k, v, key_mask=None):
    """Plain loops over the batch and the heads, one 2-D (T_q, T_k) score matrix at a time."""
    B, nh, T_q, hs = q.shape
    outs, all_probs = [], []
    for b in range(B):
        row_out, row_probs = [], []
        for h in range(nh):
            s = q[b, h] @ k[b, h].T / math.sqrt(hs)  # (T_q, T_k)
            if key_mask is not None:
                s = torch.where(key_mask[b].bool()[None, :], s, torch.tensor(torch.finfo(s.dtype).min, dtype=s.dtype))
            p = torch.softmax(s, dim=1)
            row_out.append(p @ v[b, h])
            row_probs.append(p)
        outs.append(torch.stack(row_out))
        all_probs.append(torch.stack(row_probs))
    return torch.stack(outs), torch.stack(all_probs)


# --- Batch 3: written without reading any checker, before the checkers were changed against it ---
EX.batch = 3


@EX.bug
def power_one_half_precedence(q, k, v, key_mask=None):
    """I wrote the scale as hs ** 1/2, which Python reads as (hs ** 1) / 2 (the same as √hs only when hs = 4)."""
    hs = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / (hs ** 1/2)
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.bug
def tilde_on_the_mask_as_given(q, k, v, key_mask=None):
    """I inverted the mask with ~key_mask without .bool() (on a 1/0 integer mask ~ is bitwise: ~1 = -2, and masked_fill refuses it)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.bug
def mask_with_one_new_axis(q, k, v, key_mask=None):
    """I gave the mask one new axis, key_mask[:, None, :], thinking broadcasting would find the right place for it."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.bug
def additive_finfo_min(q, k, v, key_mask=None):
    """I added finfo(dtype).min at the padded keys (the additive mask of exercise 2.3): a negative score plus it overflows to -inf in float16."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        pad = (~key_mask.bool())[:, None, None, :].to(scores.dtype)
        scores = scores + pad * torch.finfo(scores.dtype).min
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.bug
def bmm_with_view(q, k, v, key_mask=None):
    """I merged batch and heads with .view(B * nh, T, hs) to use torch.bmm (view refuses a non-contiguous q, as split heads are)."""
    B, nh, T_q, hs = q.shape
    T_k = k.shape[-2]
    scores = torch.bmm(q.view(B * nh, T_q, hs), k.view(B * nh, T_k, hs).transpose(1, 2)) / math.sqrt(hs)
    scores = scores.view(B, nh, T_q, T_k)
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    out = torch.bmm(probs.view(B * nh, T_q, T_k), v.view(B * nh, T_k, hs)).view(B, nh, T_q, hs)
    return out, probs


@EX.bug
def softmax_asked_for_float32(q, k, v, key_mask=None):
    """I called softmax(-1, dtype=torch.float32) for stability and did not cast back (float16 or float64 inputs then fail at probs @ v)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(-1, dtype=torch.float32)
    return probs @ v, probs


@EX.correct
def heads_into_the_batch(q, k, v, key_mask=None):
    """Batch and heads merged with reshape (any layout) for torch.bmm; the mask repeated for each head; torch.where."""
    B, nh, T_q, hs = q.shape
    T_k = k.shape[-2]
    q3, k3, v3 = q.reshape(B * nh, T_q, hs), k.reshape(B * nh, T_k, hs), v.reshape(B * nh, T_k, hs)
    scores = torch.bmm(q3, k3.transpose(1, 2)) / hs ** 0.5  # (B * nh, T_q, T_k)
    if key_mask is not None:
        keep = key_mask.bool().repeat_interleave(nh, dim=0)[:, None, :]  # row b * nh + h: sequence b
        lowest = torch.tensor(torch.finfo(scores.dtype).min, dtype=scores.dtype)
        scores = torch.where(keep, scores, lowest)
    probs = torch.nn.functional.softmax(scores, dim=2)
    return torch.bmm(probs, v3).reshape(B, nh, T_q, hs), probs.reshape(B, nh, T_q, T_k)


# --- batch 4: written without reading any checker ------------------------------------------
EX.batch = 4


@EX.bug
def reshape_for_the_transpose(q, k, v, key_mask=None):
    """I turned k into kᵀ with k.reshape(B, nh, hs, T_k): the shape is right, but a reshape is not a transpose, so the numbers are scrambled.
    Differs on: B = nh = 1, T_q = T_k = 2, hs = 3, random q, k, v (any T_k > 1 and hs > 1)."""
    B, nh, T_k, hs = k.shape
    scores = q @ k.reshape(B, nh, hs, T_k) / math.sqrt(hs)
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.bug
def mask_inverted_with_one_minus(q, k, v, key_mask=None):
    """I found the padded keys with 1 - key_mask, which works on my 1/0 integer mask, but torch refuses `-` on a bool mask.
    Differs on: key_mask = torch.tensor([[True, False]]) (bool): raises RuntimeError."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        padded = (1 - key_mask)[:, None, None, :].bool()
        scores = scores.masked_fill(padded, torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.bug
def mask_axes_added_in_front(q, k, v, key_mask=None):
    """I gave the (B, T_k) mask its two new axes in front, key_mask[None, None], which lines up with the scores only for a batch of one.
    Differs on: B = 2, T_q = 2, key_mask = [[1, 1], [1, 0]] (query 1 of both sequences loses key 1); B = 2, T_q = 3 raises."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[None, None], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.bug
def dropout_on_the_probabilities(q, k, v, key_mask=None):
    """I put BERT's attention dropout on the probabilities, F.dropout(probs, 0.1), whose training flag defaults to True: it drops and rescales by 1/0.9.
    Differs on: any input, e.g. the worked example (rows no longer sum to 1; out changes from call to call)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = torch.nn.functional.dropout(scores.softmax(dim=-1), 0.1)
    return probs @ v, probs


@EX.bug
def padded_keys_zeroed_then_renormalised(q, k, v, key_mask=None):
    """I took the softmax first, zeroed the padded keys and divided each row by its new sum, which is 0 / 0 = NaN for a sequence that is all padding.
    Differs on: B = 2, key_mask = [[1, 1], [0, 0]] (sequence 1 gives NaN in probs and out)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    probs = scores.softmax(dim=-1)
    if key_mask is not None:
        probs = probs * key_mask[:, None, None, :].to(probs.dtype)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs @ v, probs


@EX.bug
def softmax_without_dim(q, k, v, key_mask=None):
    """I called F.softmax(scores) without dim; for a 4-D tensor torch picks dim=1, the heads (with one head every probability is 1).
    Differs on: the worked example (nh = 1: probs [[1, 1]], out v0 + v1); any nh."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = torch.nn.functional.softmax(scores)
    return probs @ v, probs


@EX.correct
def softmax_over_the_real_keys(q, k, v, key_mask=None):
    """Each sequence's real keys picked out with a boolean index, the softmax taken over them alone and scattered into zeros (an all-padding sequence keeps zeros)."""
    scores = torch.matmul(q, k.mT) / q.shape[-1] ** 0.5
    if key_mask is None:
        probs = torch.softmax(scores, dim=-1)
        return torch.matmul(probs, v), probs
    keep = key_mask.bool()
    probs = torch.zeros_like(scores)
    for b in range(scores.shape[0]):
        if keep[b].any():
            probs[b][..., keep[b]] = torch.softmax(scores[b][..., keep[b]], dim=-1)
    return torch.matmul(probs, v), probs


# --- batch 5: written without reading any checker ------------------------------------------
EX.batch = 5


@EX.bug
def filled_where_the_mask_is_true(q, k, v, key_mask=None):
    """I handed the mask to masked_fill as it came, key_mask.bool()[:, None, None, :], forgetting that masked_fill fills where the mask is True: the real tokens are hidden and the padding is kept.
    Differs on: B = nh = T_q = 1, T_k = 2, key_mask = [[1, 0]] (probs [0, 1] instead of [1, 0]); the worked example, without a mask, passes."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.bug
def softmax_minus_the_global_max(q, k, v, key_mask=None):
    """I wrote the stable softmax by hand but subtracted scores.max(), the largest score of the whole tensor, not each row's: a row far below it underflows to 0 / 0.
    Differs on: B = 2, key_mask = [[1, 1], [0, 0]] (sequence 1 gives NaN, not a finite row); also, unmasked, a batch whose sequence 0 has scores near +100 and sequence 1 near -100 (NaN in sequence 1)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    e = torch.exp(scores - scores.max())
    probs = e / e.sum(dim=-1, keepdim=True)
    return probs @ v, probs


@EX.bug
def probabilities_detached(q, k, v, key_mask=None):
    """I detached the probabilities, which I return only to plot them, and computed out from that detached tensor, so no gradient reaches q or k.
    Differs on: q and k with requires_grad=True, any values: out.sum().backward() leaves q.grad and k.grad None (the forward values are right)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1).detach()
    return probs @ v, probs


@EX.bug
def scores_multiplied_by_the_root(q, k, v, key_mask=None):
    """I read "scaled by √hs" as multiplied by √hs, so the scores grow with the head size instead of shrinking.
    Differs on: the worked example (scores 2·ln 9 and 0: probs [0.988, 0.012] instead of [3/4, 1/4]); any hs > 1."""
    scores = q @ k.transpose(-2, -1) * math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.bug
def fill_built_in_float32(q, k, v, key_mask=None):
    """I built the fill value as a tensor, torch.full(scores.shape, torch.finfo(torch.float32).min), in the default dtype, so torch.where promotes float16 and bfloat16 scores to float32.
    Differs on: float16 (or bfloat16) q, k, v with a key_mask: probs come back float32 and probs @ v raises a dtype error; float32 and float64 pass."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        lowest = torch.full(scores.shape, torch.finfo(torch.float32).min)
        scores = torch.where(key_mask.bool()[:, None, None, :], scores, lowest)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.bug
def scores_clamped_for_safety(q, k, v, key_mask=None):
    """To keep exp from overflowing I clamped the scores to [-50, 50] before masking, which flattens every score beyond that range.
    Differs on: hs = 1, q = [[60]], k = [[1], [0.9]] (scores 60 and 54: probs [0.5, 0.5] instead of [0.9975, 0.0025])."""
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).clamp(-50.0, 50.0)
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.correct
def minus_inf_then_nan_to_num(q, k, v, key_mask=None):
    """Padded keys filled with -inf, and the NaN rows of all-padding sequences turned into zeros with nan_to_num; torch.matmul and explicit axes 2, 3."""
    scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(k.shape[3])
    if key_mask is not None:
        scores = scores.masked_fill(key_mask[:, None, None, :] == 0, float("-inf"))
    probs = torch.nan_to_num(torch.softmax(scores, dim=3), nan=0.0)
    return torch.matmul(probs, v), probs


# --- batch 6: written without reading any checker ------------------------------------------
EX2_1 = Exercise("2.1", "embeddings")
EX2_1.batch = 6


def _layer_norm_b6(x, ln_weight, ln_bias, eps):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * ln_weight + ln_bias


@EX2_1.bug
def type_one_from_the_first_sep_on(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I walked along each row with a flag that switches to sentence B after the first [SEP], and never switched it back, so the padding after the second [SEP] gets type 1 too.
    Differs on: [[CLS] a [SEP] b c [SEP] [PAD]] (types [0, 0, 0, 1, 1, 1, 1] instead of [0, 0, 0, 1, 1, 1, 0]: the [PAD] vector differs)."""
    B, T = input_ids.shape
    types = torch.zeros(B, T, dtype=torch.long)
    for b in range(B):
        in_b = False
        for t in range(T):
            types[b, t] = int(in_b)
            if input_ids[b, t].item() == sep_id:
                in_b = True
    x = word[input_ids] + segment[types] + position[:T]
    return _layer_norm_b6(x, ln_weight, ln_bias, eps)


@EX2_1.bug
def eps_added_to_the_deviation(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I normalised with the standard deviation from x.std(unbiased=False) and added eps to it, (x - mean) / (std + eps), instead of dividing by √(variance + eps).
    Differs on: the worked LayerNorm example (word row [1, 1, 3, 3], γ = 1, β = 0) with eps = 1: expected ±1/√2 = ±0.7071, gives ±0.5; with eps = 1e-12 the two agree to rounding."""
    T = input_ids.size(1)
    is_sep = input_ids.eq(sep_id).long()
    before = is_sep.cumsum(1) - is_sep
    types = before.eq(1).long()
    x = word[input_ids] + segment[types] + position[torch.arange(T)]
    mean = x.mean(-1, keepdim=True)
    std = x.std(-1, unbiased=False, keepdim=True)
    return (x - mean) / (std + eps) * ln_weight + ln_bias


@EX2_1.bug
def types_read_off_the_first_row(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I read the token types off the first row of the batch and used them for every row, as if all rows had their [SEP]s at the same places.
    Differs on: B = 2, rows [CLS a SEP b SEP PAD] and [CLS a b SEP c SEP] (row 1 gets row 0's types [0, 0, 0, 1, 1, 0] instead of [0, 0, 0, 0, 1, 1])."""
    T = input_ids.shape[1]
    first = (input_ids[0] == sep_id).long()                  # (T,): the first row's [SEP]s
    row_types = ((first.cumsum(0) - first) == 1).long()      # after its first [SEP], through its second
    types = row_types.expand_as(input_ids)
    x = word[input_ids] + segment[types] + position[:T]
    return _layer_norm_b6(x, ln_weight, ln_bias, eps)


@EX2_1.bug
def positions_restart_at_sentence_b(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I gave each sentence its own positions, restarting at 0 at the first token of sentence B (the segment embedding already tells the sentences apart, I thought it went with positions per sentence).
    Differs on: [[CLS] a [SEP] b c [SEP]] (positions [0, 1, 2, 0, 1, 2] instead of [0, 1, 2, 3, 4, 5])."""
    T = input_ids.shape[1]
    is_sep = (input_ids == sep_id).long()
    seps_before = is_sep.cumsum(dim=-1) - is_sep
    types = (seps_before == 1).long()
    t = torch.arange(T).expand_as(input_ids)
    start_of_b = torch.where(types == 1, t, torch.full_like(t, T)).min(dim=-1, keepdim=True).values  # (B, 1)
    pos_ids = torch.where(types == 1, t - start_of_b, t)
    x = word[input_ids] + segment[types] + position[pos_ids]
    return _layer_norm_b6(x, ln_weight, ln_bias, eps)


@EX2_1.correct
def embedding_calls_and_var_mean(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """F.embedding for the three lookups, the types found row by row from the [SEP] positions, LayerNorm with torch.var_mean (correction=0) and rsqrt."""
    B, T = input_ids.shape
    types = torch.zeros(B, T, dtype=torch.long)
    for b in range(B):
        seps = (input_ids[b] == sep_id).nonzero(as_tuple=True)[0].tolist()
        if len(seps) >= 2:                                   # [CLS] A [SEP] B [SEP]: B through its [SEP]
            types[b, seps[0] + 1:seps[1] + 1] = 1              # one sentence: the row stays all 0
    pos_ids = torch.arange(T).unsqueeze(0).expand(B, T)
    x = F.embedding(input_ids, word) + F.embedding(types, segment) + F.embedding(pos_ids, position)
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
    return (x - mean) * torch.rsqrt(var + eps) * ln_weight + ln_bias


# --- batch 6: written without reading any checker ------------------------------------------
EX.batch = 6


@EX.bug
def integer_square_root_scale(q, k, v, key_mask=None):
    """I divided by math.isqrt(hs), thinking it is math.sqrt for integers; it rounds the root down, so only a head size that is a perfect square (4, 16, 64) is scaled right.
    Differs on: hs = 8 (divides by 2 instead of 2.828) or hs = 2 (by 1 instead of 1.414), any q, k; the worked example (hs = 4) passes."""
    hs = q.shape[-1]
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.isqrt(hs)
    if key_mask is not None:
        scores = scores.masked_fill(key_mask[:, None, None, :] == 0, torch.finfo(scores.dtype).min)
    probs = torch.softmax(scores, dim=-1)
    return torch.matmul(probs, v), probs


@EX.bug
def mask_repeated_head_major(q, k, v, key_mask=None):
    """I merged batch and heads into one axis with reshape(B * nh, ...) for torch.bmm and gave the mask one row per head with key_mask.repeat(nh, 1), which stacks the batch nh times (b0, b1, b0, b1) where my reshape is b0h0, b0h1, b1h0, b1h1.
    Differs on: B = 2, nh = 2, T_q = 1, T_k = 2, key_mask = [[1, 1], [1, 0]] (head 1 of sequence 0 loses key 1, head 0 of sequence 1 sees it); B = 1 or nh = 1 agrees."""
    B, nh, T_q, hs = q.shape
    T_k = k.shape[-2]
    scores = torch.bmm(q.reshape(B * nh, T_q, hs), k.reshape(B * nh, T_k, hs).transpose(1, 2)) / math.sqrt(hs)
    if key_mask is not None:
        keep = key_mask.bool().repeat(nh, 1)[:, None, :]              # (B * nh, 1, T_k)
        scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    out = torch.bmm(probs, v.reshape(B * nh, T_k, hs))
    return out.reshape(B, nh, T_q, hs), probs.reshape(B, nh, T_q, T_k)


@EX.bug
def mask_inverted_in_place(q, k, v, key_mask=None):
    """I made the mask boolean with .bool() and turned it into "hide" in place with logical_not_(), not knowing that .bool() of a tensor that is already bool returns that same tensor, so the caller's mask is inverted.
    Differs on: key_mask = torch.tensor([[True, False]]) (bool): the result is right, but afterwards the caller's key_mask is [[False, True]] (a second call with it hides the real key); an integer 1/0 mask is left alone."""
    hs = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    if key_mask is not None:
        hide = key_mask.bool()
        hide.logical_not_()
        scores = scores.masked_fill(hide[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.bug
def head_size_divided_by_heads_again(q, k, v, key_mask=None):
    """I took the head size as q.shape[-1] // q.shape[1], hs = H / nh as in the multi-head formula, but q is already split: its last axis IS hs, so I scale by √(hs / nh).
    Differs on: nh = 2, hs = 4, any q, k (divides by √2 instead of 2); the worked example (nh = 1) passes."""
    B, nh, T_q, d = q.shape
    hs = d // nh
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    if key_mask is not None:
        hide = ~key_mask.bool()[:, None, None, :]
        scores = scores.masked_fill(hide, torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.correct
def broadcast_products_summed(q, k, v, key_mask=None):
    """No matmul: both products as broadcast elementwise products summed over an axis; the scale as a multiplication by hs ** -0.5; the mask applied with torch.where and a fill tensor of the scores' dtype."""
    hs = q.shape[-1]
    scores = (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(dim=-1) * hs ** -0.5     # (B, nh, T_q, T_k)
    if key_mask is not None:
        keep = key_mask.bool().unsqueeze(1).unsqueeze(1)                     # (B, 1, 1, T_k)
        fill = torch.tensor(torch.finfo(scores.dtype).min, dtype=scores.dtype)
        scores = torch.where(keep, scores, fill)
    probs = torch.nn.functional.softmax(scores, dim=-1)
    out = (probs.unsqueeze(-1) * v.unsqueeze(-3)).sum(dim=-2)                 # (B, nh, T_q, hs)
    return out, probs


# --- batch 6: written without reading any checker ------------------------------------------
EX2_3 = Exercise("2.3", "padding_mask")
EX2_3.batch = 6


@EX2_3.bug
def integer_mask_times_minimum(attention_mask, dtype=torch.float32):
    """I computed (1 - attention_mask) * torch.finfo(dtype).min on the integer mask and cast the result to dtype at the end; an integer tensor times a Python float is computed in float32, where float64's minimum is already -inf, and 0 × -inf is NaN.
    Differs on: [[1, 1, 0]] with dtype=torch.float64 (expected [[[[0, 0, -1.797e308]]]], gives [[[[nan, nan, -inf]]]]); float32 and float16 come out right."""
    adder = (1 - attention_mask) * torch.finfo(dtype).min
    return adder[:, None, None, :].to(dtype)


@EX2_3.bug
def float32_minimum_cast_to_dtype(attention_mask, dtype=torch.float32):
    """I built the mask in float32 with torch.finfo(torch.float32).min, the number the statement writes out, and converted it with .to(dtype) at the end, so in float16 the minimum overflows to -inf.
    Differs on: [[1, 1, 0]] with dtype=torch.float16 (expected [[[[0, 0, -65504]]]], gives [[[[0, 0, -inf]]]]); bfloat16 likewise gives -inf."""
    B, T = attention_mask.shape
    mask = torch.zeros(B, 1, 1, T)
    mask[attention_mask.view(B, 1, 1, T) == 0] = torch.finfo(torch.float32).min
    return mask.to(dtype)


@EX2_3.bug
def axes_added_in_place(attention_mask, dtype=torch.float32):
    """I added the two size-1 axes with unsqueeze_(1), the in-place version, so the caller's attention_mask itself becomes (B, 1, 1, T).
    Differs on: attention_mask = [[1, 1, 0]]: the result is right, but afterwards the caller's tensor has shape (1, 1, 1, 3) instead of (1, 3) (calling again with it gives a (1, 1, 1, 1, 1, 3) mask)."""
    m = attention_mask.unsqueeze_(1).unsqueeze_(1)
    out = torch.zeros(m.shape, dtype=dtype)
    out[m == 0] = torch.finfo(dtype).min
    return out


@EX2_3.bug
def where_between_python_numbers(attention_mask, dtype=torch.float32):
    """I wrote torch.where(real, 0.0, torch.finfo(dtype).min) with two Python numbers, which makes a tensor of the default dtype, float32, whatever dtype I was given.
    Differs on: [[1, 0]] with dtype=torch.float16 (expected float16 [[[[0, -65504]]]], gives a float32 tensor); with torch.float64 it raises (float64's minimum does not fit in float32); float32 is right."""
    real = attention_mask[:, None, None, :] == 1
    return torch.where(real, 0.0, torch.finfo(dtype).min)


@EX2_3.correct
def one_minus_mask_in_dtype(attention_mask, dtype=torch.float32):
    """As transformers writes it: the mask converted to dtype first, then (1.0 - mask) * finfo(dtype).min, the axes added by indexing."""
    extended = attention_mask[:, None, None, :].to(dtype=dtype)
    return (1.0 - extended) * torch.finfo(dtype).min


# --- batch 6: written without reading any checker ------------------------------------------
EX2_4 = Exercise("2.4", "causal_mask")
EX2_4.batch = 6


@EX2_4.bug
def key_mask_on_the_query_axis(attention_mask):
    """I lined the padding mask up with the rows, attention_mask[:, None, :, None], thinking a padded token is a row to hide; so the padded queries see nothing and the padded keys stay visible.
    Differs on: [[0, 1, 1]] (left padding): the bug gives rows [F, F, F], [T, T, F], [T, T, T] instead of [F, F, F], [F, T, F], [F, T, T]; also [[1, 1, 1, 0]]: row 3 all False instead of [T, T, T, F]."""
    B, T = attention_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return causal & attention_mask.bool()[:, None, :, None]


@EX2_4.bug
def triangle_of_integers(attention_mask):
    """I built the triangle as torch.ones(T, T, dtype=torch.long).tril() so that & with the 1/0 mask works, and returned that: the pattern is right but the mask holds int64 0/1, not booleans.
    Differs on: the worked example [[1, 1, 1, 0]]: same 0/1 pattern, dtype torch.int64 instead of torch.bool (SDPA would add it to the scores)."""
    B, T = attention_mask.shape
    causal = torch.ones(T, T, dtype=torch.long).tril()
    return causal & attention_mask[:, None, None, :]


@EX2_4.bug
def mask_unsqueezed_in_place(attention_mask):
    """I gave the mask its two new axes with unsqueeze_ (I thought the underscore was only a naming style), which reshapes the caller's tensor to (B, 1, 1, T).
    Differs on: the worked example [[1, 1, 1, 0]]: the returned mask is right, but afterwards the caller's attention_mask has shape (1, 1, 1, 4) instead of (1, 4)."""
    B, T = attention_mask.shape
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    keys = attention_mask.unsqueeze_(1).unsqueeze_(1).bool()
    return causal & keys


@EX2_4.bug
def batch_axis_squeezed_away(attention_mask):
    """I combined the (T, T) triangle with the key mask as a (T,) vector, attention_mask.squeeze(0), then added the two axes in front: right for my one-sequence example, but a batch of several keeps its (B, T) shape and lines up with the triangle's rows.
    Differs on: B = 2, T = 3, [[1, 1, 1], [1, 1, 0]]: raises (shapes (3, 3) and (2, 3)); B = T = 2, [[1, 1], [1, 0]]: returns a (1, 1, 2, 2) mask [[T, F], [T, F]] instead of (2, 1, 2, 2)."""
    B, T = attention_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    keys = attention_mask.squeeze(0).bool()
    return (causal & keys)[None, None]


@EX2_4.correct
def filled_by_loops(attention_mask):
    """Plain Python loops over sequences, queries and keys, filling a boolean tensor of zeros."""
    B, T = attention_mask.shape
    out = torch.zeros(B, 1, T, T, dtype=torch.bool)
    for b in range(B):
        for i in range(T):
            for j in range(i + 1):
                if attention_mask[b, j] != 0:
                    out[b, 0, i, j] = True
    return out


# --- batch 6: written without reading any checker ------------------------------------------
EX2_5 = Exercise("2.5", "packed_attention")
EX2_5.batch = 6


@EX2_5.bug
def heads_cut_without_moving_the_axis(x, sequence_ids, weights, num_heads):
    """I split the heads with one view, t.view(B, num_heads, T, hs), and merged them back with reshape(B, T, H), without moving the token axis: each "head" gets a scrambled block of tokens and features.
    Differs on: B = 1, T = 3, H = 4, num_heads = 2, sequence_ids [[1, 1, 1]], random x and weights (any num_heads > 1 with T > 1)."""
    B, T, H = x.shape
    hs = H // num_heads

    def project(t, name):
        return t @ weights[name + ".weight"].T + weights[name + ".bias"]

    q, k, v = (project(x, n).view(B, num_heads, T, hs) for n in ("query", "key", "value"))
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    same = sequence_ids[:, :, None] == sequence_ids[:, None, :]
    visible = same & (sequence_ids != 0)[:, None, :]
    scores = scores.masked_fill(~visible[:, None], torch.finfo(scores.dtype).min)
    context = (scores.softmax(dim=-1) @ v).reshape(B, T, H)
    return project(context, "output")


@EX2_5.bug
def transposed_weights_stored_back(x, sequence_ids, weights, num_heads):
    """To write x @ W like the maths, I transposed each weight once and stored it back in the dict, weights[name] = weights[name].T: my first call is right, but the caller's dict now holds the transposes.
    Differs on: any input with non-symmetric weights, e.g. B = 1, T = 2, H = 4, num_heads = 2, sequence_ids [[1, 2]]: after one call weights["query.weight"] is transposed, and a second call on the same dict gives a different (wrong) output."""
    B, T, H = x.shape
    hs = H // num_heads
    for name in ("query", "key", "value", "output"):
        weights[name + ".weight"] = weights[name + ".weight"].T  # now (in, out): x @ W

    def project(t, name):
        return t @ weights[name + ".weight"] + weights[name + ".bias"]

    def split(t):
        return t.view(B, T, num_heads, hs).transpose(1, 2)

    q, k, v = (split(project(x, n)) for n in ("query", "key", "value"))
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    same = sequence_ids[:, :, None] == sequence_ids[:, None, :]
    visible = same & (sequence_ids != 0)[:, None, :]
    scores = scores.masked_fill(~visible[:, None], torch.finfo(scores.dtype).min)
    context = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, T, H)
    return project(context, "output")


@EX2_5.bug
def last_sentence_of_a_row_skipped(x, sequence_ids, weights, num_heads):
    """I ran attention sentence by sentence with for s in range(1, sequence_ids[b].max()), which stops before the last sentence of each row: its tokens keep the zeros I started from.
    Differs on: the worked example sequence_ids [[1, 2]] (token 1 gives 0 instead of its projected value); any row with a single sentence, e.g. [[1, 1, 0]], is all zeros."""
    B, T, H = x.shape
    hs = H // num_heads
    Wq, Wk, Wv, Wo = (weights[n + ".weight"] for n in ("query", "key", "value", "output"))
    bq, bk, bv, bo = (weights[n + ".bias"] for n in ("query", "key", "value", "output"))
    out = torch.zeros_like(x)
    for b in range(B):
        for s in range(1, int(sequence_ids[b].max())):
            idx = (sequence_ids[b] == s).nonzero().squeeze(1)
            xs = x[b, idx]  # (n, H)
            n = xs.shape[0]
            q = (xs @ Wq.T + bq).view(n, num_heads, hs).transpose(0, 1)
            k = (xs @ Wk.T + bk).view(n, num_heads, hs).transpose(0, 1)
            v = (xs @ Wv.T + bv).view(n, num_heads, hs).transpose(0, 1)
            p = (q @ k.transpose(-2, -1) / math.sqrt(hs)).softmax(dim=-1)
            ctx = (p @ v).transpose(0, 1).reshape(n, H)
            out[b, idx] = ctx @ Wo.T + bo
    return out


@EX2_5.bug
def hidden_pairs_filled_with_minus_inf(x, sequence_ids, weights, num_heads):
    """I hid the pairs from different sentences and the padded keys with float("-inf"), the textbook choice: a padding query, which sees no key at all, gets a row of -inf and softmax returns NaN there.
    Differs on: B = 1, T = 3, sequence_ids [[1, 1, 0]] (position 2 is NaN instead of a finite value); rows without padding are right."""
    B, T, H = x.shape
    hs = H // num_heads

    def project(t, name):
        return t @ weights[name + ".weight"].T + weights[name + ".bias"]

    def split(t):
        return t.view(B, T, num_heads, hs).transpose(1, 2)

    q, k, v = (split(project(x, n)) for n in ("query", "key", "value"))
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    same = sequence_ids[:, :, None] == sequence_ids[:, None, :]
    visible = same & (sequence_ids != 0)[:, None, :]
    scores = scores.masked_fill(~visible[:, None], float("-inf"))
    context = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, T, H)
    return project(context, "output")


@EX2_5.correct
def each_sentence_run_alone(x, sequence_ids, weights, num_heads):
    """The definition itself: loop over rows and over the sentence ids found in each (torch.unique), run plain multi-head attention with einsum on that sentence's tokens alone, zeros at padding."""
    B, T, H = x.shape
    hs = H // num_heads
    W = {n: (weights[n + ".weight"], weights[n + ".bias"]) for n in ("query", "key", "value", "output")}
    out = torch.zeros_like(x)
    for b in range(B):
        for s in torch.unique(sequence_ids[b]).tolist():
            if s == 0:
                continue
            idx = torch.nonzero(sequence_ids[b] == s).flatten()
            xs = x[b, idx]  # (n, H)
            q, k, v = (torch.nn.functional.linear(xs, *W[n]).reshape(len(idx), num_heads, hs)
                       for n in ("query", "key", "value"))
            p = torch.einsum("ihd,jhd->hij", q, k).div(hs ** 0.5).softmax(dim=-1)  # (nh, n, n)
            ctx = torch.einsum("hij,jhd->ihd", p, v).reshape(len(idx), H)
            out[b, idx] = torch.nn.functional.linear(ctx, *W["output"])
    return out


# --- batch 6: written without reading any checker ------------------------------------------
EX2_6 = Exercise("2.6", "one_head")
EX2_6.batch = 6


@EX2_6.bug
def head_features_taken_with_a_stride(x, weights, num_heads, head, i):
    """I projected with the full weights and took head h's features as q[:, head::num_heads], every nh-th feature, thinking the heads are interleaved; they own a contiguous block.
    Differs on: T = 3, H = 4, num_heads = 2, head = 0, i = 1, random x and weights (any hs > 1 with num_heads > 1); the worked example (hs = 1) passes."""
    T, H = x.shape
    hs = H // num_heads
    full = {n: x @ weights[n + ".weight"].T + weights[n + ".bias"] for n in ("query", "key", "value")}
    q, k, v = (full[n][:, head::num_heads] for n in ("query", "key", "value"))  # (T, hs)
    p = torch.softmax(k @ q[i] / math.sqrt(hs), dim=0)
    return p @ v


@EX2_6.bug
def slice_starting_at_the_head_number(x, weights, num_heads, head, i):
    """I took the head's rows as slice(head, head + hs), starting at row `head` instead of head * hs.
    Differs on: T = 3, H = 6, num_heads = 2, head = 1, i = 0, random x and weights (rows 1-3 instead of 3-5); head 0, or hs = 1 as in the worked example, passes."""
    T, H = x.shape
    hs = H // num_heads
    rows = slice(head, head + hs)
    q = x @ weights["query.weight"][rows].T + weights["query.bias"][rows]
    k = x @ weights["key.weight"][rows].T + weights["key.bias"][rows]
    v = x @ weights["value.weight"][rows].T + weights["value.bias"][rows]
    scores = k @ q[i] / math.sqrt(hs)
    return scores.softmax(dim=0) @ v


@EX2_6.bug
def softmax_down_the_columns_then_row_i(x, weights, num_heads, head, i):
    """I computed the whole (T, T) score matrix, took its softmax with dim=0, and read row i: each column (a key) sums to 1 over the queries, not row i over the keys.
    Differs on: T = 3, H = 4, num_heads = 2, head = 1, i = 2, random x and weights (row 2 of the weights does not sum to 1); the worked example gives [7.25] instead of [5.5]."""
    T, H = x.shape
    hs = H // num_heads
    rows = slice(head * hs, (head + 1) * hs)
    q, k, v = (x @ weights[n + ".weight"][rows].T + weights[n + ".bias"][rows] for n in ("query", "key", "value"))
    scores = q @ k.T / math.sqrt(hs)  # (T queries, T keys)
    p = scores.softmax(dim=0)[i]
    return p @ v


@EX2_6.bug
def scale_folded_in_before_the_bias(x, weights, num_heads, head, i):
    """I folded the 1/√hs into the query projection, but divided x W_qᵀ before adding the bias, so the query bias is not scaled.
    Differs on: T = 3, H = 4, num_heads = 2, head = 0, i = 0, random x, weights and a non-zero query bias; with zero biases (the worked example) it passes."""
    T, H = x.shape
    hs = H // num_heads
    r = slice(head * hs, (head + 1) * hs)
    q = x[i] @ weights["query.weight"][r].T / math.sqrt(hs) + weights["query.bias"][r]  # (hs,)
    k = x @ weights["key.weight"][r].T + weights["key.bias"][r]
    v = x @ weights["value.weight"][r].T + weights["value.bias"][r]
    return torch.softmax(k @ q, dim=0) @ v


@EX2_6.correct
def heads_as_a_view_and_a_loop_over_keys(x, weights, num_heads, head, i):
    """Each weight viewed as (nh, hs, H) and indexed by head; a Python loop over the keys with a max-subtracted softmax written out by hand."""
    T, H = x.shape
    hs = H // num_heads

    def slab(name):
        return (weights[name + ".weight"].reshape(num_heads, hs, H)[head],
                weights[name + ".bias"].reshape(num_heads, hs)[head])

    (Wq, bq), (Wk, bk), (Wv, bv) = slab("query"), slab("key"), slab("value")
    q = torch.mv(Wq, x[i]) + bq
    scores = [torch.dot(q, torch.mv(Wk, x[j]) + bk) / math.sqrt(hs) for j in range(T)]
    top = max(scores)
    e = [torch.exp(s - top) for s in scores]
    total = sum(e)
    out = torch.zeros(hs, dtype=x.dtype)
    for j in range(T):
        out = out + (e[j] / total) * (torch.mv(Wv, x[j]) + bv)
    return out


# --- batch 7: written without reading any checker ------------------------------------------
EX2_1.batch = 7


@EX2_1.bug
def types_from_inclusive_cumsum(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I counted the [SEP]s with cumsum and took type 1 where the count is 1, forgetting that cumsum includes the token itself: the first [SEP] already counts 1, so type 1 starts AT the first [SEP] and stops before the second.
    Differs on: [[CLS] a [SEP] b c [SEP] [PAD]] with random tables (types [0, 0, 1, 1, 1, 0, 0] instead of [0, 0, 0, 1, 1, 1, 0]: both [SEP] vectors differ)."""
    B, T = input_ids.shape
    sep_count = (input_ids == sep_id).long().cumsum(dim=1)
    pair = (input_ids == sep_id).sum(dim=1, keepdim=True) >= 2
    types = ((sep_count == 1) & pair).long()
    x = word[input_ids] + segment[types] + position[:T]
    mu = x.mean(-1, keepdim=True)
    var = (x - mu).pow(2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * ln_weight + ln_bias


@EX2_1.bug
def lone_sep_rule_forgotten(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I gave type 1 to every token with exactly one [SEP] before it, which is right for a pair, but forgot the one-sentence row: there the padding after its only [SEP] also has one [SEP] before it and gets type 1.
    Differs on: [[CLS] a [SEP] [PAD] [PAD]] with random tables (types [0, 0, 0, 1, 1] instead of all 0: the [PAD] vectors differ); a row without padding agrees."""
    T = input_ids.shape[-1]
    sep = input_ids.eq(sep_id).long()
    before = sep.cumsum(-1) - sep
    token_types = before.eq(1).long()
    x = word[input_ids] + segment[token_types] + position[torch.arange(T)]
    centred = x - x.mean(dim=-1, keepdim=True)
    return centred / (centred.pow(2).mean(dim=-1, keepdim=True) + eps).sqrt() * ln_weight + ln_bias


@EX2_1.bug
def variance_with_bessel_correction(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I took the variance with x.var(dim=-1, keepdim=True), torch's default, which divides by H - 1 (the unbiased estimate), not by H.
    Differs on: the worked LayerNorm example, one token with word row [1, 1, 3, 3], zero position and segment rows, γ = 1, β = 0, eps = 1e-12 (variance 4/3, gives ±0.866 instead of ±1)."""
    B, T = input_ids.shape
    is_sep = (input_ids == sep_id).long()
    n_before = torch.cumsum(is_sep, dim=1) - is_sep
    has_b = is_sep.sum(dim=1, keepdim=True) >= 2
    types = torch.where(has_b & (n_before == 1), 1, 0)
    x = word[input_ids] + segment[types] + position[torch.arange(T)].unsqueeze(0)
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * ln_weight + ln_bias


@EX2_1.bug
def eps_argument_not_passed(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """For the LayerNorm I called F.layer_norm(x, (H,), ln_weight, ln_bias) and forgot to pass eps=eps, so it always uses its default 1e-5, whatever eps I was given.
    Differs on: the worked LayerNorm example (word row [1, 1, 3, 3], γ = 1, β = 0) with eps = 1: expected ±1/√2 = ±0.7071, gives ±1.0000; with BERT's eps = 1e-12 the outputs differ by about 5e-6 relative."""
    B, T = input_ids.shape
    is_sep = (input_ids == sep_id).long()
    seps_before = is_sep.cumsum(dim=-1) - is_sep
    is_pair = is_sep.sum(dim=-1, keepdim=True) >= 2
    token_type_ids = ((seps_before == 1) & is_pair).long()
    x = word[input_ids] + segment[token_type_ids] + position[torch.arange(T)]
    return F.layer_norm(x, (x.shape[-1],), ln_weight, ln_bias)


@EX2_1.correct
def row_walk_and_one_hot_products(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """The types from a walk along each row counting the [SEP]s (type 1 only in rows with two); the three lookups as one-hot matrices times the tables; LayerNorm with torch.var(unbiased=False)."""
    B, T = input_ids.shape
    types = torch.zeros(B, T, dtype=torch.long)
    for b, row in enumerate(input_ids.tolist()):
        if row.count(sep_id) < 2:
            continue
        seen = 0
        for t, tok in enumerate(row):
            if seen == 1:
                types[b, t] = 1
            if tok == sep_id:
                seen += 1
    dtype = word.dtype
    x = (F.one_hot(input_ids, word.shape[0]).to(dtype) @ word
         + F.one_hot(types, segment.shape[0]).to(dtype) @ segment
         + F.one_hot(torch.arange(T), position.shape[0]).to(dtype) @ position)
    var = torch.var(x, dim=-1, unbiased=False, keepdim=True)
    return (x - x.mean(dim=-1, keepdim=True)) / torch.sqrt(var + eps) * ln_weight + ln_bias


# --- batch 7: written without reading any checker ------------------------------------------
EX.batch = 7


@EX.bug
def sdpa_given_the_one_zero_mask_as_float(q, k, v, key_mask=None):
    """I computed probs by hand (for the plot) and out with F.scaled_dot_product_attention, passing it the key mask converted to the query's dtype; a float attn_mask is ADDED to the scores, so my 1/0 mask adds 1 to the real keys and 0 to the padding instead of hiding it (probs are right, out is not).
    Differs on: B = nh = T_q = 1, T_k = 2, hs = 4, random q, k, v, key_mask = [[1, 0]] (out mixes in the padded value, expected out = v₀); without a mask it agrees."""
    hs = q.size(-1)
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(hs)
    attn_mask = None
    if key_mask is not None:
        scores = scores.masked_fill(key_mask[:, None, None, :] == 0, torch.finfo(scores.dtype).min)
        attn_mask = key_mask[:, None, None, :].to(q.dtype)
    probs = torch.softmax(scores, dim=-1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
    return out, probs


@EX.bug
def written_for_one_head(q, k, v, key_mask=None):
    """I wrote it for one head, like the worked example: squeeze(1) to drop the head axis, 3-D products and a (B, 1, T_k) mask, unsqueeze(1) at the end; with several heads squeeze(1) does nothing, so the mask lines up with the wrong axes and the outputs gain an extra axis.
    Differs on: B = 1, nh = 2, T_q = T_k = 2, hs = 4, random q, k, v, no mask (out has shape (1, 1, 2, 2, 4) instead of (1, 2, 2, 4)); with nh = 1 it agrees."""
    q1, k1, v1 = q.squeeze(1), k.squeeze(1), v.squeeze(1)
    scores = q1 @ k1.transpose(-2, -1) / math.sqrt(q1.shape[-1])        # (B, T_q, T_k)
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return (probs @ v1).unsqueeze(1), probs.unsqueeze(1)


@EX.bug
def no_mask_made_with_query_length(q, k, v, key_mask=None):
    """To have a single code path I made a mask of ones when none was given, torch.ones(B, T) with T = q.shape[2], the length I knew from self-attention; it is the number of queries, not keys, so it fails when they differ.
    Differs on: key_mask=None, B = nh = 1, T_q = 2, T_k = 3, hs = 4 (raises a broadcasting RuntimeError; expected a (1, 1, 2, 4) output); T_q = T_k or T_q = 1 agrees."""
    B, nh, T, hs = q.shape
    if key_mask is None:
        key_mask = torch.ones(B, T, dtype=torch.bool)
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(hs)
    scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(-1)
    return torch.einsum("bhqk,bhkd->bhqd", probs, v), probs


@EX.bug
def causal_triangle_by_habit(q, k, v, key_mask=None):
    """I started from my GPT attention, which also hides every key after the query (tril of a T_q × T_k matrix of ones), and kept that line; BERT's attention is bidirectional, every query sees every real key.
    Differs on: B = nh = 1, T_q = T_k = 2, hs = 4, random q, k, v, no mask (query 0's probs [1, 0] instead of the softmax of its two scores); the worked example (T_q = 1, T_k = 2) gives out [4, 0, 8, 1] instead of [3, 1, 6, 1]."""
    T_q, T_k = q.shape[-2], k.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(T_q, T_k, dtype=torch.bool).tril()
    if key_mask is not None:
        allowed = allowed & key_mask.bool()[:, None, None, :]
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.correct
def minus_inf_cleaned_then_logsumexp(q, k, v, key_mask=None):
    """Padded keys set to -inf, then torch.nan_to_num on the scores (which turns -inf into the dtype's lowest finite number); the probabilities as exp(scores - logsumexp), torch.matmul for both products."""
    scores = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(q.shape[3]))
    if key_mask is not None:
        keep = key_mask.to(torch.bool).reshape(key_mask.shape[0], 1, 1, key_mask.shape[1])
        scores = torch.nan_to_num(scores.masked_fill(~keep, float("-inf")))
    probs = torch.exp(scores - torch.logsumexp(scores, dim=3, keepdim=True))
    return torch.matmul(probs, v), probs


# --- batch 7: written without reading any checker ------------------------------------------
EX2_3.batch = 7


@EX2_3.bug
def replacements_in_the_wrong_order(attention_mask, dtype=torch.float32):
    """I converted the mask to dtype and replaced its values in place, first the 1s by 0, then the 0s by the minimum; the first step makes the real tokens 0 too, so the second hides every token.
    Differs on: [[1, 1, 0]] (expected [[[[0, 0, -3.4028e+38]]]], gives [[[[-3.4028e+38, -3.4028e+38, -3.4028e+38]]]])."""
    mask = attention_mask[:, None, None, :].to(dtype)
    mask[mask == 1] = 0
    mask[mask == 0] = torch.finfo(dtype).min
    return mask


@EX2_3.bug
def minus_infinity_fill(attention_mask, dtype=torch.float32):
    """I filled the padded positions with float("-inf"), the mathematically clean "minus infinity", in the right dtype and shape; the statement wants a finite number (a row of -inf becomes NaN).
    Differs on: [[1, 1, 0]] (expected [[[[0, 0, -3.4028e+38]]]], gives [[[[0, 0, -inf]]]]); [[0, 0]] followed by a softmax gives NaN."""
    keep = attention_mask.bool().unsqueeze(1).unsqueeze(2)
    return torch.zeros(keep.shape, dtype=dtype).masked_fill(~keep, float("-inf"))


@EX2_3.bug
def google_minus_10000_in_every_dtype(attention_mask, dtype=torch.float32):
    """I kept Google's adder, (1.0 - mask) * -10000.0, computed in the requested dtype, since any number at or below -10,000 passes; but in bfloat16 -10000 is not representable and rounds to -9984, above -10,000.
    Differs on: [[1, 1, 0]] with dtype=torch.bfloat16 (expected [[[[0, 0, -3.3895e+38]]]], gives [[[[0, 0, -9984]]]]); float16, float32 and float64 hold -10000 exactly."""
    m = attention_mask[:, None, None, :].to(dtype)
    return (1.0 - m) * -10000.0


@EX2_3.bug
def both_new_axes_in_front(attention_mask, dtype=torch.float32):
    """I added the two size-1 axes with unsqueeze(0).unsqueeze(0), in front, which gives (1, 1, 1, T) for my one-sequence example, but (1, 1, B, T) for a batch: the sequences land on the query axis.
    Differs on: [[1, 1, 0], [1, 0, 0]] (expected shape (2, 1, 1, 3), gives (1, 1, 2, 3)); a batch of one agrees."""
    lowest = torch.finfo(dtype).min
    out = torch.where(attention_mask == 1, torch.tensor(0, dtype=dtype), torch.tensor(lowest, dtype=dtype))
    return out.unsqueeze(0).unsqueeze(0)


@EX2_3.correct
def log_of_the_mask_clamped(attention_mask, dtype=torch.float32):
    """The logarithm of the mask in dtype (log 1 = 0, log 0 = -inf), clamped from below at finfo(dtype).min; the axes added with reshape."""
    B, T = attention_mask.shape
    logs = torch.log(attention_mask.to(dtype)).clamp(min=torch.finfo(dtype).min)
    return logs.reshape(B, 1, 1, T)


# --- batch 7: written without reading any checker ------------------------------------------
EX2_4.batch = 7


@EX2_4.bug
def strictly_earlier_keys_only(attention_mask):
    """I read "predicts each token from the ones before it" as j < i, so I kept the triangle strictly below the diagonal with tril(diagonal=-1) and every query loses itself.
    Differs on: the worked example [[1, 1, 1, 0]]: rows [F, F, F, F], [T, F, F, F], [T, T, F, F], [T, T, T, F] instead of [T, F, F, F], [T, T, F, F], [T, T, T, F], [T, T, T, F] (query 0 sees nothing at all)."""
    B, T = attention_mask.shape
    before = torch.ones(T, T, dtype=torch.bool).tril(diagonal=-1)
    return before & attention_mask.bool()[:, None, None, :]


@EX2_4.bug
def padded_queries_hidden_too(attention_mask):
    """I hid padding on both sides, keys and queries (a padded token should neither be seen nor look), by and-ing the key mask with the same mask along the rows.
    Differs on: the worked example [[1, 1, 1, 0]]: row 3 (the padded query) is [F, F, F, F] instead of [T, T, T, F]."""
    B, T = attention_mask.shape
    real = attention_mask.bool()
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return causal & real[:, None, None, :] & real[:, None, :, None]


@EX2_4.bug
def real_keys_taken_as_the_first_n(attention_mask):
    """I counted each row's real tokens, n = attention_mask.sum(-1), and let the keys j < n through, taking it for granted that padding is always on the right.
    Differs on: the statement's left-padded [[0, 1, 1]]: rows [T, F, F], [T, T, F], [T, T, F] instead of [F, F, F], [F, T, F], [F, T, T] (key 0, padding, is visible and key 2 is hidden); right padding like [[1, 1, 1, 0]] is right."""
    B, T = attention_mask.shape
    lengths = attention_mask.long().sum(dim=-1)                       # (B,)
    j = torch.arange(T)
    real_keys = j[None, :] < lengths[:, None]                         # (B, T): the first n positions
    causal = j[None, :] <= j[:, None]                                 # (T, T): key j <= query i
    return causal[None, None] & real_keys[:, None, None, :]


@EX2_4.bug
def head_axis_left_out(attention_mask):
    """I returned the (B, T, T) grid, causal & mask[:, None, :], thinking broadcasting would put in the head axis for me.
    Differs on: the worked example [[1, 1, 1, 0]]: shape (1, 4, 4) instead of (1, 1, 4, 4); for B = 2, e.g. [[1, 1, 1], [1, 1, 0]], the (2, 3, 3) mask broadcast against (B, nh = 2, T, T) scores lines the batch up with the heads: head 1 of sequence 0 loses key 2 and head 0 of sequence 1 sees its padded key 2."""
    B, T = attention_mask.shape
    causal = torch.tril(torch.ones(T, T)).bool()
    return causal & attention_mask.bool()[:, None, :]


@EX2_4.correct
def tril_of_the_repeated_key_mask(attention_mask):
    """The key mask repeated down T rows into a (B, 1, T, T) tensor, then torch.tril cuts it to j <= i (no separate triangle)."""
    B, T = attention_mask.shape
    rows = (attention_mask != 0).reshape(B, 1, 1, T).repeat(1, 1, T, 1)   # (B, 1, T, T): every row = the key mask
    return torch.tril(rows)


# --- batch 7: written without reading any checker ------------------------------------------
EX2_5.batch = 7


@EX2_5.bug
def heads_taken_as_interleaved_features(x, sequence_ids, weights, num_heads):
    """I cut the features with view(B, T, hs, nh) and moved the last axis forward, so head h gets features h, h + nh, h + 2nh, ... instead of its block h·hs ... (h + 1)·hs − 1 (I merged back the same way, so the shapes all work).
    Differs on: B = 1, T = 3, H = 4, num_heads = 2, sequence_ids [[1, 1, 2]], random x and weights (any num_heads > 1 with hs > 1); one head, or hs = 1, agrees."""
    B, T, H = x.shape
    hs = H // num_heads

    def project(t, name):
        return t @ weights[name + ".weight"].T + weights[name + ".bias"]

    def split(t):                                                     # (B, T, H) -> (B, nh, T, hs)
        return t.reshape(B, T, hs, num_heads).permute(0, 3, 1, 2)

    q, k, v = (split(project(x, name)) for name in ("query", "key", "value"))
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    same = sequence_ids[:, :, None] == sequence_ids[:, None, :]
    visible = same & (sequence_ids != 0)[:, None, :]
    probs = scores.masked_fill(~visible[:, None], torch.finfo(scores.dtype).min).softmax(dim=-1)
    context = (probs @ v).permute(0, 2, 3, 1).reshape(B, T, H)     # back to (B, T, hs, nh), flattened
    return project(context, "output")


@EX2_5.bug
def weights_applied_as_x_times_w(x, sequence_ids, weights, num_heads):
    """I wrote each projection as in the maths, x @ W + b; every weight is a square (H, H) matrix, so nothing complained, but nn.Linear stores W as (out, in) and means x @ W.T.
    Differs on: the worked example sequence_ids [[1, 2]] with random non-symmetric (H, H) weights, e.g. H = 4, num_heads = 2 (each token gives (x W_v + b_v) W_o + b_o instead of (x W_vᵀ + b_v) W_oᵀ + b_o); symmetric weights agree."""
    B, T, H = x.shape
    hs = H // num_heads
    W = {n: weights[n + ".weight"] for n in ("query", "key", "value", "output")}
    b = {n: weights[n + ".bias"] for n in ("query", "key", "value", "output")}
    q = (x @ W["query"] + b["query"]).view(B, T, num_heads, hs).transpose(1, 2)
    k = (x @ W["key"] + b["key"]).view(B, T, num_heads, hs).transpose(1, 2)
    v = (x @ W["value"] + b["value"]).view(B, T, num_heads, hs).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    visible = (sequence_ids[:, :, None] == sequence_ids[:, None, :]) & (sequence_ids != 0)[:, None, :]
    scores = scores.masked_fill(~visible[:, None], torch.finfo(scores.dtype).min)
    context = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, T, H)
    return context @ W["output"] + b["output"]


@EX2_5.bug
def blocks_laid_out_by_bincount(x, sequence_ids, weights, num_heads):
    """I built each row's block-diagonal mask with torch.block_diag from the sentence lengths torch.bincount gives, in id order, which puts the padding block (id 0) first although the padding comes last in the row.
    Differs on: the statement's row [[1, 1, 1, 2, 2, 0]] (B = 1, H = 4, num_heads = 2, random x and weights): the blocks (lengths [1, 3, 2]) start at the wrong places, so token 0 sees only itself, tokens 1-3 see each other across the two sentences and token 4 also sees the padding; a row without padding, e.g. [[1, 2]] or [[1, 1, 2, 2, 2]], is right."""
    B, T, H = x.shape
    hs = H // num_heads

    def project(t, name):
        return t @ weights[name + ".weight"].T + weights[name + ".bias"]

    def split(t):
        return t.view(B, T, num_heads, hs).transpose(1, 2)

    q, k, v = (split(project(x, name)) for name in ("query", "key", "value"))
    masks = []
    for b in range(B):
        lengths = torch.bincount(sequence_ids[b]).tolist()            # [padding, sentence 1, sentence 2, ...]
        masks.append(torch.block_diag(*[torch.ones(n, n) for n in lengths]).bool())
    visible = torch.stack(masks)                                      # (B, T, T)
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    scores = scores.masked_fill(~visible[:, None], torch.finfo(scores.dtype).min)
    context = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, T, H)
    return project(context, "output")


@EX2_5.bug
def heads_chunked_by_head_size(x, sequence_ids, weights, num_heads):
    """I split the features into heads with torch.chunk(t, hs, dim=-1), taking chunk's second argument for the size of a piece; it is the number of pieces, so I get hs heads of nh features each.
    Differs on: B = 1, T = 3, H = 8, num_heads = 2 (hs = 4: four heads of 2 features instead of two of 4), sequence_ids [[1, 1, 0]], random x and weights; whenever num_heads == hs (H = 4, num_heads = 2) it agrees."""
    B, T, H = x.shape
    hs = H // num_heads

    def project(t, name):
        return t @ weights[name + ".weight"].T + weights[name + ".bias"]

    q, k, v = (torch.stack(torch.chunk(project(x, n), hs, dim=-1), dim=1) for n in ("query", "key", "value"))
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)                  # (B, pieces, T, T)
    same = sequence_ids.unsqueeze(2) == sequence_ids.unsqueeze(1)
    visible = same & (sequence_ids != 0).unsqueeze(1)
    probs = scores.masked_fill(~visible.unsqueeze(1), torch.finfo(scores.dtype).min).softmax(dim=-1)
    context = torch.cat((probs @ v).unbind(dim=1), dim=-1)            # pieces side by side again: (B, T, H)
    return project(context, "output")


@EX2_5.correct
def einsum_with_one_sentence_mask(x, sequence_ids, weights, num_heads):
    """einsum for every product, the heads split with unflatten; the only mask is "same sentence id" (padding then sees padding alone, so its row stays finite), applied with torch.where."""
    B, T, H = x.shape
    hs = H // num_heads
    lin = {n: (weights[n + ".weight"], weights[n + ".bias"]) for n in ("query", "key", "value", "output")}

    def heads(name):
        W, b = lin[name]
        return (torch.einsum("bti,oi->bto", x, W) + b).unflatten(-1, (num_heads, hs))   # (B, T, nh, hs)

    q, k, v = heads("query"), heads("key"), heads("value")
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / hs ** 0.5
    same = (sequence_ids.unsqueeze(-1) == sequence_ids.unsqueeze(-2)).unsqueeze(1)   # (B, 1, T, T)
    scores = torch.where(same, scores, torch.tensor(torch.finfo(scores.dtype).min, dtype=scores.dtype))
    context = torch.einsum("bhqk,bkhd->bqhd", scores.softmax(dim=-1), v).flatten(-2)  # (B, T, H)
    W, b = lin["output"]
    return torch.einsum("bti,oi->bto", context, W) + b


# --- batch 7: written without reading any checker ------------------------------------------
EX2_6.batch = 7


@EX2_6.bug
def head_columns_instead_of_rows(x, weights, num_heads, head, i):
    """I took the head's slice of each weight as W[:, rows] and multiplied x @ W[:, rows], which gives the right (T, hs) shape without a transpose, but uses the columns (input features) instead of the rows.
    Differs on: T = 3, H = 4, num_heads = 2, head = 0, i = 1, random non-symmetric weights and x (any weights whose slice W[:, rows] is not W[rows]ᵀ); the worked example's query and key weights are I, but its value weight [[0, 1], [0, 0]] gives column 0, [0, 0], so it returns [0.] instead of [5.5]."""
    T, H = x.shape
    hs = H // num_heads
    rows = slice(head * hs, (head + 1) * hs)
    q = x @ weights["query.weight"][:, rows] + weights["query.bias"][rows]
    k = x @ weights["key.weight"][:, rows] + weights["key.bias"][rows]
    v = x @ weights["value.weight"][:, rows] + weights["value.bias"][rows]
    p = torch.softmax(k @ q[i] / math.sqrt(hs), dim=0)
    return p @ v


@EX2_6.bug
def query_and_key_biases_dropped(x, weights, num_heads, head, i):
    """I left out the query and key biases, since a constant added to every score of a row cancels in the softmax; that holds for the key bias, but the query bias adds b_q · k_j, which changes with j.
    Differs on: T = 3, H = 4, num_heads = 2, head = 1, i = 0, random x and weights with a non-zero query bias; zero biases (the worked example) agree."""
    T, H = x.shape
    hs = H // num_heads
    r = slice(head * hs, (head + 1) * hs)
    q = x[i] @ weights["query.weight"][r].T                           # (hs,)
    k = x @ weights["key.weight"][r].T                                 # (T, hs)
    v = x @ weights["value.weight"][r].T + weights["value.bias"][r]
    return torch.softmax(k @ q / math.sqrt(hs), dim=0) @ v


@EX2_6.bug
def key_i_scored_against_every_query(x, weights, num_heads, head, i):
    """I computed the scores as q @ k[i], token i's key against every token's query, mixing up which side of the dot product belongs to query i.
    Differs on: T = 3, H = 4, num_heads = 2, head = 0, i = 2, random x and weights (q_j · k_i instead of q_i · k_j); the worked example, whose query and key weights are both I, agrees."""
    T, H = x.shape
    hs = H // num_heads
    rows = slice(head * hs, (head + 1) * hs)
    q = x @ weights["query.weight"][rows].T + weights["query.bias"][rows]
    k = x @ weights["key.weight"][rows].T + weights["key.bias"][rows]
    v = x @ weights["value.weight"][rows].T + weights["value.bias"][rows]
    scores = q @ k[i] / math.sqrt(hs)
    return scores.softmax(dim=0) @ v


@EX2_6.bug
def scale_folded_into_the_callers_query_rows(x, weights, num_heads, head, i):
    """I folded 1/√hs into the head's query rows with /=, not seeing that W[rows] is a view: the division lands in the caller's weights (and it is redone at every call).
    Differs on: T = 3, H = 8, num_heads = 2 (hs = 4), head = 0, i = 0, random x and weights: the first call returns the right vector, but afterwards rows 0-3 of the caller's query weight and bias are halved, and a second identical call returns a different vector; with hs = 1 (the worked example) nothing changes."""
    T, H = x.shape
    hs = H // num_heads
    rows = slice(head * hs, (head + 1) * hs)
    Wq, bq = weights["query.weight"][rows], weights["query.bias"][rows]
    Wq /= math.sqrt(hs)
    bq /= math.sqrt(hs)
    q = x[i] @ Wq.T + bq
    k = x @ weights["key.weight"][rows].T + weights["key.bias"][rows]
    v = x @ weights["value.weight"][rows].T + weights["value.bias"][rows]
    return torch.softmax(k @ q, dim=0) @ v


@EX2_6.correct
def key_bias_dropped_value_bias_after(x, weights, num_heads, head, i):
    """The head's slices by reshaping to (nh, hs, ...); the key bias left out (it adds the same number to every score) and the value bias added once after the weighted sum (the weights sum to 1), with torch.mv."""
    T, H = x.shape
    hs = H // num_heads
    Wq, Wk, Wv = (weights[n + ".weight"].reshape(num_heads, hs, H)[head] for n in ("query", "key", "value"))
    bq, bv = (weights[n + ".bias"].reshape(num_heads, hs)[head] for n in ("query", "value"))
    q = torch.mv(Wq, x[i]) + bq                                       # (hs,)
    scores = torch.mv(x, torch.mv(Wk.T, q)) / math.sqrt(hs)           # x_j · (W_kᵀ q) = q · (W_k x_j)
    p = torch.softmax(scores, dim=0)                                  # (T,)
    return torch.mv(Wv, torch.mv(x.T, p)) + bv                        # W_v (Σ_j p_j x_j) + b_v


# --- batch 8: written without reading any checker ------------------------------------------
EX2_1.batch = 8


@EX2_1.bug
def second_sep_left_in_sentence_a(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I gave type 1 to the tokens with exactly one [SEP] counted so far (cumsum, the token itself included) that are not [SEP]s themselves, to keep the first [SEP] in sentence A; but that also leaves the second [SEP] at type 0, while the statement runs type 1 through it.
    Differs on: [[CLS] a [SEP] b c [SEP] [PAD]] (types [0, 0, 0, 1, 1, 0, 0] instead of [0, 0, 0, 1, 1, 1, 0]: the second [SEP]'s vector differs); one-sentence rows agree."""
    B, T = input_ids.shape
    is_sep = input_ids == sep_id
    count = is_sep.long().cumsum(dim=1)
    pair = is_sep.sum(dim=1, keepdim=True) >= 2
    types = ((count == 1) & ~is_sep & pair).long()
    x = word[input_ids] + segment[types] + position[:T].unsqueeze(0)
    mu = x.mean(-1, keepdim=True)
    var = (x - mu).pow(2).mean(-1, keepdim=True)
    return ln_weight * (x - mu) / (var + eps).sqrt() + ln_bias


@EX2_1.bug
def variance_from_mean_of_squares(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I computed the variance in one pass as the mean of the squares minus the square of the mean, E[x²] - E[x]², which is the same formula on paper; in float32 it cancels catastrophically when the features sit far from 0 compared with their spread, and can even go negative (NaN).
    Differs on: float32 tables, H = 4, a token whose summed row is [1000, 1000.1, 1000.2, 1000.3] (γ = 1, β = 0, eps = 1e-12): expected [-1.342, -0.447, 0.447, 1.342], gives NaN everywhere (the one-pass variance comes out negative); with rows near 0 it agrees to rounding."""
    T = input_ids.shape[1]
    is_sep = (input_ids == sep_id).long()
    before = is_sep.cumsum(-1) - is_sep
    two = is_sep.sum(-1, keepdim=True) >= 2
    tt = ((before == 1) & two).long()
    x = word[input_ids] + segment[tt] + position[torch.arange(T)]
    mean = x.mean(-1, keepdim=True)
    var = (x * x).mean(-1, keepdim=True) - mean * mean
    return (x - mean) / torch.sqrt(var + eps) * ln_weight + ln_bias


@EX2_1.bug
def positions_counted_from_one(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I numbered the positions 1, 2, ..., T, thinking position 0 was reserved (as RoBERTa offsets its positions past the padding index), so every token reads the position row one further than it should, and T = P raises.
    Differs on: any input whose position rows differ, e.g. B = 1, T = 3, P = 4, random tables (token t gets position[t + 1] instead of position[t]); T = P raises IndexError."""
    T = input_ids.shape[1]
    is_sep = (input_ids == sep_id).long()
    seps_before = is_sep.cumsum(dim=-1) - is_sep
    is_pair = is_sep.sum(dim=-1, keepdim=True) >= 2
    token_type_ids = ((seps_before == 1) & is_pair).long()
    position_ids = torch.arange(1, T + 1)
    x = word[input_ids] + segment[token_type_ids] + position[position_ids]
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * ln_weight + ln_bias


@EX2_1.bug
def pair_test_summed_over_the_batch(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I tested for a second sentence with (input_ids == sep_id).sum() >= 2, forgetting dim=-1, so the count is over the whole batch: as soon as the batch holds two [SEP]s, every row is treated as a pair, and the padding after a one-sentence row's only [SEP] gets type 1.
    Differs on: B = 2, rows [CLS a SEP b SEP PAD] and [CLS a SEP PAD PAD PAD] (row 1's padding gets type 1 instead of 0); a batch of one row, or of pairs only, agrees."""
    T = input_ids.shape[1]
    is_sep = (input_ids == sep_id).long()
    seps_before = is_sep.cumsum(dim=-1) - is_sep
    has_b = is_sep.sum() >= 2
    token_type_ids = ((seps_before == 1) & has_b).long()
    x = word[input_ids] + segment[token_type_ids] + position[torch.arange(T)]
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * ln_weight + ln_bias


@EX2_1.correct
def python_walk_and_einsum_variance(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """Types from a Python walk over each row's [SEP] positions; the position rows sliced; LayerNorm with the mean as sum / H and the variance from einsum."""
    B, T = input_ids.shape
    H = word.shape[1]
    types = torch.zeros(B, T, dtype=torch.long)
    for r, row in enumerate(input_ids.tolist()):
        seps = [t for t, tok in enumerate(row) if tok == sep_id]
        if len(seps) >= 2:
            types[r, seps[0] + 1:seps[1] + 1] = 1
    x = word[input_ids] + segment[types] + position[:T]
    xc = x - x.sum(dim=2, keepdim=True) / H
    var = torch.einsum("bth,bth->bt", xc, xc)[..., None] / H
    return xc / torch.sqrt(var + eps) * ln_weight + ln_bias


# --- batch 8: written without reading any checker ------------------------------------------
EX.batch = 8


@EX.bug
def row_max_taken_without_keepdim(q, k, v, key_mask=None):
    """I wrote the stable softmax by hand and subtracted scores.max(dim=-1).values, forgetting keepdim=True; the (B, nh, T_q) maxima then broadcast against the LAST axis, so with T_q = T_k each column j is shifted by the maximum of row j, which changes the probabilities (and other shapes raise or grow).
    Differs on: B = nh = 1, T_q = T_k = 2, hs = 1, q = [[1], [3]], k = [[1], [2]], v = [[1], [0]] (expected row 0 probs [0.269, 0.731], gives [0.953, 0.047]); T_q = 2, T_k = 3 raises; with one query (the worked example) it agrees."""
    scale = 1.0 / math.sqrt(q.size(-1))
    scores = torch.matmul(q, k.transpose(2, 3)) * scale
    if key_mask is not None:
        pad = key_mask == 0
        scores = scores.masked_fill(pad[:, None, None, :], torch.finfo(scores.dtype).min)
    e = torch.exp(scores - scores.max(dim=-1).values)
    probs = e / e.sum(dim=-1, keepdim=True)
    return torch.matmul(probs, v), probs


@EX.bug
def padded_values_zeroed_instead_of_scores(q, k, v, key_mask=None):
    """I hid the padding by zeroing the padded keys' values, v * key_mask[:, None, :, None], thinking a key whose value is zero adds nothing to the output; but its score still takes a share of the softmax, so padded keys get a probability and the real keys' weights shrink.
    Differs on: B = nh = T_q = 1, T_k = 2, hs = 4, the worked example's q, k, v with key_mask = [[1, 0]] (expected probs [1, 0] and out v0 = [4, 0, 8, 1], gives probs [3/4, 1/4] and out [3, 0, 6, 0.75]); without a mask it agrees."""
    hs = q.shape[-1]
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / hs ** 0.5
    if key_mask is not None:
        v = v * key_mask.to(v.dtype)[:, None, :, None]
    probs = torch.softmax(scores, dim=-1)
    return torch.einsum("bhqk,bhkd->bhqd", probs, v), probs


@EX.bug
def mask_tested_for_truth(q, k, v, key_mask=None):
    """I wrote `if key_mask:` for "if a mask was given", as I would for a list; Python then asks the tensor for its truth value, which torch refuses for a tensor of more than one element (and a single-element mask [[0]] counts as no mask).
    Differs on: any key_mask with 2 or more entries, e.g. B = 1, T_k = 2, key_mask = [[1, 0]]: raises RuntimeError ("Boolean value of Tensor with more than one value is ambiguous"); without a mask it agrees."""
    hs = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    if key_mask:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = F.softmax(scores, dim=-1)
    return probs @ v, probs


@EX.bug
def probs_returned_from_before_the_mask(q, k, v, key_mask=None):
    """I computed probs = softmax(scores) first, for the plot, then masked the scores and took the softmax again for out; I returned out from the masked softmax but the first, unmasked probs.
    Differs on: the worked example's q, k, v with key_mask = [[1, 0]] (out right, v0 = [4, 0, 8, 1], but probs [3/4, 1/4] instead of [1, 0]); without a mask it agrees."""
    hs = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    probs = scores.softmax(dim=-1)
    weights = probs
    if key_mask is not None:
        hide = ~key_mask.bool()[:, None, None, :]
        weights = scores.masked_fill(hide, torch.finfo(scores.dtype).min).softmax(dim=-1)
    out = weights @ v
    return out, probs


@EX.correct
def online_softmax_one_key_at_a_time(q, k, v, key_mask=None):
    """Flash-attention style: one pass over the keys keeping a running maximum, denominator and weighted sum of values, rescaled as the maximum grows; probs from the final maximum and denominator."""
    hs = q.shape[-1]
    T_k = k.shape[-2]
    scores = torch.einsum("bhid,bhjd->bhij", q, k) / math.sqrt(hs)
    if key_mask is not None:
        real = key_mask.bool()[:, None, None, :]
        scores = torch.where(real, scores, torch.full_like(scores, torch.finfo(scores.dtype).min))
    run_max = torch.full(scores.shape[:-1], float("-inf"), dtype=scores.dtype)
    denom = torch.zeros(scores.shape[:-1], dtype=scores.dtype)
    acc = torch.zeros(*scores.shape[:-1], v.shape[-1], dtype=scores.dtype)
    for j in range(T_k):
        s_j = scores[..., j]
        new_max = torch.maximum(run_max, s_j)
        rescale = torch.exp(run_max - new_max)
        w_j = torch.exp(s_j - new_max)
        denom = denom * rescale + w_j
        acc = acc * rescale[..., None] + w_j[..., None] * v[:, :, None, j, :]
        run_max = new_max
    probs = torch.exp(scores - run_max[..., None]) / denom[..., None]
    return acc / denom[..., None], probs


# --- batch 8: written without reading any checker ------------------------------------------
EX2_3.batch = 8


@EX2_3.bug
def square_mask_returned(attention_mask, dtype=torch.float32):
    """The scores are (B, nh, T, T), so I expanded my mask to the square (B, 1, T, T), one row per query, to be sure it lines up; it adds to the scores the same way, but the statement asks for (B, 1, 1, T).
    Differs on: [[1, 1, 0]] (expected shape (1, 1, 1, 3), gives (1, 1, 3, 3) with the row [0, 0, min] three times)."""
    B, T = attention_mask.shape
    hide = attention_mask == 0
    fill = torch.finfo(dtype).min
    mask = torch.zeros(B, 1, 1, T, dtype=dtype).masked_fill(hide.view(B, 1, 1, T), fill)
    return mask.expand(B, 1, T, T)


@EX2_3.bug
def padding_set_by_boolean_index(attention_mask, dtype=torch.float32):
    """I made a (B, 1, 1, T) tensor of zeros in the dtype and set the padded places with out[..., attention_mask == 0] = finfo.min; a 2-D boolean index after the ellipsis covers the last two axes, (1, T), which matches my one-sequence example but not a batch of B > 1.
    Differs on: [[1, 1, 0], [1, 0, 0]] (B = 2): raises IndexError (the mask's shape (2, 3) does not match the axes (1, 3)); any single row is right."""
    B, T = attention_mask.shape
    out = torch.zeros((B, 1, 1, T), dtype=dtype)
    out[..., attention_mask == 0] = torch.finfo(dtype).min
    return out


@EX2_3.bug
def one_minus_written_the_other_way(attention_mask, dtype=torch.float32):
    """I converted the mask to the dtype first (to avoid integer arithmetic) and wrote the formula as (mask - 1) * finfo(dtype).min instead of (1 - mask) * finfo(dtype).min; at padding that is (-1) times the most negative number, the LARGEST positive one, so the padding would take all the attention.
    Differs on: [[1, 1, 0]] (expected [[[[0, 0, -3.4028e+38]]]], gives [[[[0, 0, +3.4028e+38]]]]); in float16 +65504 instead of -65504."""
    m = attention_mask.to(dtype)[:, None, None, :]
    return (m - 1) * torch.finfo(dtype).min


_PADDING_MASKS = {}


@EX2_3.bug
def cached_by_shape_and_dtype(attention_mask, dtype=torch.float32):
    """The mask is rebuilt at every training step for batches of the same shape, so I cached it in a module-level dict keyed by (shape, dtype); but the key leaves out the mask's contents, so a second batch of the same shape with its padding elsewhere gets the first batch's mask.
    Differs on: [[1, 1, 0]] then [[1, 0, 0]] in the same session (the second call returns [[[[0, 0, min]]]] instead of [[[[0, min, min]]]]); the first call of each shape is right."""
    key = (tuple(attention_mask.shape), dtype)
    if key not in _PADDING_MASKS:
        real = attention_mask.bool()[:, None, None, :]
        _PADDING_MASKS[key] = torch.where(
            real, torch.zeros((), dtype=dtype), torch.full((), torch.finfo(dtype).min, dtype=dtype)
        )
    return _PADDING_MASKS[key]


@EX2_3.correct
def computed_in_float64_then_cast(attention_mask, dtype=torch.float32):
    """Built in float64, which holds every float dtype's minimum exactly, with torch.where over the 0/1 values and a reshape, then cast to the requested dtype."""
    B, T = attention_mask.shape
    lowest = torch.finfo(dtype).min
    m64 = torch.where(attention_mask.reshape(B, 1, 1, T) != 0,
                      torch.tensor(0.0, dtype=torch.float64),
                      torch.tensor(lowest, dtype=torch.float64))
    return m64.to(dtype)


# --- batch 8: written without reading any checker ------------------------------------------
EX2_4.batch = 8


@EX2_4.bug
def future_keys_from_swapped_aranges(attention_mask):
    """I drew the triangle by comparing two aranges, torch.arange(T)[None, :] >= torch.arange(T)[:, None], and put the key index on the wrong side: that is j >= i, so each query sees itself and the keys AFTER it.
    Differs on: the worked example [[1, 1, 1, 0]]: the bug gives rows [T, T, T, F], [F, T, T, F], [F, F, T, F], [F, F, F, F] instead of [T, F, F, F], [T, T, F, F], [T, T, T, F], [T, T, T, F]."""
    B, T = attention_mask.shape
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    allowed = j >= i
    return allowed & attention_mask.bool()[:, None, None, :]


@EX2_4.bug
def masks_summed_then_made_boolean(attention_mask):
    """I combined the triangle and the key mask by adding them, (triangle.long() + mask[:, None, None, :]).bool(), thinking a sum of 0/1 masks then .bool() is "both"; it is "either", so a future real key or a padded past key is let through.
    Differs on: the worked example [[1, 1, 1, 0]]: the bug gives row 0 = [T, T, T, F] (future keys 1 and 2 visible) and row 3 = [T, T, T, T] instead of [T, F, F, F] and [T, T, T, F]."""
    B, T = attention_mask.shape
    triangle = torch.ones(T, T).tril().long()
    return (triangle + attention_mask[:, None, None, :]).bool()


@EX2_4.bug
def every_query_keeps_its_own_key(attention_mask):
    """Worried about a query with no key at all (left padding), I OR-ed in the diagonal so every token can at least attend to itself, padding included.
    Differs on: [[0, 1, 1]]: the bug's row 0 is [T, F, F] instead of all False; also [[1, 1, 1, 0]]: row 3 is [T, T, T, T] instead of [T, T, T, F]."""
    B, T = attention_mask.shape
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    keys = attention_mask.bool()[:, None, None, :]
    itself = torch.eye(T, dtype=torch.bool)
    return (causal & keys) | itself


@EX2_4.bug
def length_taken_with_len(attention_mask):
    """I took the sequence length as T = len(attention_mask), forgetting that len() of a 2-D tensor is its first axis, the batch size B.
    Differs on: the worked example [[1, 1, 1, 0]] (B = 1, T = 4): the bug returns a (1, 1, 1, 4) mask [[[[T, T, T, F]]]] instead of the (1, 1, 4, 4) one (right only when B == T)."""
    T = len(attention_mask)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return causal & attention_mask.bool()[:, None, None, :]


@EX2_4.correct
def numpy_tri_and_broadcast(attention_mask):
    """numpy: np.tri for the triangle, the key mask != 0 broadcast over the rows, back to torch with from_numpy."""
    m = attention_mask.detach().cpu().numpy() != 0           # (B, T)
    T = m.shape[1]
    tri = np.tri(T, T, dtype=bool)                           # j <= i
    grid = np.logical_and(tri[None, None, :, :], m[:, None, None, :])  # (B, 1, T, T)
    return torch.from_numpy(np.ascontiguousarray(grid))


# --- batch 8: written without reading any checker ------------------------------------------
EX2_5.batch = 8


@EX2_5.bug
def only_padding_hidden(x, sequence_ids, weights, num_heads):
    """I hid the padded keys, as I had done for BERT's padding mask (sequence_ids != 0 as the key mask), and thought that was what "keep the sentences apart" needed; the sentences of one row still see each other.
    Differs on: the worked example sequence_ids [[1, 2]] with random x and weights (H = 4, 2 heads): each token mixes in its neighbour's value instead of returning (x W_vᵀ + b_v) W_oᵀ + b_o."""
    B, T, H = x.shape
    hs = H // num_heads

    def project(t, name):
        return t @ weights[name + ".weight"].T + weights[name + ".bias"]

    def split(t):
        return t.view(B, T, num_heads, hs).transpose(1, 2)

    q, k, v = (split(project(x, n)) for n in ("query", "key", "value"))
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    real_keys = (sequence_ids != 0)[:, None, None, :]                  # (B, 1, 1, T)
    probs = scores.masked_fill(~real_keys, torch.finfo(scores.dtype).min).softmax(dim=-1)
    context = (probs @ v).transpose(1, 2).reshape(B, T, H)
    return project(context, "output")


@EX2_5.bug
def heads_merged_without_moving_the_axis_back(x, sequence_ids, weights, num_heads):
    """I split the heads properly with view(B, T, nh, hs).transpose(1, 2), but on the way back I reshaped the (B, nh, T, hs) context straight to (B, T, H), forgetting to move the head axis back first.
    Differs on: B = 1, T = 3, H = 4, num_heads = 2, sequence_ids [[1, 1, 1]], random x and weights (any num_heads > 1 and T > 1 gives scrambled tokens)."""
    B, T, H = x.shape
    hs = H // num_heads
    Wq, Wk, Wv, Wo = (weights[n + ".weight"] for n in ("query", "key", "value", "output"))
    bq, bk, bv, bo = (weights[n + ".bias"] for n in ("query", "key", "value", "output"))
    q = (x @ Wq.T + bq).view(B, T, num_heads, hs).transpose(1, 2)
    k = (x @ Wk.T + bk).view(B, T, num_heads, hs).transpose(1, 2)
    v = (x @ Wv.T + bv).view(B, T, num_heads, hs).transpose(1, 2)
    scores = q @ k.transpose(-1, -2) / math.sqrt(hs)
    visible = (sequence_ids[:, :, None] == sequence_ids[:, None, :]) & (sequence_ids[:, None, :] > 0)
    scores = scores.masked_fill(~visible[:, None], torch.finfo(scores.dtype).min)
    context = scores.softmax(-1) @ v                                   # (B, nh, T, hs)
    merged = context.reshape(B, T, H)
    return merged @ Wo.T + bo


@EX2_5.bug
def sentence_mask_from_the_first_row(x, sequence_ids, weights, num_heads):
    """I worked the (T, T) "same sentence" picture out for one row, ids = sequence_ids[0], like the worked example, and let it broadcast over the batch: every row is masked with the first row's packing.
    Differs on: B = 2, T = 4, H = 4, num_heads = 2, sequence_ids [[1, 1, 2, 2], [1, 2, 2, 2]], random x and weights: row 0 is right, but row 1 gets row 0's blocks (its token 0 also sees token 1, its token 1 sees tokens 0-1 instead of 1-3)."""
    B, T, H = x.shape
    hs = H // num_heads
    lin = lambda t, n: t @ weights[n + ".weight"].T + weights[n + ".bias"]
    q, k, v = (lin(x, n).view(B, T, num_heads, hs).transpose(1, 2) for n in ("query", "key", "value"))
    ids = sequence_ids[0]                                              # (T,)
    visible = (ids[:, None] == ids[None, :]) & (ids != 0)[None, :]     # (T, T)
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
    scores = scores.masked_fill(~visible, torch.finfo(scores.dtype).min)
    out = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, T, H)
    return lin(out, "output")


@EX2_5.bug
def sentence_mask_drawn_with_less_equal(x, sequence_ids, weights, num_heads):
    """Fresh from the causal mask of 2.4, I drew the sentence picture with key id <= query id (and hid padded keys): it keeps a sentence's own block but also lets a later sentence see the earlier ones.
    Differs on: the worked example sequence_ids [[1, 2]] with random x and weights (H = 4, 2 heads): token 1 (sentence 2) mixes in token 0's value; token 0 is right."""
    B, T, H = x.shape
    hs = H // num_heads

    def heads(name):
        t = x @ weights[f"{name}.weight"].T + weights[f"{name}.bias"]
        return t.reshape(B, T, num_heads, hs).permute(0, 2, 1, 3)

    q, k, v = heads("query"), heads("key"), heads("value")
    scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(hs)
    keys = sequence_ids[:, None, :]                                    # (B, 1, T): key j
    queries = sequence_ids[:, :, None]                                 # (B, T, 1): query i
    visible = (keys <= queries) & (keys != 0)
    scores = torch.where(visible[:, None], scores, torch.finfo(scores.dtype).min)
    context = torch.matmul(F.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).reshape(B, T, H)
    return context @ weights["output.weight"].T + weights["output.bias"]


@EX2_5.correct
def head_by_head_with_one_hot_sentences(x, sequence_ids, weights, num_heads):
    """A loop over the heads, each projected from its own rows of the weights; the "same sentence" mask as a product of one-hot sentence indicators; head outputs concatenated before the output projection."""
    B, T, H = x.shape
    hs = H // num_heads
    onehot = F.one_hot(sequence_ids.long(), int(sequence_ids.max()) + 1)[..., 1:].to(x.dtype)  # (B, T, K), padding = 0 row
    visible = (onehot @ onehot.transpose(1, 2)) > 0                    # (B, T, T): same real sentence
    outs = []
    for h in range(num_heads):
        rows = slice(h * hs, (h + 1) * hs)
        q = x @ weights["query.weight"][rows].T + weights["query.bias"][rows]   # (B, T, hs)
        k = x @ weights["key.weight"][rows].T + weights["key.bias"][rows]
        v = x @ weights["value.weight"][rows].T + weights["value.bias"][rows]
        s = torch.bmm(q, k.transpose(1, 2)) * hs ** -0.5
        s = torch.where(visible, s, torch.full_like(s, torch.finfo(s.dtype).min))
        outs.append(torch.bmm(torch.softmax(s, dim=-1), v))
    context = torch.cat(outs, dim=-1)                                  # (B, T, H), head h in slice h
    return context @ weights["output.weight"].T + weights["output.bias"]


# --- batch 8: written without reading any checker ------------------------------------------
EX2_6.batch = 8


@EX2_6.bug
def head_rows_sliced_to_the_last_index_written(x, weights, num_heads, head, i):
    """The statement says head h owns rows h·hs, ..., (h + 1)·hs − 1, so I wrote slice(head * hs, (head + 1) * hs - 1), forgetting that a Python slice already stops before its end: each head loses its last row.
    Differs on: the worked example (H = 2, 2 heads, hs = 1): the bug returns an empty tensor of shape (0,) instead of [5.5]; with hs = 2 it returns 1 number instead of 2."""
    T, H = x.shape
    hs = H // num_heads
    rows = slice(head * hs, (head + 1) * hs - 1)
    q = x @ weights["query.weight"][rows].T + weights["query.bias"][rows]
    k = x @ weights["key.weight"][rows].T + weights["key.bias"][rows]
    v = x @ weights["value.weight"][rows].T + weights["value.bias"][rows]
    p = torch.softmax(k @ q[i] / math.sqrt(hs), dim=0)
    return p @ v


@EX2_6.bug
def scaled_by_the_model_width(x, weights, num_heads, head, i):
    """I divided the scores by √H with H = x.shape[1], the size of the vectors I was handed, instead of √hs, the size of one head's query and key.
    Differs on: the worked example: scores [ln 3 / √2, 0] give weights [0.685, 0.315] and an output [5.630] instead of [5.5]."""
    T, H = x.shape
    hs = H // num_heads
    lo, hi = head * hs, (head + 1) * hs
    Wq, Wk, Wv = (weights[n + ".weight"][lo:hi] for n in ("query", "key", "value"))
    bq, bk, bv = (weights[n + ".bias"][lo:hi] for n in ("query", "key", "value"))
    q_i = Wq @ x[i] + bq                                               # (hs,)
    keys = x @ Wk.T + bk                                               # (T, hs)
    values = x @ Wv.T + bv
    scores = keys @ q_i / math.sqrt(H)
    return F.softmax(scores, dim=0) @ values


@EX2_6.bug
def softmax_as_exp_over_its_sum(x, weights, num_heads, head, i):
    """I wrote the softmax out as the formula reads, e = exp(scores), p = e / e.sum(), without subtracting the largest score first; large scores overflow to inf and the weights become inf / inf = NaN.
    Differs on: T = 3, H = 4, 2 heads, head 0, i = 0, all weights the identity and biases 0, x = 20 * randn (seed 0): the bug returns NaN where the solution returns finite numbers; on small scores it agrees."""
    T, H = x.shape
    hs = H // num_heads
    rows = slice(head * hs, (head + 1) * hs)
    proj = {}
    for name in ("query", "key", "value"):
        proj[name] = x @ weights[name + ".weight"][rows].T + weights[name + ".bias"][rows]
    scores = proj["key"] @ proj["query"][i] / math.sqrt(hs)
    e = torch.exp(scores)
    p = e / e.sum()
    return p @ proj["value"]


@EX2_6.bug
def whole_bias_added_to_the_head_slice(x, weights, num_heads, head, i):
    """I took the head's rows of each weight matrix but added the whole (H,) bias, thinking a bias belongs to the layer, not to a head.
    Differs on: the worked example (H = 2, hs = 1): each (T, 1) projection plus the (2,) bias broadcasts to (T, 2), so the scores double and the bug returns [5.2, 5.2] instead of [5.5]; with H = 4, 2 heads it raises a shape error."""
    T, H = x.shape
    hs = H // num_heads
    rows = slice(head * hs, (head + 1) * hs)
    q = x @ weights["query.weight"][rows].T + weights["query.bias"]
    k = x @ weights["key.weight"][rows].T + weights["key.bias"]
    v = x @ weights["value.weight"][rows].T + weights["value.bias"]
    scores = k @ q[i] / math.sqrt(hs)
    return scores.softmax(dim=0) @ v


@EX2_6.correct
def project_everything_then_slice_columns(x, weights, num_heads, head, i):
    """All H features projected with the full weights, then the head's columns of the projections taken; einsum for the scores and the weighted sum."""
    T, H = x.shape
    hs = H // num_heads
    cols = torch.arange(head * hs, (head + 1) * hs)
    full = {n: torch.addmm(weights[n + ".bias"], x, weights[n + ".weight"].t()) for n in ("query", "key", "value")}
    q = full["query"].index_select(1, cols)                            # (T, hs)
    k = full["key"].index_select(1, cols)
    v = full["value"].index_select(1, cols)
    scores = torch.einsum("d,jd->j", q[i], k) / hs ** 0.5
    return torch.einsum("j,jd->d", torch.softmax(scores, dim=-1), v)


# --- batch 9: written without reading any checker ------------------------------------------
EX2_1.batch = 9


def _layer_norm_b9(x, ln_weight, ln_bias, eps):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * ln_weight + ln_bias


@EX2_1.bug
def second_sep_searched_from_the_first(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I found the [SEP]s of each row with list.index: the first with row.index(sep_id), the second with row.index(sep_id, first), not seeing that the search starts AT first, so it finds the first [SEP] again; sentence B is then empty in every row (a ValueError, which I catch for one-sentence rows, never comes).
    Differs on: [[CLS] a [SEP] b c [SEP] [PAD]] (types [0, 0, 0, 0, 0, 0, 0] instead of [0, 0, 0, 1, 1, 1, 0]: the three B vectors lack segment[1] - segment[0]); one-sentence rows agree."""
    B, T = input_ids.shape
    types = torch.zeros(B, T, dtype=torch.long)
    for b, row in enumerate(input_ids.tolist()):
        try:
            first = row.index(sep_id)
            second = row.index(sep_id, first)
        except ValueError:
            continue
        types[b, first + 1:second + 1] = 1
    x = word[input_ids] + segment[types] + position[torch.arange(T)]
    return _layer_norm_b9(x, ln_weight, ln_bias, eps)


@EX2_1.bug
def padding_taken_to_be_id_zero(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I gave type 1 to every token after the first [SEP] that is not padding, taking padding to be id 0 as [PAD] is in BERT's vocabulary; but nothing in the input says which id pads, and id 0 can be a real token.
    Differs on: [[101, 7, 102, 0, 102]] with sep_id = 102 (a B token of id 0: types [0, 0, 0, 0, 1] instead of [0, 0, 0, 1, 1]); [[1, 5, 2, 6, 2, 3, 3]] with sep_id = 2 and padding id 3 (types end [1, 1] instead of [0, 0]); with [PAD] = 0 and no 0 inside the text it agrees."""
    T = input_ids.shape[1]
    is_sep = (input_ids == sep_id).long()
    after_first = (is_sep.cumsum(dim=-1) - is_sep) >= 1
    types = (after_first & (input_ids != 0)).long()
    x = word[input_ids] + segment[types] + position[torch.arange(T)]
    return _layer_norm_b9(x, ln_weight, ln_bias, eps)


@EX2_1.bug
def sequence_length_taken_with_len(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I took the number of positions as T = len(input_ids), which for a (B, T) tensor is B, the number of rows; with one row, position[arange(1)] is a single row that broadcasts to every token.
    Differs on: the worked example, one row of 7 tokens (every token gets position row 0 instead of rows 0 to 6); B = 2, T = 3 raises; only B = T happens to be right."""
    T = len(input_ids)
    is_sep = (input_ids == sep_id).long()
    seps_before = is_sep.cumsum(dim=-1) - is_sep
    is_pair = is_sep.sum(dim=-1, keepdim=True) >= 2
    types = ((seps_before == 1) & is_pair).long()
    x = word[input_ids] + segment[types] + position[torch.arange(T)]
    return _layer_norm_b9(x, ln_weight, ln_bias, eps)


@EX2_1.bug
def layer_norm_on_the_word_vectors_only(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """I normalised the word vectors and added the segment and position vectors afterwards, LayerNorm(word[id]) + segment[type] + position[t], as in the Transformer picture where the positional encoding is added to the embedding.
    Differs on: any input whose position or segment rows are not zero (e.g. B = 1, T = 3, H = 4, random tables); the worked LayerNorm example, with zero position and segment rows, agrees."""
    T = input_ids.shape[1]
    is_sep = (input_ids == sep_id).long()
    seps_before = is_sep.cumsum(dim=-1) - is_sep
    is_pair = is_sep.sum(dim=-1, keepdim=True) >= 2
    types = ((seps_before == 1) & is_pair).long()
    return _layer_norm_b9(word[input_ids], ln_weight, ln_bias, eps) + segment[types] + position[torch.arange(T)]


@EX2_1.correct
def seps_counted_from_both_ends(input_ids, sep_id, word, position, segment, ln_weight, ln_bias, eps):
    """Type 1 where some [SEP] lies strictly before and some at or after (a cumulative count from the right via flip); lookups with index_select; F.layer_norm with eps."""
    B, T = input_ids.shape
    H = word.shape[1]
    is_sep = (input_ids == sep_id).long()
    from_left = is_sep.cumsum(-1) - is_sep                       # [SEP]s strictly before t
    from_right = is_sep.flip(-1).cumsum(-1).flip(-1)             # [SEP]s at t or after
    types = ((from_left >= 1) & (from_right >= 1)).long()
    flat = input_ids.reshape(-1)
    x = (word.index_select(0, flat) + segment.index_select(0, types.reshape(-1))).view(B, T, H)
    x = x + position.index_select(0, torch.arange(T))
    return F.layer_norm(x, (H,), ln_weight, ln_bias, eps)


# --- batch 9: written without reading any checker ------------------------------------------
EX.batch = 9


@EX.bug
def einsum_with_its_own_letter_for_the_values(q, k, v, key_mask=None):
    """I wrote the second product as torch.einsum("bhqk,bhvd->bhqd", probs, v), giving v's token axis a letter of its own; einsum then sums the keys and the values separately, so every query gets (sum of its probabilities = 1) times the sum of all the values.
    Differs on: the worked example (query 0 expected [3, 1, 6, 1], gives v0 + v1 = [4, 4, 8, 2]); any T_k > 1 (probs are right; with T_k = 1 out agrees)."""
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhqk,bhvd->bhqd", probs, v)
    return out, probs


@EX.bug
def out_left_in_double_precision(q, k, v, key_mask=None):
    """For accuracy I did the whole computation in float64 (q.double(), ...) and cast probs back to the input's dtype for the return, but forgot to cast out, so out comes back float64 whatever the input's dtype.
    Differs on: float32 (or float16) q, k, v, e.g. the worked example: out has dtype float64 instead of float32 (and its float16 values are not rounded to float16); float64 inputs agree."""
    hs = q.shape[-1]
    qd, kd, vd = q.double(), k.double(), v.double()
    scores = qd @ kd.transpose(-2, -1) / math.sqrt(hs)
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(torch.float64).min)
    probs = scores.softmax(dim=-1)
    out = probs @ vd
    return out, probs.to(q.dtype)


@EX.bug
def padded_query_rows_zeroed(q, k, v, key_mask=None):
    """Thinking of self-attention, where the mask also says which queries are padding, I zeroed the output rows of the padded queries whenever there are as many queries as keys ("nobody reads them, and zeros cannot spread"); the statement's out is probs v for every query.
    Differs on: B = nh = 1, T_q = T_k = 2, key_mask [[1, 0]] (expected out row 1 = v0, as row 0; gives zeros); with T_q != T_k, or no padding, it agrees; probs always agree."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    probs = scores.softmax(dim=-1)
    out = probs @ v
    if key_mask is not None and q.shape[-2] == k.shape[-2]:
        out = out * key_mask[:, None, :, None].to(out.dtype)
    return out, probs


@EX.bug
def padded_keys_set_just_below_the_lowest_score(q, k, v, key_mask=None):
    """I filled each padded key with one less than the lowest score of its row, thinking that a score below every real one is enough to hide a key; softmax gives it exp(-1 - ...) of the weight, not 0.
    Differs on: the worked example with key 1 padded, key_mask [[1, 0]] (expected probs [1, 0]; gives the padded key exp(-1 - ln 3) / (1 + exp(-1 - ln 3)), about 0.11); without a mask it agrees."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        hide = ~key_mask.bool()[:, None, None, :]
        floor = scores.amin(dim=-1, keepdim=True) - 1.0
        scores = torch.where(hide, floor, scores)
    probs = scores.softmax(dim=-1)
    return probs @ v, probs


@EX.correct
def baddbmm_and_a_clamped_log_mask(q, k, v, key_mask=None):
    """Batch and heads flattened for torch.baddbmm (the scale as its alpha); the mask added as log(keep) (0 or -inf), then clamped from below at the dtype's most negative number; torch.bmm for out."""
    B, nh, T_q, hs = q.shape
    T_k = k.shape[-2]
    q3, k3, v3 = q.reshape(B * nh, T_q, hs), k.reshape(B * nh, T_k, hs), v.reshape(B * nh, T_k, hs)
    base = torch.zeros(B * nh, T_q, T_k, dtype=q.dtype)
    scores = torch.baddbmm(base, q3, k3.transpose(1, 2), beta=0.0, alpha=1.0 / math.sqrt(hs)).view(B, nh, T_q, T_k)
    if key_mask is not None:
        log_keep = torch.log(key_mask.to(scores.dtype).clamp(0, 1))[:, None, None, :]  # 0 for a real key, -inf for padding
        scores = torch.clamp(scores + log_keep, min=torch.finfo(scores.dtype).min)
    probs = torch.softmax(scores, dim=-1)
    out = torch.bmm(probs.reshape(B * nh, T_q, T_k), v3).view(B, nh, T_q, hs)
    return out, probs


# --- batch 9: written without reading any checker ------------------------------------------
EX2_3.batch = 9


@EX2_3.bug
def real_tokens_left_at_one(attention_mask, dtype=torch.float32):
    """I converted the mask to the dtype and filled its padding with the minimum, attention_mask.to(dtype).masked_fill(attention_mask == 0, min), and forgot that the real tokens then still hold 1.0, not 0 (adding 1 to every real score does not change a softmax, so my attention looked right).
    Differs on: [[1, 1, 0]] (expected [[[[0, 0, -3.4028e+38]]]], gives [[[[1, 1, -3.4028e+38]]]])."""
    m = attention_mask[:, None, None, :]
    return m.to(dtype).masked_fill(m == 0, torch.finfo(dtype).min)


@EX2_3.bug
def token_axis_put_on_the_queries(attention_mask, dtype=torch.float32):
    """I gave the mask its two size-1 axes as attention_mask[:, None, :, None], picturing one value per token going down the rows; that is (B, 1, T, 1), which broadcasts over the keys and hides padded queries instead of padded keys.
    Differs on: [[1, 1, 0]] (expected shape (1, 1, 1, 3), gives (1, 1, 3, 1) holding the same three numbers)."""
    real = attention_mask[:, None, :, None] != 0
    out = torch.zeros(real.shape, dtype=dtype)
    return out.masked_fill(~real, torch.finfo(dtype).min)


@EX2_3.bug
def axes_added_with_expand(attention_mask, dtype=torch.float32):
    """I added the axes with .expand(B, 1, 1, T), thinking expand inserts the new axes where I write the 1s; it lines the (B, T) tensor up with the LAST two sizes, (1, T), which only works when B is 1.
    Differs on: [[1, 0], [1, 1]] (expected a (2, 1, 1, 2) mask, raises RuntimeError); any batch of one agrees."""
    B, T = attention_mask.shape
    adder = (1.0 - attention_mask.to(dtype)) * torch.finfo(dtype).min
    return adder.expand(B, 1, 1, T)


@EX2_3.bug
def mask_minus_one_times_the_maximum(attention_mask, dtype=torch.float32):
    """I wrote the adder as (attention_mask - 1) * finfo(dtype).max, which is -max = min at padding and 0 for real tokens, subtracting on the integer mask before converting it; on an unsigned uint8 mask 0 - 1 wraps round to 255, so padding gets 255 * max = +inf.
    Differs on: torch.tensor([[1, 1, 0]], dtype=torch.uint8) (expected [[[[0, 0, -3.4028e+38]]]], gives [[[[0, 0, inf]]]]); int64 and int32 masks agree."""
    adder = (attention_mask - 1).to(dtype) * torch.finfo(dtype).max
    return adder[:, None, None, :]


@EX2_3.correct
def full_of_minimum_then_real_tokens_zeroed(attention_mask, dtype=torch.float32):
    """A (B, T) tensor full of finfo(dtype).min, the real tokens set to 0 by boolean-index assignment, then viewed as (B, 1, 1, T)."""
    B, T = attention_mask.shape
    out = torch.full((B, T), torch.finfo(dtype).min, dtype=dtype)
    out[attention_mask != 0] = 0
    return out.view(B, 1, 1, T)


# --- batch 9: written without reading any checker ------------------------------------------
EX2_4.batch = 9


@EX2_4.bug
def tril_diagonal_one_for_itself_included(attention_mask):
    """I read "itself included" as needing tril(diagonal=1), thinking diagonal=0 leaves the diagonal out; diagonal=1 keeps one diagonal above it too, so each query also sees the next key.
    Differs on: the worked example [[1, 1, 1, 0]]: the bug's row 0 is [T, T, F, F] and row 1 [T, T, T, F] instead of [T, F, F, F] and [T, T, F, F]."""
    B, T = attention_mask.shape
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    return causal & attention_mask.bool()[:, None, None, :]


@EX2_4.bug
def key_position_ids_from_cumsum(attention_mask):
    """I numbered the keys the way GPT-2 numbers positions under left padding, position = cumsum(mask) - 1, and let query i see key j when that position is <= i; with left padding a real key's position is smaller than its index, so early queries see keys after them.
    Differs on: left padding [[0, 1, 1]]: the bug's row 0 is [F, T, F] and row 1 [F, T, T] instead of [F, F, F] and [F, T, F] (right padding, as in the worked example, agrees)."""
    B, T = attention_mask.shape
    key_pos = attention_mask.long().cumsum(-1) - 1                      # (B, T)
    query_idx = torch.arange(T)
    allowed = key_pos[:, None, :] <= query_idx[None, :, None]          # (B, T, T)
    real_key = attention_mask.bool()[:, None, :]
    return (allowed & real_key)[:, None]


_GPT2_CAUSAL_BUFFER_BATCH9 = torch.tril(torch.ones(512, 512, dtype=torch.bool))   # like GPT-2's registered "bias" buffer


@EX2_4.bug
def triangle_sliced_from_a_512_buffer(attention_mask):
    """Like GPT-2, which registers its causal triangle once as a buffer of max_positions, I built a 512 x 512 triangle at import and slice [:T, :T] from it; a sequence longer than 512 gets a 512 x 512 slice that does not fit its mask.
    Differs on: torch.ones(1, 600): the bug raises (a 512 x 512 triangle against a (1, 1, 1, 600) mask) where the solution returns a (1, 1, 600, 600) mask; every T <= 512 agrees."""
    B, T = attention_mask.shape
    causal = _GPT2_CAUSAL_BUFFER_BATCH9[:T, :T]
    return causal & attention_mask.bool()[:, None, None, :]


@EX2_4.bug
def padded_query_rows_left_unrestricted(attention_mask):
    """I read "padded queries are not hidden" as: a padding row is not restricted at all, so I applied the triangle to the real queries only and let a padded query see every real key, before or after it.
    Differs on: left padding [[0, 1, 1]]: the bug's row 0 is [F, T, T] instead of all False (with right padding, as in the worked example, the padded rows come last and agree)."""
    B, T = attention_mask.shape
    real = attention_mask.bool()
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    pad_query = ~real[:, None, :, None]                                 # (B, 1, T, 1)
    return (causal | pad_query) & real[:, None, None, :]


@EX2_4.correct
def order_compared_through_running_counts(attention_mask):
    """The order j <= i tested through the running count of real tokens (cumsum) of key and query, restricted to real keys with torch.logical_and."""
    m = attention_mask != 0                                             # (B, T)
    count = m.long().cumsum(-1)                                         # real tokens up to and including t
    before = count[:, None, :] <= count[:, :, None]                     # (B, Tq, Tk)
    ok = torch.logical_and(before, m[:, None, :])
    return ok.unsqueeze(1)


# --- batch 9: written without reading any checker ------------------------------------------
EX2_5.batch = 9


@EX2_5.bug
def sentences_counted_as_unique_ids_minus_one(x, sequence_ids, weights, num_heads):
    """I looped over each row's sentences with for s in range(1, len(torch.unique(ids))), taking one of the unique ids to be the padding 0; in a row with no padding there is no 0, so the last sentence is skipped and its tokens keep the zeros I started from.
    Differs on: the worked example sequence_ids [[1, 2]] (H = 4, 2 heads, random x and weights): the bug returns zeros for token 1 instead of (x₁ W_vᵀ + b_v) W_oᵀ + b_o; a row ending in padding, [[1, 1, 2, 0]], agrees."""
    B, T, H = x.shape
    hs = H // num_heads
    W = {name: weights[name + ".weight"] for name in ("query", "key", "value", "output")}
    b = {name: weights[name + ".bias"] for name in ("query", "key", "value", "output")}
    out = torch.zeros_like(x)
    for r in range(B):
        ids = sequence_ids[r]
        for s in range(1, len(torch.unique(ids))):
            idx = (ids == s).nonzero().flatten()
            xs = x[r, idx]                                               # (n, H)
            n = xs.shape[0]
            q = (xs @ W["query"].T + b["query"]).view(n, num_heads, hs).transpose(0, 1)
            k = (xs @ W["key"].T + b["key"]).view(n, num_heads, hs).transpose(0, 1)
            v = (xs @ W["value"].T + b["value"]).view(n, num_heads, hs).transpose(0, 1)
            p = (q @ k.transpose(-1, -2) / math.sqrt(hs)).softmax(-1)     # (nh, n, n)
            ctx = (p @ v).transpose(0, 1).reshape(n, H)
            out[r, idx] = ctx @ W["output"].T + b["output"]
    return out


@EX2_5.bug
def whole_batch_packed_into_one_row(x, sequence_ids, weights, num_heads):
    """Packing is about putting everything in one row, so I flattened the batch into a single row of B·T tokens and compared the sentence ids there; but the ids restart at 1 in every row, so sentence 1 of row 0 and sentence 1 of row 1 see each other.
    Differs on: B = 2, sequence_ids [[1, 1, 2], [1, 2, 2]] with random x and weights (H = 4, 2 heads): the bug's row-0 tokens also attend to row 1's sentence with the same id, so both rows differ from the solution (with B = 1 it agrees)."""
    B, T, H = x.shape
    hs = H // num_heads
    flat_x = x.reshape(1, B * T, H)
    ids = sequence_ids.reshape(1, B * T)
    N = B * T

    def project(t, name):
        return t @ weights[name + ".weight"].T + weights[name + ".bias"]

    def split(t):
        return t.view(1, N, num_heads, hs).transpose(1, 2)

    q, k, v = (split(project(flat_x, name)) for name in ("query", "key", "value"))
    scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
    visible = (ids[:, :, None] == ids[:, None, :]) & (ids != 0)[:, None, :]
    probs = scores.masked_fill(~visible[:, None], torch.finfo(scores.dtype).min).softmax(-1)
    context = (probs @ v).transpose(1, 2).reshape(1, N, H)
    return project(context, "output").reshape(B, T, H)


@EX2_5.bug
def output_projection_per_head_with_its_bias(x, sequence_ids, weights, num_heads):
    """I worked head by head to the end: each head's context went through its own columns of the output weight, plus the output bias, and I summed the heads; the columns add up to the full projection, but the bias is now added once per head.
    Differs on: sequence_ids [[1, 1, 2, 0]] with random x, weights and a nonzero output.bias (H = 4, 2 heads): the bug's outputs are the solution's plus one extra output.bias (nh − 1 = 1 too many); with one head it agrees."""
    B, T, H = x.shape
    hs = H // num_heads
    Wq, Wk, Wv, Wo = (weights[n + ".weight"] for n in ("query", "key", "value", "output"))
    bq, bk, bv, bo = (weights[n + ".bias"] for n in ("query", "key", "value", "output"))
    same = sequence_ids[:, :, None] == sequence_ids[:, None, :]
    visible = same & (sequence_ids != 0)[:, None, :]                     # (B, T, T)
    out = torch.zeros(B, T, H, dtype=x.dtype)
    for h in range(num_heads):
        rows = slice(h * hs, (h + 1) * hs)
        q = x @ Wq[rows].T + bq[rows]                                    # (B, T, hs)
        k = x @ Wk[rows].T + bk[rows]
        v = x @ Wv[rows].T + bv[rows]
        s = q @ k.transpose(1, 2) / math.sqrt(hs)
        p = s.masked_fill(~visible, torch.finfo(s.dtype).min).softmax(-1)
        out = out + (p @ v) @ Wo[:, rows].T + bo
    return out


@EX2_5.bug
def sentence_mask_tiled_with_repeat(x, sequence_ids, weights, num_heads):
    """I merged the batch and head axes into one, (B·nh, T, hs), to use torch.bmm, and copied the (B, T, T) sentence mask for every head with mask.repeat(num_heads, 1, 1); repeat tiles the whole batch nh times (b0, b1, b0, b1, ...) while my merged axis runs b0h0, b0h1, b1h0, ..., so the rows get each other's packing (repeat_interleave was needed).
    Differs on: B = 2, sequence_ids [[1, 1, 2, 2], [1, 2, 2, 2]] with random x and weights (H = 4, 2 heads): the bug masks row 0's head 1 with row 1's sentences and row 1's head 0 with row 0's; with B = 1 (the worked example) it agrees."""
    B, T, H = x.shape
    hs = H // num_heads

    def heads(name):
        t = x @ weights[name + ".weight"].T + weights[name + ".bias"]
        return t.view(B, T, num_heads, hs).transpose(1, 2).reshape(B * num_heads, T, hs)

    q, k, v = heads("query"), heads("key"), heads("value")
    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(hs)             # (B·nh, T, T)
    visible = (sequence_ids[:, :, None] == sequence_ids[:, None, :]) & (sequence_ids != 0)[:, None, :]
    visible = visible.repeat(num_heads, 1, 1)                           # (nh·B, T, T)
    probs = scores.masked_fill(~visible, torch.finfo(scores.dtype).min).softmax(-1)
    context = torch.bmm(probs, v).view(B, num_heads, T, hs).transpose(1, 2).reshape(B, T, H)
    return context @ weights["output.weight"].T + weights["output.bias"]


@EX2_5.correct
def block_diagonal_runs_and_per_head_einsum(x, sequence_ids, weights, num_heads):
    """Each row's mask as torch.block_diag of ones over the runs torch.unique_consecutive finds (padding is a block of its own, so it sees only padding); weights viewed per head (nh, hs, H) and einsum for every product."""
    B, T, H = x.shape
    hs = H // num_heads
    masks = []
    for r in range(B):
        _, counts = torch.unique_consecutive(sequence_ids[r], return_counts=True)
        blocks = [torch.ones(int(c), int(c), dtype=torch.bool) for c in counts]
        masks.append(torch.block_diag(*blocks))
    visible = torch.stack(masks)                                         # (B, T, T)
    per_head = {n: (weights[n + ".weight"].reshape(num_heads, hs, H), weights[n + ".bias"].reshape(num_heads, hs))
                for n in ("query", "key", "value")}

    def proj(n):
        W, b = per_head[n]
        return torch.einsum("bti,nsi->bnts", x, W) + b[None, :, None, :]  # (B, nh, T, hs)

    q, k, v = proj("query"), proj("key"), proj("value")
    scores = torch.einsum("bnis,bnjs->bnij", q, k) / hs ** 0.5
    scores = torch.where(visible[:, None], scores, torch.finfo(scores.dtype).min)
    probs = torch.softmax(scores, dim=-1)
    context = torch.einsum("bnij,bnjs->bins", probs, v).reshape(B, T, H)
    return torch.einsum("bth,oh->bto", context, weights["output.weight"]) + weights["output.bias"]


# --- batch 9: written without reading any checker ------------------------------------------
EX2_6.batch = 9


@EX2_6.bug
def scale_by_integer_square_root(x, weights, num_heads, head, i):
    """I kept the scale an integer with math.isqrt(hs), thinking head sizes are perfect squares (64, 16, 4, 1); for hs = 2, 8 or 32 it rounds √hs down (isqrt(8) = 2, not 2.83).
    Differs on: x random (T = 3, H = 4), random weights, 2 heads (hs = 2), head 1, i = 0: the bug divides the scores by 1 instead of √2, so its softmax is sharper (the worked example, hs = 1, and hs = 4 or 64 agree)."""
    T, H = x.shape
    hs = H // num_heads
    rows = slice(head * hs, (head + 1) * hs)
    q = x[i] @ weights["query.weight"][rows].T + weights["query.bias"][rows]      # (hs,)
    k = x @ weights["key.weight"][rows].T + weights["key.bias"][rows]             # (T, hs)
    v = x @ weights["value.weight"][rows].T + weights["value.bias"][rows]         # (T, hs)
    scores = (k @ q) / math.isqrt(hs)
    return torch.softmax(scores, dim=0) @ v


@EX2_6.bug
def one_softmax_per_feature(x, weights, num_heads, head, i):
    """I multiplied q_i with each key feature by feature, (q_i * k_j) / √hs, and took the softmax over the keys separately for every feature, forgetting that the dot product sums the features into one score per key; each feature of the output gets its own weights.
    Differs on: x random (T = 3, H = 4), random weights, 2 heads (hs = 2), head 0, i = 1: the two output features use different weights over the keys; the worked example (hs = 1) agrees, since there the one feature is the dot product."""
    T, H = x.shape
    hs = H // num_heads
    rows = slice(head * hs, (head + 1) * hs)
    q = x @ weights["query.weight"][rows].T + weights["query.bias"][rows]
    k = x @ weights["key.weight"][rows].T + weights["key.bias"][rows]
    v = x @ weights["value.weight"][rows].T + weights["value.bias"][rows]
    scores = q[i] * k / math.sqrt(hs)                                   # (T, hs)
    p = scores.softmax(dim=0)                                           # over the keys, per feature
    return (p * v).sum(dim=0)


@EX2_6.bug
def value_bias_left_out(x, weights, num_heads, head, i):
    """I left out the value bias, thinking that, like the key bias, a constant added to every value cancels in the softmax; but the values are averaged, not softmaxed, so the bias slice should appear once in the output.
    Differs on: x random (T = 3, H = 4), random weights with a nonzero value.bias, 2 heads, head 1, i = 2: the bug's output is the solution's minus value.bias[2:4] (the worked example has zero biases and agrees)."""
    T, H = x.shape
    hs = H // num_heads
    lo, hi = head * hs, (head + 1) * hs
    Wq, Wk, Wv = (weights[n + ".weight"][lo:hi] for n in ("query", "key", "value"))
    bq, bk = weights["query.bias"][lo:hi], weights["key.bias"][lo:hi]
    q = Wq @ x[i] + bq                                                  # (hs,)
    k = x @ Wk.T + bk                                                   # (T, hs)
    v = x @ Wv.T                                                        # (T, hs), no bias
    p = torch.softmax(k @ q / math.sqrt(hs), dim=0)
    return p @ v


@EX2_6.bug
def computed_in_float32_for_safety(x, weights, num_heads, head, i):
    """Softmaxes are touchy, so I converted x and the head's slices to float32 with .float() before computing, and returned that float32 vector; a float64 input then comes back in float32, rounded.
    Differs on: the worked example in float64 (or random float64 x and weights): the bug returns a float32 tensor, equal only to about 1e-7, where the solution returns float64."""
    T, H = x.shape
    hs = H // num_heads
    rows = slice(head * hs, (head + 1) * hs)
    xf = x.float()

    def project(name):
        return xf @ weights[name + ".weight"][rows].float().T + weights[name + ".bias"][rows].float()

    q, k, v = project("query"), project("key"), project("value")
    scores = k @ q[i] / math.sqrt(hs)
    return scores.softmax(dim=0) @ v


@EX2_6.correct
def every_head_then_pick_one(x, weights, num_heads, head, i):
    """All heads at once, as the multi-head layer computes them (projections, view to (nh, T, hs), batched scores with torch.matmul), then head `head`'s row i picked out."""
    T, H = x.shape
    hs = H // num_heads

    def heads(name):
        y = torch.addmm(weights[name + ".bias"], x, weights[name + ".weight"].t())  # (T, H)
        return y.view(T, num_heads, hs).permute(1, 0, 2)                # (nh, T, hs)

    q, k, v = heads("query"), heads("key"), heads("value")
    scores = torch.matmul(q, k.transpose(1, 2)) * hs ** -0.5            # (nh, T, T)
    probs = torch.softmax(scores, dim=-1)
    return torch.matmul(probs, v)[head, i]
