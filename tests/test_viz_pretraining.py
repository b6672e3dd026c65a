"""Chapter 05's pictures draw what they are given: the schedule from bert_schedule, a run's two losses
against their baselines, loss bars with perplexities, and a model's top guesses behind [MASK]."""

import math

import matplotlib
import pytest
import torch

import minibert
from minibert import viz
from minibert.pretrain import bert_schedule, reference_curve

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def test_schedule_figure_draws_bert_and_the_decay_after_warm_up():
    ax = viz.schedule_figure(1e-3, 10, 100)
    bert, after = ax.lines[1], ax.lines[0]  # drawn: transformers' first, BERT's over it
    assert list(bert.get_ydata()) == pytest.approx([1e-3 * bert_schedule(s, 10, 100) for s in range(101)])
    assert bert.get_ydata()[10] == pytest.approx(0.9e-3) and after.get_ydata()[10] == pytest.approx(1e-3)
    assert after.get_ydata()[100] == 0 and "warm-up ends (step 10)" in [t.get_text() for t in ax.texts]
    plt.close(ax.figure)


def test_losses_figure_reads_mlm_and_nsp_apart_with_their_baselines():
    records = reference_curve("tiny")
    fig = viz.losses_figure(records, title="tiny")
    mlm, nsp = fig.axes
    train = [r for r in records if r["kind"] == "train"]
    assert list(mlm.lines[0].get_ydata()) == [r["mlm_loss"] for r in train]
    assert list(nsp.lines[0].get_ydata()) == [r["nsp_loss"] for r in train]
    levels = [line.get_ydata()[0] for line in mlm.lines[1:]]
    assert levels == pytest.approx([records[0]["ln_vocab"], records[0]["unigram_entropy"]])
    assert nsp.lines[1].get_ydata()[0] == pytest.approx(math.log(2))
    assert nsp.get_ylim()[0] == 0 and nsp.get_ylim()[1] >= 1.0  # from a perfect guess to above the coin
    plt.close(fig)


def test_baselines_figure_gives_each_loss_its_perplexity():
    ax = viz.baselines_figure({"uniform": math.log(8192), "model": 2.0})
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["9.01  (perplexity 8,192)", "2.00  (perplexity 7)"]
    assert [b.get_width() for b in ax.patches] == pytest.approx([math.log(8192), 2.0])
    plt.close(ax.figure)


def test_floors_figure_draws_each_curve_over_its_floors():
    ax = viz.floors_figure({"run": [(0, 0.0), (5, 0.2)], "longer": [(0, 0.0), (40, 0.32)]},
                           {"unigram": 0.062, "both neighbours": 0.258})
    assert [line.get_label() for line in ax.get_legend().get_lines()] == ["run", "longer"]
    assert [ln.get_ydata()[0] for ln in ax.lines[2:]] == pytest.approx([6.2, 25.8])  # percent, dashed floors
    assert [t.get_text() for t in ax.texts] == ["unigram 6.2%", "both neighbours 25.8%"]
    assert ax.lines[1].get_ydata().tolist() == pytest.approx([0.0, 32.0])
    plt.close(ax.figure)


def test_fill_mask_table_lists_the_top_guesses_in_order():
    torch.manual_seed(0)
    tok = minibert.Tokenizer.from_pretrained("models/course")
    model = minibert.BertForPreTraining.from_pretrained("models/course")
    table = viz.fill_mask_table(model, tok, ["[MASK] am going home.", "Where are you going[MASK]"], k=3)
    assert list(table.columns) == [1, 2, 3] and len(table) == 2
    probs = table.map(lambda cell: float(cell.rsplit(" ", 1)[1]))
    assert (probs.diff(axis=1).iloc[:, 1:] <= 0).all().all()
    batch = tok("[MASK] am going home.", return_tensors="pt")
    with torch.no_grad():
        best = model(**batch).mlm_logits[0, 1].argmax().item()
    assert table.iloc[0, 0].rsplit(" ", 1)[0] == tok.convert_ids_to_tokens([best])[0]
    with pytest.raises(ValueError, match="no \\[MASK\\]"):
        viz.fill_mask_table(model, tok, ["no blank here."])
