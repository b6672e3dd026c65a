"""Checkers for the exercises of chapter 04 (pre-training data and masking).

mask_tokens   the 15% selection and the 80/10/10 rule: invariants on small named rows, then the
              rates on a thousand seeded rows, each within a binomial interval (the selection may be
              a coin per token or exactly 15% per row, as minibert.masking.mask_tokens does).
word_groups   the positions of each word ("##" pieces joined to the token that starts their word):
              hand cases, then real sentences checked against minibert.masking.word_starts.
nsp_pair      one A/B pair for next-sentence prediction: hand cases on tiny documents, then the
              guarantees of minibert.pretraining_data.create_instances_from_document (IsNext: B
              continues A; NotNext: B comes from another document; a fair coin) over many seeds.

One module per exercise: `token_masking.py` (4.1), `whole_words.py` (4.2), `next_sentence.py` (4.3).
"""

from .next_sentence import nsp_pair
from .token_masking import mask_tokens
from .whole_words import word_groups

__all__ = ["mask_tokens", "word_groups", "nsp_pair"]
