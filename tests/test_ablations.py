"""`python -m minibert.ablations`: every table end to end at the CI budget (real text, real tasks,
the real MiniLM for Table 7), cell by cell, resumable, shared over workers; and the stored results
the chapter reads, checked against the data they claim to come from."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from minibert.ablations import BUDGETS, TABLES, ResultsError, budget, plan, progress, read_table, run_tables
from minibert.ablations.store import budget_differences, summary
from minibert.ablations import cells as cells_module
from minibert.ablations.run import job_of
from minibert.ablations.tables import CONTROL
from minibert.corpus import read_documents
from minibert.hub import sha256_of
from minibert.tasks.catalog import DATA_DIR

COURSE = Path("data/corpus")
STORED = Path(__file__).resolve().parents[1] / "results" / "ablations"


@pytest.fixture(scope="module")
def ci(tmp_path_factory):
    """The CI budget on the first 60 documents of the course corpus, in a folder of its own."""
    root = tmp_path_factory.mktemp("ablations")
    docs = read_documents(COURSE / "train.txt")[:60]
    (root / "train.txt").write_text("\n\n".join("\n".join(d) for d in docs) + "\n", encoding="utf-8")
    return budget("ci", train_corpus=str(root / "train.txt"), cache_dir=str(root / "cache")), root


@pytest.fixture(scope="module")
def filled(ci, monkeypatch_module):
    """All four tables at the CI budget, counting the pre-training runs that were actually made."""
    b, root = ci
    made = []
    real = cells_module.pretrain
    monkeypatch_module.setattr(cells_module, "pretrain", lambda cfg, **kw: made.append(cfg.out_dir) or real(cfg, **kw))
    docs = run_tables(list(TABLES), b, out=root / "runs", results=root / "results", command="test", say=lambda _: None)
    return docs, made, b, root


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def test_every_table_runs_end_to_end_and_records_its_provenance(filled):
    docs, made, b, root = filled
    for number, table in TABLES.items():
        doc = read_table(number, root / "results")
        assert doc == docs[number]
        assert {(c["row"], c["seed"]) for c in doc["cells"]} == {(r.name, 0) for r in table.rows}
        assert doc["budget"] == b.to_dict() and doc["command"] == "test" and doc["seeds"] == [0]
        assert doc["commit"] and all(c["commit"] == doc["commit"] and "clean" in c for c in doc["cells"])
        assert doc["columns"] == {m.name: m.metric for m in table.measures}
        rows = {r.name: r for r in table.rows}
        for cell in doc["cells"]:
            measures = rows[cell["row"]].measures(table)  # a control has no held-out column
            assert set(cell["scores"]) == {m.name for m in measures}
            assert all(0 <= v or m.metric == "perplexity" for m in measures for v in [cell["scores"][m.name]])
            assert cell["seconds"]["total"] > 0
        for task in {m.task for m in table.measures if m.task}:
            assert doc["data_sha256"][f"{task}/train.jsonl"] == sha256_of(DATA_DIR / task / "train.jsonl")
    assert "complete" in progress(list(TABLES), b, root / "results")
    shown = summary("8", root / "results").splitlines()
    assert shown[0].startswith("| row | next-sentence (paper: mnli_fine_tune) |") and len(shown) == 2 + 6 + 1
    assert shown[0].endswith("| held-out perplexity (paper: -) |")
    assert shown[3].startswith("| MASK 100% · SAME 0% · RND 0% |") and "(n=1) [84.3]" in shown[3]


def test_a_variant_shared_by_tables_is_pretrained_once_and_each_switch_reaches_its_model(filled):
    docs, made, b, root = filled
    variants = {c["row"]: c["pretrain"] for n in ("5", "6", "8") for c in docs[n]["cells"]}
    # BERT is the reference row of Tables 5, 6 and 8: one run; LTR serves two rows of Table 5
    assert variants["BERT (MLM + NSP)"] == variants["L=2, H=128, A=2"] == variants["MASK 80% · SAME 10% · RND 10%"]
    assert variants["LTR & No NSP"] == variants["+ BiLSTM"]
    distinct = {v["variant"] for v in variants.values()}
    assert len(made) == len(set(made)) == len(distinct) == 1 + 2 + 2 + 5  # BERT, No NSP, LTR, L1, L4, 5 mixes
    assert "nsp_accuracy" in variants["BERT (MLM + NSP)"] and "nsp_accuracy" not in variants["No NSP"]
    runs = root / "runs" / "ci" / "pretrain"
    config = lambda v: json.loads((runs / v / "seed-0" / "final" / "config.json").read_text())  # noqa: E731
    assert config("ltr")["is_decoder"] is True and config("mlm-nsp")["is_decoder"] is False
    assert config("mlm-nsp-L4")["num_hidden_layers"] == 4
    settings = json.loads((runs / "mlm-nsp-mix-0-1-0" / "seed-0" / "pretrain_config.json").read_text())
    assert settings["mask_proportions"] == [0.0, 1.0, 0.0]  # (MASK, RND, SAME): Table 8's last row, RND 100%


def test_a_column_added_later_is_measured_from_the_stored_models(filled, monkeypatch):
    """Table 8's held-out perplexity, removed from the stored cells, comes back without any pre-training."""
    docs, made, b, root = filled
    path = root / "results" / "table-8.json"
    doc = json.loads(path.read_text())
    before = {c["row"]: c["scores"]["held-out perplexity"] for c in doc["cells"] if "held-out perplexity" in c["scores"]}
    assert set(before) == {r.name for r in TABLES["8"].rows} - {CONTROL}  # the control is fine-tuned only
    for c in doc["cells"]:
        for part in ("scores", "metrics", "seconds"):
            c[part].pop("held-out perplexity", None)
    path.write_text(json.dumps(doc))
    monkeypatch.setattr(cells_module, "pretrain", lambda *a, **k: pytest.fail("pre-trained again"))
    run_tables(["8"], b, out=root / "runs", results=root / "results", say=lambda _: None)
    after = {c["row"]: c["scores"]["held-out perplexity"] for c in read_table("8", root / "results")["cells"]
             if c["row"] != CONTROL}
    assert after == pytest.approx(before)  # the same models, the same held-out masks
    # every variant faces BERT's 80/10/10: the model trained with SAME 20% gets no free answers
    assert len(set(after.values())) == len(after)


def test_a_stopped_run_continues_and_never_redoes_a_cell(ci, tmp_path, monkeypatch):
    b, _ = ci
    calls, real = [], cells_module.run_cell

    def stops_after_two(table, row, seed, *args):
        if len(calls) == 2:
            raise KeyboardInterrupt  # as a killed run
        calls.append(row.name)
        return real(table, row, seed, *args)

    monkeypatch.setattr("minibert.ablations.run.run_cell", stops_after_two)
    with pytest.raises(KeyboardInterrupt):
        run_tables(["5"], b, out=tmp_path / "runs", results=tmp_path, say=lambda _: None)
    assert len(read_table("5", tmp_path)["cells"]) == 2
    assert "2 of 5 cells; missing 3" in progress(["5"], b, tmp_path)
    calls.clear()
    monkeypatch.setattr("minibert.ablations.run.run_cell", lambda *a: calls.append(a[1].name) or real(*a))
    run_tables(["5"], b, out=tmp_path / "runs", results=tmp_path, say=lambda _: None)
    assert calls == ["LTR & No NSP", "+ BiLSTM", CONTROL]  # only the missing cells
    assert len(read_table("5", tmp_path)["cells"]) == 5


def test_cells_of_another_budget_are_refused_before_any_work(ci, tmp_path):
    b, _ = ci
    (tmp_path / "table-6.json").write_text(json.dumps({"budget": {**b.to_dict(), "steps": 99}, "cells": []}))
    with pytest.raises(ResultsError, match="steps: 99 there, 4 now"):
        run_tables(["6"], b, out=tmp_path / "runs", results=tmp_path, say=lambda _: None)
    assert not (tmp_path / "runs").exists()


def test_workers_share_the_work_without_overlap():
    b = BUDGETS["short"]
    jobs = list(dict.fromkeys(job_of(*cell) for cell in plan(list(TABLES), b)))
    # 10 pre-trained variants (3 pre-training tasks, 2 more sizes, 5 more mixes; the controls share
    # the BERT row's) and Table 7's 7 rows and its control, per seed
    assert len(jobs) == (10 + 8) * 3
    shares = [{job for i, job in enumerate(jobs) if i % 2 == k} for k in range(2)]
    assert not shares[0] & shares[1] and shares[0] | shares[1] == set(jobs)
    assert [cell[2] for cell in plan(["5"], b)] == [0] * 5 + [1] * 5 + [2] * 5  # whole seeds first


def test_the_command_line_refuses_bad_input_clearly(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "minibert.ablations", *args], capture_output=True, text=True)

    bad = run("9", "--results", str(tmp_path))
    assert bad.returncode != 0 and "no table 9; the ablation tables are 5, 6, 7, 8" in bad.stderr
    bad = run("5", "--worker", "2/2")
    assert bad.returncode != 0 and "--worker '2/2': give K/N with 0 <= K < N" in bad.stderr
    bad = run("5", "--budget", "shrot")
    assert bad.returncode != 0 and "did you mean 'short'" in bad.stderr
    status = run("all", "--status", "--results", str(tmp_path))
    assert status.returncode == 0 and "Table 7 (Feature-based against fine-tuning): 0 of 24 cells" in status.stdout


@pytest.mark.parametrize("number", list(TABLES))
def test_the_stored_results_are_complete_and_match_their_data(number):
    """What chapter 09 reads: every row at three seeds or more, every column, under the short budget,
    made from the data files the repository holds now."""
    doc = read_table(number, STORED)
    table = TABLES[number]
    assert not budget_differences(doc["budget"], BUDGETS["short"]) and doc["command"].startswith("python -m minibert.ablations")
    assert doc["columns"] == {m.name: m.metric for m in table.measures} and doc["rows"] == [r.name for r in table.rows]
    seeds, rows = {}, {r.name: r for r in table.rows}
    for cell in doc["cells"]:
        seeds.setdefault(cell["row"], set()).add(cell["seed"])
        assert set(cell["scores"]) == {m.name for m in rows[cell["row"]].measures(table)}
    assert set(seeds) == set(rows)
    assert all(len(s) >= 3 for s in seeds.values()), seeds
    for name, digest in doc["data_sha256"].items():
        path = Path(BUDGETS["short"].train_corpus) if name == "corpus" else DATA_DIR / name
        assert sha256_of(path) == digest, f"{path} changed since Table {number} was made: make it again"


def test_a_budget_with_a_phase_2_trains_it_from_phase_1_and_scores_every_row_on_one_split(ci, tmp_path):
    """The "context" budget's shape at CI size: phase 2 starts from phase 1's weights at the longer
    length; the held-out column scores every row at a seed on the same contiguous split (the NSP
    row's pairs would be other shards) and carries the count tables' floors for the masked LMs."""
    b, _ = ci
    b = budget("ci", train_corpus=b.train_corpus, cache_dir=b.cache_dir, dropout=0.0, phase2_steps=2,
               phase2_batch_size=4, phase2_seq_length=48, phase2_max_predictions=7)
    doc = run_tables(["5"], b, out=tmp_path / "runs", results=tmp_path / "results", command="test", say=lambda _: None)["5"]
    cells = {c["row"]: c for c in doc["cells"]}
    bert = cells["BERT (MLM + NSP)"]
    assert bert["pretrain"]["phase1"]["step"] == b.steps and bert["pretrain"]["step"] == b.phase2_steps
    runs = tmp_path / "runs" / "ci" / "pretrain" / "mlm-nsp"
    phase2 = json.loads((runs / "seed-0" / "pretrain_config.json").read_text())
    assert phase2["init_from"] == str(runs / "seed-0-phase1" / "final") and phase2["max_seq_length"] == 48
    assert phase2["model_overrides"] == {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}
    held = {row: c["metrics"]["held-out perplexity"] for row, c in cells.items() if row != CONTROL}
    assert "nsp_accuracy" not in held["BERT (MLM + NSP)"]  # scored on one segment, as No NSP is
    floors = {k: v for k, v in held["BERT (MLM + NSP)"].items() if k.startswith("floor_")}
    assert set(floors) == {"floor_unigram_at_mask", "floor_left_at_mask", "floor_both_at_mask"}
    assert floors == {k: v for k, v in held["No NSP"].items() if k.startswith("floor_")}  # the same split
    assert not any(k.startswith("floor_") for k in held["LTR & No NSP"])  # a next-token LM has no [MASK]
