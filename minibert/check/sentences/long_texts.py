"""The checker of exercise 7.1: one text too long for the window, cut to its head and its tail.

Sun, Qiu, Xu & Huang ("How to Fine-Tune BERT for Text Classification?", 2019) compared three cuts of
reviews longer than BERT's 512 tokens: the head only (the first 510), the tail only (the last 510),
and "head+tail: empirically select the first 128 and the last 382 tokens"; head+tail did best on IMDb
and Sogou News. With `max_length` places, [CLS] and [SEP] take two; the text keeps its first `head`
tokens and its last `tail = max_length - 2 - head`. `head = max_length - 2` is BERT's own cut (the
head only), which `minibert.Tokenizer(text, truncation=True, max_length=...)` makes: the real cases
compare with it.
"""

from __future__ import annotations

import operator
import random
from functools import lru_cache

import numpy as np

from ..common import ExerciseError, call, expect_equal, minilm_tokenizer, passed, short

CLS, SEP, PAD = 101, 102, 0  # BERT's uncased vocabulary, MiniLM's too


def _cut(ids, max_length, head, *, places=None, whole_up_to=None, minus_slice=False, tail_shift=0,
         head_shift=0, tail_first=False):
    """[CLS], the first `head` ids, the last `tail` ids, [SEP]; the whole text when it fits. The keyword
    arguments make the usual mistakes; their defaults give the right answer."""
    n = len(ids)
    places = max_length - 2 if places is None else places  # for the text: [CLS] and [SEP] take 2
    if n <= (places if whole_up_to is None else whole_up_to):
        return [CLS, *ids, SEP]
    tail = places - head
    first = ids[:max(0, head + head_shift)]
    last = ids[-tail:] if minus_slice else ids[n - tail + tail_shift:]  # Python's slicing, as a learner's code
    return [CLS, *(last + first if tail_first else first + last), SEP]


def _mistakes(ids, m, h):
    """(hint, the output that mistake gives) for the inputs of one case, the likeliest first."""
    n, t = len(ids), m - 2 - h
    right = _cut(ids, m, h)
    specials = (f"[CLS] and [SEP] take 2 of the max_length={m} places, so the text gets max_length - 2 = "
                f"{m - 2}; yours holds {{k}} tokens of text")
    layout = "one text is laid out as [CLS] text [SEP]: yours has "
    return [
        ("tail = max_length - 2 - head = 0 here, and yours kept the whole text after the head: what does "
         "ids[-0:] return?", _cut(ids, m, h, minus_slice=True)),
        (specials, _cut(ids, m, h, whole_up_to=m)),  # the fit test forgets them
        (specials, _cut(ids, m, h, places=m)),  # the fit test and the cut forget them
        (specials, _cut(ids, m, h, places=m, whole_up_to=m - 2)),  # the cut forgets them
        (specials, _cut(ids, m, h, places=m, minus_slice=True)),
        (f"yours kept the first {t} and the last {h} tokens: head={h} counts from the start, "
         "[ head ... tail ]", _cut(ids, m, t)),
        ("yours put the tail before the head; what is kept stays in the text's order",
         _cut(ids, m, h, tail_first=True)),
        *((f"yours kept {{tail_kept}} tokens from the end: after [CLS], the {h} of the head and [SEP], how many "
           f"of the max_length={m} places are left?", _cut(ids, m, h, tail_shift=d)) for d in (-1, 1)),
        *((f"yours kept {h + d} tokens from the start; head={h}", _cut(ids, m, h, head_shift=d)) for d in (-1, 1)),
        *((f"the text fits here ({n} + 2 <= max_length={m}): nothing is cut, and nothing appears twice",
           _cut(ids, m, h, whole_up_to=-1, minus_slice=minus)) for minus in (False, True)),
        (layout + "no [SEP] at the end", right[:-1]),
        (layout + "no [CLS] at the start", right[1:]),
        (layout + "neither", right[1:-1]),
        ("do not pad: minibert pads each batch to its own longest row later (features.collate)",
         right + [PAD] * (m - len(right))),
    ]


def _as_ids(name, got) -> list[int]:
    if isinstance(got, (str, bytes, dict)) or not hasattr(got, "__iter__"):
        raise ExerciseError(f"{name}: expected a list of token ids, received {short(got)}")
    try:
        return [operator.index(x) for x in got]  # ints, numpy ints, integer tensors; never 101.0
    except TypeError as e:
        raise ExerciseError(f"{name}: expected a list of ints, received {short(got)} ({e})") from e


def _compare(name, fn, ids, max_length, head, expected) -> None:
    given = list(ids)
    got = _as_ids(name, call(fn, name, given, max_length, head, CLS, SEP))
    if given != list(ids):
        raise ExerciseError(f"{name}: your function changed the list it was given (now {short(given)})"
                            "\n  hint: slices are copies (ids[:head]); del, pop() and slice assignment change "
                            "the caller's list")
    if got == expected:
        return
    hint = next((h for h, out in _mistakes(list(ids), int(max_length), int(head)) if out == got), "")
    if not hint and len(got) > max_length:
        hint = f"yours has {len(got)} ids, more than max_length={max_length}"
    kept = len(got) - 2
    expect_equal(name, got, expected, hint.format(k=kept, tail_kept=kept - int(head)))


HAND = [  # (ids, max_length, head, the answer worked out by hand, the lesson)
    (list(range(1, 11)), 7, 2, [101, 1, 2, 8, 9, 10, 102],
     "the worked example: 5 places for text, the first 2 and the last 3"),
    (list(range(1, 6)), 7, 2, [101, 1, 2, 3, 4, 5, 102],
     "5 tokens + [CLS] + [SEP] = 7 = max_length: it fits, nothing is cut"),
    (list(range(1, 6)), 9, 3, [101, 1, 2, 3, 4, 5, 102],
     "a text with room to spare: nothing is cut, nothing repeated, nothing padded"),
    (list(range(1, 7)), 7, 2, [101, 1, 2, 4, 5, 6, 102], "one token too many: the middle loses one"),
    (list(range(1, 11)), 7, 0, [101, 6, 7, 8, 9, 10, 102], "head=0: the tail only"),
    (list(range(1, 11)), 7, 5, [101, 1, 2, 3, 4, 5, 102], "head=max_length-2: BERT's own cut, the head only, tail=0"),
    ([1, 2, 3], 2, 0, [101, 102], "max_length=2: room for [CLS] and [SEP] only"),
    ([], 5, 1, [101, 102], "an empty text: [CLS] [SEP]"),
]

BAD = [  # (ids, max_length, head, the value the message must name, why it is wrong)
    (list(range(1, 11)), 1, 0, "max_length=1", "max_length < 2 leaves no room for [CLS] and [SEP]"),
    (list(range(1, 11)), 7, 6, "head=6", "head > max_length - 2 = 5 leaves a negative tail"),
    (list(range(1, 11)), 7, -1, "head=-1", "a negative head"),
    ([1, 2], 7, 6, "head=6", "head=6 > max_length - 2 is wrong whatever the text: check the arguments "
                             "before looking at it, so a bad head fails on the first text, not the first long one"),
]


def _expect_value_error(fn, ids, max_length, head, names, why) -> None:
    name = f"ids={ids}, max_length={max_length}, head={head} ({why})"
    try:
        got = fn(list(ids), max_length, head, CLS, SEP)
    except NotImplementedError:
        raise
    except ValueError as e:
        value = names.split("=")[1]
        if value not in str(e):
            raise ExerciseError(f"{name}: your ValueError says {str(e)!r}\n  hint: name the values ({names}), so "
                                "whoever passed them sees what to change") from e
        return
    except Exception as e:  # the learner's bug, shown with the input that triggers it
        raise ExerciseError(f"{name}: expected a ValueError, your function raised {type(e).__name__}: {e}") from e
    raise ExerciseError(f"{name}: expected a ValueError, your function returned {short(got)}")


def _numpy_case(fn) -> None:
    """The worked example again, its numbers as numpy ints: what an array or a tokenizer's output hands over."""
    as_numpy = [np.int64(i) for i in range(1, 11)]
    try:
        _compare("ids, max_length=7 and head=2 as numpy ints (np.int64), as they come out of an array",
                 fn, as_numpy, np.int64(7), np.int64(2), HAND[0][3])
    except ExerciseError as e:
        if "your function raised" not in str(e):
            raise
        raise ExerciseError(f"{e}\n  hint: the same numbers as Python ints passed; isinstance(np.int64(7), int) is "
                            "False, but comparisons, arithmetic and slicing work alike for both") from e


def _other_vocabulary(fn) -> None:
    """The worked example with the course model's own vocabulary, where [CLS] is 2 and [SEP] is 3: the ids
    come from the arguments, not from BERT's numbering."""
    ids, cls_id, sep_id = list(range(11, 21)), 2, 3
    name = (f"ids={ids}, max_length=7, head=2, cls_id={cls_id}, sep_id={sep_id} (the worked example's cut with "
            "the course model's vocabulary, whose [CLS] is 2 and [SEP] is 3)")
    got = _as_ids(name, call(fn, name, list(ids), 7, 2, cls_id, sep_id))
    expected = [cls_id, 11, 12, 18, 19, 20, sep_id]
    hint = ""
    if got and got[0] == CLS or got and got[-1] == SEP:
        hint = (f"yours wrote BERT's {CLS} or {SEP}: take [CLS] and [SEP] from the arguments cls_id and sep_id, "
                "another vocabulary numbers them differently")
    expect_equal(name, got, expected, hint)


@lru_cache(maxsize=1)
def _real_texts():
    """Six real snippets of the `sentiment` task's dev split (Rotten Tomatoes critics)."""
    from ...tasks import load_task

    return tuple(e["text"] for e in load_task("sentiment", "dev")[:6])


def _real_cases(fn) -> int:
    """Real snippets with MiniLM's vocabulary; head=max_length-2 must equal minibert.Tokenizer's cut."""
    tok, cases = minilm_tokenizer(), 0
    for k, text in enumerate(_real_texts()):
        ids = tok(text, add_special_tokens=False)["input_ids"]
        for m in (8, 12 + 2 * k, 64):
            for h in dict.fromkeys((m - 2, 0, (m - 2) // 4)):  # BERT's cut, the tail only, the paper's 128/510
                name = f"real snippet {k} of sentiment/dev ({len(ids)} tokens), max_length={m}, head={h}"
                if h == m - 2:
                    name += ", compared with minibert.Tokenizer(text, truncation=True, max_length=...)"
                    expected = tok(text, truncation=True, max_length=m)["input_ids"]
                else:
                    expected = _cut(ids, m, h)
                _compare(name, fn, ids, m, h, expected)
                cases += 1
    return cases


def head_tail(fn) -> None:
    """fn(ids, max_length, head, cls_id, sep_id) -> [CLS] the first head ids, the last
    max_length - 2 - head ids [SEP]; the whole text when it fits."""
    for ids, m, h, answer, lesson in HAND:
        _compare(f"ids={ids}, max_length={m}, head={h} ({lesson}; [CLS]={CLS}, [SEP]={SEP})", fn, ids, m, h, answer)
    for ids, m, h, names, why in BAD:
        _expect_value_error(fn, ids, m, h, names, why)
    _numpy_case(fn)
    _other_vocabulary(fn)
    real = _real_cases(fn)
    rng = random.Random(71)
    for _ in range(100):
        m = rng.randint(2, 24)
        ids, h = rng.sample(range(1000, 30000), rng.randint(0, 30)), rng.randint(0, m - 2)
        _compare(f"random ids of length {len(ids)}, max_length={m}, head={h}", fn, ids, m, h, _cut(ids, m, h))
    passed("head_tail", f"{len(HAND)} hand-computed cuts, {len(BAD)} bad arguments refused, numpy ints, {real} "
                        "cuts of real snippets (BERT's own agreeing with minibert.Tokenizer) and 100 random ones agree")
