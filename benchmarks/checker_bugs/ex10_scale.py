"""Exercise 10.3 (my_accumulation_steps): learners' code with one mistake each, and correct ones.

Split rule (fixed before any checker changed): within the exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import math

from . import Exercise
import torch
from torch.utils.flop_counter import FlopCounterMode
import numpy as np

EX = Exercise("10.3", "accumulation_steps")


@EX.bug
def processes_ignored(batch_size, seq_len, processes, micro_batch_tokens):
    """I forgot the processes: the whole batch is cut into micro-batches on each GPU."""
    fits = micro_batch_tokens // seq_len
    g = 1
    while batch_size % g or batch_size // g > fits:
        g += 1
    return g


@EX.bug
def ceil_without_equal_passes(batch_size, seq_len, processes, micro_batch_tokens):
    """I returned ceil(share / fits), the fewest passes, without making them equal."""
    return math.ceil((batch_size // processes) / (micro_batch_tokens // seq_len))


@EX.withdrawn
def tokens_ratio(batch_size, seq_len, processes, micro_batch_tokens):
    """I divided the share's tokens by the budget: ceil(share * seq_len / micro_batch_tokens), then equal passes.

    Withdrawn after the first measurement: it is correct. ceil(share·seq_len / budget) is the fewest g with
    share/g ≤ budget/seq_len, and once g divides share, share/g is a whole number, so ≤ budget // seq_len."""
    share = batch_size // processes
    g = max(1, math.ceil(share * seq_len / micro_batch_tokens))
    while share % g:
        g += 1
    return g


@EX.bug
def at_most_strictly_less(batch_size, seq_len, processes, micro_batch_tokens):
    """I wrote share // g >= fits in the loop, so a pass exactly at the budget is refused."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share % g or share // g >= fits:
        g += 1
    return g


@EX.bug
def powers_of_two(batch_size, seq_len, processes, micro_batch_tokens):
    """I doubled g until a pass fits (GPUs like powers of two)."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share // g > fits or share % g:
        g *= 2
    return g


@EX.bug
def divisor_of_the_batch(batch_size, seq_len, processes, micro_batch_tokens):
    """I required g to divide batch_size (not each process's share)."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while batch_size % g or share / g > fits:
        g += 1
    return g


@EX.bug
def processes_multiply(batch_size, seq_len, processes, micro_batch_tokens):
    """I thought each process runs batch_size sequences, so the step has batch_size * processes."""
    share = batch_size * processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share % g or share // g > fits:
        g += 1
    return g


@EX.bug
def micro_batch_size_returned(batch_size, seq_len, processes, micro_batch_tokens):
    """I returned the sequences per pass, share // g, instead of g."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share % g or share // g > fits:
        g += 1
    return share // g


@EX.bug
def float_budget_rounded_up(batch_size, seq_len, processes, micro_batch_tokens):
    """I computed the sequences per pass as round(micro_batch_tokens / seq_len), rounding 85.3 and 85.7 alike."""
    share = batch_size // processes
    fits = round(micro_batch_tokens / seq_len)
    g = 1
    while share % g or share // g > fits:
        g += 1
    return g


@EX.bug
def search_stops_at_share_over_two(batch_size, seq_len, processes, micro_batch_tokens):
    """I searched g among range(1, share // 2) and returned share when nothing was found (divisors only up to half)."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    for g in range(1, share // 2):
        if share % g == 0 and share // g <= fits:
            return g
    return share


@EX.correct
def divisors_in_order(batch_size, seq_len, processes, micro_batch_tokens):
    """The divisors of the share listed, the first that fits returned."""
    share = batch_size // processes
    per_pass = micro_batch_tokens // seq_len
    return next(g for g in range(1, share + 1) if share % g == 0 and share // g <= per_pass)


@EX.correct
def largest_micro_batch(batch_size, seq_len, processes, micro_batch_tokens):
    """Search the largest micro-batch size that divides the share and fits, from the top."""
    share = batch_size // processes
    size = min(share, micro_batch_tokens // seq_len)
    while share % size:
        size -= 1
    return share // size


# --- Batch 2: written without reading any checker, before the checkers were changed against it ---
EX.batch = 2


@EX.bug
def and_instead_of_or(batch_size, seq_len, processes, micro_batch_tokens):
    """I looped `while share % g == 0 and share // g > fits`, so the search stops at the first g that does not divide the share."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share % g == 0 and share // g > fits:
        g += 1
    return g


@EX.bug
def special_tokens_added(batch_size, seq_len, processes, micro_batch_tokens):
    """I counted 2 more tokens per sequence for [CLS] and [SEP]: micro_batch_tokens // (seq_len + 2) sequences per pass."""
    share = batch_size // processes
    fits = max(1, micro_batch_tokens // (seq_len + 2))
    g = 1
    while share % g or share // g > fits:
        g += 1
    return g


@EX.bug
def at_least_two_passes(batch_size, seq_len, processes, micro_batch_tokens):
    """I searched g from 2 (one pass is no accumulation, I thought), falling back to 1 only when nothing else works."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    for g in range(2, share + 1):
        if share % g == 0 and share // g <= fits:
            return g
    return 1


@EX.bug
def budget_shared_by_processes(batch_size, seq_len, processes, micro_batch_tokens):
    """I took micro_batch_tokens for the whole machine, so each process's passes hold micro_batch_tokens // processes tokens."""
    share = batch_size // processes
    fits = max(1, (micro_batch_tokens // processes) // seq_len)
    g = 1
    while share % g or share // g > fits:
        g += 1
    return g


@EX.correct
def divisor_pairs(batch_size, seq_len, processes, micro_batch_tokens):
    """The share's divisors from pairs (d, share / d) up to its square root; the smallest g whose pass fits."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    divisors = set()
    d = 1
    while d * d <= share:
        if share % d == 0:
            divisors.update((d, share // d))
        d += 1
    return min(g for g in divisors if share // g <= fits)


# --- Batch 3: written without reading any checker, before the checkers were changed against it ---
EX.batch = 3


@EX.bug
def divisors_below_the_share(batch_size, seq_len, processes, micro_batch_tokens):
    """I looked for g in range(1, share), forgetting that g = share (one sequence a pass) is a divisor too."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    if share <= fits:
        return 1
    for g in range(1, share):
        if share % g == 0 and share // g <= fits:
            return g


@EX.bug
def rounded_down_to_a_divisor(batch_size, seq_len, processes, micro_batch_tokens):
    """I took g = ceil(share / fits) and, when it did not divide the share, moved down to the next divisor."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = math.ceil(share / fits)
    while share % g:
        g -= 1
    return g


@EX.bug
def floor_as_the_starting_point(batch_size, seq_len, processes, micro_batch_tokens):
    """I started from share // fits passes (rounded down) and moved up to the next divisor of the share."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = max(1, share // fits)
    while share % g:
        g += 1
    return g


@EX.bug
def passes_of_all_processes(batch_size, seq_len, processes, micro_batch_tokens):
    """I returned the passes of the whole step, g on each process times the processes."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share % g or share // g > fits:
        g += 1
    return g * processes


_PLANS = {}


@EX.bug
def remembered_by_batch_and_length(batch_size, seq_len, processes, micro_batch_tokens):
    """I memoised the answer in a dict keyed by (batch_size, seq_len), the two numbers that change between phases."""
    key = (batch_size, seq_len)
    if key not in _PLANS:
        share = batch_size // processes
        fits = micro_batch_tokens // seq_len
        g = 1
        while share % g or share // g > fits:
            g += 1
        _PLANS[key] = g
    return _PLANS[key]


@EX.bug
def extra_passes_counted(batch_size, seq_len, processes, micro_batch_tokens):
    """I returned the accumulation steps after the first pass, g - 1 (one pass means no accumulation)."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share % g or share // g > fits:
        g += 1
    return g - 1


@EX.correct
def lower_bound_then_next_divisor(batch_size, seq_len, processes, micro_batch_tokens):
    """Start at the lower bound ceil(share / fits) and step up to the first divisor of the share."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = -(-share // fits)
    while share % g:
        g += 1
    return g


# --- batch 4: written without reading any checker ------------------------------------------
EX.batch = 4


@EX.bug
def divisors_searched_from_the_top(batch_size, seq_len, processes, micro_batch_tokens):
    """I walked g down from the share to 1 and returned the first that fits, which is always the share (one sequence a pass).
    Differs on: (256, 512, 1, 32768): 256 instead of 4."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    for g in range(share, 0, -1):
        if share % g == 0 and share // g <= fits:
            return g


@EX.bug
def gcd_of_share_and_fits(batch_size, seq_len, processes, micro_batch_tokens):
    """I took the sequences per pass as gcd(share, fits), a divisor of the share that fits, and g = share // gcd.
    Differs on: (256, 128, 1, 12800): fits 100, gcd 4, so 64 instead of 4."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    return share // math.gcd(share, fits)


@EX.bug
def ceil_as_floor_plus_one(batch_size, seq_len, processes, micro_batch_tokens):
    """I rounded share / fits up as share // fits + 1, then moved up to the next divisor of the share.
    Differs on: (256, 512, 1, 32768): 64 fit, 256 // 64 + 1 = 5, so 8 instead of 4."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    for g in range(share // fits + 1, share + 1):
        if share % g == 0:
            return g
    return share


@EX.bug
def fits_rounded_down_to_a_power_of_two(batch_size, seq_len, processes, micro_batch_tokens):
    """I rounded the sequences a pass may hold down to a power of two (GPU-friendly sizes) before the search.
    Differs on: (96, 128, 1, 12800): 100 fit, rounded to 64, so 2 instead of 1."""
    share = batch_size // processes
    fits = 1 << ((micro_batch_tokens // seq_len).bit_length() - 1)
    g = 1
    while share % g or share // g > fits:
        g += 1
    return g


@EX.bug
def passes_capped_at_64(batch_size, seq_len, processes, micro_batch_tokens):
    """I tried g from 1 to 64 only (more passes than that seemed absurd) and returned 64 when none fitted.
    Differs on: (256, 512, 1, 512): one sequence a pass, 64 instead of 256."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    for g in range(1, 65):
        if share % g == 0 and share // g <= fits:
            return g
    return 64


@EX.bug
def one_sequence_a_pass_when_ceil_does_not_divide(batch_size, seq_len, processes, micro_batch_tokens):
    """I took g = ceil(share / fits) and, when that did not divide the share, fell back to g = share, one sequence a pass.
    Differs on: (256, 128, 1, 12800), the worked example: ceil(256 / 100) = 3, so 256 instead of 4."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = math.ceil(share / fits)
    return g if share % g == 0 else share


@EX.correct
def largest_divisor_that_fits(batch_size, seq_len, processes, micro_batch_tokens):
    """The micro-batch first: the largest divisor of the share that is at most fits, over the sizes 1 .. min(share, fits); g = share // size."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    size = max(s for s in range(1, min(share, fits) + 1) if share % s == 0)
    return share // size


# --- batch 5: written without reading any checker ------------------------------------------
EX.batch = 5


@EX.bug
def binary_search_over_the_passes(batch_size, seq_len, processes, micro_batch_tokens):
    """I binary-searched the smallest g in 1 .. share that divides the share and fits, as if that test were monotone in g.
    Differs on: (60, 128, 1, 3200): 25 fit, the search lands on 10 instead of 3."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    lo, hi = 1, share
    while lo < hi:
        mid = (lo + hi) // 2
        if share % mid == 0 and share // mid <= fits:
            hi = mid
        else:
            lo = mid + 1
    return lo


@EX.bug
def divisors_up_to_the_square_root_only(batch_size, seq_len, processes, micro_batch_tokens):
    """I listed the share's divisors d up to its square root (they come in pairs) but forgot to add the partners share // d.
    Differs on: (256, 512, 1, 1024): 2 fit, 128 passes needed, but no divisor up to 16 fits: ValueError instead of 128."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    divisors = [d for d in range(1, math.isqrt(share) + 1) if share % d == 0]
    return min(g for g in divisors if share // g <= fits)


@EX.bug
def divisor_nearest_to_what_fits(batch_size, seq_len, processes, micro_batch_tokens):
    """I took the micro-batch to be the divisor of the share nearest to the sequences that fit, which may lie above them.
    Differs on: (256, 128, 1, 12800), the worked example: 100 fit, 128 is nearer than 64, so 2 instead of 4."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    size = min((d for d in range(1, share + 1) if share % d == 0), key=lambda d: abs(d - fits))
    return share // size


@EX.bug
def micro_batch_divides_the_share(batch_size, seq_len, processes, micro_batch_tokens):
    """For equal passes I checked that the micro-batch share // g divides the share, not that g does, so g passes may not cover it.
    Differs on: (96, 512, 1, 4096): 8 fit, 96 // 11 = 8 divides 96, so 11 (11 passes of 8 make 88) instead of 12."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share % (share // g) or share // g > fits:
        g += 1
    return g


@EX.bug
def search_bounded_by_what_fits(batch_size, seq_len, processes, micro_batch_tokens):
    """I looped g over range(1, fits + 1), taking the sequences a pass holds as the most passes there can be.
    Differs on: (256, 512, 1, 1024): 2 fit, g stops at 2: None instead of 128."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    for g in range(1, fits + 1):
        if share % g == 0 and share // g <= fits:
            return g


@EX.bug
def bitwise_or_in_the_loop_test(batch_size, seq_len, processes, micro_batch_tokens):
    """I joined the two tests with | as I do for masks, while share % g != 0 | share // g > fits, and | binds before the comparisons.
    Differs on: (256, 128, 1, 12800), the worked example: 3 instead of 4 (the loop stops once 85 sequences fit, divisor or not)."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share % g != 0 | share // g > fits:
        g += 1
    return g


@EX.correct
def tokens_compared_with_itertools_count(batch_size, seq_len, processes, micro_batch_tokens):
    """The budget compared in tokens, (share // g) · seq_len ≤ micro_batch_tokens, over g from itertools.count(1)."""
    import itertools
    share = batch_size // processes
    return next(g for g in itertools.count(1)
                if share % g == 0 and (share // g) * seq_len <= micro_batch_tokens)


# --- batch 6: written without reading any checker ------------------------------------------
EX10_1 = Exercise("10.1", "flops_per_token")
EX10_1.batch = 6


@EX10_1.bug
def pooler_divided_with_floor_division(config, seq_len, predicted_fraction):
    """I spread the pooler over the tokens with 2 * H * H // seq_len, integer division as everything else is a whole number, so the fraction of a FLOP is dropped.
    Differs on: H = 4, F = 6, L = 1, V = 10, T = 3, f = 1/3 (the worked example): 958 instead of 960."""
    H, F, L, V = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.vocab_size
    layer = 8 * H * H + 4 * H * F + 4 * seq_len * H
    head = predicted_fraction * (2 * H * H + 2 * H * V)
    pooler = 2 * H * H // seq_len
    return 3 * (L * layer + head + pooler)


@EX10_1.bug
def attention_left_outside_the_layers(config, seq_len, predicted_fraction):
    """I multiplied the projections and the feed-forward by L and added attention's 4·T·H after the product, so it is counted once, not once per layer.
    Differs on: H = 4, F = 6, L = 2, V = 10, T = 3, f = 1/3: 1632 instead of 1776."""
    H = config.hidden_size
    F = config.intermediate_size
    L = config.num_hidden_layers
    V = config.vocab_size
    T = seq_len
    forward = L * (4 * 2 * H * H + 2 * 2 * H * F) + 2 * 2 * T * H
    forward += predicted_fraction * (2 * H * H + 2 * H * V) + 2 * H * H / T
    return 3 * forward


@EX10_1.bug
def feed_forward_taken_as_four_times_h(config, seq_len, predicted_fraction):
    """I wrote the feed-forward as BERT's 4H wide, 2·2·H·4H, instead of reading intermediate_size from the config.
    Differs on: H = 4, F = 6, L = 1, V = 10, T = 3, f = 1/3 (the worked example): 1440 instead of 960."""
    H, L, V = config.hidden_size, config.num_hidden_layers, config.vocab_size
    projections = 4 * 2 * H * H
    feed_forward = 2 * 2 * H * (4 * H)
    attention = 2 * (2 * seq_len * H)
    head = predicted_fraction * (2 * H * H + 2 * H * V)
    return 3 * (L * (projections + feed_forward + attention) + head + 2 * H * H / seq_len)


@EX10_1.bug
def attention_for_one_head_only(config, seq_len, predicted_fraction):
    """I counted the scores and the weighted sum per head, 2·T·d each with d = H / heads the head size, and forgot to add them up over the heads.
    Differs on: H = 4, F = 6, L = 1, V = 10, T = 3, f = 1/3 with 2 heads: 888 instead of 960."""
    H, F, L, V = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.vocab_size
    d = H // config.num_attention_heads
    per_layer = 8 * H * H + 4 * H * F + 2 * (2 * seq_len * d)
    head = predicted_fraction * (2 * H * H + 2 * H * V)
    pooler = 2 * H * H / seq_len
    return 3 * (L * per_layer + head + pooler)


@EX10_1.correct
def matmul_shapes_of_one_sequence(config, seq_len, predicted_fraction):
    """Every matrix product of one sequence listed by its (m, n) x (n, p) shapes, per head for attention, summed, then divided by T."""
    def product(m, n, p):
        return 2 * m * n * p

    H, F, V, T = config.hidden_size, config.intermediate_size, config.vocab_size, seq_len
    heads = config.num_attention_heads
    d = H // heads
    forward = 0
    for _ in range(config.num_hidden_layers):
        forward += sum(product(T, H, H) for _ in ("query", "key", "value", "output"))
        forward += product(T, H, F) + product(T, F, H)
        forward += heads * (product(T, d, T) + product(T, T, d))  # scores, then the weighted values
    labelled = predicted_fraction * T
    forward += product(labelled, H, H) + product(labelled, H, V)  # the MLM transform and decoder
    forward += product(1, H, H)  # the pooler, on [CLS]
    return 3 * forward / T


# --- batch 6: written without reading any checker ------------------------------------------
EX10_2 = Exercise("10.2", "unpad_input")
EX10_2.batch = 6


PAD = "pad_input"


@EX10_2.bug
def nonzero_squeezed_to_a_scalar(x, attention_mask):
    """I turned nonzero's (N, 1) column into a vector with .squeeze(), which also drops the N axis when the batch holds a single real token.
    Differs on: x of shape (2, 3, 4), mask [[0, 1, 0], [0, 0, 0]]: packed of shape (4,) and indices a 0-d tensor 1 instead of shapes (1, 4) and (1,)."""
    indices = torch.nonzero(attention_mask.flatten()).squeeze()
    packed = x.reshape(-1, *x.shape[2:])[indices]
    return packed, indices


@EX10_2.bug(checker=PAD)
def zeros_in_the_default_dtype(packed, indices, B, T):
    """I made the grid with torch.zeros(B * T, ...) and wrote each token into its row in a loop, without passing packed's dtype, so it comes back float32.
    Differs on: packed = tensor([0, 1, 2, 10, 11]) (int64 ids), indices [0, 1, 2, 4, 5], B = 2, T = 4: float32 [[0., 1., 2., 0.], [10., 11., 0., 0.]] instead of int64 (float64 features are rounded to float32)."""
    rest = packed.shape[1:]
    grid = torch.zeros(B * T, *rest)
    for k, flat in enumerate(indices.tolist()):
        grid[flat] = packed[k]
    return grid.reshape(B, T, *rest)


@EX10_2.bug
def integer_mask_used_as_an_index(x, attention_mask):
    """I picked the flat positions with torch.arange(B * T)[mask.flatten()], as with a boolean mask, but the 0/1 mask is an integer tensor, so it indexes positions 0 and 1 instead of selecting.
    Differs on: the worked example (x[b, t] = 10·b + t on (2, 4), mask [[1, 1, 1, 0], [1, 1, 0, 0]] as int64): packed [1, 1, 1, 0, 1, 1, 0, 0] and indices [1, 1, 1, 0, 1, 1, 0, 0] instead of [0, 1, 2, 10, 11] and [0, 1, 2, 4, 5]."""
    B, T = attention_mask.shape
    flat_mask = attention_mask.reshape(B * T)
    indices = torch.arange(B * T)[flat_mask]
    return x.reshape(B * T, *x.shape[2:])[indices], indices


@EX10_2.bug(checker=PAD)
def trailing_dimensions_as_minus_one(packed, indices, B, T):
    """I put the tokens back with index_copy_ and viewed the grid as (B, T, -1), letting -1 stand for the hidden size, which adds an axis when packed is (N,) and merges them when it has two.
    Differs on: packed = tensor([0., 1., 2., 10., 11.]), indices [0, 1, 2, 4, 5], B = 2, T = 4: shape (2, 4, 1) instead of (2, 4) (and (N, 2, 3) comes back (B, T, 6))."""
    grid = packed.new_zeros((B * T,) + tuple(packed.shape[1:]))
    grid.index_copy_(0, indices, packed)
    return grid.view(B, T, -1)


@EX10_2.correct
def row_and_column_indices(x, attention_mask):
    """nonzero(as_tuple=True) on the (B, T) mask for the rows and columns, x indexed by both, flat positions row · T + column."""
    rows, cols = torch.nonzero(attention_mask != 0, as_tuple=True)
    indices = rows * attention_mask.shape[1] + cols
    return x[rows, cols], indices


# --- batch 6: written without reading any checker ------------------------------------------
EX.batch = 6


@EX.bug
def cut_by_the_smallest_prime_factor(batch_size, seq_len, processes, micro_batch_tokens):
    """While the micro-batch was too big I cut it by its smallest prime factor (halving when it is even), multiplying the passes by the same factor.
    Differs on: (96, 512, 1, 16384): 32 fit, 96 is cut to 48 then 24, so 4 instead of 3 (3 passes of 32)."""
    size = batch_size // processes
    fits = micro_batch_tokens // seq_len
    passes = 1
    while size > fits:
        p = next(d for d in range(2, size + 1) if size % d == 0)
        size //= p
        passes *= p
    return passes


@EX.bug
def ceiling_written_as_round_plus_a_half(batch_size, seq_len, processes, micro_batch_tokens):
    """I rounded share / fits up as round(share / fits + 0.5), then moved up to a divisor of the share; Python rounds halves to even, so a whole odd quotient goes one too far.
    Differs on: (256, 128, 1, 32768), phase 1 of the recipe: 256 sequences fit, round(1.5) = 2, so 2 instead of 1 (and (320, 128, 1, 8192) gives 8 instead of 5)."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = max(1, round(share / fits + 0.5))
    while share % g:
        g += 1
    return g


@EX.bug
def passes_of_the_whole_batch_shared_out(batch_size, seq_len, processes, micro_batch_tokens):
    """I found the fewest equal passes for the whole batch on one GPU and shared those passes out among the processes, ceil(g / processes).
    Differs on: (192, 512, 3, 12800): 25 fit; the batch needs 8 passes of 24, shared out 3, but each process's 64 need 4 passes of 16: 3 instead of 4."""
    fits = micro_batch_tokens // seq_len
    g = 1
    while batch_size % g or batch_size // g > fits:
        g += 1
    return math.ceil(g / processes)


@EX.bug
def square_root_left_out_of_the_divisor_pairs(batch_size, seq_len, processes, micro_batch_tokens):
    """I listed the share's divisors in pairs (d, share // d) while d * d < share, so the square root of a square share is never listed.
    Differs on: (256, 512, 1, 8192): 16 fit, 16 passes of 16 are right, but 16 is the root of 256: 32 instead of 16."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    divisors = set()
    d = 1
    while d * d < share:
        if share % d == 0:
            divisors |= {d, share // d}
        d += 1
    return min(g for g in divisors if share // g <= fits)


@EX.correct
def floor_bound_then_next_divisor(batch_size, seq_len, processes, micro_batch_tokens):
    """Two loops: first the fewest g whose floored pass share // g fits, then up to the next divisor of the share."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share // g > fits:
        g += 1
    while share % g != 0:
        g += 1
    return g


# --- batch 7: written without reading any checker ------------------------------------------
EX10_1.batch = 7


@EX10_1.bug
def pooler_counted_at_every_token(config, seq_len, predicted_fraction):
    """I added the pooler's 2·H² to every token like the other dense layers, forgetting that it runs once per sequence, on [CLS].
    Differs on: H = 4, F = 6, L = 1, V = 10, T = 3, f = 1/3 (the worked example): 1024 instead of 960."""
    H, F = config.hidden_size, config.intermediate_size
    L, V = config.num_hidden_layers, config.vocab_size
    attention = 2 * (2 * seq_len * H)
    layer = 4 * 2 * H * H + 2 * 2 * H * F + attention
    mlm = predicted_fraction * (2 * H * H + 2 * H * V)
    pooler = 2 * H * H
    return 3 * (L * layer + mlm + pooler)


@EX10_1.bug
def mlm_transform_at_every_position(config, seq_len, predicted_fraction):
    """I applied the fraction f to the decoder only, the part that scores the vocabulary, and counted the head's dense H -> H transform at every position.
    Differs on: H = 4, F = 6, L = 1, V = 10, T = 3, f = 1/3 (the worked example): 1024 instead of 960 (the transform's 32 counted in full, not a third)."""
    H, F, L, V = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.vocab_size
    T, f = seq_len, predicted_fraction
    forward = L * (8 * H ** 2 + 4 * H * F + 4 * T * H)
    forward += 2 * H ** 2 + f * 2 * H * V  # transform everywhere, decoder at the labelled positions
    forward += 2 * H ** 2 / T
    return 3 * forward


@EX10_1.bug
def attention_length_read_from_the_config(config, seq_len, predicted_fraction):
    """For attention's T keys I read config.max_position_embeddings (the model's sequence length, I thought) instead of the seq_len argument.
    Differs on: H = 4, F = 6, L = 1, V = 10, max_position_embeddings = 512, T = 3, f = 1/3: 25392 instead of 960 (equal only when seq_len is max_position_embeddings)."""
    H, F, L, V = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.vocab_size
    keys = config.max_position_embeddings
    per_layer = 8 * H * H + 4 * H * F + 4 * keys * H
    head = predicted_fraction * (2 * H * H + 2 * H * V)
    pooler = 2 * H * H / seq_len
    return 3 * (L * per_layer + head + pooler)


@EX10_1.bug
def head_and_pooler_inside_the_layer_sum(config, seq_len, predicted_fraction):
    """I summed everything per token first and multiplied by L at the end, so the MLM head and the pooler are counted once per layer.
    Differs on: H = 4, F = 6, L = 2, V = 10, T = 3, f = 1/3: 1920 instead of 1776 (equal for the worked example's L = 1)."""
    H, F, V, T = config.hidden_size, config.intermediate_size, config.vocab_size, seq_len
    total = 0.0
    total += 4 * (2 * H * H)  # Q, K, V, output
    total += 2 * (2 * H * F)  # feed-forward
    total += 2 * (2 * T * H)  # scores and weighted values
    total += predicted_fraction * (2 * H * H + 2 * H * V)  # MLM head
    total += 2 * H * H / T  # pooler
    return 3 * config.num_hidden_layers * total


@EX10_1.correct
def products_counted_by_torch_on_meta_tensors(config, seq_len, predicted_fraction):
    """Every matrix product of one sequence run on meta tensors under torch's FlopCounterMode, the MLM head at all T positions scaled by f, summed, times 3, divided by T."""
    H, F, V, T = config.hidden_size, config.intermediate_size, config.vocab_size, seq_len

    def counted(*shapes):
        with FlopCounterMode(display=False) as counter:
            for (m, n), (n2, p) in shapes:
                torch.empty(m, n, device="meta") @ torch.empty(n2, p, device="meta")
        return counter.get_total_flops()

    layer = counted(*[((T, H), (H, H))] * 4, ((T, H), (H, F)), ((T, F), (F, H)), ((T, H), (H, T)), ((T, T), (T, H)))
    head = counted(((T, H), (H, H)), ((T, H), (H, V)))
    pooler = counted(((1, H), (H, H)))
    forward = config.num_hidden_layers * layer + predicted_fraction * head + pooler
    return 3 * forward / T


# --- batch 7: written without reading any checker ------------------------------------------
EX10_2.batch = 7


@EX10_2.bug
def real_tokens_taken_from_the_row_lengths(x, attention_mask):
    """I counted each row's real tokens, n_b = mask[b].sum(), and took the first n_b positions of the row, as if the padding were always at the end.
    Differs on: x[b, t] = 10·b + t on a (2, 4) grid, mask [[0, 1, 1, 1], [1, 1, 0, 0]] (left padding in row 0): packed [0, 1, 2, 10, 11], indices [0, 1, 2, 4, 5] instead of [1, 2, 3, 10, 11], [1, 2, 3, 4, 5]."""
    B, T = attention_mask.shape
    lengths = attention_mask.sum(dim=1).tolist()
    indices = torch.cat([torch.arange(n) + b * T for b, n in enumerate(lengths)])
    return x.reshape(B * T, *x.shape[2:])[indices], indices


@EX10_2.bug(checker="pad_input")
def flat_position_split_by_the_batch_size(packed, indices, B, T):
    """I turned each flat position back into (row, column) with divmod(index, B), dividing by the number of rows instead of the row length T.
    Differs on: packed [0, 1, 2, 10, 11], indices [0, 1, 2, 4, 5], B = 2, T = 4 (the worked example): an IndexError (row 2 of 2) instead of [[0, 1, 2, 0], [10, 11, 0, 0]]; with packed [1., 2., 3., 4.], indices [0, 1, 2, 3] (row 0 full, row 1 empty), B = 2, T = 4: [[1, 2, 0, 0], [3, 4, 0, 0]] instead of [[1, 2, 3, 4], [0, 0, 0, 0]]."""
    grid = packed.new_zeros(B, T, *packed.shape[1:])
    rows, cols = indices // B, indices % B
    grid[rows, cols] = packed
    return grid


@EX10_2.bug
def indices_as_int32_like_flash_attn(x, attention_mask):
    """I made the indices int32, as flash-attn keeps its cu_seqlens, with torch.arange(B * T, dtype=torch.int32) selected by the mask, instead of torch.long.
    Differs on: the worked example (x[b, t] = 10·b + t on (2, 4), mask [[1, 1, 1, 0], [1, 1, 0, 0]]): the right packed [0, 1, 2, 10, 11] and values [0, 1, 2, 4, 5], but indices of dtype torch.int32 instead of torch.int64."""
    B, T = attention_mask.shape
    positions = torch.arange(B * T, dtype=torch.int32)
    indices = positions[attention_mask.reshape(-1) == 1]
    return x.reshape(B * T, *x.shape[2:])[indices], indices


@EX10_2.bug(checker="pad_input")
def each_row_refilled_from_its_start(packed, indices, B, T):
    """I counted how many tokens each row gets from the indices (index // T) and wrote them at the start of their row, row after row, as unpadding had taken them from there.
    Differs on: packed [1., 2., 3., 10.], indices [1, 2, 3, 4] (row 0 left-padded), B = 2, T = 4: [[1, 2, 3, 0], [10, 0, 0, 0]] instead of [[0, 1, 2, 3], [10, 0, 0, 0]]."""
    counts = torch.bincount(indices // T, minlength=B).tolist()
    grid = torch.zeros((B, T) + tuple(packed.shape[1:]), dtype=packed.dtype, device=packed.device)
    start = 0
    for b, n in enumerate(counts):
        grid[b, :n] = packed[start:start + n]
        start += n
    return grid


@EX10_2.correct(checker="pad_input")
def scattered_along_the_flat_axis(packed, indices, B, T):
    """torch.scatter on a zeros grid of B·T rows, the indices expanded over the trailing dimensions, then reshaped to (B, T, ...)."""
    rest = packed.shape[1:]
    index = indices.view(-1, *([1] * len(rest))).expand(-1, *rest)
    grid = torch.zeros(B * T, *rest, dtype=packed.dtype, device=packed.device)
    return grid.scatter(0, index, packed).reshape(B, T, *rest)


# --- batch 7: written without reading any checker ------------------------------------------
EX.batch = 7


@EX.bug
def micro_batch_sizes_from_one_below_the_limit(batch_size, seq_len, processes, micro_batch_tokens):
    """I searched the micro-batch size downwards with range(min(share, fits) - 1, 0, -1), off by one at the top, so a pass can never be exactly the largest size allowed.
    Differs on: (256, 128, 1, 32768), phase 1 of the recipe: all 256 fit, but the search starts at 255 and finds 128: 2 instead of 1 (and (256, 512, 1, 32768) gives 8 instead of 4)."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    for size in range(min(share, fits) - 1, 0, -1):
        if share % size == 0:
            return share // size
    return share


@EX.bug
def one_sequence_budget_rejected(batch_size, seq_len, processes, micro_batch_tokens):
    """I checked that a sequence fits with micro_batch_tokens <= seq_len raising a ValueError, which also rejects a budget of exactly one sequence.
    Differs on: (8, 512, 1, 512): a ValueError instead of 8 (one sequence a pass)."""
    if micro_batch_tokens <= seq_len:
        raise ValueError(f"a pass of {micro_batch_tokens} tokens cannot hold a sequence of {seq_len}")
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share % g or share // g > fits:
        g += 1
    return g


@EX.bug
def equal_passes_checked_in_tokens(batch_size, seq_len, processes, micro_batch_tokens):
    """I worked in tokens throughout: g must divide the share's tokens, share · seq_len, and each pass's tokens must fit, so g may split a sequence between two passes.
    Differs on: (10, 128, 1, 512): 4 sequences fit; 1280 tokens split in 4 passes of 320, so 4 instead of 5 (5 passes of 2 sequences)."""
    tokens = (batch_size // processes) * seq_len
    g = 1
    while tokens % g or tokens // g > micro_batch_tokens:
        g += 1
    return g


@EX.bug
def passes_recounted_from_the_rounded_micro_batch(batch_size, seq_len, processes, micro_batch_tokens):
    """I found the fewest passes ceil(share / fits), took the micro-batch as share // g, and counted the passes again as ceil(share / micro_batch), without checking that the micro-batch divides the share.
    Differs on: (70, 128, 1, 3840): 30 fit, 3 passes give micro-batches of 23, so 4 instead of 5 (5 passes of 14)."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    micro_batch = share // math.ceil(share / fits)
    return math.ceil(share / micro_batch)


@EX.correct
def numpy_candidates_first_that_fits(batch_size, seq_len, processes, micro_batch_tokens):
    """Every g from 1 to the share in a numpy array, a boolean mask of those that divide it and fit, the first one taken."""
    share = batch_size // processes
    g = np.arange(1, share + 1, dtype=np.int64)
    ok = (share % g == 0) & (share // g * seq_len <= micro_batch_tokens)
    return int(g[np.argmax(ok)])


# --- batch 8: written without reading any checker ------------------------------------------
EX10_1.batch = 8


@EX10_1.bug
def wo_projection_left_out_of_the_count(config, seq_len, predicted_fraction):
    """I counted the attention's projections as Q, K and V, three times 2·H², and forgot the output projection W^O that follows the heads.
    Differs on: H = 4, F = 6, L = 1, V = 10, T = 3, f = 1/3 (the worked example): 864 instead of 960."""
    H, F = config.hidden_size, config.intermediate_size
    L, V, T = config.num_hidden_layers, config.vocab_size, seq_len
    qkv = 3 * 2 * H * H
    ffn = 2 * 2 * H * F
    attention = 2 * 2 * T * H
    forward = L * (qkv + ffn + attention) + predicted_fraction * (2 * H * H + 2 * H * V) + 2 * H * H / T
    return 3 * forward


@EX10_1.bug
def tied_decoder_counted_as_free(config, seq_len, predicted_fraction):
    """The decoder shares its matrix with the word embeddings, which are lookups, so I counted it as free and kept only the head's dense transform, f·2H².
    Differs on: H = 4, F = 6, L = 1, V = 10, T = 3, f = 1/3 (the worked example): 880 instead of 960 (the decoder's 2·H·V = 80 per labelled token, times f and 3, left out)."""
    H, F, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    layer = 8 * H ** 2 + 4 * H * F + 4 * seq_len * H
    head = predicted_fraction * 2 * H ** 2
    pooler = 2 * H ** 2 / seq_len
    return 3 * (L * layer + head + pooler)


@EX10_1.bug
def rounded_down_to_whole_flops(config, seq_len, predicted_fraction):
    """FLOPs are a count, so I returned int(...) of the total, which drops the fraction the pooler's 2H²/T and the fraction f leave.
    Differs on: H = 4, F = 6, L = 1, V = 10, T = 5, f = 0.15: 981 instead of 981.6 (the worked example's 960 is whole, so it comes out right)."""
    H, F, L, V = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.vocab_size
    per_layer = 8 * H * H + 4 * H * F + 4 * seq_len * H
    head = predicted_fraction * (2 * H * H + 2 * H * V)
    pooler = 2 * H * H / seq_len
    return int(3 * (L * per_layer + head + pooler))


@EX10_1.bug
def backward_counted_instead_of_forward_plus_backward(config, seq_len, predicted_fraction):
    """I read "the backward costs about twice the forward" as the training step costing twice the forward, and multiplied by 2 instead of 3.
    Differs on: H = 4, F = 6, L = 1, V = 10, T = 3, f = 1/3 (the worked example): 640 instead of 960."""
    H, F, L, V = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.vocab_size
    T, f = seq_len, predicted_fraction
    forward = L * (8 * H * H + 4 * H * F + 4 * T * H) + f * (2 * H * H + 2 * H * V) + 2 * H * H / T
    return 2 * forward


@EX10_1.correct
def six_n_plus_the_remaining_terms(config, seq_len, predicted_fraction):
    """Kaplan's form: the encoder's dense weights N counted from the config, 6·N for them, plus 3 × (attention's 4TH per layer, the head at f, the pooler over T)."""
    H, F, L, V, T = (config.hidden_size, config.intermediate_size, config.num_hidden_layers,
                     config.vocab_size, seq_len)
    dense_weights = L * (4 * H * H + 2 * H * F)  # Q, K, V, O and the two feed-forward matrices
    attention = L * 2 * (2 * T * H)
    head = predicted_fraction * (H * H + H * V) * 2
    pooler = 2 * H * H / T
    return 6 * dense_weights + 3 * (attention + head + pooler)


# --- batch 8: written without reading any checker ------------------------------------------
EX10_2.batch = 8


@EX10_2.bug
def token_axes_flattened_with_minus_one(x, attention_mask):
    """I flattened x to (B·T, -1) before picking the real tokens, so that a (B, T, H) input comes out (N, H), not seeing that -1 also merges or adds trailing axes.
    Differs on: x[b, t] = 10·b + t on a (2, 4) grid (no hidden axis), mask [[1, 1, 1, 0], [1, 1, 0, 0]] (the worked example): packed of shape (5, 1) [[0], [1], [2], [10], [11]] instead of (5,) [0, 1, 2, 10, 11] (and x of shape (2, 4, 2, 3) gives (N, 6))."""
    B, T = attention_mask.shape
    indices = torch.nonzero(attention_mask.reshape(-1) == 1).reshape(-1)
    packed = x.reshape(B * T, -1)[indices]
    return packed, indices


@EX10_2.bug(checker="pad_input")
def grid_sized_for_a_hidden_axis(packed, indices, B, T):
    """I wrote it for the encoder's (N, H) hidden states: the grid is packed.new_zeros(B * T, packed.shape[1]), so other shapes of packed do not fit.
    Differs on: packed = tensor([0., 1., 2., 10., 11.]) (the worked example's (N,) tokens), indices [0, 1, 2, 4, 5], B = 2, T = 4: IndexError (tuple index out of range) instead of [[0, 1, 2, 0], [10, 11, 0, 0]] (and an (N, 2, 3) packed raises on the copy)."""
    grid = packed.new_zeros(B * T, packed.shape[1])
    grid[indices] = packed
    return grid.view(B, T, packed.shape[1])


@EX10_2.bug
def longest_rows_packed_first(x, attention_mask):
    """I sorted the rows by their number of real tokens, longest first, before packing, as pack_padded_sequence wants them, keeping each token's own flat position b·T + t.
    Differs on: x[b, t] = 10·b + t on a (2, 4) grid, mask [[1, 1, 0, 0], [1, 1, 1, 0]] (the second row longer): packed [10, 11, 12, 0, 1], indices [4, 5, 6, 0, 1] instead of [0, 1, 10, 11, 12], [0, 1, 4, 5, 6] (the worked example's rows are already sorted and come out right)."""
    B, T = attention_mask.shape
    lengths = attention_mask.sum(dim=1)
    order = torch.argsort(lengths, descending=True, stable=True)
    packed, indices = [], []
    for b in order.tolist():
        cols = torch.nonzero(attention_mask[b]).reshape(-1)
        packed.append(x[b, cols])
        indices.append(b * T + cols)
    return torch.cat(packed), torch.cat(indices)


@EX10_2.bug(checker="pad_input")
def index_copy_without_the_underscore(packed, indices, B, T):
    """I filled the flat grid with grid.index_copy(0, indices, packed), taking it for the in-place index_copy_; it returns a filled copy, which I dropped, so the grid stays all zeros.
    Differs on: packed [0., 1., 2., 10., 11.], indices [0, 1, 2, 4, 5], B = 2, T = 4 (the worked example): [[0, 0, 0, 0], [0, 0, 0, 0]] instead of [[0, 1, 2, 0], [10, 11, 0, 0]]."""
    rest = tuple(packed.shape[1:])
    grid = packed.new_zeros((B * T,) + rest)
    grid.index_copy(0, indices, packed)
    return grid.view((B, T) + rest)


@EX10_2.correct
def boolean_mask_indexing(x, attention_mask):
    """Boolean indexing of x by the (B, T) mask (row-major by definition), the flat positions from torch.arange(B·T) with the same flattened mask."""
    keep = attention_mask.bool()
    B, T = keep.shape
    indices = torch.arange(B * T, device=x.device)[keep.reshape(-1)]
    return x[keep], indices


# --- batch 8: written without reading any checker ------------------------------------------
EX.batch = 8


@EX.bug
def micro_batch_sizes_down_to_two(batch_size, seq_len, processes, micro_batch_tokens):
    """I walked the micro-batch sizes down with range(min(share, fits), 1, -1), thinking range stops at 1, so one sequence a pass is never tried.
    Differs on: (8, 128, 8, 32768), eight GPUs with one sequence each: StopIteration out of next() instead of 1; and (7, 512, 1, 2048): 4 fit, 7 is prime: the same error instead of 7."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    size = next(s for s in range(min(share, fits), 1, -1) if share % s == 0)
    return share // size


@EX.bug
def break_at_the_first_size_that_does_not_divide(batch_size, seq_len, processes, micro_batch_tokens):
    """I grew the micro-batch size from 1 while it divides the share and fits, and stopped the loop (break) at the first size that does not divide it, where I meant to skip it (continue).
    Differs on: (256, 512, 1, 32768) (the worked example): sizes 1 and 2 divide, 3 does not, so 128 passes of 2 instead of 4 of 64."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    best = 1
    for size in range(1, min(share, fits) + 1):
        if share % size:
            break
        best = size
    return share // best


@EX.bug
def sequences_compared_with_tokens(batch_size, seq_len, processes, micro_batch_tokens):
    """I checked each pass's sequences, share / g, against micro_batch_tokens directly, forgetting to turn the token budget into sequences (divide by seq_len).
    Differs on: (256, 512, 1, 32768) (the worked example): 1 instead of 4 (256 sequences look well under 32,768)."""
    share = batch_size // processes
    g = 1
    while share % g or share // g > micro_batch_tokens:
        g += 1
    return g


@EX.bug
def one_more_pass_when_the_fewest_does_not_divide(batch_size, seq_len, processes, micro_batch_tokens):
    """I took the fewest passes that fit, ceil(share / fits), and when that did not divide the share I added one pass, taking the next count to divide it.
    Differs on: (70, 128, 1, 3840): 30 fit, 3 passes do not divide 70, so 4 (4 passes of 17.5) instead of 5 (5 of 14); the worked example (3 -> 4) comes out right."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = -(-share // fits)
    if share % g:
        g += 1
    return g


@EX.correct
def smallest_divisor_from_prime_factors(batch_size, seq_len, processes, micro_batch_tokens):
    """Every divisor of the share built from its prime factorisation (trial division), sorted, the first whose pass holds at most micro_batch_tokens tokens."""
    share = batch_size // processes
    factors, n, p = {}, share, 2
    while p * p <= n:
        while n % p == 0:
            factors[p] = factors.get(p, 0) + 1
            n //= p
        p += 1
    if n > 1:
        factors[n] = factors.get(n, 0) + 1
    divisors = [1]
    for prime, power in factors.items():
        divisors = [d * prime ** k for d in divisors for k in range(power + 1)]
    return min(g for g in divisors if (share // g) * seq_len <= micro_batch_tokens)


# --- batch 9: written without reading any checker ------------------------------------------
EX10_1.batch = 9


@EX10_1.bug
def attention_scores_counted_without_the_weighted_sum(config, seq_len, predicted_fraction):
    """I counted attention's scores QKᵀ, 2·T·H per token, and forgot that the weighted sum of the values is a second product of the same size.
    Differs on: the worked example (H=4, F=6, L=1, V=10, T=3, f=1/3): returns 888 instead of 960."""
    H, F, L, V = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.vocab_size
    per_layer = 8 * H * H + 4 * H * F + 2 * seq_len * H
    head = predicted_fraction * (2 * H * H + 2 * H * V)
    pooler = 2 * H * H / seq_len
    return 3 * (L * per_layer + head + pooler)


@EX10_1.bug
def attention_counted_per_sequence_not_per_token(config, seq_len, predicted_fraction):
    """I counted attention for the whole sequence, each of T queries meeting T keys, 2·T²·H for the scores and as much for the values, and added it to the per-token terms without dividing it by T.
    Differs on: the worked example (H=4, F=6, L=1, V=10, T=3, f=1/3): returns 1248 instead of 960."""
    H, F, L, V = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.vocab_size
    per_layer = 8 * H * H + 4 * H * F + 4 * seq_len * seq_len * H
    head = predicted_fraction * (2 * H * H + 2 * H * V)
    pooler = 2 * H * H / seq_len
    return 3 * (L * per_layer + head + pooler)


@EX10_1.bug
def feed_forward_as_one_matrix(config, seq_len, predicted_fraction):
    """I counted the feed-forward as one H x F product, 2·H·F, forgetting it is two (H -> F, then F -> H back), where the statement has 2 · 2HF.
    Differs on: the worked example (H=4, F=6, L=1, V=10, T=3, f=1/3): returns 816 instead of 960."""
    H, F, L, V = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.vocab_size
    projections = 4 * 2 * H * H
    feed_forward = 2 * H * F
    attention = 2 * 2 * seq_len * H
    head = predicted_fraction * (2 * H * H + 2 * H * V)
    pooler = 2 * H * H / seq_len
    return 3 * (L * (projections + feed_forward + attention) + head + pooler)


@EX10_1.bug
def head_spread_over_the_sequence_like_the_pooler(config, seq_len, predicted_fraction):
    """The MLM head runs only at some positions, so I spread it over the sequence as I did the pooler, f·(2H² + 2HV) / T, counting the fraction twice.
    Differs on: the worked example (H=4, F=6, L=1, V=10, T=3, f=1/3): returns about 885.3 instead of 960."""
    H, F, L, V = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.vocab_size
    per_layer = 8 * H * H + 4 * H * F + 4 * seq_len * H
    head = predicted_fraction * (2 * H * H + 2 * H * V) / seq_len
    pooler = 2 * H * H / seq_len
    return 3 * (L * per_layer + head + pooler)


@EX10_1.correct
def named_terms_summed_with_fsum(config, seq_len, predicted_fraction):
    """Each forward product per token as a named entry of a dict (each 2·m·n·p written out with its shapes), summed with math.fsum, tripled."""
    H, F_, L, V, T = (config.hidden_size, config.intermediate_size, config.num_hidden_layers,
                      config.vocab_size, seq_len)
    per_token = {
        "query, key, value, output": L * 4 * (2 * 1 * H * H),
        "up and down": L * ((2 * 1 * H * F_) + (2 * 1 * F_ * H)),
        "scores and values": L * ((2 * 1 * H * T) + (2 * 1 * T * H)),
        "mlm transform and decoder": predicted_fraction * ((2 * 1 * H * H) + (2 * 1 * H * V)),
        "pooler": (2 * 1 * H * H) / T,
    }
    return 3 * math.fsum(per_token.values())


# --- batch 9: written without reading any checker ------------------------------------------
EX10_2.batch = 9


_s6_grids = {}


@EX10_2.bug
def flattened_with_view_on_a_strided_input(x, attention_mask):
    """I flattened the batch and token axes with x.view(B * T, ...), which only works on a contiguous tensor, so an x that is a transposed or sliced view of another tensor makes it fail.
    Differs on: x = torch.randn(4, 2, 3).transpose(0, 1) (a (2, 4, 3) view) with the mask [[1, 1, 1, 0], [1, 1, 0, 0]]: raises a RuntimeError where the right answer is the 5 real rows of x."""
    B, T = attention_mask.shape
    indices = torch.nonzero(attention_mask.reshape(-1), as_tuple=True)[0]
    return x.view(B * T, *x.shape[2:])[indices], indices


@EX10_2.bug(checker="pad_input")
def grid_buffer_reused_across_calls(packed, indices, B, T):
    """To save an allocation at every layer I kept one zero grid per shape in a module-level dict and wrote the tokens into it at each call, so the positions a later call leaves out still hold the previous call's numbers.
    Differs on: two calls on a (2, 3) grid, first indices [0, 1, 2, 3, 4, 5] with packed 1..6, then indices [0, 3] with packed [7, 8]: the second returns [[7, 2, 3], [8, 5, 6]] instead of [[7, 0, 0], [8, 0, 0]]."""
    key = (B * T, tuple(packed.shape[1:]), packed.dtype, packed.device)
    if key not in _s6_grids:
        _s6_grids[key] = torch.zeros(B * T, *packed.shape[1:], dtype=packed.dtype, device=packed.device)
    grid = _s6_grids[key]
    grid[indices] = packed
    return grid.clone().view(B, T, *packed.shape[1:])


@EX10_2.bug
def real_positions_found_by_sorting_the_mask(x, attention_mask):
    """I found the real positions by sorting the flattened mask, ones first, with argsort(descending=True), and kept the first N; argsort is not stable by default, so the ones do not keep their row-major order.
    Differs on: a (3, 8) mask with row lengths 5, 8, 2 and x[b, t] = 10·b + t: the indices come out [1, 17, 16, 15, ...] (packed [1, 21, 20, ...]) instead of [0, 1, 2, 3, 4, 8, 9, ...] (packed [0, 1, 2, 3, 4, 10, 11, ...])."""
    flat = attention_mask.reshape(-1)
    N = int((flat != 0).sum())
    indices = flat.argsort(descending=True)[:N]
    return x.reshape(-1, *x.shape[2:])[indices], indices


@EX10_2.bug(checker="pad_input")
def scatter_with_an_index_column_not_expanded(packed, indices, B, T):
    """I put the tokens back with grid.scatter(0, indices[:, None], packed), giving scatter an (N, 1) index column, without expanding it over the hidden axis, so for (N, H) tokens only the first feature of each is written.
    Differs on: packed = [[1., 2.], [3., 4.]], indices [0, 3], B = 2, T = 2: returns [[[1, 0], [0, 0]], [[0, 0], [3, 0]]] instead of [[[1, 2], [0, 0]], [[0, 0], [3, 4]]]."""
    rest = packed.shape[1:]
    grid = torch.zeros(B * T, *rest, dtype=packed.dtype, device=packed.device)
    index = indices.view(-1, *([1] * len(rest)))
    return grid.scatter(0, index, packed).view(B, T, *rest)


@EX10_2.correct(checker="pad_input")
def index_add_onto_a_zero_grid(packed, indices, B, T):
    """torch.zeros of (B·T, ...) in packed's dtype, index_add_ of the tokens along the flat axis (each position once), then reshape to (B, T, ...)."""
    grid = torch.zeros((B * T,) + tuple(packed.shape[1:]), dtype=packed.dtype, device=packed.device)
    grid.index_add_(0, indices, packed)
    return grid.reshape((B, T) + tuple(packed.shape[1:]))


# --- batch 9: written without reading any checker ------------------------------------------
EX.batch = 9


@EX.bug
def budget_pooled_over_the_processes(batch_size, seq_len, processes, micro_batch_tokens):
    """I counted the sequences a pass may hold from the budget of all the processes together, micro_batch_tokens · processes // seq_len, while each process only runs its own share.
    Differs on: batch_size 256, seq_len 512, 2 processes, micro_batch_tokens 32768: returns 1 instead of 2 (each process's 128 sequences need two passes of 64)."""
    share = batch_size // processes
    fits = micro_batch_tokens * processes // seq_len
    g = 1
    while share % g or share // g > fits:
        g += 1
    return g


@EX.bug
def passes_counted_with_numpy_ceil(batch_size, seq_len, processes, micro_batch_tokens):
    """I started from np.ceil(share / fits), the fewest passes, and moved up to a divisor of the share; np.ceil returns a float, so the answer comes back as a numpy float, not a whole number of passes.
    Differs on: batch_size 256, seq_len 512, 1 process, micro_batch_tokens 32768: returns np.float64(4.0) instead of the int 4 (256 // g is then 64.0, not a batch size)."""
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = np.ceil(share / fits)
    while share % g:
        g += 1
    return g


@EX.bug
def budget_divided_by_a_bit_shift(batch_size, seq_len, processes, micro_batch_tokens):
    """BERT's lengths are powers of two, so I turned the token budget into sequences with a shift, micro_batch_tokens >> int(log2(seq_len)), which divides by the power of two below seq_len when it is not one.
    Differs on: batch_size 48, seq_len 384 (SQuAD's length), 1 process, micro_batch_tokens 12288: returns 1 (48 sequences fit, it thinks) instead of 2 (32 fit, so passes of 24)."""
    share = batch_size // processes
    fits = micro_batch_tokens >> int(math.log2(seq_len))
    for g in range(1, share + 1):
        if share % g == 0 and share // g <= fits:
            return g


@EX.bug
def budget_required_to_be_whole_sequences(batch_size, seq_len, processes, micro_batch_tokens):
    """I validated the inputs first and required the token budget to be a whole number of sequences (micro_batch_tokens % seq_len == 0), which the statement does not ask: a budget may leave a few tokens over.
    Differs on: batch_size 256, seq_len 128, 1 process, micro_batch_tokens 13000: raises a ValueError instead of returning 4 (101 sequences fit, passes of 64)."""
    if batch_size % processes or micro_batch_tokens % seq_len:
        raise ValueError("the batch must split over the processes and the budget into whole sequences")
    share = batch_size // processes
    fits = micro_batch_tokens // seq_len
    g = 1
    while share % g or share // g > fits:
        g += 1
    return g


@EX.correct
def min_over_a_generator_in_tokens(batch_size, seq_len, processes, micro_batch_tokens):
    """One min() over a generator of the share's divisors, the budget compared in tokens (sequences per pass × seq_len)."""
    share = batch_size // processes
    return min(g for g in range(1, share + 1) if share % g == 0 and (share // g) * seq_len <= micro_batch_tokens)
