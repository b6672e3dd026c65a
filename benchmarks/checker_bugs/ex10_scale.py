"""Exercise 10.3 (my_accumulation_steps): learners' code with one mistake each, and correct ones.

Split rule (fixed before any checker changed): within the exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import math

from . import Exercise

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
