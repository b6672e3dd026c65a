"""Checkers for the exercises of chapter 01 (WordPiece).

    check.basic_words(my_basic_words)        text -> words, BERT's uncased basic tokenizer
    check.wordpiece_encode(my_wordpiece)     word -> pieces, greedy longest-match-first
    check.pair_scores(my_pair_scores)        one training step: freq(ab) / (freq(a) * freq(b))
    check.pack_pair(my_pack)                 [CLS] A [SEP] B [SEP] with token types

Expected results come from cases worked out by hand (written below) and from minibert's own code:
`minibert.tokenizer.reference` (normalize, split_words, wordpiece), `minibert.tokenizer.learn`
(pair_scores) and `minibert.Tokenizer` on the MiniLM vocabulary, on lines of the course corpus.
"""

from __future__ import annotations

import copy
import functools
import math
import random
import string
from collections.abc import Mapping
from pathlib import Path

from ..checkpoint import minilm_path
from ..tokenizer import Tokenizer, learn, reference
from ..tokenizer.vocab import load_vocab
from .common import ExerciseError, call, expect_equal, passed

__all__ = ["basic_words", "wordpiece_encode", "pair_scores", "pack_pair"]

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus"


@functools.lru_cache(maxsize=1)
def _valid_lines() -> tuple[str, ...]:
    path = CORPUS / "valid.txt"
    if not path.is_file():
        raise FileNotFoundError(f"the course corpus is missing ({path}); run `make setup` once to prepare it")
    return tuple(line for line in path.read_text(encoding="utf-8").split("\n") if line)


@functools.lru_cache(maxsize=1)
def _minilm_vocab() -> dict[str, int]:
    return load_vocab(minilm_path() / "vocab.txt")


@functools.lru_cache(maxsize=1)
def _minilm_tokenizer() -> Tokenizer:
    return Tokenizer.from_pretrained(minilm_path())


def _reference_words(text: str) -> list[str]:
    normalized, origin = reference.normalize(text)
    return [word for word, _ in reference.split_words(normalized, origin)]


def _named(text: str, limit: int = 70) -> str:
    """A text as it appears in a case name: repr, so invisible characters show; cut when long."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[:limit] + "...'"


def _as_list(value, name: str, what: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise ExerciseError(f"{name}: expected {what} (a list), received {type(value).__name__}: {value!r}"[:600])
    return list(value)


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
    lines = rng.sample(_valid_lines(), 400)
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
     "BERT makes a word of more than 100 characters (max_input_chars_per_word) a single '[UNK]' without "
     "trying to cut it"),
]


def _word_label(word: str, vocab) -> str:
    shown = repr(word) if len(word) <= 30 else f"'{word[:6]}...' ({len(word)} characters)"
    return f"my_wordpiece({shown}, {sorted(vocab)!r})" if len(vocab) < 20 else f"my_wordpiece({shown}, VOCAB)"


def wordpiece_encode(fn) -> None:
    """Check `fn(word, vocab) -> list[str]`: greedy longest-match-first, '##' continuations, one
    '[UNK]' for a word that cannot be cut (or has more than 100 characters)."""
    for name, word, vocab, expected, hint in WORDPIECE_CASES:
        case = f"{_word_label(word, vocab)} [{name}]"
        got = call(fn, case, word, set(vocab))
        expect_equal(case, got, expected, hint=hint)

    vocab = _minilm_vocab()
    rng = random.Random(2)
    lines = rng.sample(_valid_lines(), 300)
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
        expected = [piece for piece, _, _ in reference.wordpiece(word, vocab)]
        expect_equal(case, call(fn, case, word, vocab), expected,
                     hint="compare with minibert.tokenizer.reference.wordpiece(word, VOCAB)")
    passed("wordpiece_encode", f"{len(WORDPIECE_CASES)} hand-computed cases and {len(words):,} random words "
                               "(MiniLM's 30,522-piece vocabulary) agree with minibert")


# ---- Exercise 1.3 · one training step: the pair scores --------------------------------------------

_TOY_COUNTS = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}  # chapter 01's toy corpus (Hugging Face's course)
_TOY_SPLITS = {"hug": ["h", "##u", "##g"], "pug": ["p", "##u", "##g"], "pun": ["p", "##u", "##n"],
               "bun": ["b", "##u", "##n"], "hugs": ["h", "##u", "##g", "##s"]}
_REPEAT_COUNTS = {"aaaa": 3, "ab": 2, "a": 1}
_REPEAT_SPLITS = {"aaaa": ["a", "##a", "##a", "##a"], "ab": ["a", "##b"], "a": ["a"]}
_MERGED_COUNTS = {"hug": 10, "hugs": 5, "bug": 2}
_MERGED_SPLITS = {"hug": ["hug"], "hugs": ["hug", "##s"], "bug": ["b", "##ug"]}

# (name, word counts, splits, expected scores worked out by hand, {(pair, wrong value): what went wrong})
PAIR_CASES = [
    ("the toy corpus of chapter 01", _TOY_COUNTS, _TOY_SPLITS,
     # freq(##u) = 36 (every word), freq(##g) = 20, freq(##s) = 5; h, p, b, ##n: 15, 17, 4, 16
     {("h", "##u"): 15 / (15 * 36), ("##u", "##g"): 20 / (36 * 20), ("p", "##u"): 17 / (17 * 36),
      ("##u", "##n"): 16 / (36 * 16), ("b", "##u"): 4 / (4 * 36), ("##g", "##s"): 5 / (20 * 5)},
     {(("##g", "##s"), 5.0): "that is freq(ab) alone: divide it by freq(a) × freq(b)",
      (("##g", "##s"), 1 / 100): "count each pair once per occurrence in the corpus: 'hugs' occurs 5 times, so "
                                  "('##g', '##s') occurs 5 times, not once (weight by the word's count)",
      (("##g", "##s"), 5 / 3): "freq(a) counts every occurrence of the piece in the corpus, weighted by the word "
                               "counts (freq('##g') = 10 + 5 + 5 = 20), not the number of distinct words holding it",
      (("##g", "##s"), 1 / 3): "weight both the pair counts and the piece counts by how often each word occurs"}),
    ("a repeated piece and a one-piece word", _REPEAT_COUNTS, _REPEAT_SPLITS,
     # freq(a) = 3 + 2 + 1 = 6, freq(##a) = 3 × 3 = 9, freq(##b) = 2; pairs: (a, ##a) 3, (##a, ##a) 6, (a, ##b) 2
     {("a", "##a"): 3 / (6 * 9), ("##a", "##a"): 6 / (9 * 9), ("a", "##b"): 2 / (6 * 2)},
     {(("##a", "##a"), 3 / 81): "'aaaa' holds the pair ('##a', '##a') twice: count every adjacent position, "
                                "not each distinct pair once per word",
      (("a", "##b"), 2 / 10): "the word 'a' is a single piece: it has no pair, but its 'a' still counts in "
                              "freq('a') = 6"}),
    ("pieces after some merges", _MERGED_COUNTS, _MERGED_SPLITS,
     # freq(hug) = 15, freq(##s) = 5, freq(b) = 2, freq(##ug) = 2
     {("hug", "##s"): 5 / (15 * 5), ("b", "##ug"): 2 / (2 * 2)}, {}),
]


def _check_scores(case: str, got, expected: dict, slips: dict, hint: str = "") -> None:
    if not isinstance(got, Mapping):
        raise ExerciseError(f"{case}: expected a dict {{(a, b): score}}, received {type(got).__name__}: "
                            f"{got!r}"[:600])
    extra = [p for p in got if p not in expected]
    if extra:
        raise ExerciseError(f"{case}: your dict has pairs that are not two adjacent pieces of one word: "
                            f"{sorted(extra, key=repr)[:6]!r}\n  expected only {sorted(expected)[:12]!r}"
                            "\n  hint: a pair is two pieces next to each other inside one word (keys are tuples "
                            "(a, b)); the last piece of a word and the first of the next word are never a pair")
    missing = [p for p in expected if p not in got]
    if missing:
        raise ExerciseError(f"{case}: pairs missing from your dict: {sorted(missing)[:6]!r}"
                            + (f"\n  hint: {hint}" if hint else ""))
    wrong = []
    for pair, want in expected.items():
        try:
            value = float(got[pair])
        except (TypeError, ValueError):
            raise ExerciseError(f"{case}: the score of {pair!r} is {got[pair]!r}, not a number") from None
        if not math.isclose(value, want, rel_tol=1e-9, abs_tol=1e-12):
            wrong.append((pair, want, value))
    if wrong:
        # Show a pair whose wrong value gives the mistake away, if there is one; else the first.
        known = [(w, text) for w in wrong for (p, slip), text in slips.items()
                 if p == w[0] and math.isclose(w[2], slip)]
        (pair, want, value), why = known[0] if known else (wrong[0], hint or (
            "score = freq(ab) / (freq(a) × freq(b)), every frequency weighted by the word counts"))
        raise ExerciseError(f"{case}: {len(wrong)} of {len(expected)} scores differ; the score of {pair!r}:"
                            f"\n  expected {want!r}\n  received {value!r}\n  hint: {why}")


def _random_corpus(rng: random.Random) -> tuple[dict, dict]:
    letters = "abcde"[: rng.randint(2, 5)]
    counts = {}
    for _ in range(rng.randint(3, 25)):
        counts["".join(rng.choice(letters) for _ in range(rng.randint(1, 7)))] = rng.randint(1, 50)
    return counts, learn.initial_splits(counts)


def _merge_some(rng: random.Random, counts: dict, splits: dict, n: int) -> dict:
    for _ in range(n):
        pairs = sorted(learn.count_pairs(counts, splits))
        if not pairs:
            break
        splits = learn.merge_pair(rng.choice(pairs), splits)
    return splits


def pair_scores(fn) -> None:
    """Check `fn(word_counts, splits) -> {(a, b): score}` with score = freq(ab) / (freq(a) × freq(b)),
    all frequencies weighted by the word counts."""
    for name, counts, splits, expected, slips in PAIR_CASES:
        case = f"my_pair_scores({counts!r}, splits) [{name}; splits = {splits!r}]"
        got = call(fn, case, copy.deepcopy(counts), copy.deepcopy(splits))
        _check_scores(case, got, expected, slips)

    rng = random.Random(3)
    corpora = []
    for i in range(40):
        counts, splits = _random_corpus(rng)
        corpora.append((f"random corpus {i}", counts, _merge_some(rng, counts, splits, rng.randint(0, 6))))
    lines = _valid_lines()
    for i in range(4):
        start = rng.randrange(len(lines) - 60)
        counts = dict(learn.word_counts(lines[start:start + 60]))
        splits = _merge_some(rng, counts, learn.initial_splits(counts), 10 * i)
        corpora.append((f"60 sentences of valid.txt from sentence {start + 1}, after {10 * i} merges", counts, splits))
    for label, counts, splits in corpora:
        shown = repr(counts) if len(counts) <= 8 else f"{len(counts)} words"
        case = f"my_pair_scores({shown}, splits) [{label}]"
        got = call(fn, case, copy.deepcopy(counts), copy.deepcopy(splits))
        _check_scores(case, got, learn.pair_scores(counts, splits), {},
                      hint="compare with minibert.tokenizer.learn.pair_scores(word_counts, splits)")
    passed("pair_scores", f"{len(PAIR_CASES)} hand-computed cases and {len(corpora)} random corpora "
                          "(random words, and sentences of valid.txt, after up to 30 merges) agree with minibert")


# ---- Exercise 1.4 · [CLS] A [SEP] B [SEP] and token types ----------------------------------------

# (name, tokens_a, tokens_b, expected tokens, expected token types)
PACK_CASES = [
    ("a pair", ["call", "me"], ["is", "##hma", "##el"],
     ["[CLS]", "call", "me", "[SEP]", "is", "##hma", "##el", "[SEP]"], [0, 0, 0, 0, 1, 1, 1, 1]),
    ("one sentence (tokens_b=None)", ["call", "me"], None, ["[CLS]", "call", "me", "[SEP]"], [0, 0, 0, 0]),
    ("one token each", ["a"], ["b"], ["[CLS]", "a", "[SEP]", "b", "[SEP]"], [0, 0, 0, 1, 1]),
    ("an empty B is still a B", ["a"], [], ["[CLS]", "a", "[SEP]", "[SEP]"], [0, 0, 0, 1]),
]


def _role(position: int, len_a: int, len_b: int | None) -> tuple[str, str]:
    """What sits at `position` of [CLS] A [SEP] B [SEP], and what BERT gives it as token type."""
    if position == 0:
        return "[CLS]", "[CLS] starts the sequence and belongs to sentence A: type 0"
    if position <= len_a:
        return "a token of A", "the tokens of A have type 0"
    if position == len_a + 1:
        return "the [SEP] that ends A", "the first [SEP] closes A, so it has type 0; B starts after it"
    if len_b is not None and position <= len_a + 1 + len_b:
        return "a token of B", "the tokens of B have type 1"
    return "the [SEP] that ends B", "the final [SEP] closes B, so it has type 1, like B's tokens"


def _check_pack(case: str, fn, tokens_a, tokens_b, expected_tokens, expected_types) -> None:
    a_before, b_before = list(tokens_a), None if tokens_b is None else list(tokens_b)
    result = call(fn, case, tokens_a, tokens_b)
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise ExerciseError(f"{case}: expected a pair (tokens, token_type_ids), received {result!r}"[:600])
    if list(tokens_a) != a_before or (tokens_b is not None and list(tokens_b) != b_before):
        raise ExerciseError(f"{case}: your function changed its input (tokens_a was {a_before!r}, is now "
                            f"{list(tokens_a)!r}; tokens_b was {b_before!r}, is now {tokens_b!r})\n  hint: "
                            "build a new list ([\"[CLS]\", *tokens_a, ...]) instead of inserting into the caller's")
    tokens = _as_list(result[0], case, "tokens")
    types = _as_list(result[1], case, "token_type_ids")
    hint = ""
    if tokens_b is not None and not tokens_b and tokens == expected_tokens[:-1]:
        hint = "tokens_b=[] is a pair whose B is empty: it still gets its [SEP]; only None means no B"
    elif tokens_b is not None and tokens == expected_tokens[:-1]:
        hint = "a pair ends with a second [SEP], after B"
    elif tokens_b is None and tokens[-1:] == ["[SEP]"] and tokens[:-1] == expected_tokens:
        hint = "with tokens_b=None there is no B and so no second [SEP]"
    elif tokens[:1] != ["[CLS]"]:
        hint = "the sequence starts with [CLS]"
    expect_equal(f"{case}, the tokens", tokens, expected_tokens, hint=hint)
    if len(types) != len(tokens):
        raise ExerciseError(f"{case}: {len(tokens)} tokens but {len(types)} token types\n  expected "
                            f"{expected_types!r}\n  received {types!r}\n  hint: one type per token, the "
                            "special tokens included")
    for i, (want, got) in enumerate(zip(expected_types, types)):
        if got != want:
            role, why = _role(i, len(tokens_a), None if tokens_b is None else len(tokens_b))
            raise ExerciseError(f"{case}, the token types:\n  expected {expected_types!r}\n  received {types!r}"
                                f"\n  first difference at position {i} ({role}, {tokens[i]!r}): expected "
                                f"{want!r}, received {got!r}\n  hint: {why}")


def pack_pair(fn) -> None:
    """Check `fn(tokens_a, tokens_b) -> (tokens, token_type_ids)`: [CLS] A [SEP] B [SEP] with types 0
    up to the first [SEP], 1 after it; tokens_b=None gives [CLS] A [SEP]."""
    for name, a, b, tokens, types in PACK_CASES:
        case = f"my_pack({a!r}, {b!r}) [{name}]"
        _check_pack(case, fn, list(a), None if b is None else list(b), tokens, types)

    bert = _minilm_tokenizer()
    lines = _valid_lines()
    rng = random.Random(4)
    starts = rng.sample(range(len(lines) - 1), 240)
    cases = 0
    for k, i in enumerate(starts):
        text_a, text_b = lines[i], (None if k % 5 == 0 else lines[i + 1])  # every fifth: one sentence
        enc = bert(text_a, text_b)
        a = bert.tokenize(text_a)
        b = None if text_b is None else bert.tokenize(text_b)
        label = "one line" if b is None else "two lines"
        case = f"my_pack(tokens of {_named(text_a, 50)}, {'None' if b is None else 'tokens of ' + _named(text_b, 50)}) " \
               f"[{label} of valid.txt; expected from minibert.Tokenizer(text_a, text_b)]"
        _check_pack(case, fn, a, b, bert.convert_ids_to_tokens(enc["input_ids"]), list(enc["token_type_ids"]))
        cases += 1
    passed("pack_pair", f"{len(PACK_CASES)} hand-computed cases and {cases} random ones (lines of valid.txt, "
                        "pairs and single sentences) agree with minibert.Tokenizer")
