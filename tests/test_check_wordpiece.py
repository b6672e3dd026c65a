"""The checkers of exercises 01 (WordPiece) accept the solutions, let the stubs' NotImplementedError
through, and reject the mistakes learners really make, with a message that names the mistake."""

import string
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from minibert import check
from minibert.check import ExerciseError
from minibert.tokenizer.reference import CJK_RANGES

ROOT = Path(__file__).resolve().parents[1]
NAME = "01_wordpiece.ipynb"
CHECKS = [("basic_words", "my_basic_words"), ("wordpiece_encode", "my_wordpiece"),
          ("pair_scores", "my_pair_scores"), ("pack_pair", "my_pack")]


@pytest.mark.parametrize("checker, function", CHECKS)
def test_the_solution_passes(solutions, checker, function, capsys):
    getattr(check, checker)(solutions[function])
    assert capsys.readouterr().out.startswith(f"✓ {checker}:")


@pytest.mark.parametrize("checker, function", CHECKS)
def test_the_stub_raises_not_implemented(stubs, checker, function):
    with pytest.raises(NotImplementedError, match=r"Exercise 1\.\d"):
        getattr(check, checker)(stubs[function])


def test_every_checker_is_exported():
    assert sorted(check.wordpiece.__all__) == sorted(c for c, _ in CHECKS)


# ---- 1.1 · basic words: a correct tokenizer with one thing switched off at a time ------------------

def basic_words(text, *, clean=True, cjk=True, per_char_lower=True, accents=True, punctuation="bert"):
    out = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch in " \t\n\r" or category == "Zs":
            out.append(" ")
        elif clean and (ch in "\x00\ufffd" or category in ("Cc", "Cf", "Co", "Cs")):
            continue
        elif cjk and any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    text = "".join(out)
    text = "".join(c.lower() for c in text) if per_char_lower else text.lower()
    if accents:
        text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")

    def is_punct(c):
        if punctuation == "ascii":  # string.punctuation only
            return c in string.punctuation
        if punctuation == "unicode":  # category P only: misses $ + ^ ` < = > | ~
            return unicodedata.category(c).startswith("P")
        return (c.isascii() and not c.isalnum()) or unicodedata.category(c).startswith("P")

    words = []
    for chunk in text.split():
        current = ""
        for c in chunk:
            if is_punct(c):
                words += [current, c] if current else [c]
                current = ""
            else:
                current += c
        if current:
            words.append(current)
    return words


def test_the_reference_of_these_tests_is_right():
    check.basic_words(basic_words)


@pytest.mark.parametrize("bug, message", [
    (dict(accents=False), r"\[accents\]:\n  expected \['naive', 'cafe'\](.|\n)*hint: strip accents.*NFD"),
    (dict(cjk=False), r"\[Chinese ideographs\](.|\n)*hint: put a space .* every CJK ideograph"),
    (dict(punctuation="ascii"), r"\[Unicode punctuation\](.|\n)*string\.punctuation holds only ASCII"),
    (dict(punctuation="unicode"), r"\[ASCII symbols\](.|\n)*even \$ \+ \^"),
    (dict(per_char_lower=False), r"\[Greek final sigma\](.|\n)*one character at a time"),
    (dict(clean=False), r"\[format characters\](.|\n)*zero-width space U\+200B"),
])
def test_basic_words_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.basic_words(lambda text: basic_words(text, **bug))


def test_basic_words_names_the_input_expected_and_received():
    with pytest.raises(ExerciseError) as e:
        check.basic_words(lambda text: basic_words(text, accents=False))
    assert str(e.value).startswith("my_basic_words('Naïve café') [accents]:\n  expected ['naive', 'cafe']\n"
                                   "  received ['naïve', 'café']")


# ---- 1.2 · WordPiece ------------------------------------------------------------------------------

def wordpiece(word, vocab, *, prefix="##", longest=True, partial=False, limit=100):
    if limit is not None and len(word) > limit:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        ends = range(len(word), start, -1) if longest else range(start + 1, len(word) + 1)
        for end in ends:
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                break
        else:
            return pieces + ["[UNK]"] if partial else ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces


def backtracking(word, vocab):
    """Any cut that works, longest pieces preferred: not what BERT does."""
    if len(word) > 100:
        return ["[UNK]"]

    def cut(start):
        if start == len(word):
            return []
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab and (rest := cut(end)) is not None:
                return [piece] + rest
        return None

    return cut(0) or ["[UNK]"]


def test_the_wordpiece_of_these_tests_is_right():
    check.wordpiece_encode(wordpiece)


@pytest.mark.parametrize("bug, message", [
    (lambda w, v: wordpiece(w, v, prefix=""), r"\[Google's example\](.|\n)*'##' in front"),
    (lambda w, v: wordpiece(w, v, longest=False), r"\[the longest match first\](.|\n)*\n  received \['u', '##n'"
                                                  r"(.|\n)*LONGEST"),
    (lambda w, v: wordpiece(w, v, partial=True), r"\[a cut that gets stuck half-way\](.|\n)*"
                                                 r"received \['una', '##ffa', '##ble', '\[UNK\]'\](.|\n)*WHOLE word"),
    (lambda w, v: wordpiece(w, v, limit=None), r"\[101 characters\](.|\n)*more than 100 characters"),
    (lambda w, v: wordpiece(w, v, limit=99), r"\[100 characters\](.|\n)*exactly 100 characters is still cut"),
    (backtracking, r"\[the greedy trap\](.|\n)*received \['a', '##bc'\](.|\n)*greedy never goes back"),
])
def test_wordpiece_encode_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.wordpiece_encode(bug)


def test_wordpiece_encode_reports_a_crash_with_its_input():
    def crashes_on_long_words(word, vocab):
        assert len(word) < 50
        return wordpiece(word, vocab)

    with pytest.raises(ExerciseError, match=r"\[100 characters\]: your function raised AssertionError"):
        check.wordpiece_encode(crashes_on_long_words)


# ---- 1.3 · pair scores ----------------------------------------------------------------------------

def scores(word_counts, splits, *, weight_pairs=True, weight_pieces=True, divide=True, across_words=False,
           distinct_pairs=False, skip_single=False):
    pieces_freq, pairs_freq = Counter(), Counter()
    stream = []
    for word, n in word_counts.items():
        pieces = splits[word]
        if skip_single and len(pieces) < 2:
            continue
        for piece in pieces:
            pieces_freq[piece] += n if weight_pieces else 0
        if not weight_pieces:
            pieces_freq.update(set(pieces))
        pairs = list(zip(pieces, pieces[1:]))
        for pair in (set(pairs) if distinct_pairs else pairs):
            pairs_freq[pair] += n if weight_pairs else 1
        stream += pieces
    if across_words:  # every piece of the corpus in one row: the last of a word pairs with the next word
        pairs_freq.update(zip(stream, stream[1:]))
    if not divide:
        return {pair: float(n) for pair, n in pairs_freq.items()}
    return {(a, b): n / (pieces_freq[a] * pieces_freq[b]) for (a, b), n in pairs_freq.items()}


def test_the_scores_of_these_tests_are_right():
    check.pair_scores(scores)


@pytest.mark.parametrize("bug, message", [
    (dict(divide=False), r"\[the toy corpus of chapter 01(.|\n)*received 5\.0\n  hint: that is freq\(ab\) alone"),
    (dict(weight_pairs=False),
     r"the score of \('##g', '##s'\)(.|\n)*received 0\.01\n(.|\n)*weight by the word's count"),
    (dict(weight_pieces=False), r"the score of \('##g', '##s'\)(.|\n)*not the number of distinct words"),
    (dict(weight_pairs=False, weight_pieces=False), r"weight both the pair counts and the piece counts"),
    (dict(across_words=True), r"not two adjacent pieces of one word(.|\n)*never a pair"),
    (dict(distinct_pairs=True), r"\[a repeated piece and a one-piece word(.|\n)*holds the pair \('##a', '##a'\) twice"),
    (dict(skip_single=True), r"\[a repeated piece and a one-piece word(.|\n)*is a single piece"),
])
def test_pair_scores_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.pair_scores(lambda counts, splits: scores(counts, splits, **bug))


def test_pair_scores_rejects_a_list_of_pairs():
    with pytest.raises(ExerciseError, match=r"expected a dict \{\(a, b\): score\}, received list"):
        check.pair_scores(lambda counts, splits: sorted(scores(counts, splits).items()))


# ---- 1.4 · packing --------------------------------------------------------------------------------

def pack(a, b, *, final_type=1, middle_type=0, final_sep=True, none_test="is None"):
    has_b = b is not None if none_test == "is None" else bool(b)
    tokens, types = ["[CLS]", *a, "[SEP]"], [0] * (len(a) + 1) + [middle_type]
    if has_b:
        tokens += [*b] + (["[SEP]"] if final_sep else [])
        types += [1] * len(b) + ([final_type] if final_sep else [])
    return tokens, types


def types_before_cls(a, b):
    """Types built for A [SEP] B [SEP], then [CLS] put in front of the tokens only."""
    types = [0] * (len(a) + 1) + ([] if b is None else [1] * (len(b) + 1))
    return ["[CLS]", *a, "[SEP]", *([] if b is None else [*b, "[SEP]"])], types


def in_place(a, b):
    a.insert(0, "[CLS]")
    a.append("[SEP]")
    types = [0] * len(a)
    if b is not None:
        b.append("[SEP]")
        types += [1] * len(b)
    return a + (b or []), types


def test_the_pack_of_these_tests_is_right():
    check.pack_pair(pack)


@pytest.mark.parametrize("bug, message", [
    (lambda a, b: pack(a, b, final_type=0), r"\[a pair\], the token types(.|\n)*position 7 \(the \[SEP\] that ends B"
                                            r"(.|\n)*the final \[SEP\] closes B, so it has type 1"),
    (lambda a, b: pack(a, b, middle_type=1), r"\[a pair\], the token types(.|\n)*position 3 \(the \[SEP\] that ends A"
                                             r"(.|\n)*the first \[SEP\] closes A, so it has type 0"),
    (lambda a, b: pack(a, b, final_sep=False), r"\[a pair\], the tokens(.|\n)*a pair ends with a second \[SEP\]"),
    (lambda a, b: pack(a, b, none_test="truthy"), r"\[an empty B is still a B\](.|\n)*only None means no B"),
    (types_before_cls, r"\[a pair\]: 8 tokens but 7 token types(.|\n)*one type per token"),
    (in_place, r"\[a pair\]: your function changed its input"),
])
def test_pack_pair_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.pack_pair(bug)
