"""The checker of exercise 1.4: [CLS] A [SEP] B [SEP] with token types, cut longest-first to max_length."""

from __future__ import annotations

import random

import numpy as np

from ...tokenizer import truncate_pair
from ..common import ExerciseError, call, expect_equal, minilm_tokenizer, passed, valid_lines
from ._shared import _named


def _as_list(value, name: str, what: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise ExerciseError(f"{name}: expected {what} (a list), received {type(value).__name__}: {value!r}"[:600])
    return list(value)


# ---- Exercise 1.4 · [CLS] A [SEP] B [SEP] and token types ----------------------------------------

# (name, tokens_a, tokens_b, max_length, expected tokens, expected token types)
PACK_CASES = [
    ("a pair", ["call", "me"], ["is", "##hma", "##el"], 512,
     ["[CLS]", "call", "me", "[SEP]", "is", "##hma", "##el", "[SEP]"], [0, 0, 0, 0, 1, 1, 1, 1]),
    ("one sentence (tokens_b=None)", ["call", "me"], None, 512, ["[CLS]", "call", "me", "[SEP]"], [0, 0, 0, 0]),
    ("one token each", ["a"], ["b"], 512, ["[CLS]", "a", "[SEP]", "b", "[SEP]"], [0, 0, 0, 1, 1]),
    ("an empty B is still a B", ["a"], [], 512, ["[CLS]", "a", "[SEP]", "[SEP]"], [0, 0, 0, 1]),
    ("exactly max_length: nothing is cut", ["a1", "a2"], ["b1", "b2"], 7,
     ["[CLS]", "a1", "a2", "[SEP]", "b1", "b2", "[SEP]"], [0, 0, 0, 0, 1, 1, 1]),
    ("the longer side loses tokens first", ["a1", "a2"], ["b1", "b2", "b3", "b4", "b5"], 7,
     ["[CLS]", "a1", "a2", "[SEP]", "b1", "b2", "[SEP]"], [0, 0, 0, 0, 1, 1, 1]),
    ("equal sides: B loses first", ["a1", "a2", "a3"], ["b1", "b2", "b3"], 8,
     ["[CLS]", "a1", "a2", "a3", "[SEP]", "b1", "b2", "[SEP]"], [0, 0, 0, 0, 0, 1, 1, 1]),
    ("then the two take turns", ["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4", "b5", "b6"], 8,
     ["[CLS]", "a1", "a2", "a3", "[SEP]", "b1", "b2", "[SEP]"], [0, 0, 0, 0, 0, 1, 1, 1]),
    ("a long A is cut too", ["a1", "a2", "a3", "a4", "a5", "a6"], ["b1"], 6,
     ["[CLS]", "a1", "a2", "[SEP]", "b1", "[SEP]"], [0, 0, 0, 0, 1, 1]),
    ("one sentence, cut", ["a1", "a2", "a3", "a4"], None, 4, ["[CLS]", "a1", "a2", "[SEP]"], [0, 0, 0, 0]),
]

def _role(position: int, len_a: int, len_b: int | None) -> tuple[str, str]:
    """What sits at `position` of [CLS] A [SEP] B [SEP], and what BERT gives it as token type."""
    if position == 0:
        return "[CLS]", "[CLS] starts the sequence and belongs to sentence A: type 0"
    if position <= len_a:
        return "a token of A", "the tokens of A have type 0"
    if position == len_a + 1:
        return "the [SEP] that ends A", "the first [SEP] closes A, so it has type 0; B starts after it"
    if len_b is not None and position <= len_a + 1 + len_b:
        return "a token of B", "the tokens of B have type 1"
    return "the [SEP] that ends B", "the final [SEP] closes B, so it has type 1, like B's tokens"


def _truncation_hint(tokens, expected, tokens_a, tokens_b, max_length) -> str:
    """What went wrong with the cut, read from the tokens received."""
    n_special = 2 if tokens_b is None else 3
    if len(tokens) > max_length:
        return (f"the sequence may hold at most max_length={max_length} tokens, the special ones included: keep "
                f"{max_length - n_special} for the text ([CLS] and {n_special - 1} [SEP])")
    if len(tokens) < len(expected):
        return (f"cut only as much as needed: {n_special} special tokens, so A and B together keep "
                f"max_length - {n_special} tokens")
    if tokens_b is None:
        return "a single sentence keeps its first max_length - 2 tokens"
    body = tokens[1:-1] if tokens[:1] == ["[CLS]"] else tokens
    sides = " ".join(body).split(" [SEP] ") if "[SEP]" in body else [" ".join(body)]
    kept_a = sides[0].split() if sides else []
    kept_b = sides[1].split() if len(sides) > 1 else []
    if kept_a != tokens_a[:len(kept_a)] or kept_b != tokens_b[:len(kept_b)]:
        return "tokens are removed from the END of a side; its beginning stays"
    if tokens_a and tokens_b and tokens[1:1 + len(tokens_a)] != tokens_a and len(tokens_b) >= len(tokens_a):
        return ("longest first: remove one token at a time from whichever side is longer at that moment, from B "
                "when they are equal (Google's _truncate_seq_pair); here A lost a token while B was not shorter")
    return ("longest first: remove one token at a time from the end of whichever side is longer at that moment, "
            "from B when they are equal (Google's _truncate_seq_pair)")


def _check_pack(case: str, fn, tokens_a, tokens_b, max_length, expected_tokens, expected_types) -> None:
    a_before, b_before = list(tokens_a), None if tokens_b is None else list(tokens_b)
    result = call(fn, case, tokens_a, tokens_b, max_length)
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise ExerciseError(f"{case}: expected a pair (tokens, token_type_ids), received {result!r}"[:600])
    if list(tokens_a) != a_before or (tokens_b is not None and list(tokens_b) != b_before):
        raise ExerciseError(f"{case}: your function changed its input (tokens_a was {a_before!r}, is now "
                            f"{list(tokens_a)!r}; tokens_b was {b_before!r}, is now {tokens_b!r})\n  hint: "
                            "build new lists ([\"[CLS]\", *tokens_a, ...], tokens_a[:n]) instead of inserting into "
                            "or popping from the caller's (Google's _truncate_seq_pair pops in place: copy first)")
    tokens = _as_list(result[0], case, "tokens")
    types = _as_list(result[1], case, "token_type_ids")
    hint = ""
    if tokens_b is not None and not tokens_b and tokens == expected_tokens[:-1]:
        hint = "tokens_b=[] is a pair whose B is empty: it still gets its [SEP]; only None means no B"
    elif tokens_b is not None and tokens == expected_tokens[:-1]:
        hint = "a pair ends with a second [SEP], after B"
    elif tokens_b is None and tokens[-1:] == ["[SEP]"] and tokens[:-1] == expected_tokens:
        hint = "with tokens_b=None there is no B and so no second [SEP]"
    elif tokens[:1] != ["[CLS]"]:
        hint = "the sequence starts with [CLS]"
    elif tokens != expected_tokens and (len(tokens_a) + len(tokens_b or []) + (2 if tokens_b is None else 3)) > max_length:
        hint = _truncation_hint(tokens, expected_tokens, a_before, b_before, max_length)
    expect_equal(f"{case}, the tokens", tokens, expected_tokens, hint=hint)
    if len(types) != len(tokens):
        raise ExerciseError(f"{case}: {len(tokens)} tokens but {len(types)} token types\n  expected "
                            f"{expected_types!r}\n  received {types!r}\n  hint: one type per token, the "
                            "special tokens included")
    # False == 0 in Python, but a bool tensor cannot index an embedding (numpy's bools are no bool subclass).
    if any(isinstance(t, (bool, np.bool_)) for t in types):
        raise ExerciseError(f"{case}, the token types: received {types!r}"[:600] + "\n  hint: token type ids are the "
                            "integers 0 and 1 (each picks a row of the token type embedding), not False and True")
    for i, (want, got) in enumerate(zip(expected_types, types)):
        if got != want:
            sep = expected_tokens.index("[SEP]")  # the cut lengths: A ends before the first [SEP]
            role, why = _role(i, sep - 1, None if tokens_b is None else len(expected_tokens) - sep - 2)
            raise ExerciseError(f"{case}, the token types:\n  expected {expected_types!r}\n  received {types!r}"
                                f"\n  first difference at position {i} ({role}, {tokens[i]!r}): expected "
                                f"{want!r}, received {got!r}\n  hint: {why}")


def pack_pair(fn) -> None:
    """Check `fn(tokens_a, tokens_b, max_length) -> (tokens, token_type_ids)`: [CLS] A [SEP] B [SEP] with
    types 0 up to the first [SEP], 1 after it; tokens_b=None gives [CLS] A [SEP]; a pair too long for
    max_length loses tokens from the end of its longer side first (from B when equal)."""
    for name, a, b, max_length, tokens, types in PACK_CASES:
        case = f"my_pack({a!r}, {b!r}, max_length={max_length}) [{name}]"
        _check_pack(case, fn, list(a), None if b is None else list(b), max_length, tokens, types)
    for len_a in range(7):  # every small case of the cut, against minibert's truncate_pair
        for len_b in range(7):
            for max_length in range(3, len_a + len_b + 5):
                a, b = [f"a{i}" for i in range(len_a)], [f"b{i}" for i in range(len_b)]
                keep_a, keep_b = truncate_pair(len_a, len_b, max_length - 3)
                case = f"my_pack({a!r}, {b!r}, max_length={max_length}) [all small cuts]"
                _check_pack(case, fn, a, b, max_length, ["[CLS]", *a[:keep_a], "[SEP]", *b[:keep_b], "[SEP]"],
                            [0] * (keep_a + 2) + [1] * (keep_b + 1))

    bert = minilm_tokenizer()
    lines = valid_lines()
    rng = random.Random(4)
    starts = rng.sample(range(len(lines) - 1), 240)
    cases = 0
    for k, i in enumerate(starts):
        text_a, text_b = lines[i], (None if k % 5 == 0 else lines[i + 1])  # every fifth: one sentence
        max_length = rng.choice([8, 16, 24, 32, 64, 512])
        enc = bert(text_a, text_b, truncation=True, max_length=max_length)
        a = bert.tokenize(text_a)
        b = None if text_b is None else bert.tokenize(text_b)
        label = "one line" if b is None else "two lines"
        second = "None" if b is None else "tokens of " + _named(text_b, 50)
        case = (f"my_pack(tokens of {_named(text_a, 50)}, {second}, max_length={max_length}) [{label} of valid.txt; "
                "expected from minibert.Tokenizer(text_a, text_b, truncation=True, max_length=max_length)]")
        _check_pack(case, fn, a, b, max_length, bert.convert_ids_to_tokens(enc["input_ids"]),
                    list(enc["token_type_ids"]))
        cases += 1
    passed("pack_pair", f"{len(PACK_CASES)} hand-computed cases and {cases} random ones (lines of valid.txt, "
                        "pairs and single sentences, cut to 8 to 512 tokens) and every small cut agree with minibert")
