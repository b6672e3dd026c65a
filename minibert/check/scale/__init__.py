"""Checkers for the exercises of chapter 10, pre-training at scale.

    check.flops_per_token(my_flops_per_token)        # the training FLOPs per token of a config
    check.unpad_input(my_unpad_input)                 # a padded batch -> its real tokens, packed, and where they were
    check.pad_input(my_pad_input)                     # and back, with zeros at [PAD]
    check.accumulation_steps(my_accumulation_steps)   # the micro-batch sized in tokens: how many passes per step

Expected values are hand-computed literals first (each case named, with its lesson), then minibert's own
code: `minibert.pretrain.flops_per_token` (itself checked against torch's FlopCounterMode in the tests)
on BERT-BASE, LARGE and random configs; `minibert.model.unpad_input` and `pad_input` on random batches,
a mask with holes and a real tokenized batch; `minibert.training.accelerator.accumulation_steps` on
random cases. When a result is wrong, the checker also computes the usual mistakes (the forward alone,
the MLM head at every position, attention's T-dependent term missing, multiply-adds for FLOPs;
column-major order, the lengths instead of the mask, row-local indices, one trailing axis only, no zeros
at padding; ceil passes that do not divide the batch, the processes forgotten) and names the one that
matches.

`flops.py` holds 10.1, `unpadding.py` 10.2 (its gradients in `unpadding_grads.py`), `accumulation.py` 10.3.
"""

from .accumulation import accumulation_steps
from .flops import flops_per_token
from .unpadding import pad_input, unpad_input

__all__ = ["flops_per_token", "unpad_input", "pad_input", "accumulation_steps"]
