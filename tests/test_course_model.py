"""models/course, the course's own BERT: its card, its two logs and the README tell one story, it
clears the floors it was made to clear, and the presets that made it still make it."""

import shlex
from pathlib import Path

import pytest

from minibert.pretrain import heldout_metrics, pretrain, read_log, recipe
from minibert.pretrain.__main__ import parse
from minibert.pretrain.baselines import neighbour_floors

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "models" / "course"
PHASES = {"phase 1": (MODEL / "log-phase1.jsonl", "python -m minibert.pretrain --config course --no-progress"),
          "phase 2": (MODEL / "log.jsonl",
                      "python -m minibert.pretrain --config course-128 --no-progress --export-to models/course")}
SKIP = ("out_dir", "export_to", "progress")  # where it wrote, and whether a bar was drawn


@pytest.mark.parametrize("phase", PHASES)
def test_each_phase_is_its_preset_today(phase):
    """The command in the log parses, today, into the settings the run logged: the preset has not
    drifted from the model it made."""
    log, command = PHASES[phase]
    header, end = read_log(log, "run")[0], read_log(log, "end")[-1]
    assert header["command"] == command
    cfg, _ = parse(shlex.split(command)[3:])
    assert {k: v for k, v in cfg.to_dict().items() if k not in SKIP} == {
        k: (tuple(v) if isinstance(v, list) else v) for k, v in header["config"].items() if k not in SKIP}
    assert end["step"] == cfg.max_steps


def test_the_card_quotes_the_log_and_names_phase_1():
    card = (MODEL / "README.md").read_text(encoding="utf-8")
    end, first = read_log(MODEL, "end")[-1], read_log(MODEL / "log-phase1.jsonl", "end")[-1]
    assert f"| masked-token accuracy at [MASK] | {end['mlm_accuracy_at_mask']:.1%} |" in card
    assert f"| masked-token accuracy, all selected positions | {end['mlm_accuracy']:.1%} |" in card
    assert f"| MLM loss (held out) | {end['mlm_loss']:.3f}" in card
    assert PHASES["phase 1"][1] in card and f"accuracy at [MASK] {first['mlm_accuracy_at_mask']:.1%}" in card
    assert "no next sentence prediction" in card and "## Departures from the paper's recipe" in card


def test_it_reads_more_than_its_neighbours_within_90_minutes():
    """The targets it was made for, recomputed: the stored weights scored on the held-out split at
    [MASK], against the both-neighbour table on the same positions; and docs/pretraining.md says so."""
    cfg = recipe("course-128", eval_batches=None)
    floors, model = neighbour_floors(cfg), heldout_metrics(cfg, str(MODEL))
    end, first = read_log(MODEL, "end")[-1], read_log(MODEL / "log-phase1.jsonl", "end")[-1]
    assert model["mlm_accuracy_at_mask"] == pytest.approx(end["mlm_accuracy_at_mask"], abs=2e-3)  # its log's number
    assert model["mlm_accuracy_at_mask"] > floors["both"]["mask"] + 0.05 and model["mlm_accuracy"] > 0.35
    assert (first["seconds"] + end["seconds"]) / 60 < 90
    readme = (ROOT / "docs" / "pretraining.md").read_text(encoding="utf-8")
    for name, row in (("the most frequent piece", floors["unigram"]), ("the left neighbour's most frequent follower",
                      floors["left"]), ("the table of both neighbours", floors["both"])):
        assert f"| {name} | {row['mask']:.1%} | {row['all']:.1%} |" in readme
    assert (f"| `models/course` | {model['mlm_accuracy_at_mask']:.1%} | {model['mlm_accuracy']:.1%} "
            f"({model['mlm_accuracy_at_kept']:.1%} at kept pieces) |") in readme


def test_the_preset_makes_the_same_first_steps(tmp_path):
    """`--config course` again: the first 50 steps (all in the warm-up, which does not depend on
    max_steps) give the loss the stored run logged (a mean over the same 50 steps), to the precision
    that holds on any CPU."""
    cfg = recipe("course", max_steps=50, eval_every=50, eval_batches=1, save_every=50, log_every=50,
                 out_dir=str(tmp_path / "again"), progress=False, tensorboard=False)
    pretrain(cfg)
    again = {r["step"]: r["loss"] for r in read_log(tmp_path / "again", "train")}
    stored = {r["step"]: r["loss"] for r in read_log(MODEL / "log-phase1.jsonl", "train") if r["step"] <= 50}
    assert stored and set(stored) <= set(again)
    for step, loss in stored.items():
        assert again[step] == pytest.approx(loss, abs=2e-3), step
