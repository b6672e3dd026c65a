"""Checkers for the capstone (exercises/11_capstone.ipynb): the learner's own BERT, from text to a
fine-tuned classifier and a fill-mask.

    check.tokenizer_ids(my_tokenize)                 # 11.1 text -> WordPiece ids, uncased BERT's way
    check.bert_pieces(MyBert)                        # 11.2 the model alone: parameters, shapes, padding, dropout
    check.assembled_bert(MyBert, my_load_weights)    # 11.3 MiniLM's weights loaded: every piece, then transformers
    check.finetune_loop(my_finetune)                 # 11.4 the loop, weight by weight against minibert's
    check.fine_tuned(accuracies, ...)                # the run: dev accuracy on sentiment above the target
    check.mlm_logits(my_mlm_logits)                  # 11.5 the masked-LM head from the course model's weights
    check.fill_mask(guesses, sentences, ...)         #      the learner's BERT fills in [MASK] as minibert does

The model's checks walk the chain: the embeddings, then each layer's attention and each layer fed BERT's
own input to that piece (so one wrong piece cannot hide behind another), then the head, then the whole
model against transformers' BertForSequenceClassification. A wrong piece is compared with the usual
mistakes (no token types, the mask on the query axis, heads cut by a plain view, pre-LN, ReLU, mean
pooling, a weight loaded transposed, ...) and the one it matches is named. The loop's check runs the
learner's loop and minibert's on the same small model and compares the weights; the usual mistakes (no
zero_grad, the schedule a step ahead, no warm-up or one rounded up, no clipping, decay on every
parameter) are simulated and named. When the final accuracy or the fill-mask is off, the piece checks
run again in the chain's order and the first that fails is named.

`tokenizer.py` holds 11.1, `model.py` 11.2 and 11.3 (`reference.py`: BERT's pieces with the mistakes'
switches), `loop.py` 11.4, `fill_mask.py` 11.5, `result.py` the two verdicts on the whole (the fine-tuned accuracy, the fill-mask).
"""

from .fill_mask import mlm_logits
from .loop import finetune_loop
from .model import assembled_bert, bert_pieces
from .result import fill_mask, fine_tuned
from .tokenizer import tokenizer_ids

__all__ = ["tokenizer_ids", "bert_pieces", "assembled_bert", "finetune_loop", "fine_tuned", "mlm_logits", "fill_mask"]
