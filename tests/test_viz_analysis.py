"""minibert.viz.analysis draws (L, nh) grids, lines by layer and per-head scatters, and rejects bad shapes."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from minibert import viz  # noqa: E402


def test_head_grid_writes_every_value():
    ax = viz.head_grid(torch.rand(2, 3), title="t", label="share")
    assert len(ax.texts) == 6 and ax.get_xlabel() == "head"
    with pytest.raises(ValueError, match="layers, heads"):
        viz.head_grid(torch.rand(3), title="t", label="x")
    plt.close("all")


def test_layer_lines_and_scatter():
    fig = viz.layer_lines({"a": {"s": [0.1, 0.2]}, "b": {"s": [0.3, 0.1, 0.2]}}, ylabel="y", baselines={"base": 0.15})
    assert len(fig.axes) == 2
    ax = viz.head_scatter(torch.rand(2, 3), torch.rand(2, 3), xlabel="x", ylabel="y", title="t")
    assert len(ax.collections) == 2
    with pytest.raises(ValueError):
        viz.head_scatter(torch.rand(2, 3), torch.rand(3, 2), xlabel="x", ylabel="y", title="t")
    plt.close("all")
