"""The checker of exercise 7.1: a sentence pair packed as [CLS] A [SEP] B [SEP] with token types,
cut to max_length the way BERT cuts a pair (Google's `truncate_seq_pair`: one token at a time from
the end of the longer side, from B when they are equal)."""

from __future__ import annotations

from functools import lru_cache

from ...tokenizer.packing import truncate_pair
from ..common import ExerciseError, call, minilm_tokenizer, passed

CLS, SEP = 101, 102  # BERT's uncased vocabulary, MiniLM's too


def _pair_ref(a, b, max_length, cls, sep, *, cut="bert", front=False, first_sep=0, last_sep=1, specials=3):
    """The right encoding; the keyword arguments produce the usual mistakes."""
    budget = max_length - specials
    if cut == "bert":
        keep_a, keep_b = truncate_pair(len(a), len(b), budget)
    elif cut == "only_b":
        keep_a, keep_b = len(a), max(0, min(len(b), budget - len(a)))
    elif cut == "only_a":
        keep_a, keep_b = max(0, min(len(a), budget - len(b))), len(b)
    else:  # "ties_from_a": the longer side first, but A when they are equal
        keep_a, keep_b = len(a), len(b)
        while keep_a + keep_b > budget:
            if keep_b > keep_a:
                keep_b -= 1
            else:
                keep_a -= 1
    a = a[len(a) - keep_a:] if front else a[:keep_a]
    b = b[len(b) - keep_b:] if front else b[:keep_b]
    ids = [cls, *a, sep, *b, sep]
    types = [0] * (len(a) + 1) + [first_sep] + [1] * len(b) + [last_sep]
    return ids, types


MISTAKES = [  # the first that reproduces the received result is named
    ("when A and B are equally long, BERT's truncate_seq_pair removes from B (its `else` branch), not A",
     dict(cut="ties_from_a")),
    ("only B was cut; BERT cuts the longer side first (here A), one token at a time", dict(cut="only_b")),
    ("only A was cut; BERT cuts the longer side first (here B), one token at a time", dict(cut="only_a")),
    ("tokens were cut from the front; BERT drops them from the end of the longer side", dict(front=True)),
    ("the first [SEP] ends A: it has token type 0, like A", dict(first_sep=1)),
    ("the last [SEP] ends B: it has token type 1, like B", dict(last_sep=0)),
    ("the first [SEP] belongs to A (type 0) and the last to B (type 1); yours are the other way round",
     dict(first_sep=1, last_sep=0)),
]

HAND = [  # (A, B, max_length, lesson)
    ([7, 8, 9, 10, 11], [20, 21], 7, "A longer: only A loses tokens, from its end"),
    ([7, 8], [20, 21, 22, 23, 24], 7, "B longer: only B loses tokens, from its end"),
    ([7, 8, 9], [20, 21, 22], 8, "equal lengths, one token too many: B loses it"),
    ([7, 8, 9], [20, 21, 22], 7, "equal lengths, two too many: one each"),
    ([7, 8], [20], 10, "short enough: nothing cut, nothing padded"),
]


def _as_lists(name, got):
    if not (isinstance(got, (tuple, list)) and len(got) == 2):
        raise ExerciseError(f"{name}: expected a pair (input_ids, token_type_ids), received {got!r}")
    try:
        return [int(x) for x in got[0]], [int(x) for x in got[1]]
    except (TypeError, ValueError) as e:
        raise ExerciseError(f"{name}: input_ids and token_type_ids must be lists of ints ({e})") from e


def _compare(name, fn, a, b, max_length, cls, sep, expected):
    a_copy, b_copy = list(a), list(b)
    ids, types = _as_lists(name, call(fn, name, a_copy, b_copy, max_length, cls, sep))
    if (a_copy, b_copy) != (list(a), list(b)):
        raise ExerciseError(f"{name}: your function changed the lists it was given; cut copies (a[:n]), "
                            "not the caller's lists (del a[n:], a.pop())")
    if (ids, types) == expected:
        return
    hint = next((h for h, kw in MISTAKES if _pair_ref(a, b, max_length, cls, sep, **kw) == (ids, types)), "")
    if hint:
        pass
    elif len(ids) != len(types):
        hint = f"input_ids has {len(ids)} entries but token_type_ids {len(types)}: one type per token"
    elif len(ids) > max_length and len(ids) <= max_length + 3:
        hint = (f"{len(ids)} tokens, more than max_length={max_length}: [CLS] and the two [SEP]s count too, so "
                f"A and B share max_length - 3 = {max_length - 3} tokens")
    elif len(ids) > len(expected[0]) and set(ids[len(expected[0]):]) <= {0}:
        hint = "do not pad: minibert pads each batch to its own longest row later (features.collate)"
    raise ExerciseError(f"{name}:\n  expected input_ids      {expected[0]}\n  received input_ids      {ids}"
                        f"\n  expected token_type_ids {expected[1]}\n  received token_type_ids {types}"
                        + (f"\n  hint: {hint}" if hint else ""))


@lru_cache(maxsize=1)
def _real_pairs():
    """Six real pairs of the `next-sentence` task's dev split: (text, text_pair)."""
    from ...tasks import load_task

    return tuple((e["text"], e["text_pair"]) for e in load_task("next-sentence", "dev")[:6])


def encode_pair(fn) -> None:
    """fn(ids_a, ids_b, max_length, cls_id, sep_id) -> (input_ids, token_type_ids), BERT's pair layout."""
    for a, b, max_length, lesson in HAND:
        name = f"hand case A={a}, B={b}, max_length={max_length} ({lesson}; [CLS]={CLS}, [SEP]={SEP})"
        _compare(name, fn, a, b, max_length, CLS, SEP, _pair_ref(a, b, max_length, CLS, SEP))
    tok = minilm_tokenizer()
    cases = 0
    for k, (text, pair) in enumerate(_real_pairs()):
        a, b = (tok(t, add_special_tokens=False)["input_ids"] for t in (text, pair))
        for max_length in (12, 16 + 3 * k, 128):
            enc = tok(text, pair, truncation=True, max_length=max_length)
            name = (f"real pair {k} of next-sentence/dev, |A|={len(a)}, |B|={len(b)}, max_length={max_length}, "
                    f"compared with minibert.Tokenizer (MiniLM's vocabulary)")
            _compare(name, fn, a, b, max_length, tok.cls_token_id, tok.sep_token_id,
                     (enc["input_ids"], enc["token_type_ids"]))
            cases += 1
    passed("encode_pair", f"{len(HAND)} hand-computed pairs and {cases} real pairs cut as minibert.Tokenizer "
                          "cuts them agree")
