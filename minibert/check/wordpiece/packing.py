"""The checker of exercise 1.4: [CLS] A [SEP] B [SEP] with token types."""

from __future__ import annotations

import random

from ..common import ExerciseError, call, expect_equal, minilm_tokenizer, passed, valid_lines
from ._shared import _named


def _as_list(value, name: str, what: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise ExerciseError(f"{name}: expected {what} (a list), received {type(value).__name__}: {value!r}"[:600])
    return list(value)


# ---- Exercise 1.4 · [CLS] A [SEP] B [SEP] and token types ----------------------------------------

# (name, tokens_a, tokens_b, expected tokens, expected token types)
PACK_CASES = [
    ("a pair", ["call", "me"], ["is", "##hma", "##el"],
     ["[CLS]", "call", "me", "[SEP]", "is", "##hma", "##el", "[SEP]"], [0, 0, 0, 0, 1, 1, 1, 1]),
    ("one sentence (tokens_b=None)", ["call", "me"], None, ["[CLS]", "call", "me", "[SEP]"], [0, 0, 0, 0]),
    ("one token each", ["a"], ["b"], ["[CLS]", "a", "[SEP]", "b", "[SEP]"], [0, 0, 0, 1, 1]),
    ("an empty B is still a B", ["a"], [], ["[CLS]", "a", "[SEP]", "[SEP]"], [0, 0, 0, 1]),
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


def _check_pack(case: str, fn, tokens_a, tokens_b, expected_tokens, expected_types) -> None:
    a_before, b_before = list(tokens_a), None if tokens_b is None else list(tokens_b)
    result = call(fn, case, tokens_a, tokens_b)
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise ExerciseError(f"{case}: expected a pair (tokens, token_type_ids), received {result!r}"[:600])
    if list(tokens_a) != a_before or (tokens_b is not None and list(tokens_b) != b_before):
        raise ExerciseError(f"{case}: your function changed its input (tokens_a was {a_before!r}, is now "
                            f"{list(tokens_a)!r}; tokens_b was {b_before!r}, is now {tokens_b!r})\n  hint: "
                            "build a new list ([\"[CLS]\", *tokens_a, ...]) instead of inserting into the caller's")
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
    expect_equal(f"{case}, the tokens", tokens, expected_tokens, hint=hint)
    if len(types) != len(tokens):
        raise ExerciseError(f"{case}: {len(tokens)} tokens but {len(types)} token types\n  expected "
                            f"{expected_types!r}\n  received {types!r}\n  hint: one type per token, the "
                            "special tokens included")
    for i, (want, got) in enumerate(zip(expected_types, types)):
        if got != want:
            role, why = _role(i, len(tokens_a), None if tokens_b is None else len(tokens_b))
            raise ExerciseError(f"{case}, the token types:\n  expected {expected_types!r}\n  received {types!r}"
                                f"\n  first difference at position {i} ({role}, {tokens[i]!r}): expected "
                                f"{want!r}, received {got!r}\n  hint: {why}")


def pack_pair(fn) -> None:
    """Check `fn(tokens_a, tokens_b) -> (tokens, token_type_ids)`: [CLS] A [SEP] B [SEP] with types 0
    up to the first [SEP], 1 after it; tokens_b=None gives [CLS] A [SEP]."""
    for name, a, b, tokens, types in PACK_CASES:
        case = f"my_pack({a!r}, {b!r}) [{name}]"
        _check_pack(case, fn, list(a), None if b is None else list(b), tokens, types)

    bert = minilm_tokenizer()
    lines = valid_lines()
    rng = random.Random(4)
    starts = rng.sample(range(len(lines) - 1), 240)
    cases = 0
    for k, i in enumerate(starts):
        text_a, text_b = lines[i], (None if k % 5 == 0 else lines[i + 1])  # every fifth: one sentence
        enc = bert(text_a, text_b)
        a = bert.tokenize(text_a)
        b = None if text_b is None else bert.tokenize(text_b)
        label = "one line" if b is None else "two lines"
        second = "None" if b is None else "tokens of " + _named(text_b, 50)
        case = (f"my_pack(tokens of {_named(text_a, 50)}, {second}) "
                f"[{label} of valid.txt; expected from minibert.Tokenizer(text_a, text_b)]")
        _check_pack(case, fn, a, b, bert.convert_ids_to_tokens(enc["input_ids"]), list(enc["token_type_ids"]))
        cases += 1
    passed("pack_pair", f"{len(PACK_CASES)} hand-computed cases and {cases} random ones (lines of valid.txt, "
                        "pairs and single sentences) agree with minibert.Tokenizer")
