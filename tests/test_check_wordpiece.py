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

def basic_words(text, *, clean=True, cjk=True, per_char_lower=True, accents=True, punctuation="bert",
                tab_is_control=False, isspace=False, controls=("Cc", "Cf", "Co", "Cs"), form="NFD", marks="Mn",
                cjk_ranges=CJK_RANGES, drop_nul=True, split_arg=None, keep_empty=False, only_upper=False,
                only_alpha=False, private_by_range=False):
    out = []
    for ch in text:
        category = unicodedata.category(ch)
        if tab_is_control and ch in "\t\n\r":
            continue
        if (ch.isspace() if isspace else (ch in " \t\n\r" or category == "Zs")):
            out.append(" ")
        elif private_by_range and 0xE000 <= ord(ch) <= 0xF8FF:  # the BMP's private-use area, not category Co
            continue
        elif clean and ((drop_nul and ch in "\x00\ufffd") or category in controls
                        or (controls == "C*" and category.startswith("C"))):
            continue
        elif cjk and any(lo <= ord(ch) <= hi for lo, hi in cjk_ranges):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    text = "".join(out)
    text = "".join(c.lower() for c in text) if per_char_lower else text.lower()
    if only_upper:  # lower-cased only where str.isupper() says so: not the titlecase letters (Lt)
        text = "".join(c.lower() if c.isupper() else c for c in "".join(out))
    if only_alpha:  # lower-cased only where str.isalpha() says so: not the circled letters (So), Roman numerals (Nl)
        text = "".join(c.lower() if c.isalpha() else c for c in "".join(out))
    if accents:
        def dropped(c):
            if marks == "combining":
                return unicodedata.combining(c) != 0
            if marks == "accents":
                return 0x300 <= ord(c) <= 0x36F
            if marks == "Mn+Me":  # the enclosing marks dropped too
                return unicodedata.category(c) in ("Mn", "Me")
            return unicodedata.category(c).startswith("M") if marks == "M*" else unicodedata.category(c) == "Mn"
        text = "".join(c for c in unicodedata.normalize(form, text) if not dropped(c))

    def is_punct(c):
        if punctuation == "ascii":  # string.punctuation only
            return c in string.punctuation
        if punctuation == "unicode":  # category P only: misses $ + ^ ` < = > | ~
            return unicodedata.category(c).startswith("P")
        if punctuation == "regex":  # [^\w\s]: '_' is \w
            return c != "_" and not c.isalnum() and (c.isascii() or unicodedata.category(c).startswith("P"))
        return (c.isascii() and not c.isalnum()) or unicodedata.category(c).startswith("P")

    words = []
    for chunk in text.split(split_arg):
        current = ""
        for c in chunk:
            if is_punct(c):
                words += [current, c] if current or keep_empty else [c]
                current = ""
            else:
                current += c
        if current or keep_empty:
            words.append(current)
    return words


def regex_style(text):
    """Another correct style: the whole text at once, whole-string NFD, strip accents before lower-casing
    (the Rust order), and a regular expression for the split."""
    import re

    text = "".join(" " if c in " \t\n\r" or unicodedata.category(c) == "Zs" else c for c in text
                   if not (c in "\x00\ufffd" or (c not in "\t\n\r" and unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs"))))
    text = re.sub("([" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in CJK_RANGES) + "])", r" \1 ", text)
    text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    text = "".join(c.lower() for c in text)
    marked = "".join(f" {c} " if (33 <= ord(c) <= 47 or 58 <= ord(c) <= 64 or 91 <= ord(c) <= 96 or 123 <= ord(c) <= 126
                                  or unicodedata.category(c).startswith("P")) else c for c in text)
    return tuple(re.findall(r"\S+", marked))  # a tuple is fine too


def test_alternative_styles_pass(capsys):
    check.basic_words(regex_style)
    assert capsys.readouterr().out.startswith("✓")


def test_the_reference_of_these_tests_is_right():
    check.basic_words(basic_words)


@pytest.mark.parametrize("bug, message", [
    (dict(accents=False), r"\[accents\]:\n  expected \['naive', 'cafe'\](.|\n)*hint: strip accents.*NFD"),
    (dict(cjk=False), r"\[Chinese ideographs\](.|\n)*hint: put a space .* every CJK ideograph"),
    (dict(punctuation="ascii"), r"\[Unicode punctuation\](.|\n)*string\.punctuation holds only ASCII"),
    (dict(punctuation="unicode"), r"\[ASCII symbols\](.|\n)*even \$ \+ \^"),
    (dict(per_char_lower=False), r"\[Greek final sigma\](.|\n)*one character at a time"),
    (dict(only_upper=True), r"\[titlecase letters\](.|\n)*not upper-case to str\.isupper\(\)"),
    (dict(only_alpha=True), r"\[letters that are not alphabetic\](.|\n)*not only those str\.isalpha\(\) accepts"),
    (dict(clean=False), r"\[format characters\](.|\n)*zero-width space U\+200B"),
    (dict(tab_is_control=True), r"\[capitals, a tab and an accent\]|\[tab, newline and return are spaces\]"),
    (dict(isspace=True), r"\[controls that str\.isspace\(\) calls spaces\](.|\n)*str\.isspace\(\) says yes to more"),
    (dict(split_arg=" "), r"\[(other spaces|line and paragraph separators|no empty words)\]"),
    (dict(controls=("Cc", "Cf")), r"\[private-use and surrogate characters\](.|\n)*Google's code drops only Cc and Cf"),
    (dict(controls=("Cc", "Cf", "Cs"), private_by_range=True),
     r"\[private use outside the BMP\](.|\n)*planes 15 and 16"),
    (dict(controls="C*"), r"\[unassigned code points stay\](.|\n)*Cn"),
    (dict(form="NFKD"), r"\[compatibility characters stay\](.|\n)*NFD, not NFKD"),
    (dict(form="NFC"), r"\[accents\](.|\n)*NFD"),
    (dict(marks="accents"), r"\[every nonspacing mark, and only those\](.|\n)*virama"),
    (dict(marks="M*"), r"\[every nonspacing mark, and only those\](.|\n)*are Mc and stay"),
    (dict(marks="combining"), r"\[every nonspacing mark, and only those\](.|\n)*combining\(U\+0941\) is 0"),
    (dict(marks="Mn+Me"), r"\[enclosing marks stay\](.|\n)*U\+20DD and U\+0488 are Me"),
    (dict(cjk_ranges=[(0x4E00, 0x9FFF)]), r"\[all the CJK ranges\](.|\n)*every range of CJK_RANGES"),
    (dict(cjk_ranges=[(lo, hi - 1) for lo, hi in CJK_RANGES]),  # range()'s habit: each block's end left out
     r"\[the last code point of every CJK range\](.|\n)*includes its last code point"),
    (dict(cjk_ranges=[(0x3000, 0x9FFF)]), r"\[(katakana are not ideographs|hiragana are not ideographs|other spaces)\]"),
    (dict(punctuation="regex"), r"\[the underscore is punctuation\](.|\n)*regular expressions count it in"),
    (dict(keep_empty=True), r"received \[.*''"),
    (dict(drop_nul=False), r"\[NUL, U\+FFFD and a control character\](.|\n)*U\+FFFD"),
])
def test_basic_words_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.basic_words(lambda text: basic_words(text, **bug))


def test_basic_words_rejects_state_kept_between_calls():
    seen = []

    def leaky(text, words=seen):
        words += basic_words(text)
        return list(words)

    with pytest.raises(ExerciseError):
        check.basic_words(leaky)


def test_basic_words_names_the_input_expected_and_received():
    with pytest.raises(ExerciseError) as e:
        check.basic_words(lambda text: basic_words(text, accents=False))
    assert str(e.value).startswith("my_basic_words('Naïve café') [accents]:\n  expected ['naive', 'cafe']\n"
                                   "  received ['naïve', 'café']")


# ---- 1.2 · WordPiece ------------------------------------------------------------------------------

def wordpiece(word, vocab, *, prefix="##", longest=True, partial=False, limit=100, offsets="right", cap=None):
    triples = wordpiece_triples(word, vocab, prefix=prefix, longest=longest, partial=partial, limit=limit, cap=cap)
    if offsets == "inclusive":
        return [(p, s, e - 1) for p, s, e in triples]
    if offsets == "with prefix":
        return [(p, s + 2, e + 2) if p.startswith("##") else (p, s, e) for p, s, e in triples]
    if offsets == "unk at failure":
        return [(p, s, e) if p != "[UNK]" else (p, 0, 0) for p, s, e in triples]
    if offsets == "pieces only":
        return [p for p, _, _ in triples]
    if offsets in ("lstrip", "replace") and triples[:1] != [("[UNK]", 0, len(word))]:  # lengths added up
        out, pos = [], 0
        for p, _, _ in triples:
            text = p.lstrip("#") if offsets == "lstrip" else p.replace("##", "")  # every leading "#" / every "##" gone
            out.append((p, pos, pos + len(text)))
            pos += len(text)
        return out
    return triples


def wordpiece_triples(word, vocab, *, prefix="##", longest=True, partial=False, limit=100, cap=None):
    if limit is not None and len(word) > limit:
        return [("[UNK]", 0, len(word))]
    pieces, start = [], 0
    while start < len(word):
        ends = range(len(word), start, -1) if longest else range(start + 1, len(word) + 1)
        if cap is not None:  # a piece of at most `cap` characters tried, to save lookups
            ends = range(min(len(word), start + cap), start, -1)
        for end in ends:
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                break
        else:
            return pieces + [("[UNK]", start, len(word))] if partial else [("[UNK]", 0, len(word))]
        pieces.append((piece, start, end))
        start = end
    return pieces


def numpy_style(word, vocab):
    """Another correct style: lists for triples, numpy integers for offsets, try/except lookups."""
    import numpy as np

    out = wordpiece_triples(word, set(vocab))
    return [[p, np.int64(s), np.int64(e)] for p, s, e in out]


def generator_style(word, vocab):
    """Another correct style: the longest end found by next() over a generator, the prefix chosen once."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    out, start = [], 0
    while start < len(word):
        prefix = "##" if start else ""
        end = next((e for e in range(len(word), start, -1) if prefix + word[start:e] in vocab), None)
        if end is None:
            return [("[UNK]", 0, len(word))]
        out.append((prefix + word[start:end], start, end))
        start = end
    return out


@pytest.mark.parametrize("style", [numpy_style, generator_style])
def test_alternative_wordpiece_styles_pass(style, capsys):
    check.wordpiece_encode(style)
    assert capsys.readouterr().out.startswith("✓")


def backtracking(word, vocab):
    """Any cut that works, longest pieces preferred: not what BERT does."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]

    def cut(start):
        if start == len(word):
            return []
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab and (rest := cut(end)) is not None:
                return [(piece, start, end)] + rest
        return None

    return cut(0) or [("[UNK]", 0, len(word))]


def test_the_wordpiece_of_these_tests_is_right():
    check.wordpiece_encode(wordpiece)


def wordpiece_looked_up_by_id(word, vocab):  # `if vocab.get(piece):` on a dict: a piece of id 0 counts as missing
    return wordpiece(word, {p for p in vocab if vocab[p]} if isinstance(vocab, dict) else vocab)


@pytest.mark.parametrize("bug, message", [
    (lambda w, v: wordpiece(w, v, prefix=""), r"\[Google's example\](.|\n)*'##' in front"),
    (lambda w, v: wordpiece(w, v, longest=False), r"\[the longest match first\](.|\n)*\n  received \['u', '##n'"
                                                  r"(.|\n)*LONGEST"),
    (lambda w, v: wordpiece(w, v, partial=True), r"\[a cut that gets stuck half-way\](.|\n)*"
                                                 r"received \['una', '##ffa', '##ble', '\[UNK\]'\](.|\n)*WHOLE word"),
    (lambda w, v: wordpiece(w, v, limit=200), r"\[101 characters\](.|\n)*Google's max_input_chars_per_word is 200"),
    (lambda w, v: wordpiece(w, v, offsets="inclusive"), r"\[Google's example\], the offsets(.|\n)*end is exclusive"),
    (lambda w, v: wordpiece(w, v, offsets="with prefix"), r"the offsets(.|\n)*where there is no '##'"),
    (lambda w, v: wordpiece(w, v, offsets="unk at failure"), r"\[no piece starts the word\], the offsets(.|\n)*\(0, len\(word\)\)"),
    (lambda w, v: wordpiece(w, v, offsets="pieces only"), r"expected a list of \(piece, start, end\) triples"),
    (lambda w, v: wordpiece(w, v, offsets="lstrip"),
     r"\[a '#' of the word itself\], the offsets(.|\n)*received \[\('c', 0, 1\), \('###', 1, 1\)\](.|\n)*"
     r"lstrip\('#'\) also strips"),
    (lambda w, v: wordpiece(w, v, limit=None), r"\[101 characters\](.|\n)*more than 100 characters"),
    (lambda w, v: wordpiece(w, v, offsets="replace"),
     r"\[two '#'s of the word itself\], the offsets(.|\n)*received \[\('c', 0, 1\), \('####', 1, 1\)\](.|\n)*"
     r"replace\('##', ''\) a '##' of it"),
    (wordpiece_looked_up_by_id,
     r"\[a dict vocabulary whose piece 'a' has id 0\], the pieces(.|\n)*`piece in vocab`"),
    (lambda w, v: wordpiece(w, v, limit=99), r"\[100 characters\](.|\n)*exactly 100 characters is still cut"),
    (lambda w, v: [(w, 0, len(w))] if w in v else wordpiece(w, v),  # the whole word returned before the limit
     r"\[101 characters, the whole word a piece\], the pieces(.|\n)*tested first, before any lookup"),
    (lambda w, v: wordpiece(w, v, cap=20), r"\[a piece of 45 characters\], the pieces(.|\n)*however long"),
    (backtracking, r"\[the greedy trap\], the pieces(.|\n)*received \['a', '##bc'\](.|\n)*greedy never goes back"),
    (lambda w, v: wordpiece(w.lower(), v), r"\[a cased vocabulary\], the pieces(.|\n)*do not lower-case"),
    (lambda w, v: [("[UNK]", 0, len(w))] if len(w.encode()) > 100 else wordpiece(w, v),
     r"\[100 characters of 2 bytes each\], the pieces(.|\n)*not UTF-8 bytes"),
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
           distinct_pairs=False, skip_single=False, merged_key=False):
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
    if merged_key:  # freq(ab) read as the frequency of the merged string: ('ab', '##c') and ('a', '##bc') add up
        merged = Counter()
        for (a, b), n in pairs_freq.items():
            merged[a + b.removeprefix("##")] += n
        pairs_freq = Counter({(a, b): merged[a + b.removeprefix("##")] for a, b in pairs_freq})
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
    (dict(merged_key=True), r"\[two pairs that merge into the same string(.|\n)*not the string it merges into"),
])
def test_pair_scores_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.pair_scores(lambda counts, splits: scores(counts, splits, **bug))


def test_pair_scores_rejects_a_list_of_pairs():
    with pytest.raises(ExerciseError, match=r"expected a dict \{\(a, b\): score\}, received list"):
        check.pair_scores(lambda counts, splits: sorted(scores(counts, splits).items()))


# ---- 1.4 · packing --------------------------------------------------------------------------------

def cut(a, b, max_length, *, reserve=None, ties="B", front=False, rust=False):
    """The longest-first cut (with switches for the mistakes): the kept A and B."""
    budget = max_length - (reserve if reserve is not None else (2 if b is None else 3))
    la, lb = len(a), 0 if b is None else len(b)
    if rust and la + lb > budget:  # the Rust library's ending: the odd token to the longer side
        from minibert.tokenizer import truncate_pair
        ka, kb = truncate_pair(la, lb, budget)
        if ka + kb == budget and abs(ka - kb) == 1 and la != lb:
            ka, kb = (max(ka, kb), min(ka, kb)) if la > lb else (min(ka, kb), max(ka, kb))
        la, lb = ka, kb
    while la + lb > budget:
        if la > lb or (la == lb and ties == "A"):
            la -= 1
        else:
            lb -= 1
    keep = (lambda xs, n: xs[len(xs) - n:] if n else []) if front else (lambda xs, n: xs[:n])
    return keep(a, la), None if b is None else keep(b, lb)


def pack(a, b, max_length=512, *, final_type=1, middle_type=0, final_sep=True, none_test="is None", **cut_bug):
    a, b = cut(a, b, max_length, **cut_bug)
    has_b = b is not None if none_test == "is None" else bool(b)
    tokens, types = ["[CLS]", *a, "[SEP]"], [0] * (len(a) + 1) + [middle_type]
    if has_b:
        tokens += [*b] + (["[SEP]"] if final_sep else [])
        types += [1] * len(b) + ([final_type] if final_sep else [])
    return tokens, types


def types_before_cls(a, b, max_length):
    """Types built for A [SEP] B [SEP], then [CLS] put in front of the tokens only."""
    a, b = cut(a, b, max_length)
    types = [0] * (len(a) + 1) + ([] if b is None else [1] * (len(b) + 1))
    return ["[CLS]", *a, "[SEP]", *([] if b is None else [*b, "[SEP]"])], types


def in_place(a, b, max_length):
    a.insert(0, "[CLS]")
    a.append("[SEP]")
    types = [0] * len(a)
    if b is not None:
        b.append("[SEP]")
        types += [1] * len(b)
    return a + (b or []), types


def google_in_place(a, b, max_length):
    """Google's _truncate_seq_pair copied as it is: it pops from the caller's lists."""
    while b is not None and len(a) + len(b) > max_length - 3:
        (a if len(a) > len(b) else b).pop()
    return pack(list(a), None if b is None else list(b), max_length)


def test_the_pack_of_these_tests_is_right():
    check.pack_pair(pack)


@pytest.mark.parametrize("bug, message", [
    (lambda a, b, n: pack(a, b, n, reserve=0), r"may hold at most max_length"),
    (lambda a, b, n: pack(a, b, n, reserve=3), r"\[one sentence, cut\](.|\n)*(single sentence keeps|cut only as much)"),
    (lambda a, b, n: pack(a, b, n, ties="A"), r"\[equal sides: B loses first\](.|\n)*from B when they are equal"),
    (lambda a, b, n: pack(a, b, n, front=True), r"removed from the END of a side"),
    (lambda a, b, n: pack(a, b, n, rust=True), r"longest first"),
    (google_in_place, r"changed its input(.|\n)*pops in place"),
    (lambda a, b, n: pack(a, b, n, final_type=0), r"\[a pair\], the token types(.|\n)*position 7 \(the \[SEP\] that ends B"
                                            r"(.|\n)*the final \[SEP\] closes B, so it has type 1"),
    (lambda a, b, n: pack(a, b, n, middle_type=1), r"\[a pair\], the token types(.|\n)*position 3 \(the \[SEP\] that ends A"
                                             r"(.|\n)*the first \[SEP\] closes A, so it has type 0"),
    (lambda a, b, n: pack(a, b, n, final_sep=False), r"\[a pair\], the tokens(.|\n)*a pair ends with a second \[SEP\]"),
    (lambda a, b, n: pack(a, b, n, none_test="truthy"), r"\[an empty B is still a B\](.|\n)*only None means no B"),
    (types_before_cls, r"\[a pair\]: 8 tokens but 7 token types(.|\n)*one type per token"),
    (in_place, r"\[a pair\]: your function changed its input"),
    (lambda a, b, n: (pack(a, b, n)[0], [t == 1 for t in pack(a, b, n)[1]]),
     r"\[a pair\], the token types: received \[False(.|\n)*integers 0 and 1"),
])
def test_pack_pair_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.pack_pair(bug)


# ---- 1.3 · more mistakes, and other correct styles -------------------------------------------------

def _leaky_scores():
    seen = Counter()

    def leaky(word_counts, splits, freq=seen):
        for word, n in word_counts.items():
            for piece in splits[word]:
                freq[piece] += n
        pairs = Counter()
        for word, n in word_counts.items():
            for pair in zip(splits[word], splits[word][1:]):
                pairs[pair] += n
        return {(a, b): m / (freq[a] * freq[b]) for (a, b), m in pairs.items()}

    return leaky


def _mutating_scores(word_counts, splits):
    result = scores(word_counts, splits)
    for pieces in splits.values():
        pieces.sort()
    return result


def _zipped_scores(word_counts, splits):
    """Each count paired with the pieces at the same place in the other dict: right only when both list
    the words in one order."""
    return scores(word_counts, dict(zip(word_counts, splits.values())))


@pytest.mark.parametrize("bug, message", [
    (lambda c, s: {k: int(v * 0) for k, v in scores(c, s).items()}, r"integer division"),
    (lambda c, s: {(a, b): v * (scores(c, s, divide=False)[a, b] and 1) for (a, b), v in
                   {(a, b): scores(c, s, divide=False)[a, b] / (sum(n for w, n in c.items() for p in s[w] if p == a)
                                                                 + sum(n for w, n in c.items() for p in s[w] if p == b))
                    for (a, b) in scores(c, s)}.items()}, r"do not add them"),
    (lambda c, s: {k: v * sum(n * len(s[w]) for w, n in c.items()) for k, v in scores(c, s).items()},
     r"not counts divided by the number of pieces"),
    (lambda c, s: {" ".join(k): v for k, v in scores(c, s).items()}, r"keys of your dict are strings"),
    (_mutating_scores, r"changed its input"),
    (_leaky_scores(), r"second time"),
    (_zipped_scores, r"another order than word_counts(.|\n)*look the pieces up by the word"),
])
def test_pair_scores_rejects_more(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.pair_scores(bug)


def test_pair_scores_accepts_float32(capsys):
    """torch's true division of integer tensors gives float32: a few 1e-7 off, still correct."""
    import torch

    def torch_style(counts, splits):
        exact = scores(counts, splits)
        values = torch.tensor([round(v * 2**40) for v in exact.values()]) / 2**40  # float32
        return {k: v.item() for k, v in zip(exact, values)}

    check.pair_scores(torch_style)
    assert capsys.readouterr().out.startswith("✓")


def test_pair_scores_accepts_numpy_floats(capsys):
    import numpy as np

    check.pair_scores(lambda c, s: {k: np.float32(v) if False else np.float64(v) for k, v in scores(c, s).items()})
    assert capsys.readouterr().out.startswith("✓")
