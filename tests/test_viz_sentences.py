"""Chapter 07's pictures: the grid's setting names are read back exactly, the grid table keeps every
setting once in A.3's order, and every figure draws from small inputs."""

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402

from minibert import viz  # noqa: E402
from minibert.finetune.sweep import summary  # noqa: E402


def test_parse_setting_reads_sweep_names():
    assert viz.parse_setting("batch_size=16,lr=5e-05,epochs=2") == {"batch_size": 16, "lr": 5e-05, "epochs": 2}
    for bad in ("run", "batch_size=16;lr=5e-05", ""):
        with pytest.raises(ValueError, match="not a grid setting"):
            viz.parse_setting(bad)


def _runs():
    runs = []
    for b in (16, 32):
        for lr in ("5e-05", "2e-05"):
            for e in (2, 3):
                for seed, score in enumerate((0.6 + 0.01 * e, 0.62 + 0.01 * e)):
                    runs.append({"setting": f"batch_size={b},lr={lr},epochs={e}", "seed": seed,
                                 "metrics": {"accuracy": score - (b == 32) * 0.05}})
    return runs


def test_grid_frame_one_row_per_setting_in_grid_order():
    frame = viz.grid_frame(summary(_runs(), "accuracy"))
    assert len(frame) == 8 and (frame["seeds"] == 2).all()
    assert list(frame[["batch_size", "lr", "epochs"]].itertuples(index=False, name=None))[:3] == [
        (16, 5e-05, 2), (16, 5e-05, 3), (16, 2e-05, 2)]
    row = frame.iloc[0]
    assert row["mean"] == pytest.approx(0.63) and row["min"] == pytest.approx(0.62) and row["max"] == pytest.approx(0.64)


def test_figures_draw():
    import matplotlib.pyplot as plt

    frame = viz.grid_frame(summary(_runs(), "accuracy"))
    viz.grid_heatmap(frame, mark=(16, 5e-05, 3))
    viz.seed_strip({"a": [0.7, 0.72], "b": [0.6]}, baseline=0.57)
    viz.dev_curves({"x": [[{"epoch": 1, "accuracy": 0.6}, {"epoch": 2, "accuracy": 0.7}]]}, baseline=0.5)
    viz.confusion_figure([[5, 1], [2, 7]], ["rotten", "fresh"])
    viz.pair_rows({"pair": (["[CLS]", "a", "[SEP]", "b", "[SEP]"], [0, 0, 0, 1, 1])})
    viz.cls_attention({"t": (["[CLS]", "a", "[SEP]"], [0.5, 0.3, 0.2])})
    viz.head_steps([[0.1, 0.2], [0.3, 0.4]], [0.1, -0.2], [0.5, -0.5], tokens=["[CLS]", "x"], labels=["r", "f"])
    plt.close("all")
