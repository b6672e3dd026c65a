"""minibert.viz.encoder draws chapter 03's worked examples and measures where attention goes."""

import matplotlib
import pytest
import torch

from minibert import viz

matplotlib.use("Agg")
import matplotlib.pyplot as plt

TOKENS = ["[CLS]", "the", "cat", ".", "[SEP]", "it", "sat", ".", "[SEP]"]
SEGMENTS = [0, 0, 0, 0, 0, 1, 1, 1, 1]


def test_vector_grids_show_the_values():
    x = torch.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]])
    fig = viz.vector_grids({"x": x, "2x": 2 * x}, ["A", "B"])
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 2 and torch.equal(torch.as_tensor(panels[1].images[0].get_array()), (2 * x).double())
    assert "-2.00" in [t.get_text() for t in panels[0].texts]
    with pytest.raises(ValueError, match="expected \\(T, D\\)"):
        viz.vector_grids({"x": x}, ["A"])
    plt.close("all")


def test_layer_diagrams_order_the_boxes():
    ax = viz.layer_diagram("post")
    labels = [t.get_text() for t in ax.texts if t.get_text() not in ("", "residual")]
    assert labels == ["x", "self-attention", "+", "LayerNorm", "feed-forward", "+", "LayerNorm", "output"]
    ax = viz.layer_diagram("pre")
    assert [t.get_text() for t in ax.texts if t.get_text()][:3] == ["x", "LayerNorm", "self-attention"]
    assert len(viz.layer_diagrams().axes) == 2
    with pytest.raises(ValueError, match="'post' or 'pre'"):
        viz.layer_diagram("sandwich")
    plt.close("all")


def test_gelu_curves_draw_the_difference():
    x = torch.linspace(-3, 3, 61)
    fig = viz.gelu_curves(x, x, x - 1)
    assert len(fig.axes) == 2 and torch.allclose(torch.as_tensor(fig.axes[1].lines[0].get_ydata()),
                                                 torch.ones(61, dtype=torch.float64))
    plt.close("all")


def test_attention_shares_sum_to_one_and_find_the_keys():
    T = len(TOKENS)
    probs = torch.zeros(2, 3, T, T)  # (L, nh, T, T)
    probs[0, :, :, 0] = 1.0  # layer 0: every query on [CLS]
    probs[1, :, :, 3] = 0.5  # layer 1: half on the first full stop, half on the second [SEP]
    probs[1, :, :, 8] = 0.5
    table = viz.attention_shares(probs, TOKENS, SEGMENTS, neighbours=True)
    assert list(table.index) == [0, 1] and table.index.name == "layer"
    assert table.loc[0, "[CLS]"] == 1.0 and table.loc[1, "punctuation"] == 0.5
    main = table.iloc[:, :6]
    assert torch.allclose(torch.tensor(main.sum(axis=1).values), torch.ones(2, dtype=torch.float64))
    assert table.loc[1, "[SEP]"] == 0.5
    previous = torch.zeros(1, 1, T, T)
    previous[0, 0, torch.arange(1, T), torch.arange(0, T - 1)] = 1.0  # every query but the first on q − 1
    previous[0, 0, 0, 0] = 1.0
    assert viz.attention_shares(previous, TOKENS, SEGMENTS, neighbours=True).loc[0, "previous token"] == \
        pytest.approx((T - 1) / T)
    heads = viz.attention_shares(probs[0], TOKENS, SEGMENTS)
    assert heads.index.name == "head" and len(heads) == 3
    with pytest.raises(ValueError, match="T = 9"):
        viz.attention_shares(probs[..., :-1, :-1], TOKENS, SEGMENTS)
