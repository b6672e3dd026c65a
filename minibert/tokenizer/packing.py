"""Packing encoded texts into model inputs: [CLS] A [SEP] B [SEP], BERT's truncation of a pair,
and character spans.

The facade (`tokenizer.py`) runs the cutting and the spans on the rows of both paths, so they cut
and align alike; `pack` is the reference path's step 1 (the fast path packs in Rust).
"""

from __future__ import annotations

import unicodedata

from .vocab import TokenizerError


def pack(a, b, vocab: dict[str, int], cls_token: str, sep_token: str, add_special_tokens: bool = True
         ) -> dict[str, list]:
    """[CLS] A [SEP] B [SEP], the paper's input layout (section 3), from (token, start, end)
    triples; B's tokens and its [SEP] get token type 1. One row, in the columns of an `Encoding`:

        pack([("call", 0, 4)], [("me", 0, 2)], vocab, "[CLS]", "[SEP]")
        # input_ids [101, 2655, 102, 2033, 102], token_type_ids [0, 0, 0, 1, 1],
        # offset_mapping [(0, 0), (0, 4), (0, 0), (0, 2), (0, 0)], special_tokens_mask [1, 0, 1, 0, 1]
    """
    tokens, types, added = [], [], []
    if add_special_tokens:
        tokens, types, added = [(cls_token, 0, 0)], [0], [1]
    for type_id, segment in enumerate([a] if b is None else [a, b]):
        tokens += segment
        types += [type_id] * len(segment)
        added += [0] * len(segment)
        if add_special_tokens:
            tokens.append((sep_token, 0, 0))
            types.append(type_id)
            added.append(1)
    return {"input_ids": [vocab[t] for t, _, _ in tokens], "token_type_ids": types,
            "attention_mask": [1] * len(tokens), "offset_mapping": [(s, e) for _, s, e in tokens],
            "special_tokens_mask": added}


def length_limit(max_length, truncation: bool, padding: str | None, n_special: int,
                 model_max_length: int) -> int | None:
    """The most tokens a row may have, special tokens included; None for no limit. Without a
    `max_length`, truncating or padding to "max_length" means the tokenizer's `model_max_length`."""
    if max_length is None:
        return model_max_length if truncation or padding == "max_length" else None
    if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < n_special:
        raise TokenizerError(f"max_length={max_length!r}; it must be an int of at least {n_special}, "
                             f"room for the {n_special} special tokens this encoding adds")
    return max_length


def fit_rows(rows: dict[str, list], limit: int, truncation: bool, pair: bool, n_special: int) -> None:
    """Step 2: cut every row longer than `limit` as BERT does (`kept_positions`), in every column,
    in place; or, with truncation=False, refuse it: nothing is dropped without asking."""
    for i, ids in enumerate(rows["input_ids"]):
        if len(ids) <= limit:
            continue
        if not truncation:
            raise TokenizerError(f"text {i} encodes to {len(ids)} tokens, more than max_length={limit}; "
                                 "pass truncation=True to cut it (a pair loses tokens from its longer "
                                 "side first) or raise max_length")
        keep = kept_positions(rows["token_type_ids"][i], pair, n_special, limit)
        for field, column in rows.items():
            if column is not None:
                column[i] = [column[i][j] for j in keep]


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
