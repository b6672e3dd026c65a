"""Pictures for the chapters, one file by subject; everything draws with matplotlib (or builds a
pandas table), so it renders offline, in JupyterLab and in a notebook stored on GitHub.

- `attention`: heatmaps of one head, of one layer's heads, of every layer
- `masking`: what the 15% / 80-10-10 rule did to each token
- `theory`: measured values beside expected ones
- `fonts`: text the monospace font can draw

The interactive bertviz views are in `minibert.attention_view`; training curves against the course's
reference runs are `minibert.pretrain.plot_run` (it lives with the training loop it reads).
"""

from .attention import attention_heads, attention_heatmap, attention_layers
from .masking import MASKING_COLOURS, masking_kinds, masking_view
from .theory import against_theory

__all__ = [
    "MASKING_COLOURS",
    "against_theory",
    "attention_heads",
    "attention_heatmap",
    "attention_layers",
    "masking_kinds",
    "masking_view",
]
