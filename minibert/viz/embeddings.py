"""BERT's input representation (§3, Figure 2) drawn from a real tokenised pair: one box per
position and table, summed column by column, then LayerNorm and dropout."""

from __future__ import annotations

from collections.abc import Sequence

from .fonts import missing_glyphs

ROWS = [  # (label, colour): the three tables whose rows are added at each position
    ("token embedding\nword[input_id]", "#f7d9a8"),
    ("segment embedding\nsegment[token_type]", "#bcd7ea"),
    ("position embedding\nposition[t]", "#cfe8c4"),
]


def input_representation(tokens: Sequence[str], token_type_ids: Sequence[int], *, max_tokens: int = 14,
                         title: str | None = None):
    """The paper's Figure 2 for these tokens: the input row, then for each position the three rows
    looked up (E_token, E_A or E_B, E_t), their sum, and LayerNorm + dropout. Long inputs show the
    first `max_tokens` positions and an ellipsis. Returns the figure."""
    import matplotlib.pyplot as plt

    tokens, types = list(tokens), [int(t) for t in token_type_ids]
    if len(tokens) != len(types):
        raise ValueError(f"{len(tokens)} tokens but {len(types)} token_type_ids")
    if missing_glyphs(tokens):
        raise ValueError(f"the font has no glyph for {missing_glyphs(tokens)!r}; choose another example")
    shown = min(len(tokens), max_tokens)
    cut = shown < len(tokens)
    n_cols = shown + (1 if cut else 0)
    fig, ax = plt.subplots(figsize=(2.0 + 0.78 * n_cols, 4.4), layout="constrained")
    box = dict(boxstyle="round,pad=0.3", linewidth=0.8)
    cells = [tokens[:shown], [f"E_{t}" for t in tokens[:shown]],
             [f"E_{'AB'[s]}" for s in types[:shown]], [f"E_{t}" for t in range(shown)]]
    y = [4.2, 3.0, 2.0, 1.0]
    for col in range(shown):
        x = col + 0.5
        ax.text(x, y[0], cells[0][col], ha="center", va="center", fontsize=10, family="monospace",
                bbox=dict(box, facecolor="white"))
        for r, (_, colour) in enumerate(ROWS):
            ax.text(x, y[r + 1], cells[r + 1][col], ha="center", va="center", fontsize=8.5,
                    bbox=dict(box, facecolor=colour))
        for between in (2.5, 1.5):
            ax.text(x, between, "+", ha="center", va="center", fontsize=10)
        ax.annotate("", xy=(x, 0.05), xytext=(x, 0.62), arrowprops=dict(arrowstyle="->", lw=0.8))
    if cut:
        for r in range(4):
            ax.text(shown + 0.5, y[r], "…", ha="center", va="center", fontsize=12)
    labels = [("input", "white")] + ROWS
    for (label, colour), yy in zip(labels, y):
        ax.text(-0.15, yy, label, ha="right", va="center", fontsize=9)
    ax.text(n_cols / 2, -0.3, "sum at each position, then LayerNorm and dropout: the first layer's input (B, T, H)",
            ha="center", va="center", fontsize=9)
    ax.set_xlim(-2.2, n_cols + 0.1)
    ax.set_ylim(-0.6, 4.7)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return fig
