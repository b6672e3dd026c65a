"""minibert.viz.wordpiece draws and tabulates what it is given (chapter 01's pictures and tables)."""

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from minibert.tokenizer import learn, reference
from minibert.viz import wordpiece as vw

TOY = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def test_token_kind():
    assert [vw.token_kind(t) for t in ["[UNK]", "[CLS]", "##s", "hug"]] == ["unk", "special", "piece", "word"]


def test_token_rows_draws_every_token_in_its_colour():
    ax = vw.token_rows({"a": ["the", "[UNK]"], "b": ["x", "##y"]}, {"b": ["type0", "type1"]}, title="t")
    boxes = {t.get_text(): t.get_bbox_patch() for t in ax.texts if t.get_bbox_patch() is not None}
    assert set(boxes) == {"the", "[UNK]", "x", "##y"}
    assert matplotlib.colors.to_hex(boxes["[UNK]"].get_facecolor()) == vw.TOKEN_COLOURS["unk"]
    assert matplotlib.colors.to_hex(boxes["##y"].get_facecolor()) == vw.TOKEN_COLOURS["type1"]
    with pytest.raises(ValueError, match="2 tokens but 1 kinds"):
        vw.token_rows({"a": ["x", "y"]}, {"a": ["word"]})
    plt.close("all")


def test_merges_figure_marks_the_new_piece():
    splits = learn.initial_splits(TOY)
    after = learn.merge_pair(("##g", "##s"), splits)
    fig = vw.merges_figure(TOY, [(None, splits), (("##g", "##s"), after)])
    new = [t for t in fig.axes[0].texts if t.get_text() == "##gs"]
    assert len(new) == 1 and matplotlib.colors.to_hex(new[0].get_bbox_patch().get_facecolor()) == vw.TOKEN_COLOURS["new"]
    assert "##g + ##s → ##gs" in [t.get_text() for t in fig.axes[0].texts]
    plt.close("all")


def test_greedy_trace_is_the_reference_search():
    vocab = {"u", "un", "una", "##f", "##ffa", "##ble", "##b"}
    trace = vw.greedy_trace("unaffable", vocab)
    taken = [(c, s, e) for s, e, c, found in trace if found]
    assert taken == [(p, s, e) for p, s, e in reference.wordpiece("unaffable", vocab)]
    assert trace[0] == (0, 9, "unaffable", False) and len(trace) == 7 + 4 + 1
    stuck = vw.greedy_trace("abc", {"a", "ab", "##bc"})
    assert stuck[-1] == (2, 3, "##c", False)  # the search ends where it gets stuck
    fig = vw.greedy_figure("unaffable", vocab)
    assert sum("✓" in t.get_text() for t in fig.axes[0].texts) == 3
    plt.close("all")


def test_tables():
    table = vw.pairs_table(TOY, learn.initial_splits(TOY))
    assert list(table.columns) == ["a", "b", "freq(a)", "freq(b)", "freq(ab)", "score"]
    assert tuple(table.loc[0, ["a", "b", "freq(ab)", "score"]]) == ("##g", "##s", 5, 0.05)
    stages = vw.stages_table(["Ab c"], {"lower": str.lower}, str.split)
    assert list(stages[0]) == ["'Ab c'", "'ab c'", "Ab | c"]
    typed = vw.tokens_table(["a b"], str.split)
    assert typed.to_dict("records") == [{"typed": "a b", "tokens": "a b", "pieces": 2}]


def test_sweep_figure():
    import pandas as pd

    sweep = pd.DataFrame({"WordPiece [UNK]": [0.0, 0.0], "WordPiece tokens/word": [1.5, 1.1],
                          "words unknown": [0.2, 0.1]}, index=[1000, 2000])
    fig = vw.sweep_figure(sweep, 4.3)
    assert len(fig.axes) == 2 and list(fig.axes[0].lines[0].get_ydata()) == [20.0, 10.0]
    plt.close("all")
