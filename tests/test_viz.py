"""minibert.viz draws what it is given, and minibert.attention_view works without a network."""

import re
import shutil
import subprocess
import warnings

import matplotlib
import pytest
import torch

import minibert
from minibert import attention_view, viz
from minibert.masking import mask_tokens
from minibert.viz.attention import COLOUR_LABEL, MAX_WIDTH
from minibert.viz.fonts import missing_glyphs

matplotlib.use("Agg")
import matplotlib.pyplot as plt


@pytest.fixture(scope="module")
def real_attention():
    """The real MiniLM weights on a sentence pair: 6 layers of (1, 12, T, T) probabilities."""
    tokenizer = minibert.Tokenizer.from_pretrained(minibert.minilm_path())
    enc = tokenizer("The cat sat on the mat.", "It was happy there.", return_tensors="pt")
    model = minibert.BertModel.from_pretrained(minibert.minilm_path()).eval()
    with torch.no_grad():
        out = model(enc["input_ids"], enc["token_type_ids"], enc["attention_mask"], output_attentions=True)
    tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"][0].tolist())
    return out.attentions, tokens, enc["token_type_ids"][0].tolist().index(1)


def test_heatmap_shows_the_probabilities(real_attention):
    attentions, tokens, _ = real_attention
    ax = viz.attention_heatmap(attentions[2][0, 3], tokens)
    assert torch.equal(torch.as_tensor(ax.images[0].get_array()), attentions[2][0, 3])
    assert [t.get_text() for t in ax.get_xticklabels()] == tokens
    plt.close("all")


def test_heads_and_layers_grids(real_attention):
    attentions, tokens, _ = real_attention
    fig = viz.attention_heads(attentions[1][0], tokens, ncols=5)
    panels = [ax for ax in fig.axes if ax.images]
    # 5 columns of readable panels would pass MAX_WIDTH: 3 rows of 4, no blank, and one colour bar
    assert len(panels) == 12 and len(fig.axes) == 13 and fig.get_size_inches()[0] <= MAX_WIDTH
    assert torch.equal(torch.as_tensor(panels[7].images[0].get_array()), attentions[1][0, 7])
    fig = viz.attention_heads(attentions[1][0], tokens, heads=[3, 7], titles=["a", "b"])
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels] == ["a", "b"]
    assert torch.equal(torch.as_tensor(panels[1].images[0].get_array()), attentions[1][0, 7])
    fig = viz.attention_layers(attentions, tokens)
    means = [torch.as_tensor(ax.images[0].get_array()) for ax in fig.axes if ax.images]
    assert len(means) == 6
    assert torch.allclose(means[4], attentions[4][0].mean(0))
    plt.close("all")


def test_shape_mistakes_are_named(real_attention):
    attentions, tokens, _ = real_attention
    with pytest.raises(ValueError, match=r"attn\[b, head\]"):
        viz.attention_heatmap(attentions[0], tokens)
    with pytest.raises(ValueError, match="padding removed"):
        viz.attention_heatmap(attentions[0][0, 0], tokens[:-1])
    with pytest.raises(ValueError, match=r"attn\[b\]"):
        viz.attention_heads(attentions[0], tokens)


def test_masking_kinds_and_view():
    # [CLS] a b c d e [SEP]: b -> [MASK], c -> random, d kept (selected), e untouched.
    ids, mask_id = [101, 10, 11, 12, 13, 14, 102], 103
    seen = [101, 10, 103, 99, 13, 14, 102]
    labels = [-100, -100, 11, 12, 13, -100, -100]
    kinds = viz.masking_kinds(ids, seen, labels, mask_token_id=mask_id, special_tokens_mask=[1, 0, 0, 0, 0, 0, 1])
    assert kinds == ["special", "untouched", "mask", "random", "kept", "untouched", "special"]
    ax = viz.masking_view([str(i) for i in seen], kinds, originals=[str(i) for i in ids])
    boxes = [t for t in ax.texts if t.get_bbox_patch() is not None]
    assert len(boxes) == 7
    assert matplotlib.colors.to_hex(boxes[3].get_bbox_patch().get_facecolor()) == viz.MASKING_COLOURS["random"]
    assert [t.get_text() for t in ax.texts if t.get_bbox_patch() is None] == ["11", "12"]  # originals under replaced
    with pytest.raises(ValueError, match="unknown kinds"):
        viz.masking_view(["a"], ["masked"])
    plt.close("all")


def test_masking_kinds_agree_with_mask_tokens():
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(5, 1000, (4, 64), generator=g)
    special = torch.zeros_like(ids)
    masked, labels = mask_tokens(ids, special_tokens_mask=special, mask_token_id=4, vocab_size=1000, generator=g)
    kinds = [k for row in range(4) for k in viz.masking_kinds(ids[row].tolist(), masked[row].tolist(),
                                                               labels[row].tolist(), mask_token_id=4)]
    assert kinds.count("mask") == int((masked == 4).sum())
    assert kinds.count("untouched") == int((labels == -100).sum())
    assert kinds.count("random") == int(((labels != -100) & (masked != 4) & (masked != ids)).sum())


def test_against_theory():
    df = viz.against_theory({"a": 0.151, "b": 0.79}, {"a": 0.15, "b": 0.8}, name="rule", source="§3.1")
    assert df.loc["a", "difference"] == pytest.approx(0.001) and df.attrs["source"] == "§3.1"
    with pytest.raises(ValueError, match=r"\['b'\]"):
        viz.against_theory({"a": 1}, {"a": 1, "b": 2})


def test_bertviz_views_are_offline_and_stable(real_attention):
    attentions, tokens, b = real_attention
    for view in ("head_view", "model_view"):
        html = attention_view.view_html(view, attentions, tokens, layers=[0, 5], sentence_b_start=b)
        assert not re.search(r"cdnjs|unpkg|jsdelivr|<script[^>]+src=|require\.config", html)
        assert "d3js.org v5.7.0" in html and "jQuery v2.2.4" in html  # the libraries themselves
        assert html == attention_view.view_html(view, attentions, tokens, layers=[0, 5], sentence_b_start=b)
        assert '"Sentence A -> Sentence B"' in html
    other = attention_view.view_html("head_view", attentions, tokens, layers=[1])
    assert re.search(r'id="(bertviz-[^"]+)"', other)[1] != re.search(r'id="(bertviz-[^"]+)"', html)[1]
    shown = attention_view.head_view(attentions, tokens, layers=[0])
    assert shown._repr_html_() == attention_view.view_html("head_view", attentions, tokens, layers=[0])


def test_bertviz_script_parses(real_attention, tmp_path):
    """The assembled script (d3, jQuery, bertviz's code, the data) is valid JavaScript."""
    attentions, tokens, _ = real_attention
    html = attention_view.view_html("head_view", attentions, tokens, layers=[0])
    script = html.split('<script type="text/javascript">', 1)[1].rsplit("</script>", 1)[0]
    (tmp_path / "view.js").write_text(script)
    node = shutil.which("node")
    assert node, "node is needed by the set-up (npm) and by this test"
    subprocess.run([node, "--check", str(tmp_path / "view.js")], check=True)


def test_bertviz_bad_input(real_attention, monkeypatch, tmp_path):
    attentions, tokens, _ = real_attention
    with pytest.raises(ValueError, match="head_view"):
        attention_view.view_html("neuron_view", attentions, tokens)
    with pytest.raises(ValueError, match=r"T ≥ 60 tokens, got \(1, 12, 15, 15\)"):
        attention_view.view_html("head_view", attentions, tokens * 4)
    monkeypatch.setattr(attention_view, "CACHE", tmp_path)
    with pytest.raises(FileNotFoundError, match="make setup"):
        attention_view.view_html("head_view", attentions, tokens)


def test_masking_view_draws_any_script():
    """A random replacement can come from any script of the vocab; the font may have no glyph for it."""
    ax = viz.masking_view(["the", "わ", "cat"], ["untouched", "random", "kept"], originals=["the", "dog", "cat"])
    assert [t.get_text() for t in ax.texts][:2] == ["the", "U+308F"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph ... missing from font" would be raised here
        ax.figure.canvas.draw()
    plt.close("all")


# --- readable at the stored size: labels ≥ 8 pt, a colour bar, axis labels, no overlapping titles ---

def _has_colour_bar(fig):
    return any(getattr(ax, "_colorbar", None) is not None for ax in fig.axes)


def _tick_sizes(fig):
    return [t.get_fontsize() for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()
            if t.get_text()]


def _titles_apart(fig):
    """Every title and the suptitle, as drawn: no two bounding boxes overlap."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [ax.title for ax in fig.axes if ax.get_title()]
    if fig._suptitle is not None:
        texts.append(fig._suptitle)
    boxes = [t.get_window_extent(renderer) for t in texts]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not boxes[i].overlaps(boxes[j]), f"{texts[i].get_text()!r} overlaps {texts[j].get_text()!r}"
    return len(boxes)


@pytest.mark.parametrize("draw", ["heatmap", "heads", "heads_as_chapter_03_calls", "some_heads", "layers",
                                  "layers_one_head"])
def test_attention_figures_are_readable(real_attention, draw):
    attentions, tokens, _ = real_attention
    fig = {
        "heatmap": lambda: viz.attention_heatmap(attentions[2][0, 3], tokens, title="one head").figure,
        "heads": lambda: viz.attention_heads(attentions[0][0], tokens, title="layer 0, all heads"),
        "heads_as_chapter_03_calls": lambda: viz.attention_heads(attentions[0][0], tokens, ncols=6, size=1.8,
                                                                 title="layer 0"),
        "some_heads": lambda: viz.attention_heads(attentions[0][0], tokens, heads=[0, 2, 5], title="three"),
        "layers": lambda: viz.attention_layers(attentions, tokens, title="every layer"),
        "layers_one_head": lambda: viz.attention_layers(attentions, tokens, head=4),
    }[draw]()
    sizes = _tick_sizes(fig)
    assert sizes and min(sizes) >= 8, f"token labels of {min(sizes)} pt"
    assert _has_colour_bar(fig)
    assert any(ax.get_ylabel() == COLOUR_LABEL for ax in fig.axes)
    assert any(ax.get_xlabel() == "key (attended to)" for ax in fig.axes)
    assert any(ax.get_ylabel() == "query (attending)" for ax in fig.axes)
    assert fig.get_layout_engine() is not None  # constrained layout
    assert fig.get_size_inches()[0] <= MAX_WIDTH
    assert _titles_apart(fig) >= 1
    # the token labels fit their rows: label height ≤ row height, so neighbours do not overlap
    ax = next(ax for ax in fig.axes if ax.images and ax.get_yticklabels())
    rows = ax.get_window_extent().height / len(tokens)
    assert max(t.get_window_extent().height for t in ax.get_yticklabels()) <= rows * 1.05
    plt.close("all")


def test_a_grid_grows_for_long_sequences_and_long_titles():
    pair = torch.softmax(torch.randn(12, 23, 23, generator=torch.Generator().manual_seed(2)), -1)
    fig = viz.attention_heads(pair, [f"tok{i}" for i in range(23)])   # the chapter's pair: 23 tokens, 12 heads
    assert sum(1 for ax in fig.axes if ax.images) == 12 and fig.axes[2].images  # three panels to a row
    fig.canvas.draw()  # the constrained layout runs at draw time
    ax = fig.axes[0]
    assert ax.get_window_extent().height / 23 >= 8.5 * fig.dpi / 72
    probs = torch.softmax(torch.randn(4, 40, 40, generator=torch.Generator().manual_seed(0)), -1)
    tokens = [f"t{i}" for i in range(40)]
    fig = viz.attention_heads(probs, tokens, size=1.0)
    assert min(_tick_sizes(fig)) >= 8 and fig.get_size_inches()[0] <= MAX_WIDTH
    fig.canvas.draw()
    ax = next(ax for ax in fig.axes if ax.images)
    assert ax.get_window_extent().height / 40 >= 8.5 * fig.dpi / 72  # a row taller than an 8-pt label
    toy = torch.softmax(torch.randn(2, 5, 5, generator=torch.Generator().manual_seed(1)), -1)
    fig = viz.attention_heads(toy, list("abcde"), titles=["head 1: a rather long title for a small panel",
                                                          "head 2: another long title beside it"], annotate=True)
    assert _titles_apart(fig) == 2
    assert sum(1 for ax in fig.axes for t in ax.texts if t.get_text() == f"{toy[0, 0, 0]:.2f}") >= 1
    with pytest.raises(ValueError, match="3 titles for 2 heads"):
        viz.attention_heads(toy, list("abcde"), titles=["a", "b", "c"])
    plt.close("all")


def test_heatmaps_refuse_glyphs_the_font_lacks():
    assert missing_glyphs(["the", "わ", "cat", "é", "わ"]) == ["わ"]
    assert missing_glyphs(["[CLS]", "##ing", "naïve"]) == []
    with pytest.raises(ValueError, match="no glyph for \\['わ'\\]"):
        viz.attention_heatmap(torch.eye(2), ["a", "わ"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "Glyph ... missing from font" for the labels we accept
        viz.attention_heatmap(torch.eye(3), ["[CLS]", "naïve", "##ing"]).figure.canvas.draw()
    plt.close("all")


def test_soft_lookup_draws_scores_weights_and_the_answer():
    tokens = ["the", "cat", "sat", "on", "mat"]
    K = torch.tensor([[0., 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1]])   # (T, d)
    V = torch.tensor([[0., 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 1]])   # (T, d_v)
    q = torch.tensor([3., 0, -2])
    fig = viz.soft_lookup(tokens, q, K, V, query_name="q", features=["noun", "verb", "place"],
                          value_features=["animal", "action", "object"])
    keys, score_ax, weight_ax, values = [ax for ax in fig.axes if not getattr(ax, "_colorbar", None)]
    assert [p.get_width() for p in score_ax.patches] == pytest.approx((K @ q).tolist())
    weights = (K @ q).softmax(-1)
    assert [p.get_width() for p in weight_ax.patches] == pytest.approx(weights.tolist())
    answer = values.images[0].get_array()[-1]            # the last row: Σ weight × value
    assert torch.allclose(torch.as_tensor(answer), weights @ V)
    assert [t.get_text() for t in keys.get_yticklabels()] == tokens + ["q"]
    assert min(_tick_sizes(fig)) >= 8 and _has_colour_bar(fig) and _titles_apart(fig) == 4
    with pytest.raises(ValueError, match="cannot draw"):
        viz.soft_lookup(["わ"], [1.0], [[1.0]], [[1.0]])
    plt.close("all")


def test_input_representation_is_figure_2():
    tokens = ["[CLS]", "my", "dog", "[SEP]", "he", "likes", "play", "##ing", "[SEP]"]
    types = [0, 0, 0, 0, 1, 1, 1, 1, 1]
    fig = viz.input_representation(tokens, types, max_tokens=6)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts.count("+") == 2 * 6 and texts.count("…") == 4        # 6 columns shown, then an ellipsis
    assert "E_[CLS]" in texts and "E_5" in texts and "E_6" not in texts
    assert texts.count("E_A") == 4 and texts.count("E_B") == 2
    assert min(t.get_fontsize() for t in fig.axes[0].texts) >= 8
    with pytest.raises(ValueError, match="9 tokens but 8 token_type_ids"):
        viz.input_representation(tokens, types[:-1])
    plt.close("all")
