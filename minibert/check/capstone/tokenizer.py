"""The checker of exercise 11.1: text -> WordPiece ids, uncased BERT's way, with MiniLM's vocabulary,
compared with minibert's Tokenizer on hand cases and on every dev snippet of the sentiment task."""

from __future__ import annotations

import functools
import unicodedata

from ...hub import minilm_path
from ...tokenizer import reference
from ...tokenizer.vocab import load_vocab
from ..common import ExerciseError, call, minilm_tokenizer, passed


@functools.lru_cache(maxsize=1)
def minilm_vocab() -> dict[str, int]:
    return load_vocab(minilm_path() / "vocab.txt")


# (text, pieces, what the case tests): the pieces read off MiniLM's vocabulary by hand.
CASES = [
    ("Hello, World!", ["hello", ",", "world", "!"], "lower-case, and every punctuation mark is a word of its own"),
    # हिंदी: its vowel signs ि and ी are spacing marks (Mc) and stay; its nasal sign ं is Mn (though
    # unicodedata.combining gives it 0) and goes.
    ("Café crème brûlée हिंदी", ["cafe", "cr", "##eme", "br", "##ule", "##e", "ह", "##ि", "##द", "##ी"],
     "accents come off (NFD, then drop the combining marks, category Mn and no other: Devanagari's vowel signs ि and "
     "ी are Mc and stay, its ं is Mn and goes), then WordPiece cuts what is not in the vocabulary"),
    ("don't stop-motion", ["don", "'", "t", "stop", "-", "motion"], "' and - are punctuation: split off"),
    ("a\tb\n  c", ["a", "b", "c"], "tabs, newlines and runs of spaces all separate words"),
    ("zero\u200bwidth", ["zero", "##wi", "##dt", "##h"],
     "a format character (U+200B, a zero-width space) is dropped, not a space: 'zerowidth' is one word"),
    ("ᚠᛇᚻ runes", ["[UNK]", "runes"], "a word no piece starts is one [UNK]"),
    ("snow☃man", ["[UNK]"], "'snow' is a piece, but no piece continues it with '☃' (a symbol, not punctuation): "
                            "when WordPiece gets stuck, the WHOLE word is one [UNK]"),
    ("x" * 101, ["[UNK]"], "a word of more than 100 characters is [UNK] without trying WordPiece"),
]
# More hand cases, their pieces read off minibert's Tokenizer (CASES are written out by hand).
MORE = [
    ("x" * 100, "a word of exactly 100 characters is still cut by WordPiece: only MORE than 100 is [UNK]"),
    ("del\x7fete", "a control character (U+007F, category Cc) is dropped, not a space: 'delete' is one word"),
    ("one\u00a0two\r\nthree", "a no-break space (U+00A0) and \\r are whitespace too: three words"),
    ("Straße", "lower-case with str.lower(): 'ß' stays 'ß' (str.casefold() would make it 'ss')"),
    ("page\x0cbreak", "a form feed (U+000C) is a control character (Cc), dropped like the others, not a space: of the "
                      "control characters only tab, \\n and \\r are spaces, whatever str.isspace() says: 'pagebreak'"),
    ("$5 +1 a|b ~x 2^3 <b>", "ASCII symbols that are not Unicode punctuation ($ + | ~ ^ < >, categories Sc, Sm and "
                            "Sk) are split off too: every ASCII character that is neither a letter nor a digit"),
    ("#1 ##hash", "'#' is punctuation like any other, even at a word's start: '##hash' is '#', '#', 'hash'"),
    ("x" * 60 + "-" + "x" * 60, "121 characters between two spaces, but '-' splits them into two words of 60: the "
                                "100-character rule counts a word's characters after the punctuation is split off"),
]


def _dropped(ch: str, marks: str) -> bool:
    """Whether accent stripping drops `ch`: category Mn (BERT's), every mark M*, or unicodedata.combining."""
    if marks == "combining":
        return bool(unicodedata.combining(ch))
    return unicodedata.category(ch).startswith(marks)


def _words(text: str, *, lower=True, accents=True, punct=True, controls=True, form="NFD", fold=False,
           chunk_limit=False, marks="Mn") -> list[str]:
    """Basic tokenization with switches that reproduce the usual mistakes (CJK spacing as BERT's)."""
    if controls:
        text = "".join(ch for ch in text if not reference.is_control(ch))
    text = "".join(f" {ch} " if reference.is_cjk(ch) else ch for ch in text)
    if lower:
        text = text.casefold() if fold else text.lower()
    if accents:
        text = "".join(c for c in unicodedata.normalize(form, text) if not _dropped(c, marks))
    words = []
    for word in text.split():
        if not punct or chunk_limit and len(word) > reference.MAX_CHARS_PER_WORD:  # a long chunk kept: one [UNK]
            words.append(word)
            continue
        current = ""
        for ch in word:
            if reference.is_punctuation(ch):
                words += [current] * bool(current) + [ch]
                current = ""
            else:
                current += ch
        words += [current] * bool(current)
    return words


def _pieces(word: str, vocab: dict[str, int], *, hashes=True, longest=True, whole_unk=True) -> list[str]:
    if len(word) > reference.MAX_CHARS_PER_WORD:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        ends = range(len(word), start, -1) if longest else range(start + 1, len(word) + 1)
        found = next((word[start:end] for end in ends
                      if ("##" if start and hashes else "") + word[start:end] in vocab), None)
        if found is None:
            return ["[UNK]"] if whole_unk else pieces + ["[UNK]"]
        pieces.append(("##" if start and hashes else "") + found)
        start += len(found)
    return pieces


def variant(text: str, vocab: dict[str, int], *, specials=False, **switches) -> list[int]:
    words = _words(text, **{k: v for k, v in switches.items()
                            if k in ("lower", "accents", "punct", "controls", "form", "fold", "chunk_limit", "marks")})
    piece = {k: v for k, v in switches.items() if k in ("hashes", "longest", "whole_unk")}
    ids = [vocab[p] for w in words for p in _pieces(w, vocab, **piece)]
    return [vocab["[CLS]"], *ids, vocab["[SEP]"]] if specials else ids


MISTAKES = [
    (dict(specials=True), "no [CLS] or [SEP] here: the notebook adds them when it packs a row"),
    (dict(lower=False), "lower-case the text first: MiniLM's vocabulary is uncased ('Hello' is not in it)"),
    (dict(accents=False), "strip the accents: normalise to NFD, then drop the combining marks (category Mn)"),
    # before punct=False: both give one [UNK] for a long chunk, and a function that keeps punctuation
    # fails 'Hello, World!' long before
    (dict(chunk_limit=True), "the 100-character rule is WordPiece's, for each word of the basic tokenization: count "
                             "the characters after the punctuation is split off, not those between two spaces"),
    (dict(punct=False), "split every punctuation character off as a word of its own ('world!' -> 'world', '!')"),
    (dict(controls=False), "drop control and format characters (categories Cc and Cf, but not tab or newline): "
                           "they are not spaces"),
    (dict(hashes=False), "a piece that continues a word is looked up with '##' in front ('##eme', not 'eme')"),
    (dict(longest=False), "take the LONGEST piece at each position, not the shortest"),
    (dict(whole_unk=False), "when WordPiece gets stuck, the WHOLE word becomes one [UNK]; forget its pieces"),
    (dict(form="NFKD"), "normalise to NFD, not NFKD: NFKD also rewrites compatibility characters ('…' becomes "
                        "'...', 'ﬁ' becomes 'fi'), which BERT keeps"),
    (dict(fold=True), "lower-case with str.lower(): str.casefold() goes further ('ß' becomes 'ss')"),
    (dict(marks="M"), "drop the marks of category Mn only: a spacing mark (Mc, as Devanagari's vowel signs ि and ी) "
                      "or an enclosing one (Me) belongs to its letter and stays"),
    (dict(marks="combining"), "unicodedata.combining(ch) is not the test: it is 0 for some marks of category Mn "
                              "(Devanagari's ं), which go too; drop exactly the characters of category Mn"),
]


def _diagnose(text: str, got, vocab: dict[str, int]) -> str:
    for switches, hint in MISTAKES:
        if got == variant(text, vocab, **switches):
            return f"\n  hint: {hint}"
    if vocab["[UNK]"] != 100 and 100 in got and vocab["[UNK]"] not in got:
        return (f"\n  hint: [UNK] is {vocab['[UNK]']} in this vocabulary, not 100 (BERT's): take it from the vocab "
                "given, vocab['[UNK]']")
    return ""


def _course_vocabulary(fn) -> None:
    """The hand texts again with the course model's own vocabulary (8,192 pieces, [UNK] = 1), as the notebook's
    fill-mask uses them: every id comes from the vocab given."""
    from ...repository import MODELS
    from ...tokenizer import Tokenizer

    vocab, tokenizer = load_vocab(MODELS / "course" / "vocab.txt"), Tokenizer.from_pretrained(MODELS / "course")
    for text, _, lesson in CASES:
        _compare(fn, text, vocab, tokenizer.encode(text)["input_ids"][1:-1],
                 f"the course model's vocabulary this time; {lesson}")


def _compare(fn, text: str, vocab: dict[str, int], expected: list[int], lesson: str = "") -> None:
    got = call(fn, repr(text), text, vocab)
    if isinstance(got, tuple) or (hasattr(got, "tolist") and not isinstance(got, list)):
        got = list(got.tolist() if hasattr(got, "tolist") else got)
    if not isinstance(got, list) or not all(isinstance(i, int) for i in got):
        raise ExerciseError(f"{text!r}: expected a list of ints (ids), received {got!r:.200}")
    if got != expected:
        names = {i: t for t, i in vocab.items()}
        shown = [names.get(i, i) for i in got]
        raise ExerciseError(f"{text!r}:\n  expected {[names[i] for i in expected]}\n  received {shown}"
                            + (f"\n  what BERT does: {lesson}" if lesson else "") + _diagnose(text, got, vocab))


def tokenizer_ids(fn) -> None:
    """`fn(text, vocab) -> list[int]`: the ids of text's WordPiece pieces, uncased, no [CLS]/[SEP]."""
    vocab = minilm_vocab()
    kept = dict(vocab)
    for text, pieces, lesson in CASES:
        _compare(fn, text, vocab, [vocab[p] for p in pieces], lesson)
    tokenizer = minilm_tokenizer()
    for text, lesson in MORE:
        _compare(fn, text, vocab, tokenizer.encode(text)["input_ids"][1:-1], lesson)
    if vocab != kept:
        raise ExerciseError("your function changed the vocabulary it was given; only read it")
    _course_vocabulary(fn)
    from ...tasks import load_task

    texts = [x["text"] for x in load_task("sentiment", "dev")]
    for text in texts:
        _compare(fn, text, vocab, tokenizer.encode(text)["input_ids"][1:-1])
    passed("tokenizer_ids", f"{len(CASES) + len(MORE)} hand cases ({len(CASES)} of them again in the course "
                            f"model's vocabulary) and the {len(texts):,} dev snippets of the sentiment task give "
                            "minibert's ids")
