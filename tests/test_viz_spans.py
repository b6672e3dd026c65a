"""Chapter 08's pictures draw, grey out what they should, and refuse inputs that do not line up."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from minibert import viz  # noqa: E402


def test_tagging_alignment_needs_one_label_per_token():
    ax = viz.tagging_alignment(["Ishmael", "sailed"], [["is", "##hma", "##el"], ["sailed"]],
                               [-100, "B-NAME", -100, -100, "O", -100])
    assert [t.get_text() for t in ax.texts].count("-100") == 4
    with pytest.raises(ValueError, match="5 labels for 6 tokens"):
        viz.tagging_alignment(["Ishmael", "sailed"], [["is", "##hma", "##el"], ["sailed"]], [-100] * 5)
    plt.close("all")


def test_span_matrix_writes_a_score_in_every_allowed_cell_only():
    T = 5
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    allowed = (j >= i) & (j - i < 2) & (i > 0) & (j > 0)
    ax = viz.span_matrix(np.arange(T * T, dtype=float).reshape(T, T), list("abcde"), allowed, best=(1, 2))
    assert len(ax.texts) == allowed.sum()
    plt.close("all")


def test_the_other_pictures_draw():
    viz.windows_figure(100, [(0, 40), (24, 64), (48, 88), (72, 100)], answer=(50, 51), doc_stride=24)
    viz.threshold_curve([-1, 0, 1], [10, 20, 30], [12, 22, 30], chosen=0.0)
    viz.choices_reshape(B=2, C=3)
    viz.results_bars(pd.DataFrame([{"task": "pos", "metric": "tag_accuracy", "pretrained_mean": 95.0,
                                    "pretrained_sd": 0.2, "random_mean": 80.0, "random_sd": 1.0}]))
    plt.close("all")
