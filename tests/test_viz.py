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
    assert len(panels) == 12 and len(fig.axes) == 15  # 3 rows of 5, the last 3 blank
    assert torch.equal(torch.as_tensor(panels[7].images[0].get_array()), attentions[1][0, 7])
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
