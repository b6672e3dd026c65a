"""The checker of exercise 4.1: the 15% selection and the 80/10/10 rule."""

from __future__ import annotations

from collections import Counter

import torch

from ..common import ExerciseError, call, expect_equal, expect_rate, passed

# ---- 4.1 masking ---------------------------------------------------------------------------------

PAD, CLS, SEP, MASK = 0, 101, 102, 103  # BERT's ids for the special tokens
V = 1000  # a small vocabulary, so that random replacements can be seen to spread over it
MLM, P_MASK, P_RANDOM, P_KEEP = 0.15, 0.8, 0.1, 0.1
IGNORE = -100


def _small_rows():
    """Two rows of ten: [CLS] A [SEP] B [SEP] [PAD] [PAD], and [CLS] eight tokens [SEP]."""
    ids = torch.tensor([[CLS, 500, 501, 502, SEP, 503, 504, SEP, PAD, PAD],
                        [CLS, 505, 506, 507, 508, 509, 510, 511, 512, SEP]])
    return ids, (ids == CLS) | (ids == SEP) | (ids == PAD)


def _many_rows(rows: int = 1000, T: int = 64):
    """Rows of [CLS] A [SEP] B [SEP] and padding, alternately 60 and 40 candidates (15% of either
    is a whole number, so an exact per-row rule and a coin per token have the same mean)."""
    g = torch.Generator().manual_seed(2018)
    ids = torch.full((rows, T), PAD)
    for r in range(rows):
        n = 60 if r % 2 == 0 else 40
        len_a = int(torch.randint(1, n, (), generator=g))
        words = torch.randint(MASK + 1, V, (n,), generator=g).tolist()
        ids[r, :n + 3] = torch.tensor([CLS, *words[:len_a], SEP, *words[len_a:], SEP])
    return ids, (ids == CLS) | (ids == SEP) | (ids == PAD)


def _mask_problem(case: str, ids, special, out) -> str | None:
    """The first broken invariant of one call, described; None when all hold."""
    if not (isinstance(out, tuple) and len(out) == 2):
        return f"{case}: expected a tuple (masked_ids, labels), received {type(out).__name__}"
    masked, labels = out
    for name, t in (("masked_ids", masked), ("labels", labels)):
        if not isinstance(t, torch.Tensor):
            return f"{case}: {name} must be a tensor, received {type(t).__name__}"
        if t.shape != ids.shape:
            return f"{case}: {name} has shape {tuple(t.shape)}, expected {tuple(ids.shape)} (the shape of input_ids)"
        if t.dtype != torch.long:
            return (f"{case}: {name} has dtype {t.dtype}, expected torch.long (token ids; cross_entropy "
                    "wants long labels)")
    if (labels != IGNORE).all() and special.any():
        return (f"{case}: every position has a label, the special tokens too; expected -100 at every "
                "position that was not selected\n  hint: the loss must count only the selected 15%: "
                "start from labels full of -100 and copy the original id at the selected positions")
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
    if ((masked < 0) | (masked >= V)).any():
        bad = int(masked[(masked < 0) | (masked >= V)][0])
        return (f"{case}: masked_ids contains {bad}, outside the vocabulary [0, {V})\n  hint: random ids "
                "are drawn with torch.randint(vocab_size, ...)")
    return None


def _masking_run(fn, case, ids, special, seed):
    original = ids.clone()
    out = call(fn, case, ids, special.clone(), MASK, V, torch.Generator().manual_seed(seed))
    if not torch.equal(ids, original):
        raise ExerciseError(f"{case}: your function changed input_ids in place\n  hint: work on a copy "
                            "(masked = input_ids.clone()); the labels need the original ids")
    problem = _mask_problem(case, original, special, out)
    if problem:
        raise ExerciseError(problem)
    return out


def _rate(name, count, total, p, too_low: str, too_high: str):
    expect_rate(name, count, total, p, hint=too_low if count < p * total else too_high)


def mask_tokens(fn) -> None:
    """`fn(input_ids, special_tokens_mask, mask_token_id, vocab_size, generator) -> (masked_ids, labels)`,
    all (B, T): 15% of the non-special positions selected, 80% of those [MASK], 10% random, 10% kept."""
    ids = torch.tensor([[CLS, PAD, SEP, PAD]])
    where = (f"input_ids = {ids.tolist()} (specials only), special_tokens_mask all True, "
             f"mask_token_id={MASK}, vocab_size={V}")
    masked, labels = _masking_run(fn, where, ids, torch.ones_like(ids, dtype=torch.bool), 0)
    expect_equal(f"{where}: masked_ids", masked, ids, hint="nothing can be selected, so nothing may change")
    expect_equal(f"{where}: labels", labels, torch.full_like(ids, IGNORE), hint="nothing is selected: all -100")

    ids, special = _small_rows()
    for seed in range(25):
        _masking_run(fn, f"input_ids = {ids.tolist()} ([CLS]={CLS}, [SEP]={SEP}, [PAD]={PAD}), "
                         f"mask_token_id={MASK}, vocab_size={V}, generator seed {seed}", ids, special, seed)

    ids, special = _many_rows()
    case = f"{ids.shape[0]} seeded rows of {ids.shape[1]} tokens (40 or 60 candidates each), vocab_size={V}"
    masked, labels = _masking_run(fn, f"{case}, generator seed 0", ids, special, 0)
    again = _masking_run(fn, f"{case}, generator seed 0", ids, special, 0)
    if not (torch.equal(masked, again[0]) and torch.equal(labels, again[1])):
        raise ExerciseError(f"{case}: two calls with generators seeded 0 gave different results\n  hint: draw "
                            "every random number from `generator` (torch.rand(..., generator=generator)), "
                            "never from the global random state")
    other = _masking_run(fn, f"{case}, generator seed 1", ids, special, 1)
    if torch.equal(labels, other[1]):
        raise ExerciseError(f"{case}: generators seeded 0 and 1 selected exactly the same positions\n  hint: "
                            "use the generator you are given, not one you create inside the function")

    candidates, selected = ~special, labels != IGNORE
    n_cand, n_sel = int(candidates.sum()), int(selected.sum())
    _rate(f"{case}: selected among the non-special positions", n_sel, n_cand, MLM,
          "select 15% of the candidates (each with probability 0.15, or round(15%) of each row)",
          "too many selected: did you take 15% of all T positions, padding and specials included, "
          "and then choose them among the candidates?")
    first = candidates.clone()
    first[:, ids.shape[1] // 4:] = False
    _rate(f"{case}: selected among the candidates of the first {ids.shape[1] // 4} columns",
          int((selected & first).sum()), int(first.sum()), MLM,
          "the selection must be uniform over the candidates of a row",
          "the selection must be uniform over the candidates of a row, not favour its first positions")
    shown_mask = selected & (masked == MASK)
    kept = selected & (masked == ids)
    changed = selected & ~shown_mask & ~kept
    _rate(f"{case}: [MASK] among the selected positions", int(shown_mask.sum()), n_sel, P_MASK,
          "too few [MASK]: if the random replacement is drawn separately, it overwrites some [MASK]s; "
          "decide each selected position's fate with ONE uniform draw u (u < 0.8: [MASK]; u < 0.9: random; "
          "else kept)",
          "too many [MASK]: only 80% of the selected positions become [MASK]; did the 10% random ones "
          "become [MASK] too?")
    _rate(f"{case}: random replacements among the selected positions", int(changed.sum()), n_sel,
          P_RANDOM * (1 - 1 / V),
          "10% of the selected positions get a random id; is the random branch missing, or overwritten?",
          "too many random replacements: only 10% of the selected positions; with two separate draws, "
          "the second must split the remaining 20% in half (0.5), not use the cumulative 0.9")
    _rate(f"{case}: kept (unchanged) among the selected positions", int(kept.sum()), n_sel, P_KEEP + P_RANDOM / V,
          "10% of the selected positions must keep their token (and still carry a label)",
          "too many kept: 10% only; 80% [MASK] and 10% random")

    random_ids = masked[changed]
    if len(random_ids) > 10 and len(set(random_ids.tolist())) < len(random_ids) // 4:
        top, count = Counter(random_ids.tolist()).most_common(1)[0]
        distinct = len(set(random_ids.tolist()))
        raise ExerciseError(f"{case}: {len(random_ids)} random replacements take only {distinct} distinct "
                            f"id{'s' if distinct > 1 else ''} ({top} appears {count} times)\n  hint: "
                            "draw one random id per position: torch.randint(vocab_size, input_ids.shape, "
                            "generator=generator), then keep it where the fate is 'random'")
    passed("mask_tokens", f"2 hand-built cases (26 calls) hold every invariant, and {n_sel:,} selections "
                          f"in {ids.shape[0]} random rows match minibert's rates (15%, 80/10/10)")
