"""Choosing a learning rate without looking at dev: each arm of a comparison at its own rate,
chosen on a held-out fifth of its training sample (`eval_split="train-slice"`), on several samples."""

import dataclasses
import json
import random
import statistics

import pytest

from minibert.finetune import loop, results
from minibert.finetune.__main__ import main
from minibert.finetune.loop import examples, training_examples
from minibert.finetune.recipes import FinetuneConfig
from minibert.finetune.sweep import selected_sweep
from minibert.tasks import load_task

from test_finetune import data_dir  # noqa: F401  (the small task files every fine-tuning test uses)


def as_text(rows):
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


def test_the_train_slice_is_a_fifth_of_the_sample_held_out_the_same_for_every_arm(data_dir):  # noqa: F811
    cfg = FinetuneConfig(task="sentiment", data_dir=str(data_dir), max_train_examples=10, eval_split="train-slice")
    trained, scored = examples(cfg)
    assert (len(trained), len(scored)) == (8, 2)
    assert as_text(trained + scored) == as_text(training_examples(cfg))  # disjoint, and all of the sample
    for other in (dict(init="random"), dict(seed=7), dict(lr=1.0), dict(model="minilm")):  # every arm, every seed
        assert examples(dataclasses.replace(cfg, **other)) == (trained, scored)
    assert examples(dataclasses.replace(cfg, sample=1))[1] != scored


def test_sample_0_is_the_sample_every_stored_result_used_and_the_others_differ(data_dir):  # noqa: F811
    cfg = FinetuneConfig(task="sentiment", data_dir=str(data_dir), max_train_examples=6)
    train = load_task("sentiment", "train", data_dir)
    assert training_examples(cfg) == random.Random("sample/sentiment").sample(train, 6)
    samples = [as_text(training_examples(dataclasses.replace(cfg, sample=k))) for k in range(3)]
    assert len({json.dumps(s) for s in samples}) == 3


def test_a_learning_rate_is_chosen_on_the_train_slice_and_dev_is_never_read_to_choose(data_dir, tmp_path,  # noqa: F811
                                                                                       monkeypatch):
    read = []
    real = loop.load_task
    monkeypatch.setattr(loop, "load_task", lambda task, split, folder=None: read.append(split) or real(task, split, folder))
    base = FinetuneConfig(task="sentiment", model="course", data_dir=str(data_dir), max_train_examples=10,
                          epochs=2, batch_size=4, max_seq_length=32, out_dir=str(tmp_path), progress=False)
    runs, chose = selected_sweep(base, seeds=2, samples=2, lrs=[1e-6, 3e-3], select_seeds=2)
    assert len(chose) == 2 * 2 * 2 and read[:4] == ["train"] * 4  # sample 0's selection: train only
    for k in (0, 1):
        means = {lr: statistics.fmean(r["metrics"]["accuracy"] for r in chose
                                      if r["sample"] == k and r["setting"] == f"lr={lr}") for lr in (1e-6, 3e-3)}
        best = max(means, key=means.get)
        assert [r["setting"] for r in runs if r["setting"].startswith(f"sample={k},")] == [f"sample={k},lr={best}"] * 2
    assert read.count("dev") == 2 * 2  # each final run, and only those, reads dev
    assert all(r["history"][-1]["accuracy"] == r["metrics"]["accuracy"] for r in runs)


def test_the_record_holds_the_selection_and_no_single_rate(data_dir, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setattr(results, "RESULTS", tmp_path / "results")
    main(["--task", "sentiment", "--model", "course", "--data-dir", str(data_dir), "--max-train-examples", "10",
          "--epochs", "1", "--batch-size", "4", "--max-seq-length", "32", "--samples", "2", "--seeds", "1",
          "--select-lr", "1e-4,1e-3", "--select-seeds", "1", "--out-dir", str(tmp_path / "runs"), "--no-progress",
          "--record", "demo/chosen"])
    doc = results.read_results("demo/chosen")
    assert "lr" not in doc["settings"] and "sample" not in doc["settings"]
    assert doc["selection"]["lrs"] == [1e-4, 1e-3] and doc["selection"]["split"] == "train-slice"
    assert sorted((r["sample"], r["setting"]) for r in doc["selection"]["runs"]) == [
        (0, "lr=0.0001"), (0, "lr=0.001"), (1, "lr=0.0001"), (1, "lr=0.001")]
    assert [r["setting"].split(",")[0] for r in doc["runs"]] == ["sample=0", "sample=1"]


def test_passes_are_chosen_with_the_rate_on_the_train_slice(data_dir, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setattr(results, "RESULTS", tmp_path / "results")
    main(["--task", "sentiment", "--model", "course", "--data-dir", str(data_dir), "--max-train-examples", "10",
          "--batch-size", "4", "--max-seq-length", "32", "--samples", "2", "--seeds", "1", "--select-lr", "1e-6,3e-3",
          "--select-epochs", "1,2", "--select-seeds", "1", "--out-dir", str(tmp_path / "runs"), "--no-progress",
          "--record", "demo/passes"])
    doc = results.read_results("demo/passes")
    assert "epochs" not in doc["settings"] and doc["selection"]["epochs"] == [1, 2]
    for k in (0, 1):
        tried = {r["setting"]: r["metrics"]["accuracy"] for r in doc["selection"]["runs"] if r["sample"] == k}
        assert list(tried) == ["lr=1e-06,epochs=1", "lr=1e-06,epochs=2", "lr=0.003,epochs=1", "lr=0.003,epochs=2"]
        best = max(tried, key=tried.get)
        final = [r for r in doc["runs"] if r["setting"].startswith(f"sample={k},")]
        assert [r["setting"] for r in final] == [f"sample={k},{best}"]
        assert len(final[0]["history"]) == int(best[-1])  # one evaluation a pass: it ran the passes it chose
        assert results.by_sample(doc)[k]["epochs"] == int(best[-1])


@pytest.mark.parametrize("flags, message", [
    (["--select-lr", "1e-3,fast"], r"--select-lr '1e-3,fast': 'fast' is not a positive learning rate"),
    (["--select-lr", "1e-3,-1"], r"'-1' is not a positive learning rate"),
    (["--samples", "2"], r"--samples 2 draws samples of --max-train-examples examples; give it too"),
    (["--samples", "0"], r"--samples must be a positive integer \(got 0\)"),
    (["--grid", "--select-lr", "1e-3"], r"--grid runs A.3's grid on one sample; --select-lr, --select-epochs and"),
    (["--grid", "--select-epochs", "3"], r"--grid runs A.3's grid on one sample"),
    (["--select-epochs", "3,2.5"], r"--select-epochs '3,2.5': '2.5' is not a positive whole number of passes"),
    (["--select-epochs", "0"], r"'0' is not a positive whole number of passes"),
    (["--sample", "1"], r"sample=1 draws another sample of max_train_examples examples; give --max-train-examples"),
    (["--eval-split", "valid"], r"--eval-split must be one of dev, test, train-slice \(got 'valid'\)"),
])
def test_a_bad_choice_of_samples_or_rates_is_refused_before_any_run(flags, message, data_dir, tmp_path):  # noqa: F811
    with pytest.raises(SystemExit, match=message):
        main(["--task", "sentiment", "--model", "course", "--data-dir", str(data_dir),
              "--out-dir", str(tmp_path / "runs"), *flags])
    assert not (tmp_path / "runs").exists()


def doc(values_by_sample: dict, lr: float) -> dict:
    return {"settings": {}, "runs": [{"setting": f"sample={k},lr={lr}", "seed": s, "metrics": {"accuracy": v}}
                                     for k, values in values_by_sample.items() for s, v in enumerate(values)]}


def test_gains_compare_arms_per_sample_and_over_all_with_welchs_interval():
    a = doc({0: [0.80, 0.82, 0.81], 1: [0.78, 0.80, 0.79]}, lr=1e-3)
    b = doc({0: [0.70, 0.71, 0.72], 1: [0.69, 0.70, 0.74]}, lr=3e-3)
    rows = results.gains(a, b)
    assert [r["sample"] for r in rows] == [0, 1, "all"]
    assert (rows[0]["lr_a"], rows[0]["lr_b"]) == (1e-3, 3e-3)
    assert rows[0]["difference"] == pytest.approx(0.10) and rows[2]["difference"] == pytest.approx(0.09)
    for r in rows:
        assert r["low"] < r["difference"] < r["high"] and r["low"] > 0  # far apart: the interval excludes 0
    one = results.gains(doc({0: [0.80, 0.81]}, 1e-3), doc({0: [0.70, 0.72]}, 1e-3))
    assert [r["sample"] for r in one] == [0]  # one sample: no "all" row
    with pytest.raises(results.ResultsError, match=r"other training samples \(\[0, 1\] and \[0\]\)"):
        results.gains(a, doc({0: [0.7, 0.71]}, 1e-3))
