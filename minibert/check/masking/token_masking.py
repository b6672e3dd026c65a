"""The checker of exercise 4.1: exactly round(15%) of each row's candidates (at least one, at most
the cap), then 80/10/10, random replacements never special."""

from __future__ import annotations

import math
from collections import Counter

import torch

from ..common import ExerciseError, call, expect_rate, passed
from ._tensors import as_ids

# ---- 4.1 masking ---------------------------------------------------------------------------------

PAD, UNK, CLS, SEP, MASK = 0, 1, 2, 3, 4  # a small vocabulary with BERT's five special tokens first
SPECIAL_IDS = [PAD, UNK, CLS, SEP, MASK]
V = 50  # small, so that a random draw lands on a special id often enough to be seen
POOL = V - len(SPECIAL_IDS)  # ids a random replacement may take
MLM, P_MASK, P_RANDOM, P_KEEP = 0.15, 0.8, 0.1, 0.1
IGNORE = -100


def expected_count(n: int, cap: int | None) -> int:
    """minibert.masking.num_to_predict: round(15% of the candidates), at least one, at most the cap."""
    k = max(1, round(n * MLM)) if n else 0
    return min(k, cap) if cap is not None else k


def _rows(lengths: list[int], T: int, seed: int):
    """One row per entry of `lengths` (its number of candidates): [CLS] A [SEP] B [SEP] then padding,
    with ordinary ids (UNK among them: a special id that stands in text is still a candidate)."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.full((len(lengths), T), PAD)
    for r, n in enumerate(lengths):
        words = torch.randint(MASK + 1, V, (n,), generator=g)
        words[torch.rand(n, generator=g) < 0.03] = UNK
        len_a = int(torch.randint(1, max(n, 2), (), generator=g)) if n else 0
        ids[r, :n + 3] = torch.tensor([CLS, *words[:len_a].tolist(), SEP, *words[len_a:].tolist(), SEP])
    special = (ids == CLS) | (ids == SEP) | (ids == PAD)
    return ids, special


def _count_rules(T: int, cap: int | None):
    """(a known wrong rule, (candidates n, specials s) -> count, what it gets wrong)."""
    def capped(k: int) -> int:
        return min(k, cap) if cap is not None else k
    return [
        (lambda n, s: capped(max(1, math.floor(n * MLM))), "you rounded down (int() or floor); take round(0.15 * n)"),
        (lambda n, s: capped(max(1, math.floor(n * MLM + 0.5))),
         "you rounded a half up (int(0.15 * n + 0.5), as at school); the rule asks for Python's round(0.15 * n), "
         "which sends a half to the even number: round(4.5) = 4, round(5.5) = 6"),
        (lambda n, s: min(max(1, round(T * MLM)), cap or T), "you took 15% of the padded length T; count only the "
                                                             "row's candidates (special_tokens_mask False)"),
        (lambda n, s: min(max(1, round((n + s) * MLM)), cap or T), "you counted [CLS], [SEP] or [PAD] in the 15% "
                                                                   "(Google's code counts [CLS] and [SEP]); count "
                                                                   "only the candidates"),
    ]


def _count_hint(b: int, rows: list[tuple[int, int, int]], T: int, cap: int | None) -> str:
    """Name the rule that gives row b's count, if we know it; `rows`: (candidates, specials, count received)
    of every row of the call."""
    n, _, got = rows[b]
    if cap is not None and got > cap:
        return f"never more than max_predictions={cap} per row: min(max_predictions, ...)"
    if got == 0 and n:
        return "a row whose 15% rounds to 0 still gets one prediction: max(1, round(0.15 * n))"
    # A rule is named only when it gives the count received on every row with candidates: on 30 candidates,
    # rounding 4.5 up and counting [CLS] and both [SEP]s (4.95) both give 5, the other rows tell them apart.
    for rule, hint in _count_rules(T, cap):
        if all(min(rule(n_r, s_r), n_r) == got_r for n_r, s_r, got_r in rows if n_r):
            return hint
    return ("select EXACTLY k = min(max_predictions, max(1, round(0.15 * n))) positions per row, e.g. the k "
            "candidates with the smallest random keys (a coin per token gives k only on average)")


def _mask_problem(case: str, ids, special, cap, out, check_count: bool = True,
                  vocab=(MASK, V, SPECIAL_IDS)) -> str | None:
    """The first broken promise of one call, described; None when all hold. `vocab`: (mask_token_id,
    vocab_size, special_token_ids) of the call."""
    mask_id, vocab_size, special_ids = vocab
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        return f"{case}: expected a tuple (masked_ids, labels), received {type(out).__name__}"
    got = []
    for name, t in zip(("masked_ids", "labels"), out):
        t, problem = as_ids(t, ids.shape)
        if problem:
            return f"{case}: {name} {problem}"
        got.append(t)
    masked, labels = got
    if (labels != IGNORE).all() and special.any():
        return (f"{case}: every position has a label, the special tokens too; expected -100 at every "
                "position that was not selected\n  hint: the loss must count only the selected positions: "
                "start from labels full of -100 and copy the original id at the selected ones")
    for b, t in (special & (labels != IGNORE)).nonzero().tolist():
        return (f"{case}: position ({b}, {t}) holds the special token {int(ids[b, t])} "
                f"(special_tokens_mask is True there) but was selected: its label is {int(labels[b, t])}, "
                "expected -100\n  hint: select only among the positions where special_tokens_mask is False")
    for b, t in ((labels != IGNORE) & (labels != ids)).nonzero().tolist():
        hint = ("your labels hold the corrupted ids: take them from the original input_ids (clone before "
                "you replace anything)" if int(labels[b, t]) == int(masked[b, t]) else
                "a label is the ORIGINAL id at a selected position, -100 elsewhere")
        return (f"{case}: at position ({b}, {t}) the original id is {int(ids[b, t])} and the label "
                f"{int(labels[b, t])}; expected {int(ids[b, t])} (or -100 if not selected)\n  hint: {hint}")
    for b, t in ((labels == IGNORE) & (masked != ids)).nonzero().tolist():
        return (f"{case}: position ({b}, {t}) was changed from {int(ids[b, t])} to {int(masked[b, t])} but has "
                "label -100\n  hint: only selected positions may change, and every selected position "
                "carries its original id as label")
    rows = [(int((~special[b]).sum()), int((special[b] & (ids[b] != PAD)).sum()), int((labels[b] != IGNORE).sum()))
            for b in range(ids.shape[0])]  # (candidates, [CLS] and [SEP]s, selected) per row
    for b, (n, _, got_k) in enumerate(rows if check_count else []):
        if got_k != expected_count(n, cap):
            return (f"{case}: row {b} has {n} candidates, so it must get exactly {expected_count(n, cap)} "
                    f"selected (max_predictions={cap}); received {got_k}\n  hint: "
                    + _count_hint(b, rows, ids.shape[1], cap))
    changed = (labels != IGNORE) & (masked != ids) & (masked != mask_id)
    bad = masked[changed & ((masked < 0) | (masked >= vocab_size))]
    if len(bad):
        return (f"{case}: masked_ids contains {int(bad[0])}, outside the vocabulary [0, {vocab_size})\n  hint: random "
                "ids come from [0, vocab_size)")
    drawn = masked[changed]
    specials = [i for i in drawn.tolist() if i in special_ids]
    if specials:
        return (f"{case}: a random replacement is the special id {specials[0]} (special_token_ids = "
                f"{special_ids})\n  hint: draw random ids only among the ids that are not special (Google's "
                "code and transformers draw from the whole vocabulary; this exercise, like minibert, does not)")
    return None


def _masking_run(fn, case, ids, special, cap, generator, check_count=True, vocab=(MASK, V, SPECIAL_IDS)):
    original, original_special = ids.clone(), special.clone()
    out = call(fn, case, ids, special, vocab[0], vocab[1], list(vocab[2]), cap, generator)
    if not torch.equal(ids, original):
        raise ExerciseError(f"{case}: your function changed input_ids in place\n  hint: work on a copy "
                            "(masked = input_ids.clone()); the labels need the original ids")
    if not torch.equal(special, original_special):
        raise ExerciseError(f"{case}: your function changed special_tokens_mask in place; leave it as it is")
    problem = _mask_problem(case, original, special, cap, out, check_count, vocab)
    if problem:
        raise ExerciseError(problem)
    return tuple(as_ids(t, ids.shape)[0] for t in out)


def _seeded(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _rate(name, count, total, p, too_low: str, too_high: str):
    expect_rate(name, count, total, p, hint=too_low if count < p * total else too_high)


def mask_tokens(fn) -> None:
    """`fn(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids, max_predictions,
    generator) -> (masked_ids, labels)`, all (B, T)."""
    where = f"mask_token_id={MASK}, vocab_size={V}, special_token_ids={SPECIAL_IDS}"
    _exact_counts(fn, where)
    lengths = [n for n in range(4, 61) if n % 20 != 10] * 20  # 15% of n is never a half
    ids, special = _rows(lengths, 64, seed=2018)
    case = f"{ids.shape[0]} seeded rows of 64 tokens (4 to 60 candidates), {where}, max_predictions=20"
    masked, labels = _masking_run(fn, f"{case}, generator seed 0", ids, special, 20, _seeded(0))
    _draws_from_the_generator(fn, case, ids, special, masked, labels)
    n_sel = _the_80_10_10(case, ids, special, masked, labels)
    _bert_special_ids(fn)
    from .replacement_pool import small_pool  # here: that module builds on this one's helpers
    n_small = small_pool(fn)
    passed("mask_tokens", f"7 hand-built cases (97 calls) hold every promise, and {n_sel:,} selections "
                          f"in {ids.shape[0]} rows match the rule (exactly round(15%) per row, 80/10/10); "
                          f"with 3 ids to draw from, {n_small:,} selections keep their token 10% + 10%/3 of "
                          "the time")


def _exact_counts(fn, where: str) -> None:
    """Specials only, then rows built by hand: exactly k = min(max_predictions, max(1, round(15% n)))
    selected positions per row, whatever the seed."""
    ids = torch.tensor([[CLS, SEP, PAD, PAD]])
    _masking_run(fn, f"input_ids = {ids.tolist()} (specials only), {where}, max_predictions=20",
                 ids, torch.ones_like(ids, dtype=torch.bool), 20, _seeded(0))
    # by hand: 3 candidates (15% rounds to 0: one), 17 (2.55: three), 200 with and without the cap, 30 (4.5:
    # round() sends a half to the even number, four) and 7 (1.05: one); a cap of 0 is a cap (`cap or n` is not)
    for lengths, T, cap in (([3, 1], 8, 20), ([17], 24, 20), ([200, 40], 210, 20), ([200, 30, 7], 210, None),
                            ([5, 0, 60], 64, 2), ([17, 4], 24, 0)):
        ids, special = _rows(lengths, T, seed=len(lengths) + T)
        case = (f"rows of {lengths} candidates padded to T={T} ([CLS]={CLS}, [SEP]={SEP}, [PAD]={PAD}), "
                f"{where}, max_predictions={cap}")
        counts = [(_masking_run(fn, f"{case}, generator seed {seed}", ids, special, cap, _seeded(seed),
                                check_count=False)[1] != IGNORE).sum(1).tolist() for seed in range(8)]
        for b, n in enumerate(lengths):
            seen = sorted({c[b] for c in counts})
            if len(seen) > 1:
                raise ExerciseError(f"{case}, generator seeds 0..7: row {b} has {n} candidates and got {seen} "
                                    f"selected positions depending on the seed; it must get exactly "
                                    f"{expected_count(n, cap)} every time\n  hint: a coin per token gives 15% "
                                    "only on average; select EXACTLY k = min(max_predictions, max(1, "
                                    "round(0.15 * n))) positions per row, e.g. the k candidates with the "
                                    "smallest random keys")
        for seed in range(8):
            _masking_run(fn, f"{case}, generator seed {seed}", ids, special, cap, _seeded(seed))


def _draws_from_the_generator(fn, case: str, ids, special, masked, labels) -> None:
    """The same seed gives the same masks, another seed others, and one generator used twice advances."""
    again = _masking_run(fn, f"{case}, generator seed 0", ids, special, 20, _seeded(0))
    if not (torch.equal(masked, again[0]) and torch.equal(labels, again[1])):
        raise ExerciseError(f"{case}: two calls with generators seeded 0 gave different results\n  hint: draw "
                            "every random number from `generator` (torch.rand(..., generator=generator)), "
                            "never from the global random state")
    other = _masking_run(fn, f"{case}, generator seed 1", ids, special, 20, _seeded(1))
    if torch.equal(labels, other[1]):
        raise ExerciseError(f"{case}: generators seeded 0 and 1 selected exactly the same positions\n  hint: "
                            "select at random, with the generator you are given (not one you create or seed "
                            "inside the function)")
    g = _seeded(5)
    first, second = (_masking_run(fn, f"{case}, one generator (seed 5) used twice", ids, special, 20, g)
                     for _ in range(2))
    if torch.equal(first[1], second[1]):
        raise ExerciseError(f"{case}: two calls with the same generator object gave the same masks\n  hint: "
                            "draw from the generator itself (not from a copy of its state), so that it "
                            "advances: dynamic masking needs new masks on every call")


def _the_80_10_10(case: str, ids, special, masked, labels) -> int:
    """Uniform over a row's candidates; of the selected, 80% [MASK], 10% random (any non-special id),
    10% kept. Returns how many positions were selected."""
    candidates, selected = ~special, labels != IGNORE
    n_sel = int(selected.sum())
    first_cols = candidates.clone()
    first_cols[:, 16:] = False
    _rate(f"{case}: selected among the candidates of the first 16 columns", int((selected & first_cols).sum()),
          int(first_cols.sum()), n_sel / int(candidates.sum()),
          "the selection must be uniform over a row's candidates, not favour its last positions",
          "the selection must be uniform over a row's candidates, not favour its first positions (shuffle "
          "them, or rank them by a random key)")
    shown_mask, kept = selected & (masked == MASK), selected & (masked == ids)
    changed = selected & ~shown_mask & ~kept
    _rate(f"{case}: [MASK] among the selected positions", int(shown_mask.sum()), n_sel, P_MASK,
          "too few [MASK]: if the random replacement is drawn separately, it overwrites some [MASK]s; "
          "decide each selected position's fate with ONE uniform draw u (u < 0.8: [MASK]; u < 0.9: random; "
          "else kept)",
          "too many [MASK]: only 80% of the selected positions become [MASK]; did the random ones become "
          "[MASK] too, or did you reuse the draw that selected the position (its key is small) as the fate?")
    _rate(f"{case}: random replacements among the selected positions", int(changed.sum()), n_sel,
          P_RANDOM * (1 - 1 / POOL),
          "10% of the selected positions get a random id; is the random branch missing, or overwritten?",
          "too many random replacements: only 10% of the selected positions; with two separate draws, "
          "the second must split the remaining 20% in half (0.5), not use the cumulative 0.9")
    _rate(f"{case}: kept (unchanged) among the selected positions", int(kept.sum()), n_sel,
          P_KEEP + P_RANDOM / POOL,
          "10% of the selected positions must keep their token (and still carry a label)",
          "too many kept: 10% only; 80% [MASK] and 10% random")
    drawn = Counter(masked[changed].tolist())
    never = [i for i in range(V) if i not in SPECIAL_IDS and not drawn[i]]
    if never:
        raise ExerciseError(f"{case}: {sum(drawn.values())} random replacements never took the id "
                            f"{never[0]} ({len(never)} non-special ids never drawn)\n  hint: draw one id per "
                            "position, uniformly among ALL the non-special ids of [0, vocab_size) "
                            "(torch.randint's upper bound is excluded)")
    return n_sel


def _bert_special_ids(fn) -> None:
    """BERT's special ids are not the first ids of its vocabulary ([PAD] 0, [UNK] 100, [CLS] 101, [SEP] 102,
    [MASK] 103; ids 1-99 are ordinary): a pool built as range(len(special_token_ids), vocab_size) or
    range(max(special_token_ids) + 1, vocab_size), or kept from an earlier call, passes the vocabulary
    above, whose specials come first, but not this one."""
    pad, unk, cls, sep, mask, vocab_size = 0, 100, 101, 102, 103, 120
    special_ids = [pad, unk, cls, sep, mask]
    ordinary = torch.tensor([i for i in range(vocab_size) if i not in special_ids])
    ids = ordinary[torch.randint(len(ordinary), (200, 64), generator=_seeded(103))]
    ids[:, 0], ids[:, -1] = cls, sep
    special = (ids == cls) | (ids == sep)
    case = (f"200 rows of 64 tokens, mask_token_id={mask}, vocab_size={vocab_size}, special_token_ids={special_ids} "
            "(BERT's ids: [PAD] 0, [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103), max_predictions=20, generator seed 0")
    masked, labels = _masking_run(fn, case, ids, special, 20, _seeded(0), vocab=(mask, vocab_size, special_ids))
    drawn = masked[(labels != IGNORE) & (masked != ids) & (masked != mask)]
    low = int(((drawn >= 1) & (drawn < unk)).sum())  # the 99 ordinary ids below the specials
    expect_rate(f"{case}: random replacements among the ids 1-99", low, len(drawn), 99 / len(ordinary),
                hint="draw among every id of [0, vocab_size) that is not in special_token_ids (BERT's specials are "
                     "not the first ids: build the pool from the list on every call)")
