"""Checkers for the exercises of chapter 07, fine-tuning for sentences and pairs (§4.1, Figure 4a, 4b).

    check.encode_pair(my_encode_pair)          # [CLS] A [SEP] B [SEP], token types, BERT's truncation
    check.sequence_loss(my_sequence_loss)      # the head by hand, and its loss for each kind of label
    check.pick_setting(my_pick_setting)        # mean ± sd over seeds, the best setting chosen on dev
    check.freeze_encoder(my_freeze_encoder)    # freeze the encoder but its top layers, count what trains

Expected values are hand-computed literals first, then minibert itself: its Tokenizer on real
sentence pairs with the MiniLM vocabulary, BertForSequenceClassification on random weights and on
MiniLM, `minibert.finetune.sweep.summary`, and the `requires_grad` of what `--freeze-encoder` leaves
trainable. When a result is wrong, the checker also computes the usual mistakes (only B truncated,
cut from the front, the wrong token type on a [SEP], no tanh, mean pooling, a regression loss
broadcast to (B, B), a softmax over multi-hot labels, population sd, a choice
made on test, the pooler left trainable, `model.eval()` taken for freezing, the bottom layers kept
instead of the top, an off-by-one in the layers kept) and names the one that matches what it received.

`pairs.py` holds 7.1, `head.py` 7.2, `seeds.py` 7.3, `freeze.py` 7.4.
"""

from .freeze import freeze_encoder
from .head import sequence_loss
from .pairs import encode_pair
from .seeds import pick_setting

__all__ = ["encode_pair", "sequence_loss", "pick_setting", "freeze_encoder"]
