"""The checker of exercise 1.1: BERT's uncased basic tokenizer, text -> words."""

from __future__ import annotations

import random
import string

from ..common import call, expect_equal, passed, valid_lines
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
     "NUL, U+FFFD (the replacement character) and controls such as \\x07 are dropped, not turned into spaces"),
    ("Greek final sigma", "ΟΔΟΣ", ["οδοσ"],
     "lower-case one character at a time: 'ΟΔΟΣ'.lower() on the whole word gives a final 'ς'; BERT gives 'σ'"),
    ("other spaces", "a\u3000b\xa0c\nd\r\ne", ["a", "b", "c", "d", "e"],
     "every whitespace character (space, tab, newline, and Unicode category Zs such as U+3000 and U+00A0) "
     "separates words"),
    ("the empty text", "", [], "no text, no words"),
    ("nothing but spaces and format characters", " \t\u200b \n", [], "spaces separate words; they are never words"),
]

# Characters for random texts: what real text holds, plus the cases BERT treats specially.
_RANDOM_CHARS = (string.ascii_letters + string.digits + string.punctuation + "   \t\n"
                 + "éèêëàâäïîôöùûüçñåøÉÀÖÜÅßİ" + "ΣΟΔΑςαβγ" + "Мосваж" + "北京東京欢迎你李" + "\uf9e1"
                 + "タワーひらがな한국" + "—–¿¡«»“”‘’…·•§¶" + "€£©®°±×÷™🙂😀ﬁ" + "\u0301\u0308\u0327\u094d"
                 + "हिदी" + "\u200b\u00ad\u200d\ufeff\x00\x07\x1b\ufffd" + "\u3000\xa0\u2009")


def basic_words(fn) -> None:
    """Check `fn(text) -> list[str]`: BERT's uncased basic tokenizer (clean, space CJK, lower-case,
    strip accents, split on whitespace and punctuation)."""
    for name, text, expected, hint in BASIC_CASES:
        case = f"my_basic_words({text!r}) [{name}]"
        got = call(fn, case, text)
        expect_equal(case, got, expected, hint=hint)

    rng = random.Random(1)
    lines = rng.sample(valid_lines(), 400)
    texts = [(f"line of valid.txt {_named(line)}", line) for line in lines]
    for i in range(400):
        text = "".join(rng.choice(_RANDOM_CHARS) for _ in range(rng.randint(1, 24)))
        texts.append((f"random text {i}", text))
    for label, text in texts:
        case = f"my_basic_words({text!r}) [{label}]" if len(text) < 60 else f"my_basic_words(...) [{label}]"
        expect_equal(case, call(fn, case, text), _reference_words(text),
                     hint="compare with minibert.tokenizer.reference.normalize and split_words")
    passed("basic_words", f"{len(BASIC_CASES)} hand-computed cases and {len(texts)} random ones (400 lines of "
                          "valid.txt, 400 random Unicode texts) agree with minibert")
