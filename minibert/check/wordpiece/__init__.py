"""Checkers for the exercises of chapter 01 (WordPiece).

    check.basic_words(my_basic_words)        text -> words, BERT's uncased basic tokenizer
    check.wordpiece_encode(my_wordpiece)     word -> (piece, start, end), greedy longest-match-first
    check.pair_scores(my_pair_scores)        one training step: freq(ab) / (freq(a) * freq(b))
    check.pack_pair(my_pack)                 [CLS] A [SEP] B [SEP] with token types, cut longest-first

Expected results come from cases worked out by hand (in the modules) and from minibert's own code:
`minibert.tokenizer.reference` (normalize, split_words, wordpiece), `minibert.tokenizer.learn`
(pair_scores) and `minibert.Tokenizer` on the MiniLM vocabulary, on lines of the course corpus.

One module per exercise: `basic_tokenizer.py` (1.1), `greedy.py` (1.2), `pair_scoring.py` (1.3),
`packing.py` (1.4); `_shared.py` holds what they share (the corpus lines, the reference word split).
"""

from .basic_tokenizer import basic_words
from .greedy import wordpiece_encode
from .packing import pack_pair
from .pair_scoring import pair_scores

__all__ = ["basic_words", "wordpiece_encode", "pair_scores", "pack_pair"]
