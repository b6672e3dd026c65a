"""Checkers for the exercises of chapter 06, what attention learns.

    check.offset_score(my_offset_score)          # a head's attention to the token `offset` places away
    check.attention_entropy(my_attention_entropy)  # each head's mean entropy over real queries
    check.head_mask_hook(my_head_mask_hook)      # a forward pre-hook that silences one head
    check.probe(my_probe_accuracy)               # a linear probe's held-out accuracy

Expected values are hand-computed literals, then minibert's own measurements (`minibert.analysis`)
on random attention with padding (on the right, and on the left) and on all-MiniLM-L6-v2's real
attention. When a result is wrong, the checker also computes the usual mistakes (the wrong direction,
padding counted, lengths taken for the mask, log base 2, a head's rows instead of its columns...) and
names the one that matches what it received; the hook is also called by hand to show which columns it
zeroes, run on a second batch, and must leave the projection's own weights alone.

`scores.py` holds 6.1 and 6.2, `head_mask.py` 6.3, `probe.py` 6.4 (its limit cases in `probe_limits.py`).
"""

from .head_mask import head_mask_hook
from .probe import probe
from .scores import attention_entropy, offset_score

__all__ = ["offset_score", "attention_entropy", "head_mask_hook", "probe"]
