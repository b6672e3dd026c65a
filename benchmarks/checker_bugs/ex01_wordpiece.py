"""Exercise 1.1 (my_basic_words): learners' tokenizers with one mistake each, and correct ones in other styles.

Split rule (fixed before any checker changed): within the exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import string
import unicodedata

from minibert.tokenizer.reference import CJK_RANGES

from . import Exercise
from collections import Counter, defaultdict
import re
import numpy as np
import itertools
import math
from fractions import Fraction
from functools import reduce
import heapq

EX = Exercise("1.1", "basic_words")


def _is_cjk(ch):
    return any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES)


def _split_punct(text, is_punct):
    words = []
    for chunk in text.split():
        current = ""
        for ch in chunk:
            if is_punct(ch):
                if current:
                    words.append(current)
                words.append(ch)
                current = ""
            else:
                current += ch
        if current:
            words.append(current)
    return words


def _bert_punct(ch):
    return (ch.isascii() and not ch.isalnum() and not ch.isspace()) or unicodedata.category(ch).startswith("P")


@EX.bug
def isspace_for_whitespace(text):
    """I used str.isspace() to find whitespace, so \\x0b, \\x1c and \\x85 became spaces instead of vanishing."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch.isspace():
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif _is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn"))
    return _split_punct("".join(out), _bert_punct)


@EX.bug
def controls_before_whitespace(text):
    """I dropped the control characters first, so tab and newline (category Cc) vanished and glued words."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        if ch == " " or cat == "Zs":
            out.append(" ")
        elif _is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn"))
    return _split_punct("".join(out), _bert_punct)


@EX.bug
def whole_string_lower(text):
    """I cleaned the text and then called text.lower() on all of it (Greek final sigma comes out as ς)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif _is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    text = unicodedata.normalize("NFD", "".join(out).lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    return _split_punct(text, _bert_punct)


@EX.bug
def nfkd_accents(text):
    """I stripped accents after NFKD (I read that K is the more thorough one)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif _is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFKD", ch.lower()) if unicodedata.category(c) != "Mn"))
    return _split_punct("".join(out), _bert_punct)


@EX.bug
def all_marks_dropped(text):
    """I dropped every mark, category M* (Mn, Mc and Me), not just Mn."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif _is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFD", ch.lower())
                               if not unicodedata.category(c).startswith("M")))
    return _split_punct("".join(out), _bert_punct)


@EX.bug
def string_punctuation_only(text):
    """I used `ch in string.punctuation` for punctuation (ASCII only, so ¿ « — stay in words)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif _is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn"))
    return _split_punct("".join(out), lambda c: c in string.punctuation)


@EX.bug
def cjk_main_block_only(text):
    """I spaced only the main CJK block, U+4E00 to U+9FFF (the one I remembered), not every range of CJK_RANGES."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif 0x4E00 <= ord(ch) <= 0x9FFF:
            out.append(f" {ch} ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn"))
    return _split_punct("".join(out), _bert_punct)


@EX.bug
def every_c_category_dropped(text):
    """I dropped every character whose category starts with C, unassigned code points (Cn) too."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat.startswith("C"):
            continue
        elif _is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn"))
    return _split_punct("".join(out), _bert_punct)


@EX.bug
def replacement_char_kept(text):
    """I dropped NUL and the control/format categories but forgot U+FFFD (it is So, so my test kept it)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch == "\x00" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif _is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn"))
    return _split_punct("".join(out), _bert_punct)


@EX.bug
def split_on_plain_space(text):
    """I split with text.split(" ") and threw away the empty strings (U+2028 and U+2029 then stay inside words)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif _is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn"))
    words = []
    for chunk in "".join(out).split(" "):
        if chunk:
            words += _split_punct(chunk, _bert_punct)
    return words


@EX.bug
def symbols_as_punctuation(text):
    """I treated every character that is not a letter, digit or space as punctuation (so € and 🙂 split off)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif _is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn"))
    return _split_punct("".join(out), lambda c: not c.isalnum() and not c.isspace())


@EX.bug
def cjk_tested_after_normalising(text):
    """I lower-cased and decomposed first and tested for CJK afterwards, on the decomposed characters."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            out.append(ch.lower())
    text = "".join(c for c in unicodedata.normalize("NFD", "".join(out)) if unicodedata.category(c) != "Mn")
    text = "".join(f" {c} " if 0x4E00 <= ord(c) <= 0x9FFF or 0x3400 <= ord(c) <= 0x4DBF else c for c in text)
    return _split_punct(text, _bert_punct)


@EX.correct
def passes_over_the_text(text):
    """A pipeline of passes over the whole text; punctuation and ideographs padded with spaces, then one split."""
    text = "".join(" " if (c in " \t\n\r" or unicodedata.category(c) == "Zs") else c for c in text)
    text = "".join(c for c in text if c not in "\x00\ufffd" and unicodedata.category(c) not in ("Cc", "Cf", "Co", "Cs"))
    text = "".join(f" {c} " if _is_cjk(c) else c for c in text)
    text = "".join(c.lower() for c in text)
    text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    return "".join(f" {c} " if _bert_punct(c) else c for c in text).split()


@EX.correct
def code_point_sets(text):
    """Punctuation from code-point ranges; one loop over the cleaned characters builds the words."""
    ascii_punct = set(range(33, 48)) | set(range(58, 65)) | set(range(91, 97)) | set(range(123, 127))
    cleaned = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            cleaned.append(" ")
        elif ch not in "\x00\ufffd" and cat not in ("Cc", "Cf", "Co", "Cs"):
            cleaned.append(f" {ch} " if _is_cjk(ch) else ch.lower())
    cleaned = [c for c in unicodedata.normalize("NFD", "".join(cleaned)) if unicodedata.category(c) != "Mn"]
    words, word = [], ""
    for c in cleaned:
        if c.isspace() or ord(c) in ascii_punct or unicodedata.category(c).startswith("P"):
            if word:
                words.append(word)
            word = ""
            if not c.isspace():
                words.append(c)
        else:
            word += c
    if word:
        words.append(word)
    return words


# --- Batch 2: written without reading any checker, before the checkers were changed against it ---
EX.batch = 2


def _clean_b2(text, lower=str.lower, in_cjk=_is_cjk):
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif in_cjk(ch):  # NFD too: a compatibility ideograph such as U+F9E1 becomes U+674E
            out.append(f" {unicodedata.normalize('NFD', ch)} ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFD", lower(ch)) if unicodedata.category(c) != "Mn"))
    return "".join(out)


@EX.bug
def p_categories_only(text):
    """I took punctuation to be the characters whose category starts with P, so $ + < = > ^ ` | ~ stay inside words."""
    return _split_punct(_clean_b2(text), lambda c: unicodedata.category(c).startswith("P"))


@EX.bug
def cjk_range_end_exclusive(text):
    """I tested lo <= ord(ch) < hi, as with range(), so the last code point of each CJK block is not spaced."""
    in_cjk = lambda ch: any(lo <= ord(ch) < hi for lo, hi in CJK_RANGES)
    return _split_punct(_clean_b2(text, in_cjk=in_cjk), _bert_punct)


@EX.bug
def casefold_per_character(text):
    """I lower-cased each character with casefold(), the more thorough lower() (so ß becomes ss)."""
    return _split_punct(_clean_b2(text, lower=str.casefold), _bert_punct)


@EX.bug
def punctuation_runs_kept(text):
    """I kept a run of punctuation marks together as one word ("..." or "?!" stays one word)."""
    words = []
    for chunk in _clean_b2(text).split():
        current, in_punct = "", False
        for ch in chunk:
            is_punct = _bert_punct(ch)
            if current and is_punct != in_punct:
                words.append(current)
                current = ""
            current += ch
            in_punct = is_punct
        if current:
            words.append(current)
    return words


@EX.correct
def grouped_by_kind(text):
    """Each cleaned character tagged space / punctuation / letter, the words read off with itertools.groupby."""
    import itertools

    def kind(c):
        return "space" if c.isspace() else "punct" if _bert_punct(c) else "word"
    words = []
    for k, run in itertools.groupby(_clean_b2(text), key=kind):
        run = "".join(run)
        if k == "word":
            words.append(run)
        elif k == "punct":
            words.extend(run)
    return words


# --- Batch 3: written without reading any checker, before the checkers were changed against it ---
EX.batch = 3


def _words_b3(text, is_punct):
    """Split the cleaned text on whitespace, then every punctuation character is a word of its own."""
    words = []
    for chunk in text.split():
        current = ""
        for ch in chunk:
            if is_punct(ch):
                if current:
                    words.append(current)
                words.append(ch)
                current = ""
            else:
                current += ch
        if current:
            words.append(current)
    return words


@EX.bug
def carriage_return_forgotten(text):
    """I listed BERT's whitespace as " ", "\\t" and "\\n" (and Zs) and forgot "\\r", so a lone \\r, a control, glued two words."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if _is_cjk(ch) else kept)
    return _words_b3("".join(out), _bert_punct)


@EX.bug
def combining_class_for_accents(text):
    """I dropped the accents with `if not unicodedata.combining(c)` (combining class 0), not by category Mn."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if not unicodedata.combining(c))
            out.append(f" {kept} " if _is_cjk(ch) else kept)
    return _words_b3("".join(out), _bert_punct)


@EX.bug
def lower_only_if_isupper(text):
    """I lower-cased a character only when ch.isupper() was true (titlecase letters such as ǅ are not "upper")."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            low = ch.lower() if ch.isupper() else ch
            kept = "".join(c for c in unicodedata.normalize("NFD", low) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if _is_cjk(ch) else kept)
    return _words_b3("".join(out), _bert_punct)


@EX.bug
def space_after_ideograph_only(text):
    """I put a space after each ideograph to end its word, but none before it (so "x北" stays one word)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            out.append(f"{kept} " if _is_cjk(ch) else kept)
    return _words_b3("".join(out), _bert_punct)


@EX.bug
def ascii_ranges_as_python_ranges(text):
    """I wrote the ASCII punctuation as range(33, 47), range(58, 64), range(91, 96), range(123, 126), which leave out 47, 64, 96 and 126 (` and ~ then stay in words)."""
    ascii_punct = set(range(33, 47)) | set(range(58, 64)) | set(range(91, 96)) | set(range(123, 126))
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if _is_cjk(ch) else kept)
    return _words_b3("".join(out), lambda c: ord(c) in ascii_punct or unicodedata.category(c).startswith("P"))


@EX.bug
def google_control_categories(text):
    """I dropped Cc and Cf as Google's _is_control does, so private-use (Co) and surrogate (Cs) characters stay."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if _is_cjk(ch) else kept)
    return _words_b3("".join(out), _bert_punct)


@EX.correct
def generator_of_pieces(text):
    """A generator yields each character's cleaned text; the words come from padding punctuation with spaces."""
    def pieces():
        for ch in text:
            cat = unicodedata.category(ch)
            if cat == "Zs" or ch in "\t\n\r ":
                yield " "
                continue
            if cat in {"Cc", "Cf", "Co", "Cs"} or ch in {"\x00", "\ufffd"}:
                continue
            decomposed = unicodedata.normalize("NFD", ch.lower())
            stripped = "".join(filter(lambda c: unicodedata.category(c) != "Mn", decomposed))
            yield " " + stripped + " " if _is_cjk(ch) else stripped

    def pad(c):
        is_ascii_punct = 33 <= ord(c) <= 47 or 58 <= ord(c) <= 64 or 91 <= ord(c) <= 96 or 123 <= ord(c) <= 126
        return f" {c} " if is_ascii_punct or unicodedata.category(c)[0] == "P" else c
    return "".join(map(pad, "".join(pieces()))).split()


# --- batch 4: written without reading any checker ------------------------------------------
EX.batch = 4


def _clean_b4(text):
    """Steps 1 to 4 as the statement says: cleaned, ideographs padded, each character lower-cased and stripped of Mn."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if _is_cjk(ch) else kept)
    return "".join(out)


@EX.bug
def accents_stripped_by_ascii_encoding(text):
    """I stripped the accents the Stack Overflow way, NFD then .encode("ascii", "ignore").decode(), which also drops every non-ASCII letter, ideograph and mark.
    Differs on: "ΟΔΟΣ" (expected ["οδοσ"], gives []); also "北京x" (gives ["x"]) and "¿Qué tal?" (no "¿")."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = unicodedata.normalize("NFD", ch.lower()).encode("ascii", "ignore").decode("ascii")
            out.append(f" {kept} " if _is_cjk(ch) else kept)
    return _words_b3("".join(out), _bert_punct)


@EX.bug
def regex_words_and_marks(text):
    """After cleaning I cut the words with re.findall(r"\\w+|[^\\w\\s]", text): "_" counts as a word character, and a symbol such as € or 🙂 becomes a word.
    Differs on: "snake_case" (expected ["snake", "_", "case"], gives ["snake_case"]); "5€" (expected ["5€"])."""
    import re
    return re.findall(r"\w+|[^\w\s]", _clean_b4(text))


@EX.bug
def blank_text_gives_one_empty_word(text):
    """I padded the punctuation with spaces and split with re.split(r"\\s+", text.strip()), which gives [""] for a text without words.
    Differs on: "" and " \\t\\n" and "\\x00" (expected [], gives [""])."""
    import re
    padded = "".join(f" {c} " if _bert_punct(c) else c for c in _clean_b4(text))
    return re.split(r"\s+", padded.strip())


@EX.bug
def latin_accents_only(text):
    """I removed the accents with re.sub("[\\u0300-\\u036f]", "", ...) after NFD, the combining block of Latin accents, so the other Mn marks (Arabic, Hebrew, Devanagari) stay.
    Differs on: "مُحَمَّد" (expected ["محمد"], keeps the harakat); "שָׁלוֹם"."""
    import re
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = re.sub("[\u0300-\u036f]", "", unicodedata.normalize("NFD", ch.lower()))
            out.append(f" {kept} " if _is_cjk(ch) else kept)
    return _words_b3("".join(out), _bert_punct)


@EX.bug
def recomposed_after_stripping(text):
    """After dropping the Mn characters I put each character back into NFC, composed form, so a Hangul syllable that NFD split into jamo comes back whole.
    Differs on: "한국어" (expected the jamo "한국어" as NFD leaves them, gives the three syllables)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            kept = unicodedata.normalize("NFC", kept)
            out.append(f" {kept} " if _is_cjk(ch) else kept)
    return _words_b3("".join(out), _bert_punct)


@EX.bug
def one_range_for_all_ideographs(text):
    """I tested one range, from the smallest start to the largest end in CJK_RANGES (0x3400 to 0x2FA1F), which also takes in Hangul, fullwidth forms and emoji.
    Differs on: "한국" (expected one word, gives two); "🙂🙂" (expected ["🙂🙂"])."""
    lo = min(first for first, _ in CJK_RANGES)
    hi = max(last for _, last in CJK_RANGES)
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if lo <= ord(ch) <= hi else kept)
    return _words_b3("".join(out), _bert_punct)


@EX.correct
def cached_character_map(text):
    """Each distinct character mapped once (an lru_cache'd function) to what it becomes, punctuation padded there too; ideographs found by bisect; one split."""
    import bisect
    import functools

    blocks = sorted(CJK_RANGES)
    firsts = [first for first, _ in blocks]

    def is_ideograph(cp):
        j = bisect.bisect_right(firsts, cp) - 1
        return j >= 0 and cp <= blocks[j][1]

    def is_punct(c):
        return (ord(c) < 128 and not c.isalnum() and not c.isspace()) or unicodedata.category(c)[0] == "P"

    @functools.lru_cache(maxsize=None)
    def becomes(ch):
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            return " "
        if ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            return ""
        low = unicodedata.normalize("NFD", ch.lower())
        low = "".join(f" {c} " if is_punct(c) else c for c in low if unicodedata.category(c) != "Mn")
        return f" {low} " if is_ideograph(ord(ch)) else low

    return "".join(map(becomes, text)).split()


# --- batch 5: written without reading any checker ------------------------------------------
EX.batch = 5


@EX.bug
def accents_stripped_word_by_word(text):
    """I cut the cleaned, lower-cased text into words and punctuation first and stripped the accents of each word afterwards, so a word made only of combining marks is left as an empty string.
    Differs on: "a \\u0301 b" (expected ["a", "b"], gives ["a", "", "b"]); also "x\\u1fefy" (NFD turns the Greek varia into "`", which I no longer split off: gives ["x`y"], expected ["x", "`", "y"])."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif _is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append(ch.lower())
    words = _words_b3("".join(out), _bert_punct)
    return ["".join(c for c in unicodedata.normalize("NFD", w) if unicodedata.category(c) != "Mn") for w in words]


@EX.bug
def latin1_taken_for_ascii(text):
    """I tested "ASCII" with ord(ch) < 256 (the extended ASCII I remembered), so the Latin-1 symbols £ × ° © ¬ count as punctuation too.
    Differs on: "5×3" (expected ["5×3"], gives ["5", "×", "3"]); "£5" (expected ["£5"], gives ["£", "5"])."""
    def is_punct(c):
        return (ord(c) < 256 and not c.isalnum() and not c.isspace()) or unicodedata.category(c).startswith("P")
    return _words_b3(_clean_b4(text), is_punct)


@EX.bug
def zero_widths_listed_by_hand(text):
    """Instead of the whole category Cf I dropped the invisible characters I knew, U+200B to U+200D and U+FEFF, so the other format characters (soft hyphen, word joiner, direction marks) stay in the words.
    Differs on: "soft\\u00adhyphen" (expected ["softhyphen"], gives ["soft\\xadhyphen"]); "a\\u2060b"."""
    invisible = "\x00\ufffd\u200b\u200c\u200d\ufeff"
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in invisible or cat in ("Cc", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if _is_cjk(ch) else kept)
    return _words_b3("".join(out), _bert_punct)


@EX.bug
def ideographs_by_unicode_name(text):
    """I recognised an ideograph by its Unicode name, unicodedata.name(ch, "").startswith("CJK"), which also takes the CJK radicals and strokes and the extension blocks missing from CJK_RANGES, and misses unassigned code points inside them.
    Differs on: "x\\u2e80y" (a CJK radical: expected ["x⺀y"], gives ["x", "⺀", "y"]); "x\\U0002ceb0y" (Extension F); "x\\U0002b739y" (unassigned, in a range: expected three words)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if unicodedata.name(ch, "").startswith("CJK") else kept)
    return _words_b3("".join(out), _bert_punct)


@EX.bug
def digits_taken_for_punctuation(text):
    """I tested ASCII punctuation as ch.isascii() and not ch.isalpha(), forgetting the digits, so every digit becomes a word of its own.
    Differs on: "route 66" (expected ["route", "66"], gives ["route", "6", "6"]); "b2b"."""
    def is_punct(c):
        return (c.isascii() and not c.isalpha() and not c.isspace()) or unicodedata.category(c).startswith("P")
    return _words_b3(_clean_b4(text), is_punct)


@EX.bug
def apostrophes_kept_inside_words(text):
    """I kept an apostrophe (' or ’) between two letters inside its word, as English tokenizers keep "don't", and split off every other punctuation mark.
    Differs on: "don't" (expected ["don", "'", "t"], gives ["don't"]); "l’homme"."""
    words = []
    for chunk in _clean_b4(text).split():
        current = ""
        for j, ch in enumerate(chunk):
            inside = ch in "'\u2019" and current[-1:].isalpha() and chunk[j + 1:j + 2].isalpha()
            if _bert_punct(ch) and not inside:
                if current:
                    words.append(current)
                words.append(ch)
                current = ""
            else:
                current += ch
        if current:
            words.append(current)
    return words


@EX.correct
def translation_table(text):
    """One str.translate table, built for the distinct characters of the text, maps each to what it becomes (ideographs and punctuation padded with spaces); then one split."""
    def becomes(ch):
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            return " "
        if ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            return ""
        kept = [c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn"]
        kept = "".join(f" {c} " if _bert_punct(c) else c for c in kept)
        return f" {kept} " if _is_cjk(ch) else kept

    return text.translate({ord(ch): becomes(ch) for ch in set(text)}).split()


# --- batch 6: written without reading any checker ------------------------------------------
EX.batch = 6


def _in_cjk_b6(ch):
    return any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES)


def _is_punct_b6(ch):
    return (ch.isascii() and not ch.isalnum()) or unicodedata.category(ch).startswith("P")


def _punct_words_b6(text, is_punct=_is_punct_b6):
    words = []
    for chunk in text.split():
        current = ""
        for ch in chunk:
            if is_punct(ch):
                if current:
                    words.append(current)
                words.append(ch)
                current = ""
            else:
                current += ch
        if current:
            words.append(current)
    return words


@EX.bug
def base_letter_from_decomposition(text):
    """I stripped accents by replacing each lower-cased character with the first code point of unicodedata.decomposition(c), its base letter, instead of NFD and dropping Mn, so a combining mark that is already on its own stays, and a letter with two accents keeps one.
    Differs on: "cafe\\u0301" (expected ["cafe"], gives ["cafe\\u0301"]); "ǖ" (expected ["u"], gives ["ü"]); "İ" (expected ["i"], keeps U+0307)."""
    def base(c):
        d = unicodedata.decomposition(c)
        if d and not d.startswith("<"):              # canonical decomposition: base letter first
            return chr(int(d.split()[0], 16))
        return c

    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(base(c) for c in ch.lower())
            out.append(f" {kept} " if _in_cjk_b6(ch) else kept)
    return _punct_words_b6("".join(out))


@EX.bug
def ideograph_appended_as_written(text):
    """An ideograph has no case and no accent, so I padded it with spaces and appended it as it was, without the lower-casing and NFD the other characters go through; a CJK compatibility ideograph then keeps its own code point instead of becoming the unified one.
    Differs on: "\\uf900" (expected ["\\u8c48"], gives ["\\uf900"]); "\\ufa10x" (expected ["\\u585a", "x"])."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        elif _in_cjk_b6(ch):
            out.append(" " + ch + " ")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn"))
    return _punct_words_b6("".join(out))


@EX.bug
def punctuation_subcategories_listed(text):
    """For non-ASCII punctuation I listed the categories I knew, Po, Ps, Pe and Pd, and forgot the initial and final quotes (Pi, Pf) and the connectors (Pc).
    Differs on: "«oui»" (expected ["«", "oui", "»"], gives ["«oui»"]); "“hi”" and "a‿b" likewise stay one word."""
    def is_punct(c):
        return (c.isascii() and not c.isalnum()) or unicodedata.category(c) in ("Po", "Ps", "Pe", "Pd")

    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if _in_cjk_b6(ch) else kept)
    return _punct_words_b6("".join(out), is_punct)


@EX.bug
def lower_skipped_when_it_lengthens(text):
    """To keep one output character per input character I lower-cased a character only when ch.lower() is one character long, so "İ" (whose lower() is i + U+0307) stays capital, and NFD then leaves a capital I.
    Differs on: "İstanbul" (expected ["istanbul"], gives ["Istanbul"])."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            low = ch.lower()
            if len(low) != 1:
                low = ch
            kept = "".join(c for c in unicodedata.normalize("NFD", low) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if _in_cjk_b6(ch) else kept)
    return _punct_words_b6("".join(out))


@EX.correct
def chunks_by_regex_cut_at_marks(text):
    """Cleaned characters collected in a list; chunks found with re.finditer(r"\\S+"), each cut at its punctuation positions by slicing (string.punctuation for ASCII)."""
    ascii_marks = set(string.punctuation)
    cleaned = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Zs" or ch in (" ", "\t", "\n", "\r"):
            cleaned.append(" ")
        elif cat in ("Cc", "Cf", "Co", "Cs") or ch == "\x00" or ch == "\ufffd":
            pass
        else:
            s = unicodedata.normalize("NFD", ch.lower())
            s = "".join(c for c in s if unicodedata.category(c) != "Mn")
            if any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES):
                s = " " + s + " "
            cleaned.append(s)
    words = []
    for m in re.finditer(r"\S+", "".join(cleaned)):
        chunk = m.group()
        cuts = [i for i, c in enumerate(chunk) if c in ascii_marks or unicodedata.category(c)[0] == "P"]
        prev = 0
        for i in cuts:
            if i > prev:
                words.append(chunk[prev:i])
            words.append(chunk[i])
            prev = i + 1
        if prev < len(chunk):
            words.append(chunk[prev:])
    return words


# --- batch 6: written without reading any checker ------------------------------------------
EX1_2 = Exercise("1.2", "wordpiece_encode")
EX1_2.batch = 6


@EX1_2.bug
def limit_reached_at_one_hundred(word, vocab):
    """I wrote the length limit as len(word) >= 100, so a word of exactly 100 characters is [UNK] without trying, although only words of MORE than 100 are.
    Differs on: "a" * 100 with {"a", "##a"} (expected 100 pieces ("a", 0, 1), ("##a", 1, 2), ..., gives [("[UNK]", 0, 100)])."""
    if len(word) >= 100:
        return [("[UNK]", 0, len(word))]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            candidate = ("##" if start else "") + word[start:end]
            if candidate in vocab:
                break
            end -= 1
        if end == start:
            return [("[UNK]", 0, len(word))]
        pieces.append((candidate, start, end))
        start = end
    return pieces


@EX1_2.bug
def offsets_from_stripped_pieces(word, vocab):
    """I cut the word into pieces first and worked out the offsets afterwards, adding up the lengths of the pieces with their "##" removed by lstrip("#"), which also strips a "#" that belongs to the word.
    Differs on: "#" with {"#"} (expected [("#", 0, 1)], gives [("#", 0, 0)]); "a#" with {"a", "###"} (expected [("a", 0, 1), ("###", 1, 2)], gives ("###", 1, 1))."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    pieces, i = [], 0
    while i < len(word):
        for j in range(len(word), i, -1):
            piece = word[i:j] if not pieces else "##" + word[i:j]
            if piece in vocab:
                pieces.append(piece)
                i = j
                break
        else:
            return [("[UNK]", 0, len(word))]
    out, pos = [], 0
    for piece in pieces:
        n = len(piece.lstrip("#"))
        out.append((piece, pos, pos + n))
        pos += n
    return out


@EX1_2.bug
def vocab_ids_tested_for_truth(word, vocab):
    """To handle both kinds of vocab I made a dict {piece: id} (a set numbered with enumerate) and tested `if ids.get(candidate):`, so the piece whose id is 0 counts as missing.
    Differs on: "ab" with {"a": 0, "##b": 1} (expected [("a", 0, 1), ("##b", 1, 2)], gives [("[UNK]", 0, 2)]); a set vocabulary loses whichever piece enumerate numbers 0."""
    ids = vocab if isinstance(vocab, dict) else {p: i for i, p in enumerate(vocab)}
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    result, start = [], 0
    while start < len(word):
        found = None
        for end in range(len(word), start, -1):
            candidate = word[start:end] if start == 0 else "##" + word[start:end]
            if ids.get(candidate):
                found = (candidate, start, end)
                break
        if found is None:
            return [("[UNK]", 0, len(word))]
        result.append(found)
        start = found[2]
    return result


@EX1_2.bug
def unk_only_for_the_rest(word, vocab):
    """When no piece fitted I kept the pieces found so far and made only the rest of the word [UNK], spanning from where the cut stopped to the end.
    Differs on: "abc" with {"a", "ab", "##bc"} (expected [("[UNK]", 0, 3)], gives [("ab", 0, 2), ("[UNK]", 2, 3)])."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            candidate = word[start:end] if start == 0 else "##" + word[start:end]
            if candidate in vocab:
                break
        else:
            return pieces + [("[UNK]", start, len(word))]
        pieces.append((candidate, start, end))
        start = end
    return pieces


@EX1_2.correct
def recursive_shortest_first_remembering_the_last_hit(word, vocab):
    """Recursive: at each position scan the candidate ends from short to long and keep the last one found (the longest), then cut the rest of the word."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]

    def cut(start):
        if start == len(word):
            return []
        best = None
        prefix = "" if start == 0 else "##"
        for end in range(start + 1, len(word) + 1):
            if prefix + word[start:end] in vocab:
                best = end
        if best is None:
            return None
        rest = cut(best)
        return None if rest is None else [(prefix + word[start:best], start, best)] + rest

    pieces = cut(0)
    return [("[UNK]", 0, len(word))] if pieces is None else pieces


# --- batch 6: written without reading any checker ------------------------------------------
EX1_3 = Exercise("1.3", "pair_scores")
EX1_3.batch = 6


@EX1_3.bug
def piece_counted_once_per_word(word_counts, splits):
    """I counted freq(a) over set(pieces), to count each piece once per word, so a piece that occurs twice in one word is counted once.
    Differs on: {"aaa": 1} split ["a", "##a", "##a"] (expected {("a", "##a"): 0.5, ("##a", "##a"): 0.25}, gives 1.0 and 1.0)."""
    piece_freq, pair_freq = Counter(), Counter()
    for word, n in word_counts.items():
        pieces = splits[word]
        for piece in set(pieces):
            piece_freq[piece] += n
        for a, b in zip(pieces, pieces[1:]):
            pair_freq[a, b] += n
    return {(a, b): f / (piece_freq[a] * piece_freq[b]) for (a, b), f in pair_freq.items()}


@EX1_3.bug
def characters_instead_of_current_splits(word_counts, splits):
    """I split each word into its characters myself (first letter, then "##" + each other letter), as the trainer starts, instead of reading its current pieces from splits.
    Differs on: {"hugs": 1} with splits {"hugs": ["hu", "##gs"]} (expected {("hu", "##gs"): 1.0}, gives the three character pairs); the toy corpus split into characters agrees."""
    piece_freq, pair_freq = defaultdict(int), defaultdict(int)
    for word, n in word_counts.items():
        pieces = [word[0]] + ["##" + c for c in word[1:]]
        for p in pieces:
            piece_freq[p] += n
        for i in range(len(pieces) - 1):
            pair_freq[(pieces[i], pieces[i + 1])] += n
    return {pair: f / (piece_freq[pair[0]] * piece_freq[pair[1]]) for pair, f in pair_freq.items()}


@EX1_3.bug
def marginals_from_the_sides_of_pairs(word_counts, splits):
    """I took freq(a) as how often a is the LEFT piece of a pair and freq(b) as how often b is the RIGHT piece, counting both from the pairs, not from every occurrence of the pieces.
    Differs on: the toy corpus {hug: 10, pug: 5, pun: 12, bun: 4, hugs: 5} in characters: score(##g, ##s) = 5 / (5 × 5) = 0.2 instead of 1/20."""
    pairs, left, right = Counter(), Counter(), Counter()
    for word, n in word_counts.items():
        pieces = splits[word]
        for a, b in zip(pieces, pieces[1:]):
            pairs[a, b] += n
            left[a] += n
            right[b] += n
    return {(a, b): f / (left[a] * right[b]) for (a, b), f in pairs.items()}


@EX1_3.bug
def previous_piece_not_reset_between_words(word_counts, splits):
    """I walked through the pieces keeping the previous one in a variable and forgot to reset it when a new word starts, so the last piece of one word pairs with the first piece of the next.
    Differs on: the toy corpus in characters (an extra pair ("##g", "p") with 5 / (20 × 5) = 0.05, and so on); {"ab": 1, "cd": 1} gives also ("##b", "c")."""
    piece_freq, pair_freq = Counter(), Counter()
    previous = None
    for word, n in word_counts.items():
        for piece in splits[word]:
            piece_freq[piece] += n
            if previous is not None:
                pair_freq[previous, piece] += n
            previous = piece
    return {(a, b): f / (piece_freq[a] * piece_freq[b]) for (a, b), f in pair_freq.items()}


@EX1_3.correct
def index_loops_two_dicts(word_counts, splits):
    """Plain dicts filled with dict.get in index loops over each word's pieces, the scores built in a second loop."""
    freq, pair = {}, {}
    for word in word_counts:
        n = word_counts[word]
        pieces = splits[word]
        for i in range(len(pieces)):
            freq[pieces[i]] = freq.get(pieces[i], 0) + n
            if i + 1 < len(pieces):
                key = (pieces[i], pieces[i + 1])
                pair[key] = pair.get(key, 0) + n
    scores = {}
    for (a, b), together in pair.items():
        scores[(a, b)] = together / (freq[a] * freq[b])
    return scores


# --- batch 6: written without reading any checker ------------------------------------------
EX1_4 = Exercise("1.4", "pack_pair")
EX1_4.batch = 6


@EX1_4.bug
def pops_from_the_callers_lists(tokens_a, tokens_b, max_length):
    """I truncated as Google's _truncate_seq_pair does, popping from the end of the lists I was given, so the caller's lists come back shorter.
    Differs on: (["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4", "b5", "b6"], 8): same result, but afterwards tokens_a is ["a1", "a2", "a3"] and tokens_b ["b1", "b2"] (they must be unchanged)."""
    if tokens_b is None:
        while len(tokens_a) > max_length - 2:
            tokens_a.pop()
        return ["[CLS]"] + tokens_a + ["[SEP]"], [0] * (len(tokens_a) + 2)
    while len(tokens_a) + len(tokens_b) > max_length - 3:
        if len(tokens_a) > len(tokens_b):
            tokens_a.pop()
        else:
            tokens_b.pop()
    tokens = ["[CLS]"] + tokens_a + ["[SEP]"] + tokens_b + ["[SEP]"]
    types = [0] * (len(tokens_a) + 2) + [1] * (len(tokens_b) + 1)
    return tokens, types


@EX1_4.bug
def empty_b_taken_as_no_b(tokens_a, tokens_b, max_length):
    """I tested `if tokens_b:` for a second sentence, so an empty list [] counts as no B: no second [SEP], and A gets max_length - 2 places.
    Differs on: (["a"], [], 512) (expected (["[CLS]", "a", "[SEP]", "[SEP]"], [0, 0, 0, 1]), gives (["[CLS]", "a", "[SEP]"], [0, 0, 0]))."""
    a = list(tokens_a)
    if tokens_b:
        b = list(tokens_b)
        while len(a) + len(b) > max_length - 3:
            (a if len(a) > len(b) else b).pop()
        return ["[CLS]", *a, "[SEP]", *b, "[SEP]"], [0] * (len(a) + 2) + [1] * (len(b) + 1)
    a = a[:max_length - 2]
    return ["[CLS]", *a, "[SEP]"], [0] * (len(a) + 2)


@EX1_4.bug
def one_budget_for_both_cases(tokens_a, tokens_b, max_length):
    """I computed the room for text once, as max_length - 3 ([CLS] and two [SEP]s), and used it with or without B, so a single sentence is cut one token too short.
    Differs on: (["a", "b", "c"], None, 4) (expected (["[CLS]", "a", "b", "[SEP]"], [0, 0, 0, 0]), gives (["[CLS]", "a", "[SEP]"], [0, 0, 0]))."""
    room = max_length - 3
    n_a = len(tokens_a)
    n_b = len(tokens_b) if tokens_b is not None else 0
    while n_a + n_b > room:
        if n_a > n_b:
            n_a -= 1
        else:
            n_b -= 1
    tokens = ["[CLS]"] + tokens_a[:n_a] + ["[SEP]"]
    types = [0] * (n_a + 2)
    if tokens_b is not None:
        tokens = tokens + tokens_b[:n_b] + ["[SEP]"]
        types = types + [1] * (n_b + 1)
    return tokens, types


@EX1_4.bug
def cut_counts_sliced_with_minus(tokens_a, tokens_b, max_length):
    """I counted how many tokens each side loses and, when the pair was too long, removed them with tokens_a[:-cut_a] and tokens_b[:-cut_b]; a side that loses nothing gets [:-0], which is empty.
    Differs on: (["a"], ["b", "c", "d"], 5) (expected (["[CLS]", "a", "[SEP]", "b", "[SEP]"], [0, 0, 0, 1, 1]), gives (["[CLS]", "[SEP]", "b", "[SEP]"], [0, 0, 1, 1]))."""
    if tokens_b is None:
        a = tokens_a[:max_length - 2]
        return ["[CLS]"] + a + ["[SEP]"], [0] * (len(a) + 2)
    a, b = tokens_a, tokens_b
    if len(a) + len(b) > max_length - 3:
        cut_a = cut_b = 0
        while len(a) - cut_a + len(b) - cut_b > max_length - 3:
            if len(a) - cut_a > len(b) - cut_b:
                cut_a += 1
            else:
                cut_b += 1
        a, b = a[:-cut_a], b[:-cut_b]
    return ["[CLS]"] + a + ["[SEP]"] + b + ["[SEP]"], [0] * (len(a) + 2) + [1] * (len(b) + 1)


@EX1_4.correct
def closed_form_lengths(tokens_a, tokens_b, max_length):
    """The kept lengths in closed form, without a loop: the shorter side keeps everything if it fits in half the room, else A gets the ceiling and B the floor of half."""
    if tokens_b is None:
        keep_a = tokens_a[:max(max_length - 2, 0)]
        return ["[CLS]", *keep_a, "[SEP]"], [0] * (len(keep_a) + 2)
    room = max_length - 3
    n_a, n_b = len(tokens_a), len(tokens_b)
    if n_a + n_b > room:
        if 2 * min(n_a, n_b) <= room:          # the shorter side fits in its half: only the longer one is cut
            if n_a <= n_b:
                n_b = room - n_a
            else:
                n_a = room - n_b
        else:                                   # both are cut to about half; B, cut first at ties, gets the floor
            n_a, n_b = room - room // 2, room // 2
    tokens = ["[CLS]", *tokens_a[:n_a], "[SEP]", *tokens_b[:n_b], "[SEP]"]
    return tokens, [0] * (n_a + 2) + [1] * (n_b + 1)


# --- batch 7: written without reading any checker ------------------------------------------
EX.batch = 7


@EX.bug
def unprintable_characters_dropped(text):
    """I dropped every character that str.isprintable() rejects (after turning the whitespace into spaces), thinking "not printable" is the same as controls and format characters; it also drops the line and paragraph separators (Zl, Zp), which should split words, and unassigned code points (Cn), which should stay.
    Differs on: "a\\u2028b" (expected ["a", "b"], gives ["ab"]); "x\\u0378y" (expected ["x\\u0378y"], gives ["xy"])."""
    out = []
    for ch in text:
        if ch in " \t\n\r" or unicodedata.category(ch) == "Zs":
            out.append(" ")
            continue
        if not ch.isprintable() or ch == "\ufffd":
            continue
        low = unicodedata.normalize("NFD", ch.lower())
        low = "".join(c for c in low if unicodedata.category(c) != "Mn")
        if any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES):
            low = " " + low + " "
        out.append(low)
    words = []
    for chunk in "".join(out).split():
        cur = ""
        for c in chunk:
            if (c.isascii() and not c.isalnum()) or unicodedata.category(c).startswith("P"):
                if cur:
                    words.append(cur)
                words.append(c)
                cur = ""
            else:
                cur += c
        if cur:
            words.append(cur)
    return words


@EX.bug
def lower_only_for_letters(text):
    """I lower-cased a character only if ch.isalpha(), since digits and symbols have no case; but circled letters (category So) and Roman numerals (Nl) have lower-case forms too.
    Differs on: "Ⓐ Ⅻ" (expected ["ⓐ", "ⅻ"], gives ["Ⓐ", "Ⅻ"])."""
    def clean(ch):
        cat = unicodedata.category(ch)
        if ch in (" ", "\t", "\n", "\r") or cat == "Zs":
            return " "
        if ch in ("\x00", "\ufffd") or cat in ("Cc", "Cf", "Co", "Cs"):
            return ""
        if ch.isalpha():
            ch_low = ch.lower()
        else:
            ch_low = ch
        s = "".join(c for c in unicodedata.normalize("NFD", ch_low) if unicodedata.category(c) != "Mn")
        if any(a <= ord(ch) <= b for a, b in CJK_RANGES):
            s = f" {s} "
        return s

    def is_punct(c):
        return (c.isascii() and not c.isalnum()) or unicodedata.category(c)[0] == "P"

    spaced = "".join(f" {c} " if is_punct(c) else c for c in "".join(map(clean, text)))
    return spaced.split()


@EX.bug
def spacing_accents_dropped_too(text):
    """When I stripped the accents I dropped the spacing accents as well as the combining ones (category Sk as well as Mn: ´ ¨ ˜ and the ASCII ^ and `), since they are accents too; the statement says exactly Mn.
    Differs on: "a^b" (expected ["a", "^", "b"], gives ["ab"]); "x´y" (expected ["x´y"], gives ["xy"])."""
    cleaned = ""
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            cleaned += " "
        elif ch == "\x00" or ch == "\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            pass
        else:
            piece = ""
            for c in unicodedata.normalize("NFD", ch.lower()):
                if unicodedata.category(c) not in ("Mn", "Sk"):
                    piece += c
            if any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES):
                piece = " " + piece + " "
            cleaned += piece
    words = []
    for chunk in cleaned.split():
        start = 0
        for i, c in enumerate(chunk):
            if (c.isascii() and not c.isalnum()) or unicodedata.category(c).startswith("P"):
                if i > start:
                    words.append(chunk[start:i])
                words.append(c)
                start = i + 1
        if start < len(chunk):
            words.append(chunk[start:])
    return words


@EX.bug
def private_use_by_bmp_range(text):
    """I dropped Cc, Cf and Cs by category, and the private-use characters by the range I knew, U+E000 to U+F8FF, instead of by category Co; the private-use planes 15 and 16 (U+F0000 and up) are Co too.
    Differs on: "a\\U000F0001b" (expected ["ab"], gives ["a\\U000f0001b"]); "a\\ue000b" agrees."""
    kept = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            kept.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Cs") or 0xE000 <= ord(ch) <= 0xF8FF:
            continue
        else:
            stripped = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            kept.append(f" {stripped} " if any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES) else stripped)
    words = []
    for chunk in "".join(kept).split():
        current = ""
        for ch in chunk:
            if (ch.isascii() and not ch.isalnum()) or unicodedata.category(ch).startswith("P"):
                words += [current, ch] if current else [ch]
                current = ""
            else:
                current += ch
        if current:
            words.append(current)
    return words


@EX.correct
def split_with_a_capturing_pattern(text):
    """The text cleaned by a dict dispatch on the category, then each whitespace chunk cut by re.split with a capturing group of the punctuation characters it holds (string.punctuation for ASCII)."""
    def normalise(ch):
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            return " "
        if ch in "\x00\ufffd" or cat in {"Cc", "Cf", "Co", "Cs"}:
            return ""
        kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
        ideograph = any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES)
        return {True: " " + kept + " ", False: kept}[ideograph]

    words = []
    for chunk in "".join(normalise(ch) for ch in text).split():
        marks = sorted({c for c in chunk if c in string.punctuation or unicodedata.category(c).startswith("P")})
        if not marks:
            words.append(chunk)
            continue
        pattern = "([" + "".join(re.escape(m) for m in marks) + "])"
        words.extend(part for part in re.split(pattern, chunk) if part)
    return words


# --- batch 7: written without reading any checker ------------------------------------------
EX1_2.batch = 7


_wordpiece_cuts_seen_b7 = {}  # memo of bug memo_keyed_by_word_only: word -> its cut


@EX1_2.bug
def found_flag_set_once(word, vocab):
    """I kept a flag `found` to know whether some candidate matched, but set it to False once, before the while loop, instead of at each position; after the first piece it stays True, so where nothing fits I append the last (one-character) candidate tried instead of giving [UNK].
    Differs on: "abc" with {"a", "ab", "##bc"} (expected [("[UNK]", 0, 3)], gives [("ab", 0, 2), ("##c", 2, 3)])."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    pieces = []
    start = 0
    found = False
    while start < len(word):
        for end in range(len(word), start, -1):
            candidate = word[start:end] if start == 0 else "##" + word[start:end]
            if candidate in vocab:
                found = True
                break
        if not found:
            return [("[UNK]", 0, len(word))]
        pieces.append((candidate, start, end))
        start = end
    return pieces


@EX1_2.bug
def plain_piece_when_hash_piece_missing(word, vocab):
    """Inside the word I looked up "##" + text first and, when it was missing, the text without "##" (and returned whichever I found), thinking the ## form was only preferred; the statement says every piece after the first is looked up with "##".
    Differs on: "ab" with {"a", "b"} (expected [("[UNK]", 0, 2)], gives [("a", 0, 1), ("b", 1, 2)]); with VOCAB, "runabout" (expected [("run", 0, 3), ("##ab", 3, 5), ("##out", 5, 8)], gives [("run", 0, 3), ("about", 3, 8)])."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    result, i = [], 0
    while i < len(word):
        match = None
        for j in range(len(word), i, -1):
            text = word[i:j]
            if i == 0:
                if text in vocab:
                    match = text
            elif "##" + text in vocab:
                match = "##" + text
            elif text in vocab:
                match = text
            if match is not None:
                break
        if match is None:
            return [("[UNK]", 0, len(word))]
        result.append((match, i, j))
        i = j
    return result


@EX1_2.bug
def memo_keyed_by_word_only(word, vocab):
    """Words repeat a lot in a corpus, so I memoised the cuts in a module-level dict keyed by the word; I forgot that the cut also depends on the vocabulary, so a word cut once with one vocab keeps that cut with every other vocab.
    Differs on: "unaffable" with {"un", "##aff", "##able"}, then "unaffable" with VOCAB (expected [("una", 0, 3), ("##ffa", 3, 6), ("##ble", 6, 9)], gives the first cut [("un", 0, 2), ("##aff", 2, 5), ("##able", 5, 9)] again)."""
    if word in _wordpiece_cuts_seen_b7:
        return list(_wordpiece_cuts_seen_b7[word])
    if len(word) > 100:
        cut = [("[UNK]", 0, len(word))]
    else:
        cut, start = [], 0
        while start < len(word):
            for end in range(len(word), start, -1):
                candidate = word[start:end] if start == 0 else "##" + word[start:end]
                if candidate in vocab:
                    break
            else:
                cut = [("[UNK]", 0, len(word))]
                break
            cut.append((candidate, start, end))
            start = end
    _wordpiece_cuts_seen_b7[word] = list(cut)
    return cut


@EX1_2.bug
def limit_counted_in_utf8_bytes(word, vocab):
    """I applied the 100 limit to len(word.encode("utf-8")), thinking the Rust library counts bytes, so a word of 51 to 100 non-ASCII characters (2 bytes each in Greek or Cyrillic) is [UNK] without trying.
    Differs on: "я" * 51 with {"я", "##я"} (expected 51 pieces ("я", 0, 1), ("##я", 1, 2), ..., gives [("[UNK]", 0, 51)]); an ASCII word agrees."""
    if len(word.encode("utf-8")) > 100:
        return [("[UNK]", 0, len(word))]
    out, pos = [], 0
    while pos < len(word):
        hit = None
        for stop in reversed(range(pos + 1, len(word) + 1)):
            cand = ("##" if pos else "") + word[pos:stop]
            if cand in vocab:
                hit = (cand, pos, stop)
                break
        if hit is None:
            return [("[UNK]", 0, len(word))]
        out.append(hit)
        pos = hit[2]
    return out


@EX1_2.correct
def table_of_longest_matches_then_walk(word, vocab):
    """A table of the longest match at every start position, built with max(..., default=None) over all the ends, then a walk from 0 that follows it (all-or-nothing [UNK] if the walk lands on a position with no match)."""
    n = len(word)
    if n > 100:
        return [("[UNK]", 0, n)]
    longest = {}
    for s in range(n):
        prefix = "##" if s > 0 else ""
        longest[s] = max((e for e in range(s + 1, n + 1) if prefix + word[s:e] in vocab), default=None)
    walk, s = [], 0
    while s < n:
        e = longest[s]
        if e is None:
            return [("[UNK]", 0, n)]
        walk.append((("##" if s > 0 else "") + word[s:e], s, e))
        s = e
    return walk


# --- batch 7: written without reading any checker ------------------------------------------
EX1_3.batch = 7


@EX1_3.bug
def all_pairs_in_a_word(word_counts, splits):
    """I listed the pairs of a word with itertools.combinations(pieces, 2), thinking it gives the neighbouring pairs; it gives every pair in order, so pieces that are not adjacent are paired too.
    Differs on: {"hugs": 1} split ["h", "##u", "##g", "##s"] (expected 3 pairs, each 1.0; gives 6, with ("h", "##g"), ("h", "##s") and ("##u", "##s") also 1.0); the toy corpus gives ("h", "##g") = 15 / (15 × 20) = 0.05, which ties the best pair."""
    piece_freq = Counter()
    pair_freq = Counter()
    for word, n in word_counts.items():
        pieces = splits[word]
        for piece in pieces:
            piece_freq[piece] += n
        for a, b in itertools.combinations(pieces, 2):
            pair_freq[a, b] += n
    return {(a, b): f / (piece_freq[a] * piece_freq[b]) for (a, b), f in pair_freq.items()}


@EX1_3.bug
def one_piece_words_skipped(word_counts, splits):
    """A word that is a single piece has no pair, so I skipped it with `if len(pieces) < 2: continue` at the top of the loop, before counting its pieces; but its piece still occurs in the corpus and counts in freq(a).
    Differs on: {"a": 3, "ab": 1} split {"a": ["a"], "ab": ["a", "##b"]} (expected {("a", "##b"): 1 / (4 × 1) = 0.25}, gives 1.0); the toy corpus in characters (no one-piece word) agrees."""
    freq = defaultdict(int)
    together = defaultdict(int)
    for word, count in word_counts.items():
        pieces = splits[word]
        if len(pieces) < 2:
            continue
        for i, piece in enumerate(pieces):
            freq[piece] += count
            if i > 0:
                together[pieces[i - 1], piece] += count
    return {pair: together[pair] / (freq[pair[0]] * freq[pair[1]]) for pair in together}


@EX1_3.bug
def probabilities_instead_of_counts(word_counts, splits):
    """I wrote the score with probabilities, p(ab) / (p(a) p(b)), dividing the pair counts by the number of pairs and the piece counts by the number of pieces, as in pointwise mutual information; the ranking is the same, but every score is multiplied by (pieces)² / (pairs).
    Differs on: the toy corpus {hug: 10, pug: 5, pun: 12, bun: 4, hugs: 5} in characters (113 pieces, 77 pairs: score("##g", "##s") = 0.05 × 113² / 77 = 8.29 instead of 0.05)."""
    pieces_seen, pairs_seen = Counter(), Counter()
    for word, n in word_counts.items():
        pieces = splits[word]
        for p in pieces:
            pieces_seen[p] += n
        for pair in zip(pieces, pieces[1:]):
            pairs_seen[pair] += n
    n_pieces = sum(pieces_seen.values())
    n_pairs = sum(pairs_seen.values())
    p_piece = {p: c / n_pieces for p, c in pieces_seen.items()}
    return {(a, b): (c / n_pairs) / (p_piece[a] * p_piece[b]) for (a, b), c in pairs_seen.items()}


@EX1_3.bug
def pieces_popped_from_the_splits(word_counts, splits):
    """I walked through each word's pieces like a queue, taking the first with pieces.pop(0) and pairing it with the next one still in the list; the list is the caller's, so after my call every word of splits has no pieces left.
    Differs on: the toy corpus in characters: the scores are right, but afterwards splits["hug"] is [] instead of ["h", "##u", "##g"] (a second call returns {})."""
    piece_freq, pair_freq = Counter(), Counter()
    for word, n in word_counts.items():
        pieces = splits[word]
        while pieces:
            first = pieces.pop(0)
            piece_freq[first] += n
            if pieces:
                pair_freq[first, pieces[0]] += n
    return {(a, b): f / (piece_freq[a] * piece_freq[b]) for (a, b), f in pair_freq.items()}


@EX1_3.correct
def numpy_ids_and_add_at(word_counts, splits):
    """Pieces numbered with a dict, the occurrences and adjacent pairs gathered as id arrays, counted with np.add.at weighted by the word counts; the scores divided in Python ints."""
    ids = {}
    occ_ids, occ_w, left, right, pair_w = [], [], [], [], []
    for word, n in word_counts.items():
        seq = [ids.setdefault(p, len(ids)) for p in splits[word]]
        occ_ids += seq
        occ_w += [n] * len(seq)
        left += seq[:-1]
        right += seq[1:]
        pair_w += [n] * (len(seq) - 1)
    freq = np.zeros(len(ids), dtype=np.int64)
    np.add.at(freq, np.array(occ_ids, dtype=np.int64), np.array(occ_w, dtype=np.int64))
    pair_counts = {}
    for a, b, w in zip(left, right, pair_w):
        pair_counts[a, b] = pair_counts.get((a, b), 0) + w
    name = {i: p for p, i in ids.items()}
    return {(name[a], name[b]): c / (int(freq[a]) * int(freq[b])) for (a, b), c in pair_counts.items()}


# --- batch 7: written without reading any checker ------------------------------------------
EX1_4.batch = 7


@EX1_4.bug
def assembled_then_cut_to_max_length(tokens_a, tokens_b, max_length):
    """With a single sentence I built [CLS] A [SEP] first and cut the whole sequence to max_length with a slice, so when A is too long the closing [SEP] is what gets cut (the pair case I truncated properly).
    Differs on: (["a", "b", "c"], None, 4) (expected (["[CLS]", "a", "b", "[SEP]"], [0, 0, 0, 0]), gives (["[CLS]", "a", "b", "c"], [0, 0, 0, 0]))."""
    if tokens_b is None:
        tokens = (["[CLS]"] + tokens_a + ["[SEP]"])[:max_length]
        return tokens, [0] * len(tokens)
    a, b = list(tokens_a), list(tokens_b)
    while len(a) + len(b) > max_length - 3:
        if len(a) > len(b):
            a.pop()
        else:
            b.pop()
    return ["[CLS]"] + a + ["[SEP]"] + b + ["[SEP]"], [0] * (len(a) + 2) + [1] * (len(b) + 1)


@EX1_4.bug
def b_capped_at_half_the_room(tokens_a, tokens_b, max_length):
    """I worked the cut out in closed form: when the pair is too long, B keeps at most half the room (rounded down, as B is cut first at ties) and A what is left; but when A is short, B should also get the room A leaves unused.
    Differs on: (["a"], ["b1", "b2", "b3", "b4", "b5", "b6"], 8) (expected B keeps b1-b4: (["[CLS]", "a", "[SEP]", "b1", "b2", "b3", "b4", "[SEP]"], [0, 0, 0, 1, 1, 1, 1, 1]), gives only b1, b2); the worked example (4 and 6 tokens, 8) agrees."""
    if tokens_b is None:
        a = tokens_a[:max_length - 2]
        return ["[CLS]", *a, "[SEP]"], [0] * (len(a) + 2)
    room = max_length - 3
    n_a, n_b = len(tokens_a), len(tokens_b)
    if n_a + n_b > room:
        n_b = min(n_b, room // 2)
        n_a = min(n_a, room - n_b)
    a, b = tokens_a[:n_a], tokens_b[:n_b]
    return ["[CLS]", *a, "[SEP]", *b, "[SEP]"], [0] * (n_a + 2) + [1] * (n_b + 1)


@EX1_4.bug
def types_from_the_given_lengths(tokens_a, tokens_b, max_length):
    """I wrote the token types straight from the lists I was given, [0] * (len(tokens_a) + 2) + [1] * (len(tokens_b) + 1), before thinking of the cut; after a cut the types are longer than the tokens and no longer line up.
    Differs on: (["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4", "b5", "b6"], 8) (tokens right, types [0] * 6 + [1] * 7, 13 of them, instead of [0, 0, 0, 0, 0, 1, 1, 1]); without a cut it agrees."""
    if tokens_b is None:
        types = [0] * (len(tokens_a) + 2)
    else:
        types = [0] * (len(tokens_a) + 2) + [1] * (len(tokens_b) + 1)
    len_a = len(tokens_a)
    len_b = 0 if tokens_b is None else len(tokens_b)
    budget = max_length - 2 if tokens_b is None else max_length - 3
    while len_a + len_b > budget:
        if len_a > len_b:
            len_a -= 1
        else:
            len_b -= 1
    tokens = ["[CLS]"] + tokens_a[:len_a] + ["[SEP]"]
    if tokens_b is not None:
        tokens += tokens_b[:len_b] + ["[SEP]"]
    return tokens, types


@EX1_4.bug
def longer_side_picked_with_max(tokens_a, tokens_b, max_length):
    """I picked the side to cut with max((a, b), key=len), which I took to be "the longer one"; at a tie max returns the first of the two, A, where the statement cuts B.
    Differs on: (["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4", "b5", "b6"], 8) (expected (["[CLS]", "a1", "a2", "a3", "[SEP]", "b1", "b2", "[SEP]"], ...), gives (["[CLS]", "a1", "a2", "[SEP]", "b1", "b2", "b3", "[SEP]"], [0, 0, 0, 0, 1, 1, 1, 1])); (["a"], ["b"], 4) gives A cut instead of B."""
    a = list(tokens_a)
    b = [] if tokens_b is None else list(tokens_b)
    limit = max_length - (2 if tokens_b is None else 3)
    while len(a) + len(b) > limit:
        max((a, b), key=len).pop()
    tokens = ["[CLS]"] + a + ["[SEP]"]
    types = [0] * len(tokens)
    if tokens_b is not None:
        tokens += b + ["[SEP]"]
        types += [1] * (len(b) + 1)
    return tokens, types


@EX1_4.correct
def deques_popped_and_types_by_position(tokens_a, tokens_b, max_length):
    """Copies of the two sides as deques, popped from the right one token at a time; the token types read off each position (1 once past the first [SEP])."""
    from collections import deque

    a = deque(tokens_a)
    b = None if tokens_b is None else deque(tokens_b)
    specials = 2 if b is None else 3
    while len(a) + (0 if b is None else len(b)) > max_length - specials:
        if b is not None and len(b) >= len(a):
            b.pop()
        else:
            a.pop()
    tokens = ["[CLS]", *a, "[SEP]"] + ([] if b is None else [*b, "[SEP]"])
    first_sep = len(a) + 1
    return tokens, [int(i > first_sep) for i in range(len(tokens))]


# --- batch 8: written without reading any checker ------------------------------------------
EX.batch = 8


@EX.bug
def punctuation_judged_on_the_raw_character(text):
    """I decided whether a character is punctuation by looking at the character as it came in, before lower-casing and NFD, and kept that verdict for whatever it turned into; but NFD can turn a symbol into ASCII punctuation plus a mark (≠ is = and U+0338, ≮ is <, the Greek varia is `), which the statement then splits off.
    Differs on: "a≠b" (expected ["a", "=", "b"], gives ["a=b"]); likewise "x≮y" and "a\\u1fefb"."""
    def is_punct(ch):
        return (ch.isascii() and not ch.isalnum()) or unicodedata.category(ch).startswith("P")

    items = []                       # (normalised text, is it punctuation?) for each input character
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            items.append((" ", False))
            continue
        if ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        out = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
        if any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES):
            items.append((" " + out + " ", False))
        else:
            items.append((out, is_punct(ch)))
    words, current = [], ""
    for out, punct in items:
        if punct:
            if current:
                words.append(current)
            words.append(out)
            current = ""
            continue
        for c in out:
            if c == " ":
                if current:
                    words.append(current)
                current = ""
            else:
                current += c
    if current:
        words.append(current)
    return words


@EX.bug
def controls_as_codes_below_32(text):
    """I dropped the control characters the way I know them from ASCII, every code below 32 (after turning tab and newlines into spaces), plus the categories Cf, Co and Cs; so DEL (0x7f) and the C1 controls 0x80-0x9f, which are Cc too, stay: DEL even becomes a punctuation word, being ASCII and not alphanumeric.
    Differs on: "a\\x7fb" (expected ["ab"], gives ["a", "\\x7f", "b"]); "a\\x9fb" (expected ["ab"], gives ["a\\x9fb"]); "a\\x85b" (gives ["a", "b"]: str.split cuts at the kept \\x85)."""
    cleaned = []
    for ch in text:
        if ch in " \t\n\r" or unicodedata.category(ch) == "Zs":
            cleaned.append(" ")
        elif ord(ch) < 32 or ch == "\ufffd" or unicodedata.category(ch) in ("Cf", "Co", "Cs"):
            pass
        else:
            low = unicodedata.normalize("NFD", ch.lower())
            low = "".join(c for c in low if unicodedata.category(c) != "Mn")
            if any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES):
                low = " " + low + " "
            cleaned.append(low)
    words = []
    for chunk in "".join(cleaned).split():
        start = 0
        for i, c in enumerate(chunk):
            if c in string.punctuation or (c.isascii() and not c.isalnum()) or unicodedata.category(c)[0] == "P":
                if i > start:
                    words.append(chunk[start:i])
                words.append(c)
                start = i + 1
        if start < len(chunk):
            words.append(chunk[start:])
    return words


@EX.bug
def ideograph_test_on_the_uncleaned_index(text):
    """I worked in two passes: first the cleaned string (spaces, controls dropped), then a loop over its positions that lower-cases, strips accents and spaces the ideographs; in that second loop I tested text[i], the raw text, for CJK instead of cleaned[i], which only lines up until the first dropped character.
    Differs on: "\\x01x北" (expected ["x", "北"], gives ["x北"]: after the dropped \\x01, cleaned[1] is 北 but text[1] is x); "\\u200bx北" likewise."""
    cleaned = ""
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            cleaned += " "
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            cleaned += ch
    spaced = ""
    for i in range(len(cleaned)):
        ch = cleaned[i]
        piece = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
        if any(lo <= ord(text[i]) <= hi for lo, hi in CJK_RANGES):
            piece = " " + piece + " "
        spaced += piece
    words = []
    for chunk in spaced.split():
        word = ""
        for c in chunk:
            if (c.isascii() and not c.isalnum()) or unicodedata.category(c).startswith("P"):
                if word:
                    words.append(word)
                words.append(c)
                word = ""
            else:
                word += c
        if word:
            words.append(word)
    return words


@EX.bug
def joiners_kept_in_words(text):
    """I dropped the format characters (Cf) except the zero-width non-joiner and joiner, U+200C and U+200D, because I had read that they hold emoji sequences and Persian words together, so I thought removing them would break words; the statement drops every Cf character.
    Differs on: "a\\u200db" (expected ["ab"], gives ["a\\u200db"]); "x\\u200cy" likewise."""
    def drop(ch):
        if ch in "\u200c\u200d":
            return False
        return ch in "\x00\ufffd" or unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs")

    out = []
    for ch in text:
        if ch in " \t\n\r" or unicodedata.category(ch) == "Zs":
            out.append(" ")
        elif not drop(ch):
            s = unicodedata.normalize("NFD", ch.lower())
            s = "".join(c for c in s if unicodedata.category(c) != "Mn")
            if any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES):
                s = f" {s} "
            out.append(s)
    spaced = "".join(
        f" {c} " if (c.isascii() and not c.isalnum() and c != " ") or unicodedata.category(c).startswith("P") else c
        for c in "".join(out)
    )
    return spaced.split()


@EX.correct
def kinds_string_and_regex(text):
    """Normalised characters collected with a parallel string of kinds (s space, p punctuation, w word); the words sliced out where re.finditer matches w+ or p in the kinds."""
    def kind(c):
        if c == " " or c.isspace():
            return "s"
        if (ord(c) < 128 and not c.isalnum()) or unicodedata.category(c)[0] == "P":
            return "p"
        return "w"

    norm, kinds = [], []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in (" ", "\t", "\n", "\r") or cat == "Zs":
            norm.append(" ")
            kinds.append("s")
            continue
        if ch == "\x00" or ch == "\ufffd" or cat in {"Cc", "Cf", "Co", "Cs"}:
            continue
        ideograph = any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES)
        if ideograph:
            norm.append(" ")
            kinds.append("s")
        for c in unicodedata.normalize("NFD", ch.lower()):
            if unicodedata.category(c) == "Mn":
                continue
            norm.append(c)
            kinds.append(kind(c))
        if ideograph:
            norm.append(" ")
            kinds.append("s")
    norm_text, kind_text = "".join(norm), "".join(kinds)
    return [norm_text[m.start():m.end()] for m in re.finditer(r"w+|p", kind_text)]


# --- batch 8: written without reading any checker ------------------------------------------
EX1_2.batch = 8


@EX1_2.bug
def shortest_match_taken_first(word, vocab):
    """I tried the candidate ends from start + 1 upwards and stopped at the first one in the vocabulary, so I took the shortest piece that fits, not the longest.
    Differs on: "unaffable" with VOCAB (expected [("una", 0, 3), ("##ffa", 3, 6), ("##ble", 6, 9)], gives single-letter pieces starting ("u", 0, 1)); "ab" with {"a", "ab", "##b"} (expected [("ab", 0, 2)], gives [("a", 0, 1), ("##b", 1, 2)]); the {un, ##aff, ##able} example agrees."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    out = []
    i = 0
    while i < len(word):
        hit = None
        for j in range(i + 1, len(word) + 1):
            cand = ("##" if i else "") + word[i:j]
            if cand in vocab:
                hit = (cand, i, j)
                break
        if hit is None:
            return [("[UNK]", 0, len(word))]
        out.append(hit)
        i = hit[2]
    return out


@EX1_2.bug
def offsets_found_with_str_find(word, vocab):
    """I cut the word first, keeping only the pieces, and then found each piece's offsets with word.find(text) on its text without the "##"; find returns the first occurrence in the whole word, so a piece whose text already appeared earlier gets the earlier offsets.
    Differs on: "banana" with {"ban", "##ana"} (expected [("ban", 0, 3), ("##ana", 3, 6)], gives ("##ana", 1, 4)); "aaaa" with {"aa", "##aa"} (expected ("##aa", 2, 4), gives ("##aa", 0, 2))."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    pieces = []
    rest = word
    first = True
    while rest:
        for n in range(len(rest), 0, -1):
            cand = rest[:n] if first else "##" + rest[:n]
            if cand in vocab:
                break
        else:
            return [("[UNK]", 0, len(word))]
        pieces.append(cand)
        rest = rest[n:]
        first = False
    result = []
    for piece in pieces:
        text = piece[2:] if piece.startswith("##") and result else piece
        start = word.find(text)
        result.append((piece, start, start + len(text)))
    return result


@EX1_2.bug
def google_limit_of_two_hundred(word, vocab):
    """I took the length limit from Google's tokenization.py, max_input_chars_per_word = 200, since that is BERT's original code; the statement uses minibert's 100.
    Differs on: "a" * 150 with {"a", "##a"} (expected [("[UNK]", 0, 150)], gives 150 pieces ("a", 0, 1), ("##a", 1, 2), ...)."""
    max_chars = 200
    if len(word) > max_chars:
        return [("[UNK]", 0, len(word))]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        piece = None
        while start < end:
            sub = word[start:end]
            if start > 0:
                sub = "##" + sub
            if sub in vocab:
                piece = sub
                break
            end -= 1
        if piece is None:
            return [("[UNK]", 0, len(word))]
        pieces.append((piece, start, end))
        start = end
    return pieces


@EX1_2.bug
def single_character_candidate_never_tried(word, vocab):
    """I wrote the loop over the ends as range(len(word), start + 1, -1), thinking the stop was included, so the shortest candidate, one character long, is never tried: wherever only a single character (or ## + character) fits, the word becomes [UNK].
    Differs on: "abc" with {"a", "##b", "##c"} (expected [("a", 0, 1), ("##b", 1, 2), ("##c", 2, 3)], gives [("[UNK]", 0, 3)]); "a" with {"a"} (gives [UNK]); the worked examples, whose pieces all have 2 or more characters, agree."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start + 1, -1):
            candidate = word[start:end] if start == 0 else "##" + word[start:end]
            if candidate in vocab:
                break
        else:
            return [("[UNK]", 0, len(word))]
        pieces.append((candidate, start, end))
        start = end
    return pieces


@EX1_2.correct
def piece_lengths_from_the_vocabulary(word, vocab):
    """The lengths that occur in the vocabulary computed first (text lengths of word-initial and of ## pieces, longest first); at each position only those lengths are tried, with next() over a generator."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    initial = sorted({len(p) for p in vocab if p}, reverse=True)
    inner = sorted({len(p) - 2 for p in vocab if p.startswith("##") and len(p) > 2}, reverse=True)
    result, pos = [], 0
    while pos < len(word):
        prefix, lengths = ("", initial) if pos == 0 else ("##", inner)
        found = next(
            (n for n in lengths if pos + n <= len(word) and prefix + word[pos:pos + n] in vocab),
            None,
        )
        if found is None:
            return [("[UNK]", 0, len(word))]
        result.append((prefix + word[pos:pos + found], pos, pos + found))
        pos += found
    return result


# --- batch 8: written without reading any checker ------------------------------------------
EX1_3.batch = 8


@EX1_3.bug
def pair_counts_not_weighted(word_counts, splits):
    """I weighted every piece by the number of times its word occurs, but counted the pairs with Counter(zip(pieces, pieces[1:])) once per distinct word, forgetting to multiply them by the word's count as well.
    Differs on: the toy corpus {hug: 10, pug: 5, pun: 12, bun: 4, hugs: 5} split into characters (expected score(h, ##u) = 15 / (15 * 36) = 1/36, gives 2 / (15 * 36) = 1/270)."""
    piece_freq = Counter()
    pair_freq = Counter()
    for word, count in word_counts.items():
        pieces = splits[word]
        for p in pieces:
            piece_freq[p] += count
        pair_freq.update(zip(pieces, pieces[1:]))
    return {pair: f / (piece_freq[pair[0]] * piece_freq[pair[1]]) for pair, f in pair_freq.items()}


@EX1_3.bug
def dicts_zipped_in_step(word_counts, splits):
    """I walked through the two dicts together with zip(word_counts.values(), splits.values()), assuming they list the words in the same order; when splits was built in another order, each word's count goes to another word's pieces.
    Differs on: word_counts {"ab": 1, "cd": 3}, splits {"cd": ["c", "##d"], "ab": ["a", "##b"]} (expected both scores 1/1 and 1/3 -> {("a", "##b"): 1.0, ("c", "##d"): 1/3}, gives {("c", "##d"): 1.0, ("a", "##b"): 1/3})."""
    piece_freq = defaultdict(int)
    pair_freq = defaultdict(int)
    for count, pieces in zip(word_counts.values(), splits.values()):
        for i, p in enumerate(pieces):
            piece_freq[p] += count
            if i + 1 < len(pieces):
                pair_freq[(p, pieces[i + 1])] += count
    scores = {}
    for (a, b), f in pair_freq.items():
        scores[(a, b)] = f / (piece_freq[a] * piece_freq[b])
    return scores


@EX1_3.bug
def neighbour_found_with_index(word_counts, splits):
    """For each piece (but the last) I found its right neighbour with pieces[pieces.index(a) + 1]; index gives the first occurrence of a, so when a piece occurs twice in a word with different right neighbours, the second occurrence is paired with the first one's neighbour.
    Differs on: {"xabac": 1} split ["x", "##a", "##b", "##a", "##c"] (expected pairs (##a, ##b) with freq 1 and (##a, ##c) with freq 1: scores 1/2 each; gives (##a, ##b) freq 2, score 1.0, and no (##a, ##c))."""
    piece_freq = Counter()
    pair_freq = Counter()
    for word, n in word_counts.items():
        pieces = splits[word]
        for a in pieces:
            piece_freq[a] += n
        for a in pieces[:-1]:
            b = pieces[pieces.index(a) + 1]
            pair_freq[a, b] += n
    return {(a, b): c / (piece_freq[a] * piece_freq[b]) for (a, b), c in pair_freq.items()}


@EX1_3.bug
def log_of_the_ratio_as_in_pmi(word_counts, splits):
    """The score reminded me of pointwise mutual information, so I returned its logarithm, log(freq(ab) / (freq(a) freq(b))); the ranking of the pairs is the same, but the statement's score is the ratio itself.
    Differs on: the toy corpus split into characters (expected score(##g, ##s) = 1/20 = 0.05, gives log(1/20) ≈ -3.0)."""
    piece_freq, pair_freq = Counter(), Counter()
    for word, n in word_counts.items():
        pieces = splits[word]
        for p in pieces:
            piece_freq[p] += n
        for pair in zip(pieces, pieces[1:]):
            pair_freq[pair] += n
    return {(a, b): math.log(n) - math.log(piece_freq[a]) - math.log(piece_freq[b]) for (a, b), n in pair_freq.items()}


@EX1_3.correct
def pairwise_and_weighted_counters(word_counts, splits):
    """itertools.pairwise for the neighbours; the two counts as Counters built from generator expressions repeated n times (Counter.update with a dict of weights)."""
    piece_freq = Counter()
    pair_freq = Counter()
    for word in word_counts:
        n = word_counts[word]
        pieces = list(splits[word])
        weights = Counter()
        for p in pieces:
            weights[p] += 1
        piece_freq.update({p: k * n for p, k in weights.items()})
        pair_weights = Counter(itertools.pairwise(pieces))
        pair_freq.update({pr: k * n for pr, k in pair_weights.items()})
    return {pr: pair_freq[pr] / (piece_freq[pr[0]] * piece_freq[pr[1]]) for pr in pair_freq}


# --- batch 8: written without reading any checker ------------------------------------------
EX1_4.batch = 8


@EX1_4.bug
def fits_tested_with_at_least(tokens_a, tokens_b, max_length):
    """I wrote the loop condition as `while len_a + len_b >= budget`, reading "until A and B together fit in max_length - 3" as "until they are under it", so whenever the text exactly fills the room, or has to be cut, one token too many goes.
    Differs on: (["a"], ["b"], 5) (expected (["[CLS]", "a", "[SEP]", "b", "[SEP]"], [0, 0, 0, 1, 1]), gives B cut to nothing: (["[CLS]", "a", "[SEP]", "[SEP]"], [0, 0, 0, 1])); the worked example with 8 keeps 2 + 2 instead of 3 + 2."""
    len_a = len(tokens_a)
    len_b = len(tokens_b) if tokens_b is not None else 0
    budget = max_length - 3 if tokens_b is not None else max_length - 2
    while len_a + len_b >= budget:
        if len_a > len_b:
            len_a -= 1
        else:
            len_b -= 1
    tokens = ["[CLS]"] + tokens_a[:len_a] + ["[SEP]"]
    types = [0] * (len_a + 2)
    if tokens_b is not None:
        tokens = tokens + tokens_b[:len_b] + ["[SEP]"]
        types = types + [1] * (len_b + 1)
    return tokens, types


@EX1_4.bug
def lengths_compared_on_the_given_lists(tokens_a, tokens_b, max_length):
    """I counted down two lengths in the loop but chose the side to cut with `len(tokens_a) > len(tokens_b)`, the lists I was given, which do not shrink; so the side that was longer at the start is cut all the way, even below the other side's length.
    Differs on: (["a1", ..., "a10"], ["b1", ..., "b6"], 11) (room 8: expected A and B keep 4 each, gives A 2 and B all 6); the worked example (expected a1-a3 and b1, b2, gives a1-a4 and b1 only: B, longer at the start, takes every cut)."""
    n_a = len(tokens_a)
    n_b = 0 if tokens_b is None else len(tokens_b)
    room = max_length - 2 - (tokens_b is not None)
    while n_a + n_b > room:
        if tokens_b is not None and len(tokens_a) <= len(tokens_b):
            n_b -= 1
        else:
            n_a -= 1
    out = ["[CLS]", *tokens_a[:n_a], "[SEP]"]
    types = [0] * len(out)
    if tokens_b is not None:
        out.extend(tokens_b[:n_b])
        out.append("[SEP]")
        types.extend([1] * (n_b + 1))
    return out, types


@EX1_4.bug
def built_in_the_callers_list_when_nothing_is_cut(tokens_a, tokens_b, max_length):
    """To save a copy I sliced A and B only when they had to be cut and otherwise used the lists as given, then built the sequence with insert(0, "[CLS]"), append and extend on A's list; when A is not cut that list is the caller's tokens_a, which comes back changed.
    Differs on: (["call", "me"], ["is", "##hma", "##el"], 512): the returned tokens and types are right, but afterwards the caller's tokens_a is ["[CLS]", "call", "me", "[SEP]", "is", "##hma", "##el", "[SEP]"] (and a second call with it packs that); when A is cut the caller's lists are left alone."""
    la, lb = len(tokens_a), (len(tokens_b) if tokens_b is not None else 0)
    budget = max_length - (3 if tokens_b is not None else 2)
    while la + lb > budget:
        if la > lb:
            la -= 1
        else:
            lb -= 1
    a = tokens_a if la == len(tokens_a) else tokens_a[:la]
    a.insert(0, "[CLS]")
    a.append("[SEP]")
    types = [0] * len(a)
    if tokens_b is not None:
        b = tokens_b if lb == len(tokens_b) else tokens_b[:lb]
        a.extend(b)
        a.append("[SEP]")
        types.extend([1] * (lb + 1))
    return a, types


@EX1_4.bug
def b_cut_from_its_front(tokens_a, tokens_b, max_length):
    """I thought the cut should keep the tokens next to the [SEP] between the two sentences, so I kept the beginning of A but the END of B, removing B's tokens from its front; the statement removes from the end of whichever side, B included.
    Differs on: the worked example (["a1", ..., "a4"], ["b1", ..., "b6"], 8) (expected B keeps b1, b2, gives b5, b6); without a cut, or with only A cut, it agrees."""
    keep_a, keep_b = len(tokens_a), 0 if tokens_b is None else len(tokens_b)
    room = max_length - (2 if tokens_b is None else 3)
    while keep_a + keep_b > room:
        if keep_a > keep_b:
            keep_a -= 1
        else:
            keep_b -= 1
    tokens = ["[CLS]"] + list(tokens_a[:keep_a]) + ["[SEP]"]
    types = [0] * (keep_a + 2)
    if tokens_b is not None:
        tokens += list(tokens_b[len(tokens_b) - keep_b:]) + ["[SEP]"]
        types += [1] * (keep_b + 1)
    return tokens, types


@EX1_4.correct
def water_level_on_the_lengths(tokens_a, tokens_b, max_length):
    """A water level lowered from the longer length until both sides capped at it fit, then A given back the one place the level leaves unused (B is cut first at ties); copies made with list()."""
    a = list(tokens_a)
    if tokens_b is None:
        a = a[:max_length - 2]
        return ["[CLS]"] + a + ["[SEP]"], [0] * (len(a) + 2)
    b = list(tokens_b)
    room = max_length - 3
    if len(a) + len(b) > room:
        level = max(len(a), len(b))
        while min(len(a), level) + min(len(b), level) > room:
            level -= 1
        keep_a, keep_b = min(len(a), level), min(len(b), level)
        if keep_a + keep_b < room:          # both sides exceed the level: the spare place goes to A
            keep_a += 1
        a, b = a[:keep_a], b[:keep_b]
    return ["[CLS]"] + a + ["[SEP]"] + b + ["[SEP]"], [0] * (len(a) + 2) + [1] * (len(b) + 1)


# --- batch 9: written without reading any checker ------------------------------------------
EX.batch = 9


def _in_cjk_b9(ch):
    return any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES)


def _is_punct_b9(ch):
    return (ch.isascii() and not ch.isalnum()) or unicodedata.category(ch).startswith("P")


def _words_b9(text):
    words = []
    for chunk in text.split():
        current = ""
        for ch in chunk:
            if _is_punct_b9(ch):
                if current:
                    words.append(current)
                words.append(ch)
                current = ""
            else:
                current += ch
        if current:
            words.append(current)
    return words


@EX.bug
def lowered_at_the_top_of_the_loop(text):
    """I lower-cased each character first thing in the loop (ch = ch.lower()) and only then looked at its category and code point; "İ".lower() is two characters, i + U+0307, and unicodedata.category refuses a string of two.
    Differs on: "İstanbul" (expected ["istanbul"], raises TypeError); every other character lower-cases to one, so text without U+0130 agrees."""
    out = []
    for ch in text:
        ch = ch.lower()
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if _in_cjk_b9(ch) else kept)
    return _words_b9("".join(out))


@EX.bug
def character_kept_when_stripping_leaves_nothing(text):
    """Afraid that a character could vanish by accident, I kept the character as it was whenever dropping its Mn marks left nothing (kept = stripped or ch); but a combining mark typed on its own is nothing but Mn, so in text that is already decomposed the accents stay.
    Differs on: "cafe\\u0301" (decomposed é; expected ["cafe"], gives ["cafe\\u0301"]); precomposed "café" agrees."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            low = ch.lower()
            stripped = "".join(c for c in unicodedata.normalize("NFD", low) if unicodedata.category(c) != "Mn")
            kept = stripped or ch
            out.append(f" {kept} " if _in_cjk_b9(ch) else kept)
    return _words_b9("".join(out))


@EX.bug
def wide_letters_taken_for_ideographs(text):
    """I recognised a CJK ideograph as a letter that is wide on screen, ch.isalpha() and unicodedata.east_asian_width(ch) == "W", instead of testing the code point against CJK_RANGES; kana and Hangul syllables are wide letters too, so each becomes a word of its own.
    Differs on: "ひらがな" (expected ["ひらかな"], the dakuten being Mn; gives ["ひ", "ら", "か", "な"]); "한국" (expected one word, in jamo; gives two); "北京x" agrees."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            out.append(" ")
        elif ch in "\x00\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            wide = ch.isalpha() and unicodedata.east_asian_width(ch) == "W"
            out.append(f" {kept} " if wide else kept)
    return _words_b9("".join(out))


@EX.bug
def replacement_character_made_a_space(text):
    """I read U+FFFD as a character that was lost, so I turned it into a space like the whitespace (at least it should separate the words around it), and dropped only NUL and the control and format categories.
    Differs on: "ab\\ufffdcd" (expected ["abcd"], gives ["ab", "cd"])."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r\ufffd" or cat == "Zs":
            out.append(" ")
        elif ch == "\x00" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        else:
            kept = "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if unicodedata.category(c) != "Mn")
            out.append(f" {kept} " if _in_cjk_b9(ch) else kept)
    return _words_b9("".join(out))


@EX.correct
def index_walk_with_slices(text):
    """A C-style walk with an index over the cleaned string, each word cut out with a slice between two boundaries; punctuation from string.punctuation or a P category."""
    cleaned = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r" or cat == "Zs":
            cleaned.append(" ")
            continue
        if ch == "\x00" or ch == "\ufffd" or cat in ("Cc", "Cf", "Co", "Cs"):
            continue
        piece = unicodedata.normalize("NFD", ch.lower())
        piece = "".join(c for c in piece if unicodedata.category(c) != "Mn")
        if _in_cjk_b9(ch):
            piece = " " + piece + " "
        cleaned.append(piece)
    s = "".join(cleaned)
    words = []
    i, n = 0, len(s)
    while i < n:
        if s[i].isspace():
            i += 1
            continue
        if s[i] in string.punctuation or unicodedata.category(s[i]).startswith("P"):
            words.append(s[i])
            i += 1
            continue
        j = i
        while j < n and not s[j].isspace() and not (
            s[j] in string.punctuation or unicodedata.category(s[j]).startswith("P")
        ):
            j += 1
        words.append(s[i:j])
        i = j
    return words


# --- batch 9: written without reading any checker ------------------------------------------
EX1_2.batch = 9


@EX1_2.bug
def last_character_left_to_the_loop_bound(word, vocab):
    """I wrote the outer loop as `while start < len(word) - 1`, the bound I use when I look at a character and the next one, so when a single character is left at the end the loop stops and that character is never cut (nor found missing).
    Differs on: "abc" with {"a", "##b", "##c"} (expected [("a", 0, 1), ("##b", 1, 2), ("##c", 2, 3)], gives the first two only); "a" with {"a"} (expected [("a", 0, 1)], gives []); the worked examples, whose last piece is longer than one character, agree."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    pieces = []
    start = 0
    while start < len(word) - 1:
        end = len(word)
        while end > start:
            candidate = ("##" if start > 0 else "") + word[start:end]
            if candidate in vocab:
                break
            end -= 1
        else:
            return [("[UNK]", 0, len(word))]
        pieces.append((candidate, start, end))
        start = end
    return pieces


@EX1_2.bug
def whole_word_returned_before_the_length_limit(word, vocab):
    """I began with a shortcut, `if word in vocab: return [(word, 0, len(word))]`, most words being whole pieces, and put it before the length limit; a word of more than 100 characters that is in the vocabulary then comes back as itself instead of [UNK].
    Differs on: "a" * 101 with {"a" * 101, "a", "##a"} (expected [("[UNK]", 0, 101)], gives [("a" * 101, 0, 101)]); every word of 100 characters or fewer agrees."""
    if word in vocab:
        return [(word, 0, len(word))]
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    out, i = [], 0
    while i < len(word):
        for j in range(len(word), i, -1):
            piece = word[i:j] if i == 0 else "##" + word[i:j]
            if piece in vocab:
                out.append((piece, i, j))
                i = j
                break
        else:
            return [("[UNK]", 0, len(word))]
    return out


@EX1_2.bug
def vocabulary_looked_up_by_subscript(word, vocab):
    """I looked each candidate up the dict way, vocab[candidate] inside try / except KeyError, having tried it with VOCAB; the statement also allows a set, which cannot be subscripted, so the lookup raises TypeError, which my except does not catch.
    Differs on: "unaffable" with the set {"un", "##aff", "##able"} (expected [("un", 0, 2), ("##aff", 2, 5), ("##able", 5, 9)], raises TypeError); with VOCAB, a dict, it agrees."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    result = []
    start = 0
    while start < len(word):
        match = None
        for end in range(len(word), start, -1):
            candidate = word[start:end] if start == 0 else "##" + word[start:end]
            try:
                vocab[candidate]
            except KeyError:
                continue
            match = (candidate, start, end)
            break
        if match is None:
            return [("[UNK]", 0, len(word))]
        result.append(match)
        start = match[2]
    return result


@EX1_2.bug
def long_word_returned_as_a_bare_triple(word, vocab):
    """In the length-limit branch I wrote `return ("[UNK]", 0, len(word))`, the triple itself, forgetting the list around it that I did write in the branch where no piece fits.
    Differs on: "x" * 101 with {"x", "##x"} (expected [("[UNK]", 0, 101)], gives ("[UNK]", 0, 101)); every word of 100 characters or fewer agrees, [UNK] included."""
    if len(word) > 100:
        return ("[UNK]", 0, len(word))
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            candidate = word[start:end] if start == 0 else "##" + word[start:end]
            if candidate in vocab:
                break
        else:
            return [("[UNK]", 0, len(word))]
        pieces.append((candidate, start, end))
        start = end
    return pieces


@EX1_2.correct
def longest_match_walked_down_a_trie(word, vocab):
    """Two character tries built from the vocabulary (word-initial pieces, and ## pieces without their ##); at each position the word is walked down the right trie, remembering the last node that ends a piece."""
    if len(word) > 100:
        return [("[UNK]", 0, len(word))]
    END = object()
    initial, inner = {}, {}
    for piece in vocab:
        root, text = (inner, piece[2:]) if piece.startswith("##") else (initial, piece)
        node = root
        for ch in text:
            node = node.setdefault(ch, {})
        node[END] = True
    # a piece written "##x" is also a word-initial piece "##x": keep it in the initial trie too
    for piece in vocab:
        if piece.startswith("##"):
            node = initial
            for ch in piece:
                node = node.setdefault(ch, {})
            node[END] = True
    out, pos = [], 0
    while pos < len(word):
        node = initial if pos == 0 else inner
        best = None
        j = pos
        while j < len(word) and word[j] in node:
            node = node[word[j]]
            j += 1
            if END in node and j > pos:
                best = j
        if best is None:
            return [("[UNK]", 0, len(word))]
        text = word[pos:best]
        out.append((text if pos == 0 else "##" + text, pos, best))
        pos = best
    return out


# --- batch 9: written without reading any checker ------------------------------------------
EX1_3.batch = 9


def _glued_b9(a, b):
    return a + (b[2:] if b.startswith("##") else b)


@EX1_3.bug
def pair_counted_by_its_merged_text(word_counts, splits):
    """I read freq(ab) as the frequency of the piece ab that the merge would make, so I counted each adjacent pair under its merged text (a, then b without its ##); two different pairs that spell the same text share one count.
    Differs on: word_counts {"abc": 2, "abcd": 3}, splits {"abc": ["a", "##bc"], "abcd": ["ab", "##c", "##d"]} (expected score(a, ##bc) = 2 / (2 * 2) = 0.5 and score(ab, ##c) = 3 / (3 * 3) = 1/3, gives 5/4 and 5/9, both pairs spelling "abc"); the toy corpus split into characters agrees."""
    piece_freq = defaultdict(int)
    merged_freq = defaultdict(int)
    pairs = set()
    for word, n in word_counts.items():
        pieces = splits[word]
        for p in pieces:
            piece_freq[p] += n
        for a, b in zip(pieces, pieces[1:]):
            merged_freq[_glued_b9(a, b)] += n
            pairs.add((a, b))
    return {(a, b): merged_freq[_glued_b9(a, b)] / (piece_freq[a] * piece_freq[b]) for a, b in pairs}


@EX1_3.bug
def hash_marks_ignored_in_piece_counts(word_counts, splits):
    """I counted freq(a) by the text of the piece, piece.removeprefix("##"), taking the ## for a mark of position rather than part of the piece, so "a" at the start of a word and "##a" inside one are counted together.
    Differs on: {"aa": 1} split ["a", "##a"] (expected {("a", "##a"): 1 / (1 * 1) = 1.0}, gives 1 / (2 * 2) = 0.25); the toy corpus, where no letter is both first and inside a word, agrees."""
    text_freq = Counter()
    pair_freq = Counter()
    for word, n in word_counts.items():
        pieces = splits[word]
        for p in pieces:
            text_freq[p.removeprefix("##")] += n
        for i in range(len(pieces) - 1):
            pair_freq[pieces[i], pieces[i + 1]] += n
    return {
        (a, b): f / (text_freq[a.removeprefix("##")] * text_freq[b.removeprefix("##")])
        for (a, b), f in pair_freq.items()
    }


@EX1_3.bug
def scores_rounded_like_the_printout(word_counts, splits):
    """I rounded each score to 4 decimals, round(score, 4), as the chapter's cell prints them, thinking more digits were noise.
    Differs on: the toy corpus {hug: 10, pug: 5, pun: 12, bun: 4, hugs: 5} split into characters (expected score(h, ##u) = 1/36 = 0.027777..., gives 0.0278; score(##g, ##s) = 0.05 comes out exact)."""
    piece_freq, pair_freq = Counter(), Counter()
    for word, n in word_counts.items():
        pieces = splits[word]
        for piece in pieces:
            piece_freq[piece] += n
        for pair in zip(pieces, pieces[1:]):
            pair_freq[pair] += n
    return {(a, b): round(n / (piece_freq[a] * piece_freq[b]), 4) for (a, b), n in pair_freq.items()}


_PIECE_FREQ_B9 = Counter()
_PAIR_FREQ_B9 = Counter()


@EX1_3.bug
def counters_kept_between_calls(word_counts, splits):
    """I made the two Counters module-level variables, so that the trainer could look at them after each step, and forgot that they are never emptied: every call adds its counts to those of the calls before.
    Differs on: the toy corpus split into characters, called twice (the first call is right; the second gives score(h, ##u) = 30 / (30 * 72) = 1/72 instead of 1/36); any call after a call with another corpus mixes the two."""
    for word, n in word_counts.items():
        pieces = splits[word]
        for piece in pieces:
            _PIECE_FREQ_B9[piece] += n
        for pair in zip(pieces, pieces[1:]):
            _PAIR_FREQ_B9[pair] += n
    seen = {pair for word in word_counts for pair in zip(splits[word], splits[word][1:])}
    return {(a, b): _PAIR_FREQ_B9[a, b] / (_PIECE_FREQ_B9[a] * _PIECE_FREQ_B9[b]) for a, b in seen}


@EX1_3.correct
def exact_fractions_folded_over_the_words(word_counts, splits):
    """Per-word Counters multiplied by the word count and summed with functools.reduce; each score an exact Fraction, turned into a float at the end."""
    def word_counts_of(word):
        n, pieces = word_counts[word], splits[word]
        singles = Counter({p: k * n for p, k in Counter(pieces).items()})
        doubles = Counter({pr: k * n for pr, k in Counter(zip(pieces, pieces[1:])).items()})
        return singles, doubles

    def add(acc, item):
        return acc[0] + item[0], acc[1] + item[1]

    singles, doubles = reduce(add, (word_counts_of(w) for w in word_counts), (Counter(), Counter()))
    return {pr: float(Fraction(k, singles[pr[0]] * singles[pr[1]])) for pr, k in doubles.items()}


# --- batch 9: written without reading any checker ------------------------------------------
EX1_4.batch = 9


_CLS_B9 = ["[CLS]"]


@EX1_4.bug
def started_from_a_module_level_cls_list(tokens_a, tokens_b, max_length):
    """I kept CLS = ["[CLS]"] as a module constant and started the sequence with tokens = CLS, then added to it with +=; on a list += extends the list in place, so the constant itself grows and the next call starts from the previous sequence.
    Differs on: (["call", "me"], ["is", "##hma", "##el"], 512) called twice (the first call is right; the second returns 15 tokens, the first call's 8 followed by "call", "me", "[SEP]", "is", "##hma", "##el", "[SEP]", with only 8 types)."""
    len_a, len_b = len(tokens_a), 0 if tokens_b is None else len(tokens_b)
    budget = max_length - (2 if tokens_b is None else 3)
    while len_a + len_b > budget:
        if len_a > len_b:
            len_a -= 1
        else:
            len_b -= 1
    tokens = _CLS_B9
    tokens += tokens_a[:len_a] + ["[SEP]"]
    types = [0] * (len_a + 2)
    if tokens_b is not None:
        tokens += tokens_b[:len_b] + ["[SEP]"]
        types += [1] * (len_b + 1)
    return tokens, types


@EX1_4.bug
def longer_side_measured_in_characters(tokens_a, tokens_b, max_length):
    """I took "whichever side is longer" to mean the longer text, so I compared the number of characters the two sides still hold, sum(len(t) for t in side), not their number of tokens.
    Differs on: (["internationalization"], ["a", "b", "c"], 5) (room 2: expected A keeps its token and B keeps "a"; gives A cut to nothing and B keeping "a", "b"); the worked example, whose tokens all have 2 characters, agrees."""
    a = list(tokens_a)
    b = None if tokens_b is None else list(tokens_b)
    room = max_length - (2 if b is None else 3)
    while len(a) + (0 if b is None else len(b)) > room:
        chars_a = sum(len(t) for t in a)
        chars_b = 0 if b is None else sum(len(t) for t in b)
        if chars_a > chars_b:
            a.pop()
        else:
            b.pop()
    tokens = ["[CLS]"] + a + ["[SEP]"]
    types = [0] * len(tokens)
    if b is not None:
        tokens += b + ["[SEP]"]
        types += [1] * (len(b) + 1)
    return tokens, types


@EX1_4.bug
def cut_only_when_longer_than_max_length(tokens_a, tokens_b, max_length):
    """I tested whether the text needs cutting with len(tokens_a) + len(tokens_b) > max_length, forgetting the special tokens in that test (the loop inside does cut down to max_length - 3), so a text of up to max_length tokens is not cut at all and the sequence overflows by up to 3.
    Differs on: (["a", "b"], ["c", "d"], 5) (expected ["[CLS]", "a", "[SEP]", "c", "[SEP]"], gives all 7 tokens); (["a", "b", "c"], None, 4) (expected A cut to "a", "b", gives 5 tokens); the worked example (10 tokens of text for 8) agrees."""
    n_a = len(tokens_a)
    n_b = 0 if tokens_b is None else len(tokens_b)
    if n_a + n_b > max_length:
        budget = max_length - 2 if tokens_b is None else max_length - 3
        while n_a + n_b > budget:
            if n_a > n_b:
                n_a -= 1
            else:
                n_b -= 1
    tokens = ["[CLS]", *tokens_a[:n_a], "[SEP]"]
    types = [0] * len(tokens)
    if tokens_b is not None:
        tokens += [*tokens_b[:n_b], "[SEP]"]
        types += [1] * (n_b + 1)
    return tokens, types


@EX1_4.bug
def tie_cut_from_both_sides(tokens_a, tokens_b, max_length):
    """When the two sides were equal I removed one token from each, to keep them balanced, instead of one token from B only.
    Differs on: (["a1", "a2"], ["b1", "b2"], 6) (room 3: expected A keeps a1, a2 and B keeps b1; gives one token each); the worked example (expected a1-a3 and b1, b2, gives a1, a2 and b1, b2)."""
    keep_a = len(tokens_a)
    keep_b = 0 if tokens_b is None else len(tokens_b)
    room = max_length - (2 if tokens_b is None else 3)
    while keep_a + keep_b > room:
        if keep_a > keep_b:
            keep_a -= 1
        elif keep_b > keep_a:
            keep_b -= 1
        else:
            keep_a -= 1
            keep_b -= 1
    tokens = ["[CLS]"] + tokens_a[:keep_a] + ["[SEP]"]
    types = [0] * (keep_a + 2)
    if tokens_b is not None:
        tokens = tokens + tokens_b[:keep_b] + ["[SEP]"]
        types = types + [1] * (keep_b + 1)
    return tokens, types


@EX1_4.correct
def longest_side_from_a_heap(tokens_a, tokens_b, max_length):
    """The two lengths kept in a heap keyed by (-length, side), B's side number smaller so it wins ties; the longest is popped, shortened by one and pushed back until the text fits."""
    if tokens_b is None:
        keep = max(0, min(len(tokens_a), max_length - 2))
        return ["[CLS]"] + list(tokens_a[:keep]) + ["[SEP]"], [0] * (keep + 2)
    heap = [(-len(tokens_b), 0), (-len(tokens_a), 1)]
    heapq.heapify(heap)
    excess = len(tokens_a) + len(tokens_b) - (max_length - 3)
    for _ in range(max(0, excess)):
        neg, side = heapq.heappop(heap)
        heapq.heappush(heap, (neg + 1, side))
    kept = {side: -neg for neg, side in heap}
    a, b = list(tokens_a[:kept[1]]), list(tokens_b[:kept[0]])
    return ["[CLS]", *a, "[SEP]", *b, "[SEP]"], [0] * (len(a) + 2) + [1] * (len(b) + 1)
