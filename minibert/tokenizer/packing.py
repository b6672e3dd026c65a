"""Packing encoded texts into model inputs: BERT's truncation of a pair, and character spans.

The facade (`tokenizer.py`) runs these on the rows of both paths, so they cut and align alike.
"""

from __future__ import annotations

import unicodedata


def truncate_pair(len_a: int, len_b: int, budget: int) -> tuple[int, int]:
    """How many tokens of A and of B to keep so that len_a + len_b <= budget.

    BERT's `truncate_seq_pair` removes one token at a time from the end of the longer side, from B
    when they are equal:

        while len_a + len_b > budget:
            if len_a > len_b: len_a -= 1
            else: len_b -= 1

    This is the same result without the loop. (The Rust tokenizers library ends its "longest_first"
    cut differently: it gives an odd token left over to the side that was longer, BERT to A.)
    """
    excess = len_a + len_b - budget
    if excess <= 0:
        return len_a, len_b
    if len_a - len_b >= excess:  # A stays the longer side for every cut
        return len_a - excess, len_b
    if len_b - len_a + 1 >= excess:  # B stays at least as long as A for every cut
        return len_a, len_b - excess
    return (budget + 1) // 2, budget // 2  # both cut down until they alternate; A keeps the odd one


def kept_positions(types, pair, n_special, limit) -> list[int]:
    """Positions of a packed row that survive BERT's truncation to `limit` tokens."""
    len_b = sum(types) - (1 if pair and n_special else 0)  # B's tokens have type 1, so does its [SEP]
    len_a = len(types) - n_special - len_b
    if pair:
        keep_a, keep_b = truncate_pair(len_a, len_b, limit - n_special)
    else:
        keep_a, keep_b = limit - n_special, 0
    if not n_special:
        return [*range(keep_a), *range(len_a, len_a + keep_b)]
    keep = [0, *range(1, 1 + keep_a), 1 + len_a]  # [CLS] A [SEP]
    if pair:
        keep += [*range(2 + len_a, 2 + len_a + keep_b), len(types) - 1]  # B [SEP]
    return keep


def extend_over_marks(offsets, types, text_a, text_b):
    """Stripping accents drops combining marks written as characters of their own ('e' + U+0301),
    and the spans of both paths then end before the mark. Extend each span over the marks that
    follow it, up to the next token, so that text[start:end] is the word as written, accents included."""
    if text_a.isascii() and (text_b is None or text_b.isascii()):
        return offsets
    offsets = list(offsets)
    next_start = {0: len(text_a), 1: len(text_b or "")}  # per sequence, walking backwards
    for k in reversed(range(len(offsets))):
        start, end = offsets[k]
        if start == end:  # [CLS], [SEP]: added, not in the text
            continue
        seq = types[k]
        text = text_b if seq else text_a
        while end < next_start[seq] and unicodedata.category(text[end]) == "Mn":
            end += 1
        offsets[k] = (start, end)
        next_start[seq] = start
    return offsets
