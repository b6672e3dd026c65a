"""Checkers for the exercises of chapter 07, fine-tuning for sentences and pairs (§4.1, Figure 4a, 4b).

    check.head_tail(my_head_tail)              # a text too long for the window: its head and its tail
    check.sequence_loss(my_sequence_loss)      # the head by hand, and its loss for each kind of label
    check.pick_setting(my_pick_setting)        # mean ± sd over seeds, the best setting chosen on dev
    check.freeze_encoder(my_freeze_encoder)    # freeze the encoder but its top layers, count what trains

Expected values are hand-computed literals first, then minibert itself: its Tokenizer's cut of real
sentiment snippets with the MiniLM vocabulary, BertForSequenceClassification on random weights and on
MiniLM, `minibert.finetune.sweep.summary`, and the `requires_grad` of what `--freeze-encoder` leaves
trainable. When a result is wrong, the checker also computes the usual mistakes (ids[-0:] for an empty
tail, [CLS] and [SEP] left out of max_length, BERT's 101 and 102 for the ids given, head and tail
swapped, a text cut that fitted, no tanh, mean pooling, a regression loss broadcast to (B, B), a softmax
over multi-hot labels, log(softmax) or log(sigmoid) taken apart and reaching log(0) on large logits,
population sd, a choice made on test, the pooler left trainable, `model.eval()` taken for freezing, the
bottom layers kept instead of the top, an off-by-one in the layers kept) and names the one that matches
what it received.

`long_texts.py` holds 7.1, `head.py` 7.2 (its gradients in `head_grads.py`), `seeds.py` 7.3, `freeze.py` 7.4.
"""

from .freeze import freeze_encoder
from .head import sequence_loss
from .long_texts import head_tail
from .seeds import pick_setting

__all__ = ["head_tail", "sequence_loss", "pick_setting", "freeze_encoder"]
