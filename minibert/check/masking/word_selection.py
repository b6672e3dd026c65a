"""The checker of exercise 4.4: whole-word masking's selection, Google's rule: shuffle the words, take
them in that order while their pieces fit in num_to_predict, skip a word that would overflow it."""

from __future__ import annotations

import numbers
import random
from collections import Counter

from ..common import ExerciseError, call, expect_rate, passed

# ---- 4.4 whole words, at most num_to_predict pieces ----------------------------------------------


def _positions(case, out, groups) -> tuple[list[int] | None, str | None]:
    """The selected positions, sorted, or the reason they are not a valid answer."""
    if hasattr(out, "tolist"):
        out = out.tolist()
    if not isinstance(out, (list, tuple, set, frozenset)):
        return None, f"{case}: expected a list of positions, received {type(out).__name__}"
    if not all(isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in out):
        return None, f"{case}: positions must be ints, received {sorted(out, key=str)!r}"
    out = [int(p) for p in out]
    twice = [p for p, c in Counter(out).items() if c > 1]
    if twice:
        return None, f"{case}: position {twice[0]} is selected twice"
    known = {p for g in groups for p in g}
    strange = [p for p in out if p not in known]
    if strange:
        return None, (f"{case}: position {strange[0]} is in no word (the positions are those of groups, "
                      "[CLS], [SEP] and [PAD] are in none)")
    return sorted(out), None


def _selection_problem(case, groups, k, out) -> tuple[list[int] | None, str | None]:
    chosen, problem = _positions(case, out, groups)
    if problem:
        return None, problem
    taken = set(chosen)
    for g in groups:
        inside = [p for p in g if p in taken]
        if 0 < len(inside) < len(g):
            return None, (f"{case}: the word at positions {list(g)} is torn: you selected {inside} of it\n  "
                          "hint: select whole words, every piece of a chosen word or none")
    if len(chosen) > k:
        return None, (f"{case}: {len(chosen)} positions selected, more than num_to_predict={k}\n  hint: skip a "
                      "word whose pieces would take the count past num_to_predict (Google's code does: "
                      "`if len(masked_lms) + len(index_set) > num_to_predict: continue`)")
    fits = [list(g) for g in groups if g[0] not in taken and len(chosen) + len(g) <= k]
    if fits:
        return None, (f"{case}: {len(chosen)} positions selected of num_to_predict={k}, but the word "
                      f"{fits[0]} ({len(fits[0])} piece{'s' if len(fits[0]) > 1 else ''}) was left out and "
                      "still fits\n  hint: a word that would overflow is skipped, and the walk goes on to the "
                      "next word (continue, not break): a later, shorter word may fill the gap")
    return chosen, None


def _run(fn, case, groups, k, rng):
    given = [list(g) for g in groups]
    out = call(fn, case, given, k, rng)
    if given != [list(g) for g in groups]:
        raise ExerciseError(f"{case}: your function changed the groups it was given (now {given})\n  hint: "
                            "shuffle a copy (order = list(groups); rng.shuffle(order)), or shuffle indices")
    chosen, problem = _selection_problem(case, groups, k, out)
    if problem:
        raise ExerciseError(problem)
    return chosen


def whole_word_selection(fn) -> None:
    """`fn(groups, num_to_predict, rng) -> positions`: whole words in a random order while they fit."""
    groups = [[1], [2, 3, 4], [5], [6, 7]]
    for k, seeds in ((0, 3), (1, 20), (3, 40), (7, 5), (20, 5)):
        for seed in range(seeds):
            chosen = _run(fn, f"groups = {groups}, num_to_predict = {k}, rng = random.Random({seed})",
                          groups, k, random.Random(seed))
            if k >= 7 and len(chosen) != 7:
                raise ExerciseError(f"groups = {groups}, num_to_predict = {k}: every word fits, so all 7 "
                                    f"positions are selected; received {chosen}")
    case = f"groups = {groups}, num_to_predict = 3, rng = random.Random(0..9), each seed called twice"
    first, second = ([_run(fn, case, groups, 3, random.Random(seed)) for seed in range(10)] for _ in range(2))
    if first != second:
        raise ExerciseError(f"{case}: the two calls gave different selections\n  hint: draw every random "
                            "number from rng (rng.shuffle, rng.random), not from the random module")
    if len({tuple(c) for c in first}) == 1:
        raise ExerciseError(f"{case}: all ten seeds selected {first[0]}\n  hint: shuffle the words with rng "
                            "and walk them in that order (no sorting by length)")

    # Uniform order: a three-piece word before four one-piece words, num_to_predict = 3. It is taken only
    # if the shuffle puts it first (then nothing else fits): 1 time in 5.
    groups = [[1, 2, 3], [4], [5], [6], [7]]
    picked = Counter()
    for seed in range(3000):
        chosen = _run(fn, f"groups = {groups}, num_to_predict = 3, rng = random.Random({seed})", groups, 3,
                      random.Random(seed))
        picked.update(p for p in chosen if p in (1, 7))
    expect_rate(f"groups = {groups}, num_to_predict = 3, seeds 0..2999: the word [1, 2, 3] selected",
                picked[1], 3000, 0.2, hint="shuffle the words uniformly and walk them in that order; the long "
                "word is taken only when it comes first (1 time in 5)")
    expect_rate(f"groups = {groups}, num_to_predict = 3, seeds 0..2999: the word [7] selected", picked[7], 3000,
                0.6, hint="each one-piece word must be as likely as the others: unless the long word comes first "
                "(1 in 5), the first three one-piece words of the order are taken (3 in 4)")

    _pairs_taken_together(fn)
    rng = random.Random(7)
    for trial in range(300):  # real-looking rows: words of 1 to 4 pieces after [CLS]
        groups, t = [], 1
        for _ in range(rng.randint(1, 30)):
            n = rng.choice((1, 1, 1, 2, 3, 4))
            groups.append(list(range(t, t + n)))
            t += n + (rng.random() < 0.1)  # now and then a [SEP] between words
        k = max(1, round(0.15 * t))
        _run(fn, f"groups = {groups}, num_to_predict = {k}, rng = random.Random({trial})", groups, k,
             random.Random(trial))
    passed("whole_word_selection", "hand cases (73 calls), a uniform order (3,000 and 1,200 seeds) and 300 random "
                                   "rows: whole words only, never past num_to_predict, nothing that still fits "
                                   "left out")


def _pairs_taken_together(fn) -> None:
    """Four one-piece words, two taken: a uniform shuffle takes each of the 6 pairs 1 time in 6, so the two
    pairs of words apart, [1, 3] and [2, 4], 1 time in 3. A walk that only starts at a random word and goes
    on in position order (a rotation, not a shuffle) takes neighbours only."""
    groups = [[1], [2], [3], [4]]
    apart = sum(_run(fn, f"groups = {groups}, num_to_predict = 2, rng = random.Random({seed})", groups, 2,
                     random.Random(seed)) in ([1, 3], [2, 4]) for seed in range(1200))
    hint = "shuffle the words uniformly (rng.shuffle on a copy): every pair of words must be as likely"
    if apart == 0:
        hint = ("words that are not neighbours were never taken together: a random start walked in position "
                "order (a rotation) is not a shuffle; rng.shuffle a copy of the words")
    expect_rate(f"groups = {groups}, num_to_predict = 2, seeds 0..1199: [1, 3] or [2, 4] selected", apart, 1200,
                1 / 3, hint=hint)
