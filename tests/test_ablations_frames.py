"""Chapter 09's frames and pictures (its statistic, Welch's interval, is tested in test_stats.py): a
table's rows sit beside the paper's, the verdict of each effect follows its interval, every effect names
a row and a column the command measures, and every figure draws from the frames of a small made-up
results document."""

import math

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from minibert import ablations, viz  # noqa: E402
from minibert.ablations import TABLES  # noqa: E402
from minibert.ablations.claims import short  # noqa: E402


def fake_doc(table, scores, seeds=(0, 1, 2)):
    """A results document of `table`: scores[row][column] is a list, one number per seed (as stored:
    fractions for accuracy and F1)."""
    cells = [{"row": row, "seed": s, "scores": {c: v[i] for c, v in columns.items()}}
             for row, columns in scores.items() for i, s in enumerate(seeds) if i < len(next(iter(columns.values())))]
    return {"table": table.number, "columns": {m.name: m.metric for m in table.measures}, "cells": cells,
            "command": "python -m minibert.ablations 5", "started": "2026-01-02T03:04:05+00:00",
            "updated": "2026-01-02T04:05:06+00:00", "device": "x86_64, 1 CPU threads", "cpu_seconds": 7200.0,
            "data_sha256": {"names/dev.jsonl": "ab" * 32, "names/train.jsonl": "cd" * 32}}


T5 = TABLES["5"]
PPL = next(m.name for m in T5.measures if m.metric == "perplexity")  # the held-out perplexity column
SCORES_5 = {  # BERT > No NSP on next-sentence by far; names: a tiny difference, noisy
    "BERT (MLM + NSP)": {"next-sentence": [0.70, 0.72, 0.71], "sentiment": [0.6, 0.62, 0.61], "names": [0.30, 0.20, 0.25],
                         PPL: [600.0, 610.0, 590.0]},
    "No NSP": {"next-sentence": [0.60, 0.61, 0.59], "sentiment": [0.6, 0.6, 0.6], "names": [0.26, 0.21, 0.31],
               PPL: [560.0, 570.0, 550.0]},
    "LTR & No NSP": {"next-sentence": [0.66], "sentiment": [0.58], "names": [0.1], PPL: [90.0]},
}


def test_table_frame_sets_ours_beside_the_paper():
    frame = ablations.table_frame(fake_doc(T5, SCORES_5), T5)
    assert list(frame.index.get_level_values(0).unique()) == [r.name for r in T5.rows]  # the table's order
    row = frame.loc[("BERT (MLM + NSP)", "next-sentence")]
    assert row["n"] == 3 and row["mean"] == pytest.approx(71.0) and row["sd"] == pytest.approx(1.0)  # points
    assert row["paper"] == {"MNLI-m": 84.4, "QNLI": 88.4, "MRPC": 86.7}
    assert frame.loc[("No NSP", PPL)]["mean"] == pytest.approx(560.0)  # perplexity as it is
    assert frame.loc[("No NSP", PPL)]["paper"] == {}  # the paper has no such column
    one, none = frame.loc[("LTR & No NSP", "names")], frame.loc[("+ BiLSTM", "names")]
    assert one["n"] == 1 and math.isnan(one["sd"]) and none["n"] == 0 and math.isnan(none["mean"])
    wide = ablations.side_by_side(frame)
    assert wide.loc["BERT (MLM + NSP)", ("next-sentence", "ours")] == "71.0 ± 1.0 (3)"
    assert wide.loc["+ BiLSTM", ("names", "ours")] == "no cells yet"
    assert wide.loc["No NSP", (PPL, "paper")] == "—"


def test_a_column_added_after_the_header_is_read_from_the_cells():
    doc = fake_doc(T5, SCORES_5)
    doc["columns"] = {k: v for k, v in doc["columns"].items() if k != PPL}  # a header written before the column
    frame = ablations.cell_frame(doc)
    assert frame[(frame.column == PPL) & (frame.row == "No NSP")].score.tolist() == [560.0, 570.0, 550.0]


def test_effects_frame_verdicts_follow_the_intervals():
    effects = [ablations.Effect("5", "No NSP", "BERT (MLM + NSP)", c, "claim") for c in ("next-sentence", "names", "sentiment")]
    effects.append(ablations.Effect("5", "LTR & No NSP", "No NSP", "names", "claim"))
    frame = ablations.effects_frame({"5": fake_doc(T5, SCORES_5)}, {"5": T5}, effects)
    ns, names, sentiment, ltr = (r for _, r in frame.iterrows())
    # next-sentence: the paper's Δ is the mean over MNLI-m, QNLI, MRPC; ours −11 points, far from 0
    assert ns["paper Δ"] == pytest.approx(np.mean([83.9 - 84.4, 84.9 - 88.4, 86.5 - 86.7]))
    assert ns["ours Δ"] == pytest.approx(-11.0) and ns["low"] < ns["high"] < 0 and ns["verdict"] == "agrees"
    # names: ours +1 point, the paper's SQuAD −0.6: opposite signs, and the interval spans 0
    assert names["ours Δ"] == pytest.approx(1.0) and names["same sign"] is False
    assert names["verdict"] == "opposite sign, inconclusive"
    # sentiment: −1 point beside SST-2's −0.1; three equal seeds on one side leave Welch 2 degrees of freedom
    ci = viz.difference_ci([60, 60, 60], [60, 62, 61])
    assert ci.df == pytest.approx(2.0) and (sentiment["low"], sentiment["high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert sentiment["verdict"] == "same sign, inconclusive" and sentiment["seeds"] == "3 & 3"
    # one seed of LTR: a difference, but no interval
    assert ltr["verdict"] == "no interval: fewer than 2 seeds" and ltr["ours Δ"] == pytest.approx(10 - 26) and ltr["seeds"] == "1 & 3"


def test_effects_frame_names_opposite_and_missing():
    scores = {"BERT (MLM + NSP)": {"next-sentence": [0.50, 0.51, 0.52], "sentiment": [0.6] * 3, "names": [0.2] * 3,
                                   PPL: [1.0] * 3},
              "No NSP": {"next-sentence": [0.60, 0.61, 0.62], "sentiment": [0.6] * 3, "names": [0.2] * 3,
                         PPL: [1.0] * 3}}
    effects = [ablations.Effect("5", "No NSP", "BERT (MLM + NSP)", "next-sentence", "claim"),
               ablations.Effect("5", "+ BiLSTM", "LTR & No NSP", "names", "claim"),
               ablations.Effect("5", "No NSP", "BERT (MLM + NSP)", "names", "claim")]
    frame = ablations.effects_frame({"5": fake_doc(T5, scores)}, {"5": T5}, effects)
    # +10 points where the paper loses 1.4; no cells at all; every seed of both rows at the same 20.0
    assert list(frame["verdict"]) == ["disagrees", "no interval: fewer than 2 seeds", "no difference: equal scores"]
    assert frame["paper Δ"].iloc[1] == pytest.approx(84.9 - 77.8) and math.isnan(frame["ours Δ"].iloc[1])


def test_every_effect_names_a_measured_row_and_column():
    for e in ablations.EFFECTS:
        table = TABLES[e.table]
        assert {e.variant, e.reference} <= {r.name for r in table.rows}, e
        assert e.column in {m.name for m in table.measures}, e
        assert e.claim, e
    assert {e.table for e in ablations.EFFECTS} == set(TABLES)


def test_short_names():
    assert short("MASK 80% · SAME 10% · RND 10%") == "mix 80/10/10"
    assert short("L=4, H=128, A=2") == "L=4" and short("BERT (MLM + NSP)") == "BERT"
    assert short("Concat Last Four Hidden") == "Concat Last Four"


def test_provenance_frame():
    frame = ablations.provenance_frame({"5": fake_doc(T5, SCORES_5)})
    row = frame.loc["Table 5"]
    assert row["CPU hours"] == 2.0 and row["cells"] == 7 and row["seeds"] == "0, 1, 2"
    assert row["data sha256"] == "names abababab" and row["started"] == "2026-01-02 03:04"
    assert row["commands"] == "python -m minibert.ablations 5"
    doc = {**fake_doc(T5, SCORES_5), "commands": ["a --worker 0/2", "a --columns-only"]}
    assert ablations.provenance_frame({"5": doc}).loc["Table 5", "commands"] == "a --worker 0/2 && a --columns-only"


def test_figures_draw():
    import matplotlib.pyplot as plt

    doc = fake_doc(T5, SCORES_5)
    fig = viz.table_figure(ablations.table_frame(doc, T5), ablations.cell_frame(doc), baselines={"next-sentence": 50.0})
    legends = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().texts]
    assert "baseline (50.0)" in legends and {"MNLI-m", "QNLI", "MRPC"} <= set(legends)  # the paper's names
    viz.effects_figure(ablations.effects_frame({"5": doc}, {"5": T5}, [e for e in ablations.EFFECTS if e.table == "5"]))
    ax = viz.combinations_figure(6)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["emb.", "1", "2", "3", "4", "5", "6"]
    viz.combinations_figure(2)
    viz.mixes_figure({"80/10/10": (["[CLS]", "[MASK]", "b", "[SEP]"], ["special", "mask", "untouched", "special"],
                                   ["[CLS]", "a", "b", "[SEP]"])})
    viz.budget_figure({"tokens": 2.4e6, "FLOPs": 1e15}, {"tokens": 4e10, "FLOPs": 1e20})
    plt.close("all")


def test_a_column_whose_control_does_not_separate_shows_no_effect_and_shared_models_are_paired():
    control = ablations.tables.CONTROL
    scores = {**SCORES_5,
              "LTR & No NSP": {"next-sentence": [0.66, 0.70, 0.62], "sentiment": [0.58, 0.62, 0.66], "names": [0.1, 0.2, 0.3],
                               PPL: [90.0, 91.0, 92.0]},
              "+ BiLSTM": {"next-sentence": [0.65, 0.69, 0.61], "sentiment": [0.57, 0.61, 0.65], "names": [0.1, 0.2, 0.3],
                           PPL: [90.0, 91.0, 92.0]},
              # next-sentence: the control is as good as BERT; sentiment: far below it
              control: {"next-sentence": [0.71, 0.70, 0.72], "sentiment": [0.50, 0.51, 0.50], "names": [0.0, 0.01, 0.0]}}
    docs, tables = {"5": fake_doc(T5, scores)}, {"5": T5}
    controls = ablations.controls_frame(docs, tables).set_index("column")
    assert controls.loc["next-sentence", "separates"] == False and controls.loc["sentiment", "separates"] == True  # noqa: E712
    assert controls.loc["sentiment", "Δ"] == pytest.approx(61.0 - 50.333, abs=1e-3) and PPL not in controls.index
    effects = [ablations.Effect("5", "No NSP", "BERT (MLM + NSP)", "next-sentence", "claim"),
               ablations.Effect("5", "+ BiLSTM", "LTR & No NSP", "sentiment", "claim")]
    ns, bilstm = (r for _, r in ablations.effects_frame(docs, tables, effects).iterrows())
    # −11 points with an interval far from 0, but the column cannot tell pre-training from none
    assert ns["high"] < 0 and ns["verdict"] == "no signal: the control does not separate"
    # BiLSTM and LTR fine-tune one model per seed: the seeds' common luck (±4 points) cancels in pairs
    assert bilstm["how"] == "paired" and bilstm["ours Δ"] == pytest.approx(-1.0)
    assert bilstm["low"] == bilstm["high"] == pytest.approx(-1.0) and bilstm["verdict"] == "agrees"
    welch = viz.difference_ci([57, 61, 65], [58, 62, 66])
    assert welch.low < 0 < welch.high  # read unpaired, the same numbers would span 0
    wide = ablations.side_by_side(ablations.table_frame(docs["5"], T5))
    assert wide.loc[control, (PPL, "ours")] == "—" and wide.loc[control, ("sentiment", "paper")] == "—"
