"""Chapter 10's pictures: a token's FLOPs split into parts that add up to the engine's count, the cost
bars, the padded grid beside its packed row (in unpad_input's order), micro-batches of equal tokens,
and two phases of a run placed end to end."""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from helpers import small_config  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from minibert import BertConfig, viz  # noqa: E402
from minibert.model import unpad_input  # noqa: E402
from minibert.pretrain import flops_per_token  # noqa: E402
from minibert.pretrain.metrics import flops_parts  # noqa: E402


@pytest.mark.parametrize("config, T, f", [(BertConfig.from_preset("base"), 128, 0.15),
                                          (BertConfig.from_preset("large"), 512, 80 / 512),
                                          (small_config(), 40, 0.3)])
def test_flops_parts_add_up_to_the_engines_count(config, T, f):
    parts = flops_parts(config, T, f)
    assert list(parts) == list(viz.PART_COLOURS)
    assert math.isclose(sum(parts.values()), flops_per_token(config, T, f), rel_tol=1e-12)
    # attention's term is the only one that grows with T, the MLM head's the only one with f
    longer, more = flops_parts(config, 2 * T, f), flops_parts(config, T, 2 * f)
    assert longer["attention (grows with T)"] == 2 * parts["attention (grows with T)"]
    assert longer["feed-forward"] == parts["feed-forward"] and more["MLM head (predicted positions)"] == pytest.approx(
        2 * parts["MLM head (predicted positions)"])


def test_flops_figure_stacks_one_bar_per_case():
    base = BertConfig.from_preset("base")
    ax = viz.flops_figure(base, [("128", 128, 0.15), ("512", 512, 0.15)])
    bars = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(bars) == 2 * len(viz.PART_COLOURS)
    right = max(b.get_x() + b.get_width() for b in bars)
    assert right == pytest.approx(flops_per_token(base, 512, 0.15) / 1e6)
    assert ax.get_legend() is not None
    assert viz.flops_figure(base, [("128", 128, 0.15)], legend=False).get_legend() is None
    plt.close("all")


def test_cost_figure_draws_every_device_and_run_on_a_log_axis():
    days = pd.DataFrame({"BERT-BASE": [1.3, 0.09], "BERT-LARGE": [4.5, 0.3]}, index=["8 x T4", "8 x H100"])
    ax = viz.cost_figure(days, reference={"the paper": 4.0})
    widths = sorted(round(p.get_width(), 2) for p in ax.patches)
    assert widths == [0.09, 0.3, 1.3, 4.5] and ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["8 x T4", "8 x H100"]
    assert any("the paper" in t.get_text() for t in ax.get_legend().get_texts())
    plt.close("all")


def test_padding_figure_packs_the_real_tokens_as_unpad_input_does():
    mask = torch.tensor([[0, 1, 1, 0], [1, 1, 1, 1], [1, 0, 0, 0]])  # left padding and a hole too
    fig = viz.padding_figure(mask)
    ax = fig.axes[0]
    grid = torch.arange(12).view(3, 4)
    packed, _ = unpad_input(grid, mask)
    texts = [t.get_text() for t in ax.texts]
    # the grid's 12 cells, then the packed row, whose cells are the flat indices in unpad_input's order
    assert texts[:12].count("PAD") == 5 and texts[12:12 + len(packed)] == [str(i) for i in packed.tolist()]
    assert "5 of them [PAD] (42%)" in ax.get_title()
    assert len([p for p in ax.patches if isinstance(p, Rectangle)]) == 12 + len(packed)
    plt.close("all")


def test_micro_batch_figure_draws_each_pass_to_scale():
    ax = viz.micro_batch_figure([("phase 1", 128, 256, 1), ("phase 2", 512, 64, 4)])
    rects = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(rects) == 5
    assert {round(r.get_width() * r.get_height()) for r in rects} == {32_768}  # equal areas, equal tokens
    assert ax.get_aspect() == 1.0
    plt.close("all")


def _log(seq_len, tokens, losses):
    return ([{"kind": "run", "step": 0, "tokens": 0, "ln_vocab": 10.0, "config": {"max_seq_length": seq_len}}]
            + [{"kind": "eval", "step": i, "tokens": t, "mlm_loss": loss, "mlm_accuracy": 0.1}
               for i, (t, loss) in enumerate(zip(tokens, losses, strict=True))])


def test_phases_figure_puts_phase_two_after_phase_one():
    one, two = _log(64, [0, 1e6, 2e6], [10.0, 8.0, 7.5]), _log(128, [0, 1e6], [7.4, 7.0])
    fig = viz.phases_figure(one, two)
    loss_axis = fig.axes[0]
    lines = {line.get_label(): line for line in loss_axis.get_lines()}
    assert list(lines["phase 2 (128 tokens)"].get_xdata()) == [2.0, 3.0]  # millions of tokens, after phase 1's 2M
    assert list(lines["phase 1 (64 tokens)"].get_ydata()) == [10.0, 8.0, 7.5]
    assert loss_axis.get_title() == "held-out MLM loss" and fig.axes[1].get_title() == "held-out masked-token accuracy"
    plt.close("all")
