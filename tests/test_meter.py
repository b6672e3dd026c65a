"""The meter both loops log through (minibert/training/meter.py): a record's loss is the mean over
the steps since the record before (not the last batch's), its gradient norm the largest, its tokens
counted with and without [PAD]; and fine-tuning's log says so."""

import json

import pytest
import torch

from minibert.finetune import FinetuneConfig, finetune
from minibert.finetune import loop as finetune_loop
from minibert.inputs import IGNORE_INDEX
from minibert.training import Meter, make_accelerator
from test_finetune import data_dir  # noqa: F401  (the small task files every fine-tuning test uses)


def batch(lengths, T, labelled):
    """A (B, T) batch whose rows hold `lengths` real tokens, `labelled` positions labelled in each."""
    mask = torch.arange(T)[None, :] < torch.tensor(lengths)[:, None]
    labels = torch.full((len(lengths), T), IGNORE_INDEX)
    labels[:, :labelled] = 1
    return {"input_ids": torch.zeros(len(lengths), T, dtype=torch.long), "attention_mask": mask.long(),
            "labels": labels}


def test_a_window_holds_the_mean_losses_the_largest_norm_and_the_tokens():
    accelerator = make_accelerator(mixed_precision="no")
    meter = Meter(("loss", "mlm_loss"), accelerator.device)
    assert not meter.open
    for loss, norm in ((4.0, 1.5), (2.0, 3.0), (3.0, 0.5)):  # one micro-batch a step
        meter.add([torch.tensor(loss), torch.tensor(loss / 2)], batch([3, 5], 8, 2))
        meter.step(norm)
    assert meter.open
    w = meter.flush(accelerator)
    assert w.losses == {"loss": pytest.approx(3.0), "mlm_loss": pytest.approx(1.5)}  # the mean, not the last (3.0)
    assert (w.steps, w.grad_norm) == (3, 3.0)
    assert (w.positions, w.real, w.predicted) == (3 * 16, 3 * 8, 3 * 4)
    assert w.tokens_per_s == pytest.approx(w.positions / w.seconds)
    assert not meter.open and meter.flush(accelerator).steps == 0  # a new window after each record


def test_micro_batches_of_one_step_are_averaged_by_their_share():
    accelerator = make_accelerator(mixed_precision="no")
    meter = Meter(("loss",), accelerator.device)
    for loss in (1.0, 3.0):  # one step of two micro-batches (grad_accum 2)
        meter.add([torch.tensor(loss)], batch([4], 4, 1), parts=2)
    meter.step(1.0)
    w = meter.flush(accelerator)
    assert w.losses["loss"] == pytest.approx(2.0) and w.positions == 8 and w.predicted == 2


def test_a_batch_without_labels_counts_no_predicted_positions():
    accelerator = make_accelerator(mixed_precision="no")
    meter = Meter(("loss",), accelerator.device)
    spans = {k: v for k, v in batch([2], 3, 0).items() if k != "labels"}  # question answering: start/end instead
    meter.add([torch.tensor(1.0)], spans)
    meter.step(0.0)
    assert meter.flush(accelerator).predicted == 0


def test_fine_tuning_logs_the_window_mean(data_dir, tmp_path, monkeypatch):  # noqa: F811
    seen = []  # every step's loss, as the loop hands it to the meter

    class Recording(Meter):
        def add(self, losses, batch, *, parts=1):
            seen.append(float(losses[0]))
            super().add(losses, batch, parts=parts)

    monkeypatch.setattr(finetune_loop, "Meter", Recording)
    cfg = FinetuneConfig(task="sentiment", model="course", data_dir=str(data_dir), epochs=1, batch_size=2,
                         log_every=3, out_dir=str(tmp_path / "run"), progress=False, tensorboard=False)
    finetune(cfg)
    records = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    train = [r for r in records if r["kind"] == "train"]
    assert train[0]["step"] == 3 and len(seen) >= 6 and len(set(seen[:3])) > 1
    assert train[0]["loss"] == pytest.approx(sum(seen[:3]) / 3) and train[0]["loss"] != pytest.approx(seen[2])
    assert train[1]["loss"] == pytest.approx(sum(seen[3:6]) / 3)
    assert all(r["tokens_per_s"] > 0 and r["grad_norm"] >= 0 for r in train)
