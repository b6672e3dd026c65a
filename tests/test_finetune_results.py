"""Stored fine-tuning results: `--record` keeps every run with its provenance, and what is stored in
results/finetune/ still matches the data, the weights and the command that made it."""

import json
import shlex
import statistics
from pathlib import Path

import pytest

from minibert.finetune import results
from minibert.finetune.__main__ import main, parser
from minibert.finetune.recipes import model_folder
from minibert.finetune.sweep import main_metric
from minibert.hub import resolve, sha256_of
from minibert.pretrain import read_log
from minibert.repository import code_version
from minibert.tasks import load_task
from minibert.tasks.catalog import DATA_DIR

from test_finetune import data_dir  # noqa: F401  (the small task files every fine-tuning test uses)

ROOT = Path(__file__).resolve().parents[1]
STORED = sorted((ROOT / "results" / "finetune").rglob("*.json"))


def test_a_recorded_result_keeps_its_provenance_and_reads_back(data_dir, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setattr(results, "RESULTS", tmp_path / "results")
    argv = ["--task", "sentiment", "--model", "course", "--data-dir", str(data_dir), "--epochs", "2",
            "--batch-size", "4", "--seeds", "2", "--out-dir", str(tmp_path / "runs"), "--no-progress",
            "--record", "demo/course"]
    main(argv)
    doc = results.read_results("demo/course")
    assert (tmp_path / "results" / "demo" / "course.json").is_file()
    assert doc["command"] == "python -m minibert.finetune " + shlex.join(argv)
    assert doc["data"] == {f"{s}.jsonl": sha256_of(data_dir / "sentiment" / f"{s}.jsonl") for s in ("train", "dev")}
    assert doc["model"] == {"name": "course", "init": "pretrained",
                            "weights_sha256": {"model.safetensors": sha256_of(ROOT / "models/course/model.safetensors")}}
    assert doc["settings"]["epochs"] == 2 and "out_dir" not in doc["settings"]
    assert doc["torch"] and doc["device"] and doc["date"][:2] == "20"
    assert doc["commit"] == code_version()["commit"] and doc["clean"] in (True, False)  # the code that made it
    sweep = json.loads((tmp_path / "runs" / "sweep.json").read_text())
    assert doc["runs"] == sweep and [r["seed"] for r in sweep] == [0, 1]
    for run in doc["runs"]:  # the dev score after every epoch; the last one is the run's result
        assert [h["epoch"] for h in run["history"]] == [1, 2]
        assert run["history"][-1]["accuracy"] == run["metrics"]["accuracy"]


@pytest.mark.parametrize("name", ["../outside", "/etc/x", "a/../../b", "x.json", ".hidden"])
def test_a_bad_record_name_is_refused_before_any_run(name, data_dir, tmp_path):  # noqa: F811
    with pytest.raises(SystemExit, match=r"error: --record .*give a name such as 'sentiment/minilm'"):
        main(["--task", "sentiment", "--model", "course", "--data-dir", str(data_dir),
              "--out-dir", str(tmp_path / "runs"), "--record", name])
    assert not (tmp_path / "runs").exists()


def test_a_missing_result_names_what_is_stored_and_how_to_make_it():
    with pytest.raises(results.ResultsError, match=r"no stored result 'nothing/here'.*--record NAME.*results/README.md"):
        results.read_results("nothing/here")


@pytest.mark.parametrize("path", STORED, ids=[str(p.relative_to(ROOT / "results" / "finetune")) for p in STORED])
def test_a_stored_result_matches_its_command_data_and_weights(path):
    """A stored number is only as good as its provenance: the command parses to the settings it
    stored, the task files and the weights are the ones in this repository and environment today,
    and there is one run per seed it asked for."""
    doc = json.loads(path.read_text())
    name = str(path.relative_to(ROOT / "results" / "finetune").with_suffix(""))
    argv = shlex.split(doc["command"])[3:]
    assert argv[argv.index("--record") + 1] == name
    args = parser().parse_args(argv)
    for key, value in doc["settings"].items():
        assert getattr(args, key) == value, (key, getattr(args, key), value)
    folder = DATA_DIR / doc["settings"]["task"]
    for file, digest in doc["data"].items():
        assert sha256_of(folder / file) == digest, f"{name}: {folder / file} changed since it was made; remake it"
    made_here = str(doc["model"]["name"]).startswith("runs/")  # made by a command (make.sh says which), not shipped
    if not made_here or (ROOT / doc["model"]["name"]).is_dir():
        weights = Path(resolve(model_folder(doc["model"]["name"])))
        for file, digest in doc["model"]["weights_sha256"].items():
            assert sha256_of(weights / file) == digest, f"{name}: {weights}/{file} is not the one it was made with"
    settings = 18 if args.grid else args.samples
    assert len(doc["runs"]) == settings * args.seeds
    assert sorted({r["seed"] for r in doc["runs"]}) == list(range(args.seed, args.seed + args.seeds))
    assert name in (ROOT / "results" / "finetune" / "make.sh").read_text()
    if args.select_lr:  # each sample's rate (and passes) the one its train-slice runs scored best; dev chose nothing
        chosen = doc["selection"]
        tried = [f"lr={lr}" + (f",epochs={e}" if "epochs" in chosen else "")
                 for lr in chosen["lrs"] for e in chosen.get("epochs", [None])]
        assert chosen["split"] == "train-slice" and len(chosen["runs"]) == args.samples * len(tried) * args.select_seeds
        assert chosen.get("epochs") == ([int(e) for e in args.select_epochs.split(",")] if args.select_epochs else None)
        metric = main_metric(chosen["runs"][0]["metrics"])  # what the selection ranks by (F1 for spans)
        for k in range(args.samples):
            means = {name: statistics.fmean(r["metrics"][metric] for r in chosen["runs"]
                                            if r["sample"] == k and r["setting"] == name) for name in tried}
            best = max(means, key=means.get)
            assert {r["setting"] for r in doc["runs"] if r["setting"].startswith(f"sample={k},")} == {f"sample={k},{best}"}


FAIR = {"sentiment/minilm-pretrained": "sentiment/minilm-random", "sentiment/course-pretrained": "sentiment/course-random",
        "sentiment/course-5min": "sentiment/course-random", "sentiment/course-37min": "sentiment/course-random",
        "sentiment/gpu-mini-pretrained": "sentiment/gpu-mini-random",
        "sentiment/course-frozen-pretrained": "sentiment/course-frozen-random",
        "sentiment/course-pretrained-1000": "sentiment/course-random-1000",
        "sentiment/course-pretrained-500": "sentiment/course-random-500",
        "sentiment/course-sentiment": "sentiment/course-random",
        "sentiment/course-sentiment-1000": "sentiment/course-random-1000",
        "sentiment/course-nsp": "sentiment/course-random", "sentiment/course-nsp-1000": "sentiment/course-random-1000",
        "sentiment/gpu-mini-pretrained-1000": "sentiment/gpu-mini-random-1000",
        "sentiment/course-pretrained-1000-passes": "sentiment/course-random-1000-passes",
        "sentiment/course-pretrained-500-passes": "sentiment/course-random-500-passes",
        "sentiment/course-sentiment-1000-passes": "sentiment/course-random-1000-passes",
        "sentiment/gpu-mini-pretrained-1000-passes": "sentiment/gpu-mini-random-1000-passes"}


def fair_row(name: str) -> str:
    """How docs/finetuning.md's table shows a stored result: each sample's chosen rate (and passes, where
    they were chosen too) and dev mean ± sd."""
    doc = results.read_results(name)
    by, passes = results.by_sample(doc), "epochs" in doc.get("selection", {})
    rates = ", ".join(f"{v['lr']:g}" + (f" ({v['epochs']} passes)" if passes else "") for v in by.values())
    cells = "; ".join(f"{100 * statistics.fmean(v['values']):.1f} ± {100 * statistics.stdev(v['values']):.1f}"
                      for v in by.values())
    return f"| {rates} | {cells} |"


def gain_row(a: str, b: str) -> list[str]:
    return [f"| `{a}` − `{b}` | {r['sample']} | {100 * r['difference']:+.1f} | [{100 * r['low']:+.1f}, {100 * r['high']:+.1f}] |"
            for r in results.gains(results.read_results(a), results.read_results(b))]


def test_the_finetuning_page_quotes_what_pretraining_buys():
    """docs/finetuning.md's fair comparison: every arm's chosen rate and scores, and every gain with its
    Welch interval, recomputed from the stored files."""
    readme = (ROOT / "docs" / "finetuning.md").read_text(encoding="utf-8")
    for a, b in FAIR.items():
        for name in (a, b):
            assert f"| `{name}` |" in readme and fair_row(name) in readme, f"docs/finetuning.md's row of {name}:\n{fair_row(name)}"
        for row in gain_row(a, b):
            assert row in readme, f"docs/finetuning.md's gain of {a}:\n{row}"


def test_the_squad_stand_in_is_answered_and_its_row_is_the_stored_runs():
    """reading-qa, the SQuAD stand-in: pre-trained MiniLM reaches F1 >= 60 at the τ chosen on dev,
    clearly above always answering, answering nothing and its random twin (at its own rate, chosen on
    its train slice); docs/finetuning.md quotes exactly the stored runs."""
    pre, rand = (results.read_results(f"reading-qa/minilm-{init}") for init in ("pretrained", "random"))
    best = [r["metrics"]["best_f1"] for r in pre["runs"]]
    always = statistics.fmean(r["metrics"]["f1"] for r in pre["runs"])
    dev = load_task("reading-qa", "dev")[:pre["settings"]["max_eval_examples"]]
    silence = 100 * sum(not e["answers"]["text"] for e in dev) / len(dev)
    (twin,) = rand["runs"]
    assert len(best) >= 2 and min(best) >= 60 and statistics.fmean(best) > max(always, silence) + 10
    assert statistics.fmean(best) > twin["metrics"]["best_f1"] + 20 and rand["selection"]["lrs"] == [1e-4, 1e-3]
    row = (f"| `reading-qa` (span) | F1 at τ chosen on dev (always answering) | {statistics.fmean(best):.1f} ± "
           f"{statistics.stdev(best):.1f} ({always:.1f}) ({len(best)} seeds) | {twin['metrics']['best_f1']:.1f} "
           f"({twin['metrics']['f1']:.1f}) | {pre['settings']['max_train_examples']:,} |")
    assert row in (ROOT / "docs" / "finetuning.md").read_text(encoding="utf-8"), row


def test_the_trained_cls_paragraph_quotes_its_log():
    """results/pretrain/course-nsp-log.jsonl, the model behind sentiment/course-nsp*: made by the command
    make.sh holds, and docs/finetuning.md quotes its minutes and its held-out NSP accuracy."""
    log = ROOT / "results" / "pretrain" / "course-nsp-log.jsonl"
    header, end = read_log(log, "run")[0], read_log(log, "end")[-1]
    make = (ROOT / "results" / "finetune" / "make.sh").read_text()
    assert header["command"].replace("python", '"$PY"', 1) in " ".join(make.replace("\\\n", " ").split())
    assert header["config"]["nsp"] and header["config"]["init_from"] == "models/course" and end["step"] == 1500
    page = " ".join((ROOT / "docs" / "finetuning.md").read_text(encoding="utf-8").split())
    assert f"{end['seconds'] / 60:.1f} minutes; `make.sh` holds the command" in page
    assert f"a random one {end['nsp_accuracy']:.1%} of the time" in page
