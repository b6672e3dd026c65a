"""Learning a WordPiece vocabulary, small enough to read in one sitting (for teaching).

`train_wordpiece` (training.py) is what to use on real text: it runs the Rust `tokenizers` trainer.
This file does the same kind of work slowly, in plain Python, so every step can be printed:

    counts = word_counts(texts)           # {"hugs": 5, ...}: words after BERT's normalisation
    splits = initial_splits(counts)       # {"hugs": ["h", "##u", "##g", "##s"], ...}
    scores = pair_scores(counts, splits)  # {("h", "##u"): 0.028, ...}
    splits = merge_pair(best, splits)     # "h" "##u" -> "hu" in every word
    steps  = merge_steps(counts)          # (pair merged, splits after it), one per merge, in order
    vocab  = learn_wordpiece(texts, vocab_size=100)

Which pair to merge? Three answers, and they differ:
* Schuster & Nakajima (2012), who made WordPiece for Japanese and Korean voice search: the new
  unit that increases the likelihood of the training data the most under a language model that
  is rebuilt after every step. Wu et al. (2016, section 4.1) took it to machine translation, and
  BERT cites them. Google never released that code: BERT's README says it was C++ that depends
  on Google's internal libraries.
* Hugging Face's course (chapter 6, "WordPiece tokenization") offers, as its best guess,
  score(a, b) = freq(ab) / (freq(a) * freq(b)): how much more often a and b appear together than
  their own frequencies predict. That is `score="wordpiece"` here, the default.
* The Rust `WordPieceTrainer` (tokenizers/src/models/wordpiece/trainer.rs) wraps the BPE trainer:
  it merges the most *frequent* pair, ties going to the pair of smaller ids, then renames "##"
  pieces the WordPiece way. That is `score="frequency"` here.
All three only choose the vocabulary; encoding with it is the same greedy longest-match-first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from .reference import normalize, split_words
from .text import checked_texts
from .vocab import SPECIAL_TOKENS, TokenizerError

PREFIX = "##"  # marks a piece that continues a word: "hugs" -> "hug", "##s"
SCORES = ("wordpiece", "frequency")


def word_counts(texts: Iterable[str], lowercase: bool = True, strip_accents: bool | None = None) -> Counter:
    """How often each word occurs, after BERT's normalisation and pre-tokenisation (reference.py):
    a merge never crosses a space or a punctuation mark, so words are all training needs."""
    counts = Counter()
    for text in checked_texts(texts):
        normalized, origin = normalize(text, lowercase, strip_accents)
        counts.update(word for word, _ in split_words(normalized, origin))
    return counts


def initial_splits(counts: dict[str, int]) -> dict[str, list[str]]:
    """Every word as characters; all but the first carry "##", so "s" (a word) and "##s" (an ending)
    are different pieces from the start."""
    return {word: [word[0]] + [PREFIX + ch for ch in word[1:]] for word in counts}


def count_pieces(counts: dict[str, int], splits: dict[str, list[str]]) -> Counter:
    """freq(piece): occurrences of each piece in the corpus as currently split."""
    freq = Counter()
    for word, n in counts.items():
        for piece in splits[word]:
            freq[piece] += n
    return freq


def count_pairs(counts: dict[str, int], splits: dict[str, list[str]]) -> Counter:
    """freq(a, b): how often piece b directly follows piece a inside a word."""
    freq = Counter()
    for word, n in counts.items():
        pieces = splits[word]
        for pair in zip(pieces, pieces[1:]):
            freq[pair] += n
    return freq


def pair_scores(counts: dict[str, int], splits: dict[str, list[str]],
                score: str = "wordpiece") -> dict[tuple[str, str], float]:
    """Each adjacent pair's score: freq(ab) / (freq(a) * freq(b)), or freq(ab) itself."""
    if score not in SCORES:
        raise TokenizerError(f"score={score!r}; use one of {', '.join(map(repr, SCORES))}")
    pairs = count_pairs(counts, splits)
    if score == "frequency":
        return dict(pairs)
    pieces = count_pieces(counts, splits)
    return {(a, b): n / (pieces[a] * pieces[b]) for (a, b), n in pairs.items()}


def merged_token(a: str, b: str) -> str:
    """("hu", "##g") -> "hug"; ("##u", "##g") -> "##ug": the result continues a word iff a does."""
    if not b.startswith(PREFIX):
        raise TokenizerError(f"cannot merge ({a!r}, {b!r}): the second piece continues a word, so it "
                             f"must start with {PREFIX!r}")
    return a + b[len(PREFIX):]


def merge_pair(pair: tuple[str, str], splits: dict[str, list[str]]) -> dict[str, list[str]]:
    """New splits with every occurrence of a directly followed by b replaced by one piece."""
    a, b = pair
    new = merged_token(a, b)
    out = {}
    for word, pieces in splits.items():
        merged, i = [], 0
        while i < len(pieces):
            if pieces[i] == a and i + 1 < len(pieces) and pieces[i + 1] == b:
                merged.append(new)
                i += 2
            else:
                merged.append(pieces[i])
                i += 1
        out[word] = merged
    return out


def start_vocab(splits: dict[str, list[str]]) -> list[str]:
    """The vocabulary before any merge, in id order: BERT's special tokens, then every piece of the
    initial splits (the characters), sorted, so that the same text always gives the same ids."""
    return list(SPECIAL_TOKENS.values()) + sorted({piece for pieces in splits.values() for piece in pieces})


def merge_steps(counts: dict[str, int], score: str = "wordpiece") -> Iterator[tuple[tuple[str, str], dict]]:
    """The merges in the order the trainer makes them, as (pair merged, splits after it), until every
    word is one piece. Each step merges the best-scoring pair; equal scores go to the pair of smaller
    ids (`start_vocab`, then each new piece in the order it was made), as in the Rust trainer."""
    if score not in SCORES:
        raise TokenizerError(f"score={score!r}; use one of {', '.join(map(repr, SCORES))}")
    splits = initial_splits(counts)
    rank = {token: i for i, token in enumerate(start_vocab(splits))}  # token -> id
    while scores := pair_scores(counts, splits, score):  # empty once every word is one piece
        best = max(scores, key=lambda p: (scores[p], -rank[p[0]], -rank[p[1]]))
        splits = merge_pair(best, splits)
        rank.setdefault(merged_token(*best), len(rank))  # "h" + "##ug" and "hu" + "##g" both make "hug"
        yield best, splits


def learn_wordpiece(texts: Iterable[str], vocab_size: int, score: str = "wordpiece", lowercase: bool = True,
                    strip_accents: bool | None = None) -> list[str]:
    """The vocabulary, in id order: BERT's special tokens, the characters, then one new piece per
    merge of the best-scoring pair (`merge_steps`), until `vocab_size` is reached or every word is one
    piece."""
    if score not in SCORES:
        raise TokenizerError(f"score={score!r}; use one of {', '.join(map(repr, SCORES))}")
    counts = word_counts(texts, lowercase, strip_accents)
    vocab = start_vocab(initial_splits(counts))
    if not isinstance(vocab_size, int) or vocab_size < len(vocab):
        raise TokenizerError(f"vocab_size={vocab_size!r} is smaller than the {len(SPECIAL_TOKENS)} special "
                             f"tokens plus the {len(vocab) - len(SPECIAL_TOKENS)} characters of this text; "
                             f"every character must be a piece, or words that hold it become [UNK]")
    known, steps = set(vocab), merge_steps(counts, score)
    while len(vocab) < vocab_size:
        step = next(steps, None)
        if step is None:  # every word is one piece: nothing left to merge
            break
        new = merged_token(*step[0])
        if new not in known:  # "h" + "##ug" and "hu" + "##g" both make "hug"
            known.add(new)
            vocab.append(new)
    return vocab
