"""Checkers for the exercises of chapter 04 (pre-training data and masking).

mask_tokens   exactly round(15%) of each row's candidates (at least one, at most max_predictions),
              then 80/10/10 with random ids that are never special: invariants on named rows, then
              the rates on a thousand seeded rows, each within a binomial interval.
word_groups   the positions of each word ("##" pieces joined to the token that starts their word):
              hand cases, then real sentences checked against minibert.masking.word_starts.
word_selection  whole-word masking's selection: whole words in a random order while they fit in
              num_to_predict (Google's rule), checked by its promises and by a uniform order.
masked_lm_metrics  the MLM loss from the tied decoder at the labelled positions, against
              cross_entropy, gradients included; and the accuracy at [MASK], random and kept positions,
              against minibert.masking.selected_kinds.
nsp_pair      one A/B pair for next-sentence prediction: hand cases on tiny documents, then the
              guarantees of minibert.pretraining_data.create_instances_from_document (IsNext: B
              continues A; NotNext: B comes from another document; a fair coin) over many seeds.

One module per exercise: `token_masking.py` (4.1, its small pool in `replacement_pool.py`), `whole_words.py`
(4.2), `next_sentence.py` (4.3), `word_selection.py` (4.4), `mlm_loss.py` (4.5).
"""

from .mlm_loss import masked_lm_metrics
from .next_sentence import nsp_pair
from .token_masking import mask_tokens
from .whole_words import word_groups
from .word_selection import whole_word_selection

__all__ = ["mask_tokens", "word_groups", "nsp_pair", "whole_word_selection", "masked_lm_metrics"]
