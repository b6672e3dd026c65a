"""The checker of exercise 1.3: one training step, the pair scores freq(ab) / (freq(a) * freq(b))."""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Mapping

from ...tokenizer import learn
from ..common import ExerciseError, call, passed, valid_lines

# ---- Exercise 1.3 · one training step: the pair scores --------------------------------------------

_TOY_COUNTS = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}  # chapter 01's toy corpus (Hugging Face's course)
_TOY_SPLITS = {"hug": ["h", "##u", "##g"], "pug": ["p", "##u", "##g"], "pun": ["p", "##u", "##n"],
               "bun": ["b", "##u", "##n"], "hugs": ["h", "##u", "##g", "##s"]}
_REPEAT_COUNTS = {"aaaa": 3, "ab": 2, "a": 1}
_REPEAT_SPLITS = {"aaaa": ["a", "##a", "##a", "##a"], "ab": ["a", "##b"], "a": ["a"]}
# ('ab', '##c') and ('a', '##bc') both merge into 'abc': freq(ab) counts the pair, not the merged string.
_SAME_MERGE_COUNTS = {"abc": 2, "abcx": 3}
_SAME_MERGE_SPLITS = {"abc": ["ab", "##c"], "abcx": ["a", "##bc", "##x"]}
_MERGED_STRING = ("count the pair (a, b) itself, not the string it merges into: ('ab', '##c') and ('a', '##bc') "
                  "both make 'abc', yet each is a pair of its own")
_MERGED_COUNTS = {"hug": 10, "hugs": 5, "bug": 2}
_MERGED_SPLITS = {"hug": ["hug"], "hugs": ["hug", "##s"], "bug": ["b", "##ug"]}
# Two dicts need not list their words in the same order (splits rebuilt by a merge, read from a file...).
_ORDER_COUNTS = {"ab": 1, "cd": 3}
_ORDER_SPLITS = {"cd": ["c", "##d"], "ab": ["a", "##b"]}

# (name, word counts, splits, expected scores worked out by hand, {(pair, wrong value): what went wrong})
PAIR_CASES = [
    ("the toy corpus of chapter 01", _TOY_COUNTS, _TOY_SPLITS,
     # freq(##u) = 36 (every word), freq(##g) = 20, freq(##s) = 5; h, p, b, ##n: 15, 17, 4, 16
     {("h", "##u"): 15 / (15 * 36), ("##u", "##g"): 20 / (36 * 20), ("p", "##u"): 17 / (17 * 36),
      ("##u", "##n"): 16 / (36 * 16), ("b", "##u"): 4 / (4 * 36), ("##g", "##s"): 5 / (20 * 5)},
     {(("##g", "##s"), 5.0): "that is freq(ab) alone: divide it by freq(a) × freq(b)",
      (("##g", "##s"), 1 / 100): "count each pair once per occurrence in the corpus: 'hugs' occurs 5 times, so "
                                  "('##g', '##s') occurs 5 times, not once (weight by the word's count)",
      (("##g", "##s"), 5 / 3): "freq(a) counts every occurrence of the piece in the corpus, weighted by the word "
                               "counts (freq('##g') = 10 + 5 + 5 = 20), not the number of distinct words holding it",
      (("##g", "##s"), 1 / 3): "weight both the pair counts and the piece counts by how often each word occurs",
      (("##g", "##s"), 0.0): "integer division (//) rounds every score to 0: divide with /",
      (("##g", "##s"), 5 / 25): "multiply freq(a) × freq(b), do not add them",
      (("##g", "##s"), 5 * 113 / (20 * 5)): "use the counts themselves, not counts divided by the number of pieces N "
                                            "(p(ab) / (p(a) p(b)) multiplies every score by N)"}),
    ("a repeated piece and a one-piece word", _REPEAT_COUNTS, _REPEAT_SPLITS,
     # freq(a) = 3 + 2 + 1 = 6, freq(##a) = 3 × 3 = 9, freq(##b) = 2; pairs: (a, ##a) 3, (##a, ##a) 6, (a, ##b) 2
     {("a", "##a"): 3 / (6 * 9), ("##a", "##a"): 6 / (9 * 9), ("a", "##b"): 2 / (6 * 2)},
     {(("##a", "##a"), 3 / 81): "'aaaa' holds the pair ('##a', '##a') twice: count every adjacent position, "
                                "not each distinct pair once per word",
      (("a", "##b"), 2 / 10): "the word 'a' is a single piece: it has no pair, but its 'a' still counts in "
                              "freq('a') = 6"}),
    ("two pairs that merge into the same string", _SAME_MERGE_COUNTS, _SAME_MERGE_SPLITS,
     # freq(ab) = 2, freq(##c) = 2, freq(a) = 3, freq(##bc) = 3, freq(##x) = 3
     {("ab", "##c"): 2 / (2 * 2), ("a", "##bc"): 3 / (3 * 3), ("##bc", "##x"): 3 / (3 * 3)},
     {(("ab", "##c"), 5 / 4): _MERGED_STRING,
      (("a", "##bc"), 5 / 9): _MERGED_STRING}),
    ("pieces after some merges", _MERGED_COUNTS, _MERGED_SPLITS,
     # freq(hug) = 15, freq(##s) = 5, freq(b) = 2, freq(##ug) = 2
     {("hug", "##s"): 5 / (15 * 5), ("b", "##ug"): 2 / (2 * 2)}, {}),
    ("splits listing the words in another order than word_counts", _ORDER_COUNTS, _ORDER_SPLITS,
     # freq(a) = freq(##b) = freq(a ##b) = 1; freq(c) = freq(##d) = freq(c ##d) = 3
     {("a", "##b"): 1 / (1 * 1), ("c", "##d"): 3 / (3 * 3)},
     {(("a", "##b"), 1 / 3): "each word's count went to another word's pieces: look the pieces up by the word, "
                             "splits[word], rather than walking the two dicts side by side (zip of their values "
                             "assumes one order)"}),
]


# float32 arithmetic (torch's true division of integer tensors) is off by a few 1e-7; every mistake below is
# off by far more.
_REL_TOL = 1e-6


def _check_scores(case: str, got, expected: dict, slips: dict, hint: str = "") -> None:
    if isinstance(got, Mapping) and got and all(isinstance(k, str) for k in got):
        raise ExerciseError(f"{case}: the keys of your dict are strings ({next(iter(got))!r}, ...)\n  hint: key each "
                            "score by the pair itself, a tuple (a, b) such as ('##g', '##s')")
    if not isinstance(got, Mapping):
        raise ExerciseError(f"{case}: expected a dict {{(a, b): score}}, received {type(got).__name__}: "
                            f"{got!r}"[:600])
    extra = [p for p in got if p not in expected]
    if extra:
        raise ExerciseError(f"{case}: your dict has pairs that are not two adjacent pieces of one word: "
                            f"{sorted(extra, key=repr)[:6]!r}\n  expected only {sorted(expected)[:12]!r}"
                            "\n  hint: a pair is two pieces next to each other inside one word (keys are tuples "
                            "(a, b)); the last piece of a word and the first of the next word are never a pair")
    missing = [p for p in expected if p not in got]
    if missing:
        raise ExerciseError(f"{case}: pairs missing from your dict: {sorted(missing)[:6]!r}"
                            + (f"\n  hint: {hint}" if hint else ""))
    wrong = []
    for pair, want in expected.items():
        try:
            value = float(got[pair])
        except (TypeError, ValueError):
            raise ExerciseError(f"{case}: the score of {pair!r} is {got[pair]!r}, not a number") from None
        if not math.isclose(value, want, rel_tol=_REL_TOL, abs_tol=1e-12):
            wrong.append((pair, want, value))
    if wrong:
        # Show a pair whose wrong value gives the mistake away, if there is one; else the first.
        known = [(w, text) for w in wrong for (p, slip), text in slips.items()
                 if p == w[0] and math.isclose(w[2], slip, rel_tol=_REL_TOL)]
        (pair, want, value), why = known[0] if known else (wrong[0], hint or (
            "score = freq(ab) / (freq(a) × freq(b)), every frequency weighted by the word counts"))
        raise ExerciseError(f"{case}: {len(wrong)} of {len(expected)} scores differ; the score of {pair!r}:"
                            f"\n  expected {want!r}\n  received {value!r}\n  hint: {why}")


def _random_corpus(rng: random.Random) -> tuple[dict, dict]:
    letters = "abcde"[: rng.randint(2, 5)]
    counts = {}
    for _ in range(rng.randint(3, 25)):
        counts["".join(rng.choice(letters) for _ in range(rng.randint(1, 7)))] = rng.randint(1, 50)
    return counts, learn.initial_splits(counts)


def _merge_some(rng: random.Random, counts: dict, splits: dict, n: int) -> dict:
    for _ in range(n):
        pairs = sorted(learn.count_pairs(counts, splits))
        if not pairs:
            break
        splits = learn.merge_pair(rng.choice(pairs), splits)
    return splits


def pair_scores(fn) -> None:
    """Check `fn(word_counts, splits) -> {(a, b): score}` with score = freq(ab) / (freq(a) × freq(b)),
    all frequencies weighted by the word counts."""
    for name, counts, splits, expected, slips in PAIR_CASES:
        case = f"my_pair_scores({counts!r}, splits) [{name}; splits = {splits!r}]"
        given_counts, given_splits = copy.deepcopy(counts), copy.deepcopy(splits)
        got = call(fn, case, given_counts, given_splits)
        if given_counts != counts or given_splits != splits:
            raise ExerciseError(f"{case}: your function changed its input (word_counts or splits)\n  hint: count "
                                "into new Counters; the trainer still needs the splits it gave you")
        _check_scores(case, got, expected, slips)
        if counts is _TOY_COUNTS:  # the same input again must give the same scores
            again = call(fn, "again", copy.deepcopy(_TOY_COUNTS), copy.deepcopy(_TOY_SPLITS))
            if not isinstance(again, Mapping) or set(again) != set(PAIR_CASES[0][3]) or any(
                    not math.isclose(float(again[k]), v, rel_tol=_REL_TOL) for k, v in PAIR_CASES[0][3].items()):
                raise ExerciseError("my_pair_scores on the toy corpus gave another result when called a second time: "
                                    "something is kept between calls (a Counter made outside the function, or a default "
                                    "argument such as freq=Counter())")

    rng = random.Random(3)
    corpora = []
    for i in range(40):
        counts, splits = _random_corpus(rng)
        corpora.append((f"random corpus {i}", counts, _merge_some(rng, counts, splits, rng.randint(0, 6))))
    lines = valid_lines()
    for i in range(4):
        start = rng.randrange(len(lines) - 60)
        counts = dict(learn.word_counts(lines[start:start + 60]))
        splits = _merge_some(rng, counts, learn.initial_splits(counts), 10 * i)
        corpora.append((f"60 sentences of valid.txt from sentence {start + 1}, after {10 * i} merges", counts, splits))
    for label, counts, splits in corpora:
        shown = repr(counts) if len(counts) <= 8 else f"{len(counts)} words"
        case = f"my_pair_scores({shown}, splits) [{label}]"
        got = call(fn, case, copy.deepcopy(counts), copy.deepcopy(splits))
        _check_scores(case, got, learn.pair_scores(counts, splits), {},
                      hint="compare with minibert.tokenizer.learn.pair_scores(word_counts, splits)")
    passed("pair_scores", f"{len(PAIR_CASES)} hand-computed cases and {len(corpora)} random corpora "
                          "(random words, and sentences of valid.txt, after up to 30 merges) agree with minibert")
