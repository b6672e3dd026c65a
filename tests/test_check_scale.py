"""The checkers of chapter 10's exercises accept the solutions and other correct styles, let the stubs'
NotImplementedError through, and reject the mistakes learners make with feedback that names them."""

import math

import numpy as np
import pytest
import torch
from helpers import checker_contract

from minibert import check
from minibert.check import ExerciseError

EXERCISES = [("flops_per_token", "my_flops_per_token"), ("unpad_input", "my_unpad_input"),
             ("pad_input", "my_pad_input"), ("accumulation_steps", "my_accumulation_steps")]
SOLUTIONS, STUBS, test_the_solution_passes, test_the_stub_raises_not_implemented = checker_contract(
    "10_scale", EXERCISES)


# --- 10.1 the training FLOPs per token --------------------------------------------------------------

def _flops(config, T, f, *, passes=3, mlm_share=None, transform=True, attention=4, pooler=True, F=None,
           layers=None, per_sequence=False, mac=False):
    H, V = config.hidden_size, config.vocab_size
    F = config.intermediate_size if F is None else F(H)
    L = config.num_hidden_layers if layers is None else layers
    per_layer = 8 * H * H + 4 * H * F + attention * T * H
    head = (f if mlm_share is None else mlm_share) * ((2 * H * H if transform else 0) + 2 * H * V)
    forward = L * per_layer + head + (2 * H * H / T if pooler else 0)
    total = passes * forward / (2 if mac else 1)
    return total * T if per_sequence else total


def flops_by_sequence(config, seq_len, predicted_fraction):  # the whole sequence, then per token: correct
    H, F, V = config.hidden_size, config.intermediate_size, config.vocab_size
    T, k = seq_len, predicted_fraction * seq_len
    layer = 2 * T * (4 * H * H + 2 * H * F) + 2 * 2 * T * T * H  # projections + FFN, then QKᵀ and PV
    forward = config.num_hidden_layers * layer + k * (2 * H * H + 2 * H * V) + 2 * H * H
    return np.float64(3 * forward / T)  # a numpy scalar


def flops_tensor(config, seq_len, predicted_fraction):  # a one-element tensor: correct
    return torch.tensor(_flops(config, seq_len, predicted_fraction), dtype=torch.float64)


@pytest.mark.parametrize("style", [flops_by_sequence, flops_tensor])
def test_flops_per_token_accepts(style, capsys):
    check.flops_per_token(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("kwargs, message", [
    (dict(passes=1), r"(?s)hand case.*1,072.*forward pass alone.*multiply by 3"),
    (dict(passes=2), r"backward computes two products"),
    (dict(mlm_share=1.0), r"MLM head is counted at every position"),
    (dict(mlm_share=0.0), r"MLM head is missing"),
    (dict(transform=False), r"MLM head's transform is missing"),
    (dict(attention=0), r"attention's own products are missing.*grows with the sequence length"),
    (dict(attention=2), r"only one of attention's two products"),
    (dict(pooler=False), r"the pooler is missing"),
    (dict(F=lambda H: 4 * H), r"read intermediate_size from the config"),
    (dict(layers=1), r"this is one layer"),
    (dict(per_sequence=True), r"this is per sequence"),
    (dict(mac=True), r"counts multiply-adds"),
])
def test_flops_per_token_rejects(kwargs, message):
    with pytest.raises(ExerciseError, match=message):
        check.flops_per_token(lambda config, T, f: _flops(config, T, f, **kwargs))


def test_flops_per_token_rejects_other_mistakes():
    with pytest.raises(ExerciseError, match=r"attention is counted per sequence"):
        check.flops_per_token(lambda c, T, f: _flops(c, T, f, attention=4 * T))
    with pytest.raises(ExerciseError, match=r"pooler is counted at every token"):
        check.flops_per_token(lambda c, T, f: _flops(c, T, f) + 3 * 2 * c.hidden_size ** 2 * (1 - 1 / T))
    with pytest.raises(ExerciseError, match=r"is str .1072., expected a number"):
        check.flops_per_token(lambda c, T, f: str(int(_flops(c, T, f))))
    with pytest.raises(ExerciseError, match=r"your function raised ZeroDivisionError"):
        check.flops_per_token(lambda c, T, f: 1 / 0)
    # Right on the hand cases, wrong at BERT's size (an integer cast of f): named by the case
    with pytest.raises(ExerciseError, match=r"BERT-BASE, seq_len=128.*predicted_fraction=20/128"):
        check.flops_per_token(lambda c, T, f: _flops(c, T, f if c.hidden_size < 10 else round(f)))
    # A default for a falsy fraction: `f or 0.15` replaces an explicit 0.0 (no labelled position)
    with pytest.raises(ExerciseError, match=r"predicted_fraction=0\.0: no labelled position\):\n  expected 848"):
        check.flops_per_token(lambda c, T, f: _flops(c, T, f or 0.15))


# --- 10.2 unpadding and padding back ---------------------------------------------------------------

def unpad_loop(x, attention_mask):  # Python loops over rows and positions: correct
    B, T = attention_mask.shape
    keep = [(b, t) for b in range(B) for t in range(T) if attention_mask[b, t]]
    packed = torch.stack([x[b, t] for b, t in keep]) if keep else x.flatten(0, 1)[:0]
    return packed, torch.tensor([b * T + t for b, t in keep], dtype=torch.long)


def unpad_boolean(x, attention_mask):  # boolean indexing (row-major too): correct
    keep = attention_mask.bool()
    return x[keep], torch.arange(keep.numel()).view_as(keep)[keep]


def unpad_column_major(x, attention_mask):
    keep = attention_mask.t().bool()
    return x.transpose(0, 1)[keep], torch.arange(keep.numel()).view_as(attention_mask).t()[keep]


def unpad_by_lengths(x, attention_mask):
    B, T = attention_mask.shape
    lengths = attention_mask.sum(1).tolist()
    return (torch.cat([x[b, :n] for b, n in enumerate(lengths)]),
            torch.cat([b * T + torch.arange(n) for b, n in enumerate(lengths)]))


def unpad_row_local_indices(x, attention_mask):
    keep = attention_mask.bool()
    return x[keep], keep.nonzero()[:, 1]


def unpad_pairs(x, attention_mask):
    return x[attention_mask.bool()], attention_mask.nonzero()


def unpad_multiply(x, attention_mask):  # zeroes [PAD] but packs nothing
    return x * attention_mask.view(*attention_mask.shape, *[1] * (x.dim() - 2)), attention_mask.flatten().nonzero()[:, 0]


def unpad_int32_indices(x, attention_mask):
    packed, indices = unpad_boolean(x, attention_mask)
    return packed, indices.int()


def unpad_in_place(x, attention_mask):
    x[attention_mask == 0] = 0  # "cleans" the caller's batch
    return unpad_boolean(x, attention_mask)


def unpad_last_axis_only(x, attention_mask):  # (B·T, x.shape[-1]): right for (B, T, H), not for more axes
    indices = attention_mask.flatten().nonzero().squeeze(1)
    flat = x.flatten() if x.dim() == 2 else x.reshape(-1, x.shape[-1])
    return flat[indices], indices


def unpad_squeezed(x, attention_mask):  # .squeeze() drops the N axis too when N is 1
    indices = attention_mask.flatten().nonzero().squeeze()
    return x.flatten(0, 1)[indices], indices


def unpad_view(x, attention_mask):  # .view: raises on a non-contiguous (transposed) batch
    B, T = attention_mask.shape
    indices = attention_mask.view(-1).nonzero().squeeze(1)
    return x.view(B * T, *x.shape[2:])[indices], indices


def unpad_reshape(x, attention_mask):  # .reshape copies where .view cannot: correct
    B, T = attention_mask.shape
    indices = torch.nonzero(attention_mask.reshape(-1) == 1).reshape(-1)
    return x.reshape(B * T, *x.shape[2:])[indices], indices


def unpad_one_row_kept(x, attention_mask):  # a single sequence taken as unpadded, as a one-text pipeline does
    if x.shape[0] == 1:
        return x[0], torch.arange(x.shape[1])
    return unpad_boolean(x, attention_mask)


def unpad_single(x, attention_mask):  # forgets the indices
    return x[attention_mask.bool()]


@pytest.mark.parametrize("style", [unpad_loop, unpad_boolean, unpad_reshape])
def test_unpad_input_accepts(style, capsys):
    check.unpad_input(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (unpad_column_major, r"(?s)row-major.*column-major order"),
    (unpad_by_lengths, r"(?s)padded on the left.*first mask.sum\(\) positions"),
    (unpad_row_local_indices, r"position t within each row"),
    (unpad_pairs, r"\(b, t\) pairs"),
    (unpad_multiply, r"expected packed x of shape \(5,\), received \(2, 4\).*keeps its FLOPs"),
    (unpad_int32_indices, r"torch.long"),
    (unpad_in_place, r"changed x or attention_mask"),
    (unpad_single, r"expected a pair"),
    (unpad_last_axis_only, r"(?s)\(3, 5, 2, 3\).*expected packed x of shape \(9, 2, 3\), received \(9, 3\).*axes"),
    (unpad_squeezed, r"(?s)one real token in the whole batch.*expected packed x of shape \(1, 2\), received \(2,\)"
                     r".*N axis is gone"),
    (unpad_view, r"non-contiguous batch.*raised RuntimeError: view size"),
    (unpad_one_row_kept, r"(?s)a batch of one row.*expected packed x of shape \(3, 2\), received \(5, 2\)"),
])
def test_unpad_input_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.unpad_input(bug)


def pad_scatter(x, indices, B, T):  # scatter on a flat view: correct
    out = torch.zeros(B * T, *x.shape[1:], dtype=x.dtype)
    out.index_copy_(0, indices, x)
    return out.unflatten(0, (B, T))


def pad_loop(x, indices, B, T):  # position by position: correct
    out = x.new_zeros(B, T, *x.shape[1:])
    for value, i in zip(x, indices.tolist(), strict=True):
        out[i // T, i % T] = value
    return out


def pad_stale(x, indices, B, T):  # stands for torch.empty: whatever the memory held stays at [PAD]
    out = x.new_full((B * T, *x.shape[1:]), 7)
    out[indices] = x
    return out.view(B, T, *x.shape[1:])


_buffers = {}


def pad_reused_buffer(x, indices, B, T):  # one buffer per shape, reused: the last batch's tokens stay
    out = _buffers.setdefault((B, T, tuple(x.shape[1:]), x.dtype), x.new_zeros(B * T, *x.shape[1:]))
    out[indices] = x
    return out.view(B, T, *x.shape[1:]).clone()


def pad_column_major(x, indices, B, T):
    out = x.new_zeros(T * B, *x.shape[1:])
    out[indices] = x
    return out.view(T, B, *x.shape[1:]).transpose(0, 1)


def pad_flat(x, indices, B, T):
    out = x.new_zeros(B * T, *x.shape[1:])
    out[indices] = x
    return out


def pad_float(x, indices, B, T):
    out = torch.zeros(B * T, *x.shape[1:])  # float32 whatever x is
    out[indices] = x.float()
    return out.view(B, T, *x.shape[1:])


def pad_index_put(x, indices, B, T):  # index_put on a (B, T, ...) grid with (b, t) from divmod: correct
    out = x.new_zeros(B, T, *x.shape[1:])
    return out.index_put((indices // T, indices % T), x)


def pad_one_hidden_axis(x, indices, B, T):  # zeros (B·T, H) from x.shape[-1]: one trailing axis at most
    out = x.new_zeros(B * T) if x.dim() == 1 else x.new_zeros(B * T, x.shape[-1])
    out[indices] = x
    return out.view(B, T, *x.shape[1:])


def pad_in_place(x, indices, B, T):
    x.mul_(1)
    indices.add_(0).sub_(0)
    out = pad_scatter(x, indices, B, T)
    indices[0] = indices[0]
    x[0] = x[0] + 0  # touches nothing: equal afterwards
    return out


@pytest.mark.parametrize("style", [pad_scatter, pad_loop, pad_in_place, pad_index_put])
def test_pad_input_accepts(style, capsys):
    check.pad_input(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (pad_stale, r"(?s)row-major.*padded positions are not 0"),
    (pad_reused_buffer, r"(?s)padded on the left.*padded positions are not 0"),
    (pad_column_major, r"column-major order"),
    (pad_flat, r"expected shape \(2, 4\), received \(8,\).*reshape"),
    (pad_float, r"keep x's dtype, torch.int64"),
    (pad_one_hidden_axis, r"\(3, 5, 2, 3\) batch, two trailing axes.*raised RuntimeError"),
])
def test_pad_input_rejects(bug, message):
    _buffers.clear()
    with pytest.raises(ExerciseError, match=message):
        check.pad_input(bug)


def test_pad_input_rejects_changed_inputs():
    def scrambles(x, indices, B, T):
        out = pad_scatter(x, indices, B, T)
        indices.fill_(0)
        return out
    with pytest.raises(ExerciseError, match=r"changed x or indices"):
        check.pad_input(scrambles)


def unpad_through_numpy(x, attention_mask):  # the values right, from numpy: no graph back to x
    keep = np.flatnonzero(attention_mask.numpy())
    return torch.from_numpy(x.detach().numpy().reshape(-1, *x.shape[2:])[keep]), torch.from_numpy(keep).long()


def pad_detached(x, indices, B, T):  # the values right, the graph cut
    return pad_scatter(x.detach(), indices, B, T)


def test_unpad_and_pad_reject_a_cut_gradient():
    with pytest.raises(ExerciseError, match=r"x \(3, 4, 2\) float64 requiring grad.*x.grad is None"):
        check.unpad_input(unpad_through_numpy)
    with pytest.raises(ExerciseError, match=r"requiring grad.*x \(packed\).grad is None"):
        check.pad_input(pad_detached)


# --- 10.3 micro-batches sized in tokens ----------------------------------------------------------------

def steps_divisors(batch_size, seq_len, processes, micro_batch_tokens):  # numpy, all divisors at once: correct
    share = batch_size // processes
    g = np.arange(1, share + 1)
    ok = (share % g == 0) & (share // g <= micro_batch_tokens // seq_len)
    return g[ok].min()  # a numpy integer


def steps_from_micro(batch_size, seq_len, processes, micro_batch_tokens):  # the largest micro-batch first: correct
    share = batch_size // processes
    micro = max(m for m in range(1, share + 1) if share % m == 0 and m * seq_len <= micro_batch_tokens)
    return float(share // micro)  # a whole float


def steps_ceil(batch_size, seq_len, processes, micro_batch_tokens):
    return math.ceil(batch_size // processes / (micro_batch_tokens // seq_len))


def steps_no_processes(batch_size, seq_len, processes, micro_batch_tokens):
    return steps_divisors(batch_size, seq_len, 1, micro_batch_tokens)


def steps_floor(batch_size, seq_len, processes, micro_batch_tokens):
    return batch_size // processes * seq_len // micro_batch_tokens


def steps_fits(batch_size, seq_len, processes, micro_batch_tokens):
    return micro_batch_tokens // seq_len


def steps_fraction(batch_size, seq_len, processes, micro_batch_tokens):
    return batch_size / processes * seq_len / micro_batch_tokens


def steps_not_fewest(batch_size, seq_len, processes, micro_batch_tokens):  # always at least 2 passes
    return max(2, int(steps_divisors(batch_size, seq_len, processes, micro_batch_tokens)))


def steps_rounded_fit(batch_size, seq_len, processes, micro_batch_tokens):  # 3.9 sequences rounded to 4
    return int(steps_divisors(batch_size, 1, processes, round(micro_batch_tokens / seq_len)))


def steps_divide_the_batch(batch_size, seq_len, processes, micro_batch_tokens):  # g divides the batch, not the share
    share, fits = batch_size // processes, micro_batch_tokens // seq_len
    return next(g for g in range(1, batch_size + 1) if batch_size % g == 0 and share / g <= fits)


def steps_powers_of_two(batch_size, seq_len, processes, micro_batch_tokens):
    share, fits, g = batch_size // processes, micro_batch_tokens // seq_len, 1
    while share // g > fits or share % g:
        g *= 2
    return g


def steps_share_left_out(batch_size, seq_len, processes, micro_batch_tokens):  # g in 1 .. share - 1 only
    share, fits = batch_size // processes, micro_batch_tokens // seq_len
    return next((g for g in range(1, share) if share % g == 0 and share // g <= fits), None)


def steps_times_processes(batch_size, seq_len, processes, micro_batch_tokens):
    return int(steps_divisors(batch_size * processes, seq_len, 1, micro_batch_tokens))


def steps_whole_batch_shared_out(batch_size, seq_len, processes, micro_batch_tokens):  # ceil(g / processes)
    return math.ceil(int(steps_divisors(batch_size, seq_len, 1, micro_batch_tokens)) / processes)


def steps_at_most_64(batch_size, seq_len, processes, micro_batch_tokens):  # g tried up to 64 only
    share, fits = batch_size // processes, micro_batch_tokens // seq_len
    return next((g for g in range(1, 65) if share % g == 0 and share // g <= fits), 64)


def steps_in_tokens(batch_size, seq_len, processes, micro_batch_tokens):  # g divides the share's tokens
    tokens, g = batch_size // processes * seq_len, 1
    while tokens % g or tokens // g > micro_batch_tokens:
        g += 1
    return g


@pytest.mark.parametrize("style", [steps_divisors, steps_from_micro])
def test_accumulation_steps_accepts(style, capsys):
    check.accumulation_steps(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (steps_ceil, r"(?s)85⅓.*expected 4.*received 3.*need not divide"),
    (steps_no_processes, r"(?s)8 GPUs.*processes are forgotten"),
    (steps_floor, r"(?s)8 GPUs.*received 0.*rounds down"),
    (steps_fits, r"(?s)phase 1 on one GPU.*received 256.*how many sequences fit"),
    (steps_fraction, r"expected a whole number"),
    (steps_not_fewest, r"(?s)phase 1 on one GPU.*fewer do too"),
    (steps_rounded_fit, r"(?s)not 3\.9.*received 3.*round\(micro_batch_tokens / seq_len\) rounds"),
    (steps_divide_the_batch, r"(?s)3 processes × 32.*received 3.*divide the whole batch evenly, but not"),
    (steps_powers_of_two, r"(?s)6 passes of 8.*received 8.*only powers of two"),
    (steps_times_processes, r"(?s)8 GPUs.*received 32.*batch_size × processes"),
    (steps_at_most_64, r"(?s)256 passes of 1, however many.*expected 256.*received 64"),
    (steps_share_left_out, r"(?s)room for one of 512.*a whole number of accumulation steps \(8\), received None"),
    (steps_whole_batch_shared_out, r"(?s)3 processes × 64.*expected 4.*received 3.*\n.*hint: these are the whole "
                                   r"batch's fewest passes, shared out"),
    (steps_in_tokens, r"(?s)room for 4 sequences of the 10.*expected 5.*received 4\n.*hint: these passes split the "
                      r"share's tokens evenly, but not its sequences"),
])
def test_accumulation_steps_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.accumulation_steps(bug)
