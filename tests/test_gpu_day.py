"""benchmarks/gpu_day.sh, the script for the day a GPU is lent: it cannot run here, so what can be
checked without one is checked: bash reads it, the pre-training commands it builds parse, and what
its one run stored (results/gpu/) agrees with itself and with a CPU's score of the model it made."""

import dataclasses
import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from minibert.pretrain import heldout_metrics, read_log
from minibert.pretrain.__main__ import parse

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "gpu_day.sh"


def test_bash_reads_the_script():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)


def test_its_two_phases_are_the_course_recipe_at_mini_sizes():
    one, _ = parse(["--config", "course", "--model", "mini", "--batch-size", "256", "--lr", "1e-3",
                    "--mixed-precision", "bf16", "--out-dir", "runs/gpu/course-mini"])
    two, _ = parse(["--config", "course-128", "--model", "mini", "--batch-size", "128", "--lr", "1e-3",
                    "--init-from", "runs/gpu/course-mini/final", "--out-dir", "runs/gpu/course-mini-128"])
    assert (one.max_seq_length, two.max_seq_length, one.nsp, two.nsp) == (32, 128, False, False)
    text = SCRIPT.read_text()
    assert "--config course --model mini" in text and "--config course-128 --model mini" in text


# The stored results of the day it ran (results/gpu/): they say what ran, and the model it made is
# checked again on this CPU.
RESULTS = SCRIPT.parents[1] / "results" / "gpu"
MODEL = RESULTS / "course-mini"


def test_every_step_ran_and_the_readme_quotes_the_benchmark():
    steps = (RESULTS / "logs" / "steps.tsv").read_text().splitlines()[1:]
    assert {line.split("\t")[0] for line in steps} >= {"preflight", "data", "pretrain_speed", "calibration",
                                                      "phase1", "phase2", "pretrain_speed_compile"}
    assert all(line.split("\t")[1] == "0" for line in steps), steps
    readme = (RESULTS / "README.md").read_text(encoding="utf-8")
    rows = {**json.loads((RESULTS / "pretrain_speed_base.json").read_text())["rows"],
            **{f"{k} (compiled run)": v for k, v in
               json.loads((RESULTS / "pretrain_speed_base_compile.json").read_text())["rows"].items()}}
    for name in ("plain", "bf16", "all, unpadded", "transformers", "all, compiled (compiled run)"):
        row = rows[name]
        assert f"| {row['tokens_per_s']:,.0f} | {row['mfu']:.1%} |" in readme, name
    ratio = rows["bf16"]["tokens_per_s"] / rows["transformers"]["tokens_per_s"]
    assert f"runs {ratio:.2f} times as many tokens a second as transformers" in readme


def test_the_gpu_model_scores_on_a_cpu_what_it_logged_on_the_gpu():
    """Phase 2's command parses today into its logged settings; the weights, scored here in float32
    on its held-out split, give what the GPU logged in bf16 (to 0.2 points), and the README's
    numbers are the log's."""
    header, end = read_log(MODEL, "run")[0], read_log(MODEL, "end")[-1]
    cfg, _ = parse(shlex.split(header["command"])[3:])
    assert {k: v for k, v in cfg.to_dict().items() if k != "progress"} == {
        k: (tuple(v) if isinstance(v, list) else v) for k, v in header["config"].items() if k != "progress"}
    again = heldout_metrics(dataclasses.replace(cfg, eval_batches=None), str(MODEL))
    assert again["mlm_accuracy_at_mask"] == pytest.approx(end["mlm_accuracy_at_mask"], abs=2e-3)
    assert again["mlm_loss"] == pytest.approx(end["mlm_loss"], abs=5e-3)
    floors = (MODEL / "floors-128.txt").read_text()
    both = float(re.search(r"both\s+([\d.]+)%", floors).group(1))
    readme = (RESULTS / "README.md").read_text(encoding="utf-8")
    assert f"| held out: accuracy at [MASK] | {read_log(MODEL / 'log-phase1.jsonl', 'end')[-1]['mlm_accuracy_at_mask']:.1%} | {end['mlm_accuracy_at_mask']:.1%} |" in readme
    assert f"gets {both:.1f}% of the same [MASK] positions" in readme
    assert f"is {100 * end['mlm_accuracy_at_mask'] - both:.1f} points above it" in readme
    cpu, gpu = map(float, re.search(r"give ([\d.]+)% at \[MASK\] against the ([\d.]+)%", readme).groups())
    assert gpu == round(100 * end["mlm_accuracy_at_mask"], 2)  # a CPU's count may differ by a near tie or two:
    assert cpu == pytest.approx(100 * again["mlm_accuracy_at_mask"], abs=0.2)  # so the README's is checked loosely
