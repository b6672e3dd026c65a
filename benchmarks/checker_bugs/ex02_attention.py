"""Exercise 2.2 (my_attention): learners' scaled dot-product attention with one mistake each, and correct ones.

Split rule (fixed before any checker changed): within the exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import math

import torch

from . import Exercise

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
