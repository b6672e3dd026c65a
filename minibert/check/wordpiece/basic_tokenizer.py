"""The checker of exercise 1.1: BERT's uncased basic tokenizer, text -> words."""

from __future__ import annotations

import random
import string
import unicodedata

from ...tokenizer.reference import CJK_RANGES
from ..common import ExerciseError, call, expect_equal, passed, valid_lines
from ._shared import _named, _reference_words

# ---- Exercise 1.1 · BERT's basic tokenizer ---------------------------------------------------------

# (name, text, expected words, what BERT does that this case tests)
BASIC_CASES = [
    ("accents", "Naïve café", ["naive", "cafe"],
     "strip accents: decompose each character with unicodedata.normalize('NFD', ...) and drop the combining "
     "marks (category 'Mn'): 'ï' -> 'i' + U+0308 -> 'i'"),
    ("capitals, a tab and an accent", "Héllo,\tWÖRLD!", ["hello", ",", "world", "!"],
     "lower-case, strip accents, split on every kind of whitespace, and make each punctuation mark a word"),
    ("Chinese ideographs", "北京x", ["北", "京", "x"],
     "put a space before and after every CJK ideograph (the ranges in CJK_RANGES), so each one is a word: "
     "Chinese is written without spaces"),
    ("katakana are not ideographs", "東京タワー", ["東", "京", "タワー"],
     "only the CJK Unified Ideographs blocks (CJK_RANGES) are spaced; katakana, hiragana and hangul stay "
     "together"),
    ("ASCII punctuation", "U.S.A.-made", ["u", ".", "s", ".", "a", ".", "-", "made"],
     "every punctuation character is a word of its own, even in the middle of a word"),
    ("ASCII symbols", "$5.00 a+b^c", ["$", "5", ".", "00", "a", "+", "b", "^", "c"],
     "BERT counts every ASCII character that is not a letter, a digit or a space as punctuation, even $ + ^ "
     "` < = > | ~, which Unicode files under symbols (category S...)"),
    ("Unicode punctuation", "¿Qué tal? —dijo «hola»", ["¿", "que", "tal", "?", "—", "dijo", "«", "hola", "»"],
     "a character whose unicodedata.category starts with 'P' is punctuation too: string.punctuation holds only "
     "ASCII, so it misses ¿ — « »"),
    ("symbols that are not punctuation", "5€ 🙂ok", ["5€", "🙂ok"],
     "outside ASCII, only category P... is punctuation: € (Sc) and 🙂 (So) stay inside their words"),
    ("format characters", "zero\u200bwidth soft\u00adhyphen", ["zerowidth", "softhyphen"],
     "drop control and format characters (categories Cc and Cf): the zero-width space U+200B and the soft "
     "hyphen U+00AD vanish, so the two halves become one word"),
    ("NUL, U+FFFD and a control character", "a\x00b\ufffdc\x07d", ["abcd"],
     "NUL, U+FFFD (the replacement character, category So, so it must be named) and controls such as \\x07 "
     "are dropped, not turned into spaces"),
    ("Greek final sigma", "ΟΔΟΣ", ["οδοσ"],
     "lower-case one character at a time: 'ΟΔΟΣ'.lower() on the whole word gives a final 'ς'; BERT gives 'σ'"),
    ("tab, newline and return are spaces", "one\ttwo\nthree\rfour", ["one", "two", "three", "four"],
     "\\t, \\n and \\r are control characters (Cc) to Unicode, but whitespace to BERT: test for whitespace "
     "before you drop controls, or they glue words together"),
    ("controls that str.isspace() calls spaces", "a\x0bb\x0cc\x1cd\x85e", ["abcde"],
     "\\x0b, \\x0c, \\x1c-\\x1f and \\x85 are controls (Cc) that BERT drops: only ' ', \\t, \\n, \\r and "
     "category Zs are whitespace (str.isspace() says yes to more)"),
    ("line and paragraph separators", "a\u2028b\u2029c", ["a", "b", "c"],
     "split with str.split() (no argument): like BERT's whitespace_tokenize it also splits at U+2028 and "
     "U+2029 (categories Zl, Zp), which are not Zs"),
    ("private-use and surrogate characters", "x\ue000y\ud800z", ["xyz"],
     "minibert drops categories Cc, Cf, Co and Cs, like the Rust library (Google's code drops only Cc and Cf)"),
    ("private use outside the BMP", "a\U000f0001b\U00100000c", ["abc"],
     "drop category Co wherever it is: the private-use planes 15 and 16 (U+F0000 and up) are Co too, not only "
     "U+E000-U+F8FF"),
    ("unassigned code points stay", "x\u0378y", ["x\u0378y"],
     "only Cc, Cf, Co and Cs go: an unassigned code point (Cn) stays, as in the Rust library (transformers' "
     "Python tokenizer drops every category C*)"),
    ("compatibility characters stay", "\ufb01ne x\xb2 \uff21", ["\ufb01ne", "x\xb2", "\uff41"],
     "decompose with NFD, not NFKD/NFKC: the ligature \ufb01, the superscript \xb2 and the full-width \uff21 "
     "keep their identity (only canonical decomposition splits off accents)"),
    ("every nonspacing mark, and only those", "\u0939\u093f\u0928\u094d\u0926\u0940 \u0915\u0941\u091b",
     ["\u0939\u093f\u0928\u0926\u0940", "\u0915\u091b"],
     "drop exactly the characters of category Mn: the virama U+094D and the vowel sign U+0941 are Mn (although "
     "not Latin accents, and unicodedata.combining(U+0941) is 0), the vowel signs U+093F and U+0940 are Mc and stay"),
    ("enclosing marks stay", "a\u20dd b\u0488", ["a\u20dd", "b\u0488"],
     "drop exactly the characters of category Mn: the enclosing marks U+20DD and U+0488 are Me, not Mn, and stay"),
    ("all the CJK ranges", "x\u3400y\U00020000z\uf9e1", ["x", "\u3400", "y", "\U00020000", "z", "\u674e"],
     "use every range of CJK_RANGES, not only U+4E00-U+9FFF: extension A (U+3400), extension B (U+20000) and the "
     "compatibility ideographs (U+F9E1, which NFD maps to \u674e) are ideographs too"),
    ("the last code point of every CJK range", "a" + "b".join(chr(hi) for _, hi in sorted(CJK_RANGES)) + "c",
     ["a"] + [w for _, hi in sorted(CJK_RANGES) for w in (unicodedata.normalize("NFD", chr(hi)), "b")][:-1] + ["c"],
     "each range of CJK_RANGES includes its last code point (U+9FFF, U+FAFF, ...): compare with <=, not <"),
    ("hiragana are not ideographs", "\u3055\u304f\u3089\u5c71", ["\u3055\u304f\u3089", "\u5c71"],
     "only the CJK_RANGES are spaced; a test such as unicodedata.name(ch).startswith('CJK') or a range up to "
     "U+9FFF that starts below U+3400 catches kana and hangul too"),
    ("ASCII symbols Unicode does not call punctuation", "a`b|c~d<e=f>g",
     ["a", "`", "b", "|", "c", "~", "d", "<", "e", "=", "f", ">", "g"],
     "every ASCII character in 33-47, 58-64, 91-96 and 123-126 is punctuation to BERT, symbols (category S) included"),
    ("the underscore is punctuation", "snake_case", ["snake", "_", "case"],
     "'_' (ASCII 95) is punctuation to BERT although regular expressions count it in \\w: a split on \\W keeps "
     "it inside the word"),
    ("no empty words", "  wow!!  ok  ", ["wow", "!", "!", "ok"],
     "never return empty strings: split() without an argument, and start a new word only when a character "
     "comes after a punctuation mark"),
    ("other spaces", "a\u3000b\xa0c\nd\r\ne", ["a", "b", "c", "d", "e"],
     "every whitespace character (space, tab, newline, and Unicode category Zs such as U+3000 and U+00A0) "
     "separates words"),
    ("titlecase letters", "\u01c5emal \u01c8ubljana", ["\u01c6emal", "\u01c9ubljana"],
     "lower-case every character with .lower(): the titlecase letters \u01c5 and \u01c8 (category Lt) are not "
     "upper-case to str.isupper(), yet BERT's lower() maps them to \u01c6 and \u01c9"),
    ("letters that are not alphabetic", "\u24b6 \u216b", ["\u24d0", "\u217b"],
     "lower-case every character with .lower(), not only those str.isalpha() accepts: the circled \u24b6 (category So) "
     "and the Roman numeral \u216b (Nl) have lower-case forms"),
    ("the empty text", "", [], "no text, no words"),
    ("nothing but spaces and format characters", " \t\u200b \n", [], "spaces separate words; they are never words"),
]

# Characters for random texts: what real text holds, plus the cases BERT treats specially.
_RANDOM_CHARS = (string.ascii_letters + string.digits + string.punctuation + "   \t\n"
                 + "éèêëàâäïîôöùûüçñåøÉÀÖÜÅßİ" + "ΣΟΔΑςαβγ" + "Мосваж" + "北京東京欢迎你李" + "\uf9e1"
                 + "タワーひらがな한국" + "—–¿¡«»“”‘’…·•§¶" + "€£©®°±×÷™🙂😀ﬁ" + "\u0301\u0308\u0327\u094d"
                 + "हिदी" + "\u200b\u00ad\u200d\ufeff\x00\x07\x1b\ufffd" + "\u3000\xa0\u2009"
                 + "\u01c5\u01c8\ue000\ud800\u0378\x0b\x0c\x1c\x85\u2028\u2029_`|~<=>\u0941\u3400\U00020000\xb2\uff21")


def _words(got, case: str):
    """A list or tuple of str is fine; anything else is named."""
    if isinstance(got, tuple):
        got = list(got)
    if not isinstance(got, list) or not all(isinstance(w, str) for w in got):
        raise ExerciseError(f"{case}: expected a list of str, received {type(got).__name__}: {got!r}"[:600])
    return got


def basic_words(fn) -> None:
    """Check `fn(text) -> list[str]`: BERT's uncased basic tokenizer (clean, space CJK, lower-case,
    strip accents, split on whitespace and punctuation)."""
    for name, text, expected, hint in BASIC_CASES:
        case = f"my_basic_words({text!r}) [{name}]"
        expect_equal(case, _words(call(fn, case, text), case), expected, hint=hint)
    first = BASIC_CASES[0][1]
    if _words(call(fn, "again", first), "again") != BASIC_CASES[0][2]:
        raise ExerciseError(f"my_basic_words({first!r}) gave another result when called a second time: something "
                            "is kept between calls (a global list, or a mutable default argument such as words=[])")

    rng = random.Random(1)
    lines = rng.sample(valid_lines(), 400)
    texts = [(f"line of valid.txt {_named(line)}", line) for line in lines]
    for i in range(400):
        text = "".join(rng.choice(_RANDOM_CHARS) for _ in range(rng.randint(1, 24)))
        texts.append((f"random text {i}", text))
    for label, text in texts:
        case = f"my_basic_words({text!r}) [{label}]" if len(text) < 60 else f"my_basic_words(...) [{label}]"
        expect_equal(case, _words(call(fn, case, text), case), _reference_words(text),
                     hint="compare with minibert.tokenizer.reference.normalize and split_words")
    passed("basic_words", f"{len(BASIC_CASES)} hand-computed cases and {len(texts)} random ones (400 lines of "
                          "valid.txt, 400 random Unicode texts) agree with minibert")
