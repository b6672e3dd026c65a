"""The checker of exercise 8.1: word labels onto word pieces, the label on each word's first piece and
-100 everywhere else ([CLS], [SEP], the pieces after the first), as §5.3 and
`minibert.finetune.features.encode("tagging", ...)` do."""

from __future__ import annotations

import random
from functools import lru_cache

import torch

from ...finetune.features import encode
from ...inputs import IGNORE_INDEX
from ...tasks import load_task
from ..common import ExerciseError, short, call, minilm_tokenizer, passed

# (words, word labels, lesson): a name cut into three pieces on both sides of a one-piece verb; words
# that are one piece each (the specials still get -100); a label 0 that must not be taken for "ignore".
HAND = [
    (["Ishmael", "met", "Luthuli"], [1, 0, 1],
     "'Ishmael' is is ##hma ##el and 'Luthuli' lu ##th ##uli: the label on the first piece only"),
    (["New", "York"], [1, 2], "one piece per word: only [CLS] and [SEP] get -100"),
    (["Weissmuller", "snored", "."], [0, 1, 0], "label 0 is a real label, kept on the first piece"),
    (["Ahab's", "leg"], [2, 0], "'Ahab's' is ah ##ab ' s: four pieces, two of them without ##, and still one word"),
    (["Café", "#1", "🐋", "Moby-Dick"], [1, 2, 0, 1],
     "'Café' is cafe (accents stripped), '#1' is # 1 (a piece that is itself '#'), the whale [UNK] and 'Moby-Dick' "
     "mob ##y - dick: a piece's spelling need not match the word's; tokenize each word alone"),
]


def _by_hash_marks(words, labels, tokenizer) -> list[int]:
    """The labels of a learner who starts a new word at every piece without ##: wrong wherever a word's
    punctuation is cut off into pieces of its own ("ahab's": ah ##ab ' s)."""
    tokens = tokenizer.convert_ids_to_tokens([i for pieces in _pieces(words, tokenizer) for i in pieces])
    out, word = [], -1
    for token in tokens:
        word += not token.startswith("##")
        out.append(IGNORE_INDEX if token.startswith("##") or word >= len(labels) else labels[word])
    return [IGNORE_INDEX, *out, IGNORE_INDEX]


@lru_cache(maxsize=1)
def _course_tokenizer():
    """The course model's own tokenizer: another vocabulary, where [CLS] is 2 and [SEP] is 3."""
    from ...repository import MODELS
    from ...tokenizer import Tokenizer

    return Tokenizer.from_pretrained(MODELS / "course")


def _pieces(words, tokenizer) -> list[list[int]]:
    return [tokenizer(w, add_special_tokens=False)["input_ids"] for w in words]


def _reference(words, labels, tokenizer, *, where="first", special=None, shift=0):
    """input_ids and labels; the keyword arguments make the usual mistakes."""
    ids, out = [tokenizer.cls_token_id], [IGNORE_INDEX if special is None else special]
    for pieces, label in zip(_pieces(words, tokenizer), labels):
        ids += pieces
        rest = [IGNORE_INDEX] * (len(pieces) - 1)
        out += {"first": [label] + rest, "last": rest + [label], "every": [label] * len(pieces)}[where]
    ids.append(tokenizer.sep_token_id)
    out.append(IGNORE_INDEX if special is None else special)
    if shift == -1:  # forgot that [CLS] comes first: every label one place early
        out = out[1:] + [IGNORE_INDEX]
    elif shift == 1:
        out = [IGNORE_INDEX] + out[:-1]
    return ids, out


MISTAKES = [
    ("a label on every piece of a word; only the first piece is labelled, the others get -100 (§5.3: "
     "\"we use the representation of the first sub-token\")", dict(where="every")),
    ("the label sits on the word's *last* piece; it goes on the first, the later pieces get -100",
     dict(where="last")),
    ("your labels are one place early: position 0 is [CLS], so the first word's first piece is position 1",
     dict(shift=-1)),
    ("your labels are one place late: the first word's first piece is position 1, right after [CLS]",
     dict(shift=1)),
]


def _as_list(name, value, what):
    if isinstance(value, torch.Tensor):
        value = value.tolist()
    try:
        return [int(v) for v in value]
    except (TypeError, ValueError):
        raise ExerciseError(f"{name}: {what} must be a list of ints (or a 1-D tensor), received {short(value)}") from None


def _compare(name, words, labels, tokenizer, got):
    if not (isinstance(got, (tuple, list)) and len(got) == 2):
        raise ExerciseError(f"{name}: return two lists, (input_ids, labels); received {short(got)}")
    ids, out = _as_list(name, got[0], "input_ids"), _as_list(name, got[1], "labels")
    expected_ids, expected = _reference(words, labels, tokenizer)
    if ids != expected_ids and 1 < len(ids) < len(expected_ids) and ids[:-1] == expected_ids[:len(ids) - 1]:
        raise ExerciseError(f"{name}: input_ids\n  expected {len(expected_ids)} ids\n  received {len(ids)}, the "
                            "same up to there\n  hint: the sequence was cut; the exercise asks for every word's "
                            "pieces, however many: cutting to the model's window (max_seq_length) comes later, "
                            "where the features are made")
    if ids != expected_ids:
        hint = ("[CLS] first and [SEP] last" if ids == expected_ids[1:-1] else
                f"the pieces are right, but [CLS] and [SEP] are not {ids[0]} and {ids[-1]} in this vocabulary: take "
                "them from the tokenizer given, tokenizer.cls_token_id and tokenizer.sep_token_id"
                if len(ids) == len(expected_ids) and ids[1:-1] == expected_ids[1:-1] else
                "each word's pieces in order: tokenizer(word, add_special_tokens=False)['input_ids']")
        raise ExerciseError(f"{name}: input_ids\n  expected {expected_ids}\n  received {ids}\n  hint: {hint}")
    if len(out) != len(ids):
        raise ExerciseError(f"{name}: {len(out)} labels for {len(ids)} tokens; one label per token, [CLS] and [SEP] "
                            f"included (they get -100)\n  expected {expected}\n  received {out}")
    if out == expected:
        return
    hint = next((h for h, kw in MISTAKES if out == _reference(words, labels, tokenizer, **kw)[1]), "")
    if not hint and out == _by_hash_marks(words, labels, tokenizer):
        hint = ("a new word was started at every piece without ##; but punctuation inside a word is cut into pieces "
                "of its own, with no ## (\"ahab's\" is ah ##ab ' s): count each word's pieces by tokenizing the "
                "word alone")
    if not hint and (out[0] != IGNORE_INDEX or out[-1] != IGNORE_INDEX):
        hint = (f"[CLS] and [SEP] got the labels {out[0]} and {out[-1]}; they are not words: give them -100 so the "
                "loss skips them")
    raise ExerciseError(f"{name}: labels\n  tokens   {tokenizer.convert_ids_to_tokens(ids)}\n  expected {expected}\n"
                        f"  received {out}" + (f"\n  hint: {hint}" if hint else ""))


def _run(fn, name, words, labels, tokenizer):
    """fn on copies of words and labels, which must come back as they were: they are the caller's lists."""
    given_words, given_labels = list(words), list(labels)
    got = call(fn, name, given_words, given_labels, tokenizer)
    for what, before, after in (("words", list(words), given_words), ("word_labels", list(labels), given_labels)):
        if after != before:
            hint = "work on a copy, or only read it: the caller's list is not yours to change"
            if len(after) < len(before) and after == before[len(before) - len(after):]:
                hint = (f"its first {len(before) - len(after)} items were taken out (list.pop(0) as you walked the "
                        "words?): read the two lists together with zip(words, word_labels) instead")
            raise ExerciseError(f"{name}: your function changed its input {what}: {short(before)} before, "
                                f"{short(after)} after\n  hint: {hint}")
    return got


@lru_cache(maxsize=1)
def _real_sentences(n: int = 25) -> tuple:
    rows = random.Random(81).sample(load_task("pos", "dev"), n)
    return tuple((r["words"], r["tags"]) for r in rows)


def align_labels(fn) -> None:
    """fn(words, word_labels, tokenizer) -> (input_ids, labels): [CLS] pieces [SEP], a label per token."""
    tokenizer = minilm_tokenizer()
    for words, labels, lesson in HAND:
        name = f"hand case words={words}, labels={labels} ({lesson})"
        _compare(name, words, labels, tokenizer, _run(fn, name, words, labels, tokenizer))
    words, labels = ["Ishmael", "met", "Queequeg"], [1, 0, 1]
    course = _course_tokenizer()
    name = (f"hand case words={words}, labels={labels}, with the course model's tokenizer (its own vocabulary: "
            f"[CLS] is {course.cls_token_id}, [SEP] is {course.sep_token_id}; 'Ishmael' is is ##hm ##ae ##l)")
    _compare(name, words, labels, course, _run(fn, name, words, labels, course))
    real = [(w, t) for w, t in _real_sentences() if all(_pieces(w, tokenizer))]
    # Last, all of them twice over as one sequence, longer than BERT's 512 positions: nothing is cut here.
    joined = ([w for words, _ in real * 2 for w in words], [t for _, tags in real * 2 for t in tags])
    n = len(_reference(*joined, tokenizer)[0])
    for words, tags in [*real, joined]:
        name = (f"Brown-corpus sentence {' '.join(words)[:80]!r} (pos tags)" if len(words) < len(joined[0]) else
                f"the {len(real)} Brown-corpus sentences, twice over, as one sequence of {len(words)} words, "
                f"{n} ids with [CLS] and [SEP], past BERT's 512 positions")
        _compare(name, words, tags, tokenizer, _run(fn, name, words, tags, tokenizer))
        feature = encode("tagging", [{"words": words, "tags": tags}], tokenizer, max_seq_length=10**6)[0]
        assert feature["labels"] == _reference(words, tags, tokenizer)[1]  # the checker's own reference, kept honest
    passed("align_labels", f"{len(HAND) + 1} hand-computed sentences (one in the course model's "
                           f"vocabulary), {len(real)} Brown-corpus sentences and all of them twice over as one "
                           f"sequence of {n} ids agree with minibert.finetune.features.encode")
