"""Chapter 10's launch commands run as written: stream -> shards (training and held out) -> phase 1
-> phase 2 on the right shards, on the local sample, with only the sizes shrunk and `python` in place
of `accelerate launch` (no GPU here). The other ways to launch are checked to be accepted (--plan)."""

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from minibert.corpus import moby_dick, wikipedia
from minibert.corpus.stream import local_sample
from minibert.hub import cached
from minibert.pretrain import read_log

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "notebooks" / "10_scale.ipynb"
CACHE = ROOT / "data" / "cache"
pytestmark = pytest.mark.skipif(
    any(cached(s.package, CACHE) is None for s in (wikipedia.SOURCE, moby_dick.SOURCE)),
    reason="the course's packages are not cached: run `make setup` (or `python -m minibert.corpus prepare`)")
# The sizes: a few steps of a 1-layer model; 30% of the sample's documents held out (it has too
# few for one in 2,000).
SMALL = ["--max-steps", "2", "--warmup-steps", "1", "--batch-size", "4", "--eval-batches", "1", "--save-every", "2",
         "--log-every", "1", "--model.num_hidden_layers", "1", "--model.hidden_size", "32",
         "--model.num_attention_heads", "2", "--model.intermediate_size", "64", "--no-progress", "--no-tensorboard"]


def blocks() -> dict[str, list[str]]:
    """The chapter's shell blocks that launch something, by what they do, each as its command lines."""
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    found = [block.replace("\\\n", " ") for c in cells if c["cell_type"] == "markdown"
             for block in re.findall(r"```\n(.*?)```", "".join(c["source"]), re.S)]
    roles = {"data": "minibert.corpus stream", "phases": "DATA_512=", "others": "--resume auto", "lamb": "deepspeed_lamb"}
    chosen = {role: [b for b in found if mark in b] for role, mark in roles.items()}
    assert all(len(b) == 1 for b in chosen.values()), {role: len(b) for role, b in chosen.items()}
    return {role: [line for line in b.splitlines() if line.strip() and not line.startswith("#")]
            for role, (b,) in chosen.items()}


def as_run_here(line: str, sample: dict[str, Path], variables: dict[str, str]) -> list[str] | None:
    """One line of the chapter as this machine runs it (None: a variable set, kept in `variables`)."""
    if m := re.fullmatch(r'(\w+)="(.*)"', line):
        variables[m[1]] = m[2]
        return None
    for name, value in {**variables, "RANK": "0", "WORLD_SIZE": "1"}.items():
        line = line.replace(f"${name}", value)
    words = shlex.split(line)
    if words[:2] == ["accelerate", "launch"]:
        words = ["python", *words[words.index("-m"):]] + SMALL
    if words[:4] == ["python", "-m", "minibert.corpus", "stream"]:
        at = words.index("--source") + 1
        words[at:at + 1] = [str(sample[words[at]])] + (["--like", "bookcorpus"] if words[at] == "bookcorpus" else [])
        words += ["--held-out", "0.3"]
    if words[:3] == ["python", "-m", "minibert.pretrain.shards"]:
        words += ["--workers", "1"]
    return [sys.executable, *words[1:]] if words[0] == "python" else words


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    root = tmp_path_factory.mktemp("sample")
    local_sample(root / "wiki", "wikipedia", 2, cache=CACHE, limit=12)
    local_sample(root / "books", "bookcorpus", 2, cache=CACHE, limit=20)
    return {"wikipedia": root / "wiki", "bookcorpus": root / "books"}


def test_the_chapters_blocks_are_found():
    found = blocks()
    assert [len(found[role]) for role in ("data", "phases", "others", "lamb")] == [6, 4, 3, 1]


def test_stream_shards_phase_1_and_phase_2_run_as_written(sample, tmp_path):
    found = blocks()
    data, launch, others = found["data"], found["phases"], found["others"] + found["lamb"]
    variables = {}
    for line in data + launch:
        command = as_run_here(line, sample, variables)
        if command is None:
            continue
        glob = [w for w in command if "*" in w]  # the shell's globbing, done here
        command = [p for w in command for p in (sorted(str(f.relative_to(tmp_path)) for f in tmp_path.glob(w)) if "*" in w else [w])]
        assert all(tmp_path.glob(w) for w in glob), f"{line}: nothing matches {glob}"
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, f"{line}\n{done.stderr[-3000:]}"
        if "minibert.pretrain " in line + " " and "--config" in line:
            assert "train corpus shards/train-" in done.stderr and "held-out corpus shards/valid-" in done.stderr
    for split in ("train", "valid"):
        for T in (128, 512):
            assert json.loads((tmp_path / "shards" / f"{split}-{T}" / "complete.json").read_text())["instances"] > 0
    phase1, phase2 = read_log(tmp_path / "runs" / "base", "run")[0], read_log(tmp_path / "runs" / "base-512", "run")[0]
    assert phase1["config"]["train_corpus"] == "shards/train-128" and phase1["config"]["valid_corpus"] == "shards/valid-128"
    assert phase2["config"]["train_corpus"] == "shards/train-512" and phase2["config"]["init_from"] == "runs/base/final"
    assert phase2["config"]["max_seq_length"] == 512 and (tmp_path / "runs" / "base-512" / "final").is_dir()
    for line in others:  # the other launches: accepted as written
        command = as_run_here(line, sample, variables) + ["--plan"]
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0 and "train corpus shards/train-128" in done.stdout, f"{line}\n{done.stderr[-2000:]}"
