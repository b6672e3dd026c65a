"""Chapter 08's pictures: tokens, spans and choices (the paper's Figure 4c, 4d and §4.4).

- `tagging_alignment`: a sentence's words, their word pieces, and the label each piece is trained on
  (the word's tag on its first piece, -100 greyed on the rest)
- `span_matrix`: the scores S·T_i + E·T_j of every span (i, j), the forbidden ones greyed (j < i,
  longer than the limit, outside the passage), the best span framed
- `windows_figure`: a long context cut into overlapping windows doc_stride tokens apart, the answer marked
- `threshold_curve`: exact match and F1 as the no-answer threshold τ moves
- `choices_reshape`: multiple choice's (B, C, T) -> (B·C, T) -> one score each -> (B, C) -> softmax over C
- `results_bars`: each task's stored score from pre-trained and from random weights, mean ± sd
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import FancyArrowPatch, Rectangle

IGNORED = "#d9d9d9"  # -100, a forbidden span: what the loss or the search never looks at
LABELLED = "#fdd49e"
PIECE = "#c6dbef"


def _box(ax, x, y, w, h, text, colour, fontsize=9, weight="normal"):
    ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, edgecolor="black", linewidth=0.8))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fontsize, weight=weight)


def tagging_alignment(words, pieces, labels, title="", ax=None):
    """words (W,); pieces: one list of piece strings per word; labels: one per token of
    [CLS] pieces... [SEP] (names, or -100), as the tagging feature holds them."""
    tokens = ["[CLS]", *[p for word in pieces for p in word], "[SEP]"]
    if len(labels) != len(tokens):
        raise ValueError(f"{len(labels)} labels for {len(tokens)} tokens")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(6.0, 0.95 * len(tokens)), 2.3), layout="constrained")
    x = 1
    for word, word_pieces in zip(words, pieces):  # a word spans its pieces
        _box(ax, x, 2, len(word_pieces), 0.8, word, "white", weight="bold")
        x += len(word_pieces)
    for t, (token, label) in enumerate(zip(tokens, labels)):
        _box(ax, t, 1, 1, 0.8, token, PIECE)
        ignored = label == -100 or label == "-100"
        _box(ax, t, 0, 1, 0.8, "-100" if ignored else str(label), IGNORED if ignored else LABELLED)
    for y, name in ((2.4, "words"), (1.4, "pieces"), (0.4, "labels")):
        ax.text(-0.15, y, name, ha="right", va="center", fontsize=9, style="italic")
    ax.set_xlim(-1.3, len(tokens) + 0.1)
    ax.set_ylim(-0.1, 2.9)
    ax.axis("off")
    ax.set_title(title or "the word's label on its first piece; -100 (grey) is skipped by the loss", fontsize=10)
    return ax


def span_matrix(scores, tokens, allowed, best=None, title="", ax=None):
    """scores (T, T): S·T_i + E·T_j, rows i (start), columns j (end); allowed (T, T) bool; best (i, j)."""
    scores, allowed = np.asarray(scores, dtype=float), np.asarray(allowed, dtype=bool)
    T = len(tokens)
    if ax is None:
        _, ax = plt.subplots(figsize=(0.55 * T + 2.2, 0.5 * T + 1.2), layout="constrained")
    ax.imshow(np.where(allowed, np.nan, 1.0), cmap=ListedColormap([IGNORED]))  # the forbidden spans, grey
    image = ax.imshow(np.where(allowed, scores, np.nan), cmap="viridis")
    for i in range(T):
        for j in range(T):
            if allowed[i, j]:
                ax.text(j, i, f"{scores[i, j]:.1f}", ha="center", va="center", fontsize=7, color="white")
    if best is not None:
        ax.add_patch(Rectangle((best[1] - 0.5, best[0] - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2.5))
    ax.set_xticks(range(T), tokens, rotation=90, fontsize=8)
    ax.set_yticks(range(T), tokens, fontsize=8)
    ax.set_xlabel("end j")
    ax.set_ylabel("start i")
    plt.colorbar(image, ax=ax, shrink=0.8, label="S·T_i + E·T_j")
    ax.set_title(title or "span scores; grey: j < i, too long, or outside the passage", fontsize=10)
    return ax


def windows_figure(n_tokens, windows, answer=None, doc_stride=None, title="", ax=None):
    """windows: (first, last) context-token ranges, last exclusive; answer: (first, last) inclusive."""
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 0.45 * len(windows) + 1.4), layout="constrained")
    for k, (a, b) in enumerate(windows):
        ax.barh(k, b - a, left=a, height=0.6, color=PIECE, edgecolor="black")
        ax.text(a + 0.5, k, f"window {k}: tokens {a}–{b - 1}", va="center", fontsize=8)
    if answer is not None:
        ax.axvspan(answer[0], answer[1] + 1, color="tab:red", alpha=0.35, label="the answer")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_xlim(0, n_tokens)
    ax.set_ylim(len(windows) - 0.4, -0.6)
    ax.set_yticks([])
    ax.set_xlabel("token of the context")
    stride = f", doc_stride = {doc_stride}" if doc_stride else ""
    ax.set_title(title or f"a context of {n_tokens} tokens in {len(windows)} windows{stride}", fontsize=10)
    return ax


def threshold_curve(taus, exact, f1, chosen=None, title="", ax=None):
    """Exact match and F1 (%) at each threshold τ; `chosen`: the τ picked on dev, drawn as a line."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
    ax.plot(taus, exact, label="exact match", color="tab:blue")
    ax.plot(taus, f1, label="F1", color="tab:orange")
    if chosen is not None:
        ax.axvline(chosen, color="black", linestyle="--", linewidth=1, label=f"τ chosen on dev = {chosen:.2f}")
    ax.set_xlabel("τ: predict a span only if its score > s_null + τ")
    ax.set_ylabel("score (%)")
    ax.legend(fontsize=8)
    ax.set_title(title or "SQuAD 2.0's no-answer threshold", fontsize=10)
    return ax


def choices_reshape(B=2, C=4, title="", ax=None):
    """(B, C, T) -> (B·C, T) -> the encoder, V·C_[CLS] -> (B·C,) -> (B, C) -> softmax over C, drawn."""
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 0.5 * B * C + 1.6), layout="constrained")
    colours = plt.get_cmap("tab10")
    top = B * C
    for b in range(B):  # left: B questions, C rows each
        for c in range(C):
            y = top - (b * C + c) - 1
            _box(ax, 0, y, 2.6, 0.8, f"q{b}: [CLS] ctx [SEP] end{c}", colours(b), fontsize=7)
            _box(ax, 4, y, 1.2, 0.8, f"row {b * C + c}", colours(b), fontsize=7)
            _box(ax, 6.6, y, 1.2, 0.8, f"V·C = s{b}{c}", "white", fontsize=7)
        for c in range(C):  # right: (B, C) scores, one row per question
            _box(ax, 9 + 1.1 * c, top - 1 - b * 1.2, 1.0, 0.8, f"s{b}{c}", colours(b), fontsize=7)
        ax.text(9 + 1.1 * C + 0.2, top - 0.6 - b * 1.2, "softmax →", va="center", fontsize=8)
    arrows = [((2.7, top / 2), (3.9, top / 2), "reshape\n(B·C, T)"), ((5.3, top / 2), (6.5, top / 2), "encoder"),
              ((7.9, top / 2), (8.9, top - 1), "view\n(B, C)")]
    for start, end, text in arrows:
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="->", mutation_scale=12))
        ax.text((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + 0.3, text, ha="center", fontsize=7)
    ax.set_xlim(-0.2, 9 + 1.1 * C + 1.6)
    ax.set_ylim(-0.3, top + 0.3)
    ax.axis("off")
    ax.set_title(title or f"multiple choice: (B, C, T) = ({B}, {C}, T) through one scorer; softmax over each "
                          "question's C choices", fontsize=10)
    return ax


def results_bars(table, title="", ax=None):
    """table: rows with task, metric, pretrained_mean, pretrained_sd, random_mean, random_sd (in %)."""
    rows = list(table.to_dict("records")) if hasattr(table, "to_dict") else list(table)
    if ax is None:
        _, ax = plt.subplots(figsize=(1.8 * len(rows) + 2, 3.8), layout="constrained")
    x = np.arange(len(rows))
    for k, (init, colour) in enumerate((("pretrained", "tab:blue"), ("random", "tab:gray"))):
        means = [r[f"{init}_mean"] for r in rows]
        ax.bar(x + (k - 0.5) * 0.38, means, 0.38, yerr=[r[f"{init}_sd"] for r in rows], capsize=3,
               color=colour, label=f"{init} weights")
        for xi, m in zip(x, means):
            ax.text(xi + (k - 0.5) * 0.38, m + 1, f"{m:.1f}", ha="center", fontsize=7)
    ax.set_xticks(x, [f"{r['task']}\n{r['metric']}" for r in rows], fontsize=8)
    ax.set_ylabel("dev score (%), mean ± sd over seeds")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=8)
    ax.set_title(title or "all-MiniLM-L6-v2 fine-tuned: pre-trained against random weights", fontsize=10)
    return ax
