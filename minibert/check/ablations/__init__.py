"""Checkers for the exercises of chapter 09, the paper's ablations in miniature (§5, Tables 5-8).

    check.ltr_labels(my_ltr_labels)                          # the left-to-right LM's next-token labels
    check.difference_interval(my_difference_interval)        # mean(a) − mean(b) with Welch's t interval
    check.concat_last_four(my_concat_last_four)              # Table 7's best features: the top four, side by side
    check.weighted_sum_last_four(my_weighted_sum_last_four)  # and their softmax-weighted sum (ELMo's scalar mix)

Expected values are hand-computed literals first (each case named, with its lesson), then minibert's own
code: `MaskingCollator(objective="ltr")`, `minibert.viz.difference_ci` (scipy's Welch test gives the
same interval), and what the feature-based tagger reads (`heads.bilstm.chosen_layers`, then
`FeatureTagger`'s join) on random BERTs of 12, 4 and 2 layers and on MiniLM. When a result is wrong, the
checker also computes the usual mistakes (the label at the last real token or at padding kept,
torch.roll's wrap-around, the previous token, padding told by its id; the normal quantile, the pooled
variance, the wrong degrees of freedom, the population sd, a one-sided quantile; the first four layers,
the wrong order, a stack or a sum instead of a concatenation, no softmax, no scale) and names the one
that matches.

`ltr_labels.py` holds 9.1, `intervals.py` 9.2, `layer_features.py` 9.3.
"""

from .intervals import difference_interval
from .layer_features import concat_last_four, weighted_sum_last_four
from .ltr_labels import ltr_labels

__all__ = ["ltr_labels", "difference_interval", "concat_last_four", "weighted_sum_last_four"]
