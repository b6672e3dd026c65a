"""The checker of exercise 1.2: word -> (piece, start, end) triples, greedy longest-match-first."""

from __future__ import annotations

import functools
import numbers
import random
import string

from ...hub import minilm_path
from ...tokenizer import reference
from ...tokenizer.vocab import load_vocab
from ..common import ExerciseError, call, expect_equal, passed, valid_lines
from ._shared import _reference_words


@functools.lru_cache(maxsize=1)
def _minilm_vocab() -> dict[str, int]:
    return load_vocab(minilm_path() / "vocab.txt")


# ---- Exercise 1.2 · greedy longest-match-first WordPiece ------------------------------------------

_GOOGLE = {"un", "##aff", "##able"}  # the docstring example of Google's tokenization.py
_LONGEST = {"u", "un", "una", "##n", "##a", "##f", "##ff", "##ffa", "##b", "##l", "##e", "##ble"}
_TRAP = {"a", "ab", "##bc"}
_AS = {"a", "##a"}

# (name, word, vocabulary, expected pieces, what BERT does that this case tests)
WORDPIECE_CASES = [
    ("Google's example", "unaffable", _GOOGLE, ["un", "##aff", "##able"],
     "every piece after the first is looked up with '##' in front ('##aff', not 'aff') and returned with it"),
    ("the longest match first", "unaffable", _LONGEST, ["una", "##ffa", "##ble"],
     "at each position take the LONGEST piece that is in the vocabulary: try the whole rest of the word "
     "first, then one character shorter, and so on (u, un and una are all pieces here)"),
    ("a whole word in the vocabulary", "unaffable", _GOOGLE | {"unaffable"}, ["unaffable"],
     "when the whole word is a piece, it is the longest match"),
    # Real vocabularies hold pieces far longer than the words a test tries by hand: never cap the length tried.
    ("a piece of 45 characters", "pneumonoultramicroscopicsilicovolcanoconiosis",
     {"p", "##n", "pneumonoultramicroscopicsilicovolcanoconiosis"}, ["pneumonoultramicroscopicsilicovolcanoconiosis"],
     "try every end position, from the end of the word down: a piece may be as long as the whole word, however long"),
    ("no piece starts the word", "xyz", _LONGEST, ["[UNK]"],
     "a word that no piece starts is a single '[UNK]'"),
    ("a cut that gets stuck half-way", "unaffablex", _LONGEST, ["[UNK]"],
     "when the cut gets stuck ('##x' is not a piece), the WHOLE word becomes one '[UNK]': forget the pieces "
     "found so far"),
    ("the greedy trap", "abc", _TRAP, ["[UNK]"],
     "greedy never goes back: it takes 'ab', finds no '##c', and the word is '[UNK]', although 'a ##bc' "
     "would cover it (BERT does the same)"),
    ("one character", "a", _TRAP, ["a"], "a one-character word that is a piece is that piece"),
    ("a first piece never has ##", "s", {"##s"}, ["[UNK]"],
     "only the pieces after the first carry '##'; '##s' cannot start a word"),
    ("a continuation always has ##", "ss", {"s"}, ["[UNK]"],
     "the second 's' continues the word, so it must be found as '##s', which this vocabulary lacks"),
    ("100 characters", "a" * 100, _AS, ["a"] + ["##a"] * 99,
     "a word of exactly 100 characters is still cut; only a longer one is '[UNK]' at once"),
    ("101 characters", "a" * 101, _AS, ["[UNK]"],
     "a word of more than 100 characters is a single '[UNK]' without trying to cut it (minibert's limit, as in "
     "transformers and the Rust library; Google's max_input_chars_per_word is 200)"),
    # The limit comes before any lookup: a long word that is itself a piece is '[UNK]' too.
    ("101 characters, the whole word a piece", "a" * 101, _AS | {"a" * 101}, ["[UNK]"],
     "the length limit is tested first, before any lookup: a word of more than 100 characters is a single "
     "'[UNK]' even when the whole word is in the vocabulary"),
    ("150 characters", "ab" * 75, {"a", "##a", "##b"}, ["[UNK]"],
     "100 is the limit here, not Google's 200: a word of 150 characters is '[UNK]'"),
    # A Cyrillic letter is 2 bytes in UTF-8: the limit counts characters, as len(word) does.
    ("100 characters of 2 bytes each", "д" * 100, {"д", "##д"}, ["д"] + ["##д"] * 99,
     "the limit counts characters, len(word), not UTF-8 bytes: this word of 100 characters (200 bytes) is cut"),
    # The lookups are exact: case is the vocabulary's business (a cased model's vocab holds 'Mc' and 'mc').
    ("a cased vocabulary", "McDonald", {"Mc", "mc", "##Donald", "##donald"}, ["Mc", "##Donald"],
     "look each piece up exactly as it is in the word: do not lower-case it (the basic tokenizer did that for "
     "uncased models; a cased vocabulary holds 'Mc' apart from 'mc')"),
    # '#' is a character like any other ('C#', '#1'; BERT's vocabulary has '#' and '###'): only the two
    # characters of the '##' prefix are not in the word, so the piece '###' spans one character.
    ("a '#' of the word itself", "c#", {"c", "###"}, ["c", "###"],
     "a continuation is '##' + the text of the word: here '##' + '#'"),
    # Only the first two characters of a piece are its prefix: replace('##', '') also eats the word's '##'.
    ("two '#'s of the word itself", "c##", {"c", "####"}, ["c", "####"],
     "a continuation is '##' + the text of the word: here '##' + '##', which spans 2 characters of the word"),
]
# A dict vocabulary {piece: id} is allowed, and an id may be 0 ([PAD]'s in VOCAB): a lookup must be
# `piece in vocab`, never the truth of vocab.get(piece).
DICT_CASE = ("my_wordpiece('ab', {'a': 0, '##b': 1}) [a dict vocabulary whose piece 'a' has id 0]", "ab",
             {"a": 0, "##b": 1}, [("a", 0, 1), ("##b", 1, 2)])

_OFFSET_HINTS = {
    "inclusive": "end is exclusive, as in word[start:end]: the piece 'un' of 'unaffable' is (0, 2), not (0, 1)",
    "prefix": "offsets index into the word itself, where there is no '##': '##aff' is word[2:5], so (2, 5)",
    "unk": "an '[UNK]' stands for the whole word: its span is (0, len(word)), whatever was cut before",
    "lstrip": "remove only the two characters of the '##' prefix (piece[2:]): lstrip('#') also strips a '#' "
              "that belongs to the word, and replace('##', '') a '##' of it, so '###' (the word's '#') spans 1 "
              "character and '####' (the word's '##') 2, not 0",
}


def _triples(got, case: str) -> list[tuple]:
    """Lists or tuples of (piece, start, end), integers of any kind (numpy's too); anything else is named."""
    ok = isinstance(got, (list, tuple)) and all(
        isinstance(t, (list, tuple)) and len(t) == 3 and isinstance(t[0], str)
        and all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in t[1:]) for t in got)
    if not ok:
        raise ExerciseError(f"{case}: expected a list of (piece, start, end) triples, received {got!r}"[:600]
                            + "\n  hint: return [(piece, start, end), ...], start and end int positions in the word")
    return [(t[0], int(t[1]), int(t[2])) for t in got]


def _compare(case: str, got, expected: list[tuple], hint: str) -> None:
    expect_equal(case + ", the pieces", [t[0] for t in got], [t[0] for t in expected], hint=hint)
    if got == expected:
        return
    i = next(k for k, (g, e) in enumerate(zip(got, expected)) if g != e)
    piece, start, end = expected[i]
    if piece == "[UNK]":
        why = _OFFSET_HINTS["unk"]
    elif piece.lstrip("#") != piece.removeprefix("##") and got[i][2] - got[i][1] == len(piece.lstrip("#")):
        why = _OFFSET_HINTS["lstrip"]  # the span is as long as the piece with every leading '#' stripped
    elif got[i][2] == end - 1:
        why = _OFFSET_HINTS["inclusive"]
    elif piece.startswith("##") and (got[i][1], got[i][2]) in ((start + 2, end + 2), (start, end + 2)):
        why = _OFFSET_HINTS["prefix"]
    else:
        why = "each piece spans word[start:end]; the next piece starts where the last one ended"
    raise ExerciseError(f"{case}, the offsets:\n  expected {expected!r}\n  received {got!r}"[:900]
                        + f"\n  first difference: piece {i} ({piece!r}): expected {expected[i][1:]}, received "
                        f"{got[i][1:]}\n  hint: {why}")


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 30 else f"'{text[:6]}...' ({len(text)} characters)"


def _word_label(word: str, vocab) -> str:
    pieces = "[" + ", ".join(_shown(p) for p in sorted(vocab)) + "]"  # a 101-character piece shown cut, as the word
    return f"my_wordpiece({_shown(word)}, {pieces})" if len(vocab) < 20 else f"my_wordpiece({_shown(word)}, VOCAB)"


def wordpiece_encode(fn) -> None:
    """Check `fn(word, vocab) -> [(piece, start, end), ...]`: greedy longest-match-first, '##'
    continuations, offsets into the word (end exclusive), one '[UNK]' spanning the word for a word that
    cannot be cut (or has more than 100 characters)."""
    for name, word, vocab, pieces, hint in WORDPIECE_CASES:
        case = f"{_word_label(word, vocab)} [{name}]"
        expected = reference.wordpiece(word, set(vocab))
        assert [t[0] for t in expected] == pieces, name  # the hand-worked pieces
        _compare(case, _triples(call(fn, case, word, set(vocab)), case), expected, hint)
    case, word, vocab, expected = DICT_CASE
    _compare(case, _triples(call(fn, case, word, dict(vocab)), case), expected,
             hint="look a piece up with `piece in vocab`: vocab.get(piece) is 0, which is false, for a piece whose "
                  "id is 0")
    again = _triples(call(fn, "again", "unaffable", set(_GOOGLE)), "again")
    if again != reference.wordpiece("unaffable", _GOOGLE):
        raise ExerciseError("my_wordpiece('unaffable', ...) gave another result when called a second time: "
                            "something is kept between calls (a global list, or a default argument pieces=[])")

    vocab = _minilm_vocab()
    rng = random.Random(2)
    lines = rng.sample(valid_lines(), 300)
    real = sorted({w for line in lines for w in _reference_words(line)})
    words = [(w, "a word of valid.txt") for w in rng.sample(real, min(800, len(real)))]
    letters = string.ascii_lowercase
    words += [("".join(rng.choice(letters) for _ in range(rng.randint(1, 18))), "random letters") for _ in range(300)]
    for _ in range(50):  # a character no piece holds makes the whole word [UNK]
        w = "".join(rng.choice(letters) for _ in range(rng.randint(2, 10)))
        at = rng.randint(0, len(w))
        words.append((w[:at] + rng.choice("🙂ʬ\u2603") + w[at:], "with a character the vocabulary lacks"))
    words += [("".join(rng.choice("ab") for _ in range(n)), "around the 100-character limit") for n in range(96, 106)]
    for word, label in words:
        case = f"{_word_label(word, vocab)} [{label}; VOCAB = MiniLM's vocab.txt]"
        _compare(case, _triples(call(fn, case, word, vocab), case), reference.wordpiece(word, vocab),
                 hint="compare with minibert.tokenizer.reference.wordpiece(word, VOCAB)")
    passed("wordpiece_encode", f"{len(WORDPIECE_CASES) + 1} hand-computed cases and {len(words):,} random words "
                               "(MiniLM's 30,522-piece vocabulary) agree with minibert")
