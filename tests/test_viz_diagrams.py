"""minibert.viz.diagrams draws what it says: the masks are the models' contexts, the arrows of Figure 3
follow those masks, `reach` agrees with real gradients through minibert's encoder."""

import re

import matplotlib
import pytest
import torch
from matplotlib.colors import to_hex

import minibert
from minibert.viz import diagrams

matplotlib.use("Agg")
import matplotlib.pyplot as plt


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_context_masks_are_the_papers_contexts():
    n = 5
    bert, gpt = diagrams.context_mask("bert", n), diagrams.context_mask("gpt", n)
    fwd, bwd = diagrams.context_mask("elmo-forward", n), diagrams.context_mask("elmo-backward", n)
    assert bert.dtype == torch.bool and bert.shape == (n, n) and bert.all()
    assert torch.equal(gpt, torch.ones(n, n, dtype=torch.bool).tril())  # position i reads 0..i
    assert torch.equal(fwd, gpt) and torch.equal(bwd, gpt.T)  # ELMo: one triangle each way
    assert torch.equal(fwd & bwd, torch.eye(n, dtype=torch.bool))  # the two meet only at the token itself
    with pytest.raises(ValueError, match="unknown kind 'elmo'"):
        diagrams.context_mask("elmo", n)


def test_reach_composes_layers():
    n = 6
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    hide = j != i + 1  # every position but the next one
    assert torch.equal(diagrams.reach(hide, 0), torch.eye(n, dtype=torch.bool))
    assert torch.equal(diagrams.reach(hide, 1), hide | torch.eye(n, dtype=torch.bool))
    assert not diagrams.reach(hide, 1)[0, 1] and diagrams.reach(hide, 2).all()  # the second layer leaks
    gpt = diagrams.context_mask("gpt", n)
    assert torch.equal(diagrams.reach(gpt, 3), gpt)  # left-to-right stays left-to-right at any depth
    band = (i - j).abs() <= 1  # a window of one: the receptive field grows by one per layer
    assert torch.equal(diagrams.reach(band, 2), (i - j).abs() <= 2)


@pytest.mark.parametrize("layers", [1, 2])
def test_reach_equals_real_gradients(layers):
    n = 6
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    hide = j != i + 1
    torch.manual_seed(0)
    config = minibert.BertConfig(vocab_size=20, hidden_size=16, num_hidden_layers=layers, num_attention_heads=2,
                                 intermediate_size=32, max_position_embeddings=n)
    model = minibert.BertModel(config, add_pooling_layer=False).eval()
    x = torch.randn(1, n, 16, requires_grad=True)
    h, _, _ = model.encoder(x, hide[None, None])  # (1, n, 16)
    w = torch.randn(16)  # a random read-out: LayerNorm's output sums to a constant, so .sum() has no gradient
    seen = torch.stack([torch.autograd.grad(h[0, q] @ w, x, retain_graph=True)[0][0].abs().sum(-1) > 0
                        for q in range(n)])
    assert torch.equal(seen, diagrams.reach(hide, layers))


def test_mask_panels_show_the_matrices():
    n = 4
    matrices = {"a": diagrams.context_mask("gpt", n).int(), "b": 3 * diagrams.context_mask("bert", n).int()}
    marks = torch.eye(n, dtype=torch.bool)
    fig = diagrams.mask_panels(matrices, legend={1: "left", 3: "both"}, marks=marks, tokens=list("wxyz"))
    axes = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in axes] == ["a", "b"]
    for ax, m in zip(axes, matrices.values()):
        assert torch.equal(torch.as_tensor(ax.images[0].get_array()), m)
        assert [t.get_text() for t in ax.get_xticklabels()] == list("wxyz")
        xs, ys = ax.lines[0].get_data()
        assert list(xs) == list(ys) == list(range(n))  # a cross on each marked cell
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["left", "both", "where the word to predict sits"]


def test_context_masks_figure():
    n = 5
    fig = diagrams.context_masks_figure(n)
    images = [torch.as_tensor(ax.images[0].get_array()) for ax in fig.axes if ax.images]
    assert len(images) == 3
    assert torch.equal(images[0], diagrams.context_mask("gpt", n).int())
    fwd, bwd = diagrams.context_mask("elmo-forward", n).int(), diagrams.context_mask("elmo-backward", n).int()
    assert torch.equal(images[1], fwd + 2 * bwd)
    assert (images[2] == 3).all()  # BERT: both sides, in one model


def _edges(ax):
    edges = {}
    for patch in ax.patches:
        m = re.fullmatch(r"([\w-]+):(\d):(\d+)>(\d+)", patch.get_gid() or "")
        if m:
            edges.setdefault((m[1], int(m[2])), set()).add((int(m[3]), int(m[4])))
    return edges


def test_figure3_arrows_follow_the_masks():
    n = 4
    fig = diagrams.architectures_figure(n)
    bert, gpt, elmo = (_edges(ax) for ax in fig.axes)
    for edges, kind in ((bert, "bert"), (gpt, "gpt")):
        allowed = {(j, i) for i, j in diagrams.context_mask(kind, n).nonzero().tolist()}
        assert edges[(kind, 1)] == edges[(kind, 2)] == allowed  # input j feeds position i
        assert edges[(kind, 3)] == {(i, i) for i in range(n)}
    assert len(bert[("bert", 1)]) == n * n and len(gpt[("gpt", 1)]) == n * (n + 1) // 2
    for layer in (1, 2):
        assert {(a, b) for a, b in elmo[("elmo-f", layer)] if a != b} == {(i, i + 1) for i in range(n - 1)}
        assert {(a, b) for a, b in elmo[("elmo-b", layer)] if a != b} == {(i + 1, i) for i in range(n - 1)}
    assert set(elmo) == {(d, layer) for d in ("elmo-f", "elmo-b") for layer in (1, 2, 3)}  # joined only at the top
    assert [ax.get_title() for ax in fig.axes] == ["BERT", "OpenAI GPT", "ELMo"]


def test_figure1_pretraining_and_finetuning():
    fig = diagrams.pretrain_finetune_figure()
    texts = _texts(fig)
    for label in ("NSP: IsNext", "Mask LM: cute", "Start", "End", "C", "$E_{[CLS]}$", "$T'_{4}$"):
        assert label in texts, label
    assert texts.count("BERT") == 2 and texts.count("[CLS]") == 2 and texts.count("[MASK]") == 1
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == ["Pre-training", "Fine-tuning (SQuAD)"]


def test_nsp_figure_colours_segments():
    fig = diagrams.nsp_figure()
    ax = fig.axes[0]
    texts = _texts(fig)
    assert "Label = IsNext" in texts and "Label = NotNext" in texts
    boxes = {t.get_text(): to_hex(t.get_bbox_patch().get_facecolor()) for t in ax.texts if t.get_bbox_patch()}
    assert boxes["penguin"] == diagrams.SEGMENT_COLOURS["B"] and boxes["store"] == diagrams.SEGMENT_COLOURS["A"]
    assert boxes["[MASK]"] == diagrams.SEGMENT_COLOURS["mask"]
    assert boxes["[SEP]"] == diagrams.SEGMENT_COLOURS["special"]
    first = diagrams.PAPER_NSP_EXAMPLES[0][0].split()
    types = [t.get_text() for t in ax.texts if t.get_text() in ("0", "1")][:len(first)]
    assert types == ["0"] * (first.index("[SEP]") + 1) + ["1"] * (len(first) - first.index("[SEP]") - 1)


def test_token_row_and_segment_colours():
    _, ax = plt.subplots()
    centres = diagrams.token_row(ax, ["[CLS]", "hello", "[SEP]"], 0, below=["0", "0", "0"])
    assert len(centres) == 3 and centres == sorted(centres)
    assert diagrams.segment_colours(["[CLS]", "a", "[MASK]", "[SEP]", "b"], [0, 0, 0, 0, 1]) == [
        diagrams.SEGMENT_COLOURS[k] for k in ("special", "A", "mask", "special", "B")]
    with pytest.raises(ValueError, match="3 tokens but 2 token types"):
        diagrams.segment_colours(["a", "b", "c"], [0, 0])


def test_similarity_heatmap():
    sim = torch.tensor([[1.0, 0.2, 0.7], [0.2, 1.0, -0.1], [0.7, -0.1, 1.0]])
    ax = diagrams.similarity_heatmap(sim, ["a", "b", "c"])
    assert torch.equal(torch.as_tensor(ax.images[0].get_array()), sim)
    assert [t.get_text() for t in ax.texts][:3] == ["1.00", "0.20", "0.70"]  # row by row
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    assert ax.figure.axes[-1].get_ylabel() == "cosine similarity"  # the colour bar
    with pytest.raises(ValueError, match="n labels"):
        diagrams.similarity_heatmap(sim, ["a", "b"])


def test_the_lineage_is_in_time_order_and_only_bert_reads_both_sides_in_every_layer():
    from minibert.viz import history

    months = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())}
    when = [(int(s.when.split()[-1]), months.get(s.when.split()[0], -1)) for s in history.LINEAGE]
    assert when == sorted(when) and history.LINEAGE[-1].name == "BERT"
    assert [s.name for s in history.LINEAGE if "both sides" in s.reads] == ["BERT"]
    assert {s.approach for s in history.LINEAGE} == set(history.APPROACH_COLOURS)  # the paper's two strategies
    fig = history.lineage_figure()
    ax = fig.axes[0]
    names = [t.get_text() for t in ax.texts if t.get_text() in {s.name for s in history.LINEAGE}]
    assert names == [s.name for s in history.LINEAGE]
    boxes = [p for p in ax.patches if p.get_width() > 1]  # one box per step, in the order drawn
    assert [to_hex(b.get_facecolor()) for b in boxes] == [history.APPROACH_COLOURS[s.approach] for s in history.LINEAGE]
    assert max(boxes, key=lambda b: b.get_linewidth()) is boxes[-1]  # BERT's box is the bold one
    assert fig.get_size_inches()[0] * fig.dpi <= 1000  # fits a notebook's width
