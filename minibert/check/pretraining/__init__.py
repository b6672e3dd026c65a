"""Checkers for the exercises of chapter 05 (pre-training).

learning_rate     Google's schedule in general form (polynomial decay with an end rate and a power,
                  linear warm-up laid over it): hand cases, then a grid against the formula of
                  Google's optimization.py.
parameter_groups  AdamW's two groups, decay on matrices and none on the rest (LayerNorm gains, biases,
                  scalars) whatever their names, frozen parameters left out, tied ones once: on minibert's
                  BERT and on a model with other names, then one AdamW step against minibert's groups.
accumulate        exact gradient accumulation: k micro-batches leaving the gradient of the whole
                  batch's loss (mean MLM over all labelled positions + mean NSP over all pairs).
clip_grad_norm    clipping by the global norm, in place, returning the norm before clipping: against
                  torch.nn.utils.clip_grad_norm_.
pretraining_step  one step written out: the MLM loss at the labelled positions only, NSP's, backward,
                  clipping, AdamW, the schedule, the gradients cleared; two steps against minibert's.

One module per exercise: `schedule.py` (5.1), `groups.py` (5.2), `accumulation.py` (5.3),
`clipping.py` (5.4), `step.py` (5.5).
"""

from .accumulation import accumulate
from .clipping import clip_grad_norm
from .groups import parameter_groups
from .schedule import learning_rate
from .step import pretraining_step

__all__ = ["learning_rate", "parameter_groups", "accumulate", "clip_grad_norm", "pretraining_step"]
