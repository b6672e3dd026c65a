"""BERT's tokenizer in plain Python: the reference, to be read top to bottom.

Text becomes tokens in two stages, as in the original `tokenization.py` (Devlin et al. 2018):

1. Basic tokenization -> words. Clean the text (drop NUL, U+FFFD and control, format, private-use
   and surrogate characters; every kind of whitespace becomes a space), put spaces around CJK
   ideographs, lowercase (one character at a time, like the Rust library; Google's code lowercases
   whole words) and strip accents (uncased models), split on whitespace, then split off every
   punctuation character.
2. WordPiece -> pieces. Each word is cut greedily: the longest vocabulary entry that starts it,
   then the longest `##` entry that continues it, and so on. A word that cannot be cut all the way
   (or has more than 100 characters) becomes a single [UNK].

Special tokens written in the text (`"a [MASK] here"`) are never split: they are found first, in
the raw text, exactly as written.

Every character the normalisation produces remembers the index of the input character it came
from, so each token also gets its span (start, end) in the original text. `join_pieces`, at the
end, goes back from tokens to text.
"""

from __future__ import annotations

import re
import unicodedata

# Longer words become [UNK] without trying WordPiece. 100 is the default of transformers and of the Rust
# tokenizers library; Google's WordpieceTokenizer uses max_input_chars_per_word=200.
MAX_CHARS_PER_WORD = 100

# The CJK Unified Ideographs blocks, as in Google's `_is_chinese_char`. Chinese is written without
# spaces, so BERT makes every ideograph a word of its own. Hiragana, katakana and hangul are other
# blocks and are not split. (The Rust BertNormalizer starts the sixth range at 0x2B920, so the fast
# path leaves U+2B820..U+2B91F unspaced.)
CJK_RANGES = [
    (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
]


def is_whitespace(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def is_control(ch: str) -> bool:
    # Tab and newlines are controls (Cc) to Unicode but whitespace to BERT. Google's `_is_control`
    # drops Cc and Cf only; here, as in the Rust tokenizers library (`is_other`), private-use (Co)
    # and surrogate (Cs) code points go too, so a private-use character vanishes instead of making
    # its word [UNK]. Unassigned code points (Cn) stay, as letters, as in the Rust library
    # (transformers' Python tokenizer drops every category C*; no real text holds them).
    return ch not in "\t\n\r" and unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs")


def is_punctuation(ch: str) -> bool:
    # Every ASCII character that is not a letter or digit counts, although Unicode files "$", "+",
    # "^" and "`" under symbols: BERT splits them off all the same.
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in CJK_RANGES)


def remove_accents(s: str) -> str:
    """'é' -> 'e': decompose (NFD) into a base letter and combining marks, drop the marks (Mn)."""
    return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")


def normalize(text: str, lowercase: bool = True,
              strip_accents: bool | None = None) -> tuple[str, list[int]]:
    """Stage 1's character work. Returns the new text and, for each of its characters, the index
    of the input character it came from. `strip_accents=None` strips accents exactly when
    lowercasing, as BERT does."""
    strip = lowercase if strip_accents is None else strip_accents
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch == "\x00" or ch == "\ufffd" or is_control(ch):
            continue
        if is_whitespace(ch):
            new = " "
        else:
            # One character at a time, as the Rust library does (and so every fast BERT tokenizer):
            # a word-final Σ becomes σ. Google's BasicTokenizer (and transformers' Python one)
            # lower-cases each whitespace-separated word with str.lower(), which gives the final
            # form ς there: on that point minibert follows the Rust library, not Google.
            new = ch.lower() if lowercase else ch
            # NFD also maps each CJK compatibility ideograph to its unified twin (U+F9E1 -> 李).
            new = remove_accents(new) if strip else new
            if is_cjk(ch):
                new = f" {new} "
        out.append(new)
        origin.extend([i] * len(new))
    return "".join(out), origin


def split_words(text: str, origin: list[int]) -> list[tuple[str, list[int]]]:
    """Split on whitespace, then make every punctuation character a word of its own."""
    words: list[tuple[str, list[int]]] = []
    current: list[int] = []  # positions in `text` of the word being built

    def flush():
        if current:
            words.append(("".join(text[j] for j in current), [origin[j] for j in current]))
            current.clear()

    for j, ch in enumerate(text):
        if ch.isspace():  # also U+2028/U+2029, which BERT's whitespace_tokenize splits at too
            flush()
        elif is_punctuation(ch):
            flush()
            words.append((ch, [origin[j]]))
        else:
            current.append(j)
    flush()
    return words


def wordpiece(word: str, vocab: dict[str, int], unk: str = "[UNK]") -> list[tuple[str, int, int]]:
    """Greedy longest-match-first. Returns (piece, start, end) with start/end indices into `word`;
    a word that cannot be covered by vocabulary pieces is one [UNK] spanning all of it.

    "unaffable" with pieces {un, ##aff, ##able} -> un (0, 2), ##aff (2, 5), ##able (5, 9).
    """
    if len(word) > MAX_CHARS_PER_WORD:
        return [(unk, 0, len(word))]
    pieces = []
    start = 0
    while start < len(word):
        for end in range(len(word), start, -1):  # longest candidate first
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
        else:  # no prefix of what is left is in the vocabulary
            return [(unk, 0, len(word))]
        pieces.append((piece, start, end))
        start = end
    return pieces


class ReferenceTokenizer:
    """Text -> (token, start, end) triples; the facade `minibert.Tokenizer` adds ids and packing."""

    def __init__(self, vocab: dict[str, int], special_tokens: list[str], lowercase: bool = True,
                 strip_accents: bool | None = None, unk: str = "[UNK]"):
        self.vocab, self.lowercase, self.strip_accents, self.unk = vocab, lowercase, strip_accents, unk
        # Longest first, so that one special token that contains another is found whole.
        alternatives = sorted(special_tokens, key=len, reverse=True)
        self.special = re.compile("|".join(re.escape(t) for t in alternatives))

    def tokenize(self, text: str) -> list[tuple[str, int, int]]:
        tokens = []
        at = 0
        for m in self.special.finditer(text):
            tokens += self._tokenize_span(text, at, m.start())
            tokens.append((m.group(), m.start(), m.end()))
            at = m.end()
        return tokens + self._tokenize_span(text, at, len(text))

    def _tokenize_span(self, text: str, lo: int, hi: int) -> list[tuple[str, int, int]]:
        normalized, origin = normalize(text[lo:hi], self.lowercase, self.strip_accents)
        tokens = []
        for word, word_origin in split_words(normalized, origin):
            for piece, start, end in wordpiece(word, self.vocab, self.unk):
                # The span runs from the input character of the first piece character to the
                # input character of the last one, inclusive.
                tokens.append((piece, lo + word_origin[start], lo + word_origin[end - 1] + 1))
        return tokens


# What transformers' BERT decoder tidies, applied to each token with the space before it: so
# "hello" "," -> "hello,". Applied token by token, "do" "not" stays "do not".
CLEAN_UP = [(" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
            (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")]


def join_pieces(tokens: list[str]) -> str:
    """'##' pieces join the token before; other tokens follow a space."""
    out = []
    for i, token in enumerate(tokens):
        if i > 0:
            token = token[2:] if token.startswith("##") else " " + token
        for dirty, clean in CLEAN_UP:
            token = token.replace(dirty, clean)
        out.append(token)
    return "".join(out)
