"""Pictures for the chapters, one file by subject; everything draws with matplotlib (or builds a
pandas table), so it renders offline, in JupyterLab and in a notebook stored on GitHub.

- `ablations`: chapter 09's Tables 5-8 drawn from the frames `minibert.ablations.frames` makes: ours
  beside the paper's per seed, a forest plot of the effects the paper states, Table 7's combinations
- `analysis`: chapter 06's measurements of real heads: a layer × head grid of numbers, lines by layer,
  one per-head measurement against another
- `attention`: heatmaps of one head, of one layer's heads, of every layer; one query's soft lookup
- `encoder`: chapter 03's worked examples (small vectors, post-LN and pre-LN drawn, GELU) and where
  attention goes by kind of key
- `diagrams`: the paper's Figures 1 and 3 and next sentence prediction drawn; what each model's
  positions may read (GPT's triangle, ELMo's two, BERT's square) and what reaches them through layers
- `history`: chapter 00's five steps from word2vec to BERT, feature-based and fine-tuning
- `embeddings`: the input representation, token + segment + position (the paper's Figure 2)
- `masking`: what the 15% / 80-10-10 rule did to each token; the rule as a tree; a sentence masked by
  hand; a chunk cut into A and B for next-sentence prediction
- `pretraining`: chapter 05's learning-rate schedule, a run's MLM and NSP losses apart, loss baselines
  with their perplexities, accuracy at [MASK] over the count floors, a model's top guesses behind [MASK]
- `scale`: chapter 10's training FLOPs per token by part, days of training per device, a padded batch
  beside its packed real tokens, micro-batches of equal tokens, a run's two phases end to end
- `spans`: chapter 08's word labels on pieces, the span-score matrix, context windows, the no-answer
  threshold curve, the multiple-choice reshape, stored scores from pre-trained and random weights
- `theory`: measured values beside expected ones, proportions with their binomial intervals
- `fonts`: text the monospace font can draw
- `wordpiece`: words cut into pieces, WordPiece merges and the greedy search drawn, chapter 01's tables

The interactive bertviz views are in `minibert.attention_view`; training curves against the course's
reference runs are `minibert.pretrain.plot_run` (it lives with the training loop it reads).
"""

from ..stats import Z_999, Difference, binomial_halfwidth, difference_ci  # the statistics the figures quote
from .ablations import budget_figure, combinations_figure, effects_figure, mixes_figure, table_figure
from .analysis import head_grid, head_scatter, layer_lines
from .attention import attention_heads, attention_heatmap, attention_layers, soft_lookup
from .diagrams import (CONTEXT_COLOURS, SEGMENT_COLOURS, architectures_figure, context_mask,
                       context_masks_figure, mask_panels, nsp_figure, pretrain_finetune_figure, reach,
                       similarity_heatmap)
from .embeddings import input_representation
from .history import LINEAGE, lineage_figure
from .encoder import attention_shares, gelu_curves, layer_diagram, layer_diagrams, vector_grids
from .masking import (MASKING_COLOURS, NSP_COLOURS, fate_counts, masked_by_hand, masking_kinds, masking_rule,
                      masking_view, nsp_cut)
from .pretraining import baselines_figure, fill_mask_table, floors_figure, losses_figure, schedule_figure
from .scale import PART_COLOURS, cost_figure, flops_figure, micro_batch_figure, padding_figure, phases_figure
from .sentences import (cls_attention, confusion_figure, dev_curves, grid_frame, grid_heatmap, head_steps,
                        pair_rows, parse_setting, seed_strip)
from .spans import (choices_reshape, results_bars, span_matrix, tagging_alignment, threshold_curve,
                    windows_figure)
from .theory import against_theory, rates_table
from .wordpiece import (TOKEN_COLOURS, greedy_figure, greedy_trace, merges_figure, pairs_table,
                        stages_table, sweep_figure, token_rows, tokens_table)

__all__ = [
    "Difference",
    "budget_figure",
    "combinations_figure",
    "difference_ci",
    "effects_figure",
    "mixes_figure",
    "table_figure",
    "head_grid",
    "head_scatter",
    "layer_lines",
    "MASKING_COLOURS",
    "NSP_COLOURS",
    "Z_999",
    "against_theory",
    "attention_heads",
    "attention_heatmap",
    "attention_layers",
    "binomial_halfwidth",
    "fate_counts",
    "masked_by_hand",
    "attention_shares",
    "gelu_curves",
    "layer_diagram",
    "layer_diagrams",
    "vector_grids",
    "input_representation",
    "LINEAGE",
    "lineage_figure",
    "masking_kinds",
    "masking_rule",
    "masking_view",
    "nsp_cut",
    "rates_table",
    "TOKEN_COLOURS",
    "greedy_figure",
    "greedy_trace",
    "merges_figure",
    "pairs_table",
    "stages_table",
    "sweep_figure",
    "token_rows",
    "tokens_table",
    "soft_lookup",
    "CONTEXT_COLOURS",
    "SEGMENT_COLOURS",
    "architectures_figure",
    "context_mask",
    "context_masks_figure",
    "mask_panels",
    "nsp_figure",
    "pretrain_finetune_figure",
    "reach",
    "similarity_heatmap",
    "baselines_figure",
    "floors_figure",
    "fill_mask_table",
    "losses_figure",
    "schedule_figure",
    "cls_attention",
    "confusion_figure",
    "dev_curves",
    "grid_frame",
    "grid_heatmap",
    "head_steps",
    "pair_rows",
    "parse_setting",
    "seed_strip",
    "choices_reshape",
    "results_bars",
    "span_matrix",
    "tagging_alignment",
    "threshold_curve",
    "windows_figure",
    "PART_COLOURS",
    "cost_figure",
    "flops_figure",
    "micro_batch_figure",
    "padding_figure",
    "phases_figure",
]
