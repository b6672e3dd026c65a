"""Chapter 00's history: five steps from word vectors to BERT, as the paper's §2 (Related Work) tells
it. Two ways of reusing what was learned from unlabelled text: as features for a task's own model
(feature-based), or as the task's model itself, fine-tuned (fine-tuning).
"""

from __future__ import annotations

import textwrap
from typing import NamedTuple


class Step(NamedTuple):
    name: str
    when: str          # first public version
    cite: str
    reused: str        # what a task takes from pre-training
    reads: str         # what a word's vector depends on
    approach: str      # "feature-based" or "fine-tuning" (the paper's two strategies, §1)


LINEAGE = (
    Step("word2vec", "2013", "Mikolov et al. 2013", "a table: one vector per word", "nothing: the same vector "
         "in every sentence", "feature-based"),
    Step("ULMFiT", "Jan 2018", "Howard and Ruder 2018", "a whole LSTM language model, fine-tuned",
         "the words to its left (a backward twin may be averaged in)", "fine-tuning"),
    Step("ELMo", "Feb 2018", "Peters et al. 2018", "vectors from two LSTM language models, as features",
         "left and right, in separate models", "feature-based"),
    Step("OpenAI GPT", "Jun 2018", "Radford et al. 2018", "a whole Transformer, fine-tuned",
         "the words to its left", "fine-tuning"),
    Step("BERT", "Oct 2018", "Devlin et al. 2018", "a whole Transformer, fine-tuned",
         "both sides, in every layer", "fine-tuning"),
)
APPROACH_COLOURS = {"feature-based": "#d6e4f0", "fine-tuning": "#fde2c8"}


def lineage_figure(steps=LINEAGE):
    """The steps left to right in time, each a box: name and date, what a task reuses, what a word's
    vector reads; coloured by the paper's two strategies."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch, Patch

    fig, ax = plt.subplots(figsize=(9.5, 3.4), layout="constrained")
    width, gap = 1.7, 0.25
    for i, step in enumerate(steps):
        x = i * (width + gap)
        bold = step.name == "BERT"
        ax.add_patch(FancyBboxPatch((x, 0), width, 2.6, boxstyle="round,pad=0.04", fc=APPROACH_COLOURS[step.approach],
                                    ec="0.2" if bold else "0.55", lw=2 if bold else 1))
        ax.text(x + width / 2, 2.35, step.name, ha="center", va="center", fontsize=11, weight="bold")
        ax.text(x + width / 2, 1.95, f"{step.when}\n{step.cite}", ha="center", va="center", fontsize=7, color="0.3")
        ax.text(x + width / 2, 1.25, "reuses:\n" + _wrap(step.reused), ha="center", va="center", fontsize=7.5)
        ax.text(x + width / 2, 0.45, "a word reads:\n" + _wrap(step.reads), ha="center", va="center", fontsize=7.5)
        if i:
            ax.annotate("", xy=(x - 0.02, 1.3), xytext=(x - gap + 0.02, 1.3),
                        arrowprops=dict(arrowstyle="-|>", color="0.4"))
    ax.legend(handles=[Patch(fc=c, ec="0.55", label=name) for name, c in APPROACH_COLOURS.items()],
              loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=2, frameon=False, fontsize=8.5)
    ax.set_xlim(-0.1, len(steps) * (width + gap) - gap + 0.1)
    ax.set_ylim(-0.1, 2.75)
    ax.set_title("from word vectors to BERT: reusing what unlabelled text teaches (the paper's §1, §2)", fontsize=11)
    ax.axis("off")
    return fig


def _wrap(text: str, width: int = 24) -> str:
    return "\n".join(textwrap.wrap(text, width))
