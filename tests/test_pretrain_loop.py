"""The pre-training loop on real text, at CI size: it learns, resumes exactly, stops on NaN, runs
on two processes, writes checkpoints that load elsewhere, and refuses bad input clearly."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import minibert
from minibert.checkpoint import CheckpointError
from minibert.pretrain import TrainingDiverged, diagnose, pretrain, read_log, recipe
from minibert.pretrain.data import DataError
from minibert.training import micro_batch_size

def settings(small, out, **overrides):
    return recipe("tiny", **{**small, "out_dir": str(out), **overrides})


def test_a_short_run_learns_and_leaves_a_loadable_model(small, tmp_path, report):
    transformers = pytest.importorskip("transformers")
    cfg = settings(small, tmp_path / "run", max_steps=100, warmup_steps=10, lr=2e-3, eval_every=50,
                   save_every=50, log_every=10, eval_batches=10, tensorboard=True)
    metrics = pretrain(cfg)
    log = read_log(cfg.out_dir)
    header, evals = log[0], read_log(cfg.out_dir, "eval")
    assert header["kind"] == "run" and [e["step"] for e in evals] == [0, 50, 100]
    assert evals[0]["mlm_loss"] == pytest.approx(header["ln_vocab"], abs=0.3)  # a fresh model: ~uniform
    # Well below ln(V) = 7.6 (a perplexity 3x lower), on text the model has not seen.
    assert metrics["mlm_loss"] < header["ln_vocab"] - 1 and metrics["mlm_accuracy"] > 0.03
    assert diagnose(log) == []
    report(f"pretrain: tiny, 100 steps on 150 documents: held-out MLM loss {evals[0]['mlm_loss']:.2f} -> "
           f"{metrics['mlm_loss']:.2f} (ln V {header['ln_vocab']:.2f}, unigram {header['unigram_entropy']:.2f}), "
           f"accuracy {metrics['mlm_accuracy']:.1%}, NSP {metrics['nsp_accuracy']:.1%}")
    # TensorBoard holds the same numbers as the JSONL log.
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    events = EventAccumulator(str(tmp_path / "run" / "tensorboard")).Reload()
    assert [e.value for e in events.Scalars("eval/mlm_loss")] == pytest.approx([e["mlm_loss"] for e in evals])
    # Checkpoints: the last keep_last=2 are kept, each a Hugging Face folder with its tokenizer.
    steps = sorted(p.name for p in (tmp_path / "run" / "checkpoints").iterdir())
    assert steps == ["step-0000050", "step-0000100"]
    final = tmp_path / "run" / "final"
    ours = minibert.BertForPreTraining.from_pretrained(final)
    theirs = transformers.BertForPreTraining.from_pretrained(final).eval()
    batch = minibert.Tokenizer.from_pretrained(final)(["a whale of a tale ."], ["call me ishmael ."],
                                                      return_tensors="pt")
    with torch.no_grad():
        torch.testing.assert_close(ours(**batch).nsp_logits, theirs(**batch).seq_relationship_logits)
    card = (final / "README.md").read_text()
    assert cfg.train_corpus in card and f"{metrics['mlm_accuracy']:.1%}" in card and "| steps | 100 of 32" in card
    # The headline: accuracy where the piece is hidden, apart from the kept pieces a model may copy.
    assert f"| masked-token accuracy at [MASK] | {metrics['mlm_accuracy_at_mask']:.1%} |" in card
    assert metrics["mlm_accuracy_at_kept"] > metrics["mlm_accuracy_at_mask"]


def test_runs_that_cannot_learn_are_diagnosed(small, tmp_path):
    """Real runs with a learning rate far too small, or far too large: the logs they leave are named."""
    cfg = settings(small, tmp_path / "stuck", lr=1e-9, warmup_steps=0, max_steps=12, batch_size=8,
                   eval_every=4, eval_batches=2)
    pretrain(cfg)
    assert "mlm_at_ln_v" in [f.signature for f in diagnose(cfg.out_dir)]
    # ... and one whose learning rate blows it up (no clipping): loss 9.7 -> 45,000 at step 2.
    cfg = settings(small, tmp_path / "blown", lr=30.0, warmup_steps=0, max_grad_norm=1e9, max_steps=4,
                   batch_size=8, log_every=1, eval_every=4, eval_batches=1)
    pretrain(cfg)
    assert [f.signature for f in diagnose(cfg.out_dir)] == ["exploding_gradients"]


class Killed(Exception):
    pass


def test_a_run_killed_and_resumed_gives_the_same_losses(small, tmp_path, monkeypatch):
    def cfg(out):
        return settings(small, tmp_path / out, max_steps=12, warmup_steps=3, batch_size=8, log_every=1,
                        eval_every=4, save_every=4, eval_batches=5)

    whole = pretrain(cfg("whole"))
    calls, forward = [0], minibert.BertForPreTraining.forward

    def dies_at_step_7(self, *args, **kwargs):
        calls[0] += self.training
        if calls[0] == 7:
            raise Killed
        return forward(self, *args, **kwargs)

    monkeypatch.setattr(minibert.BertForPreTraining, "forward", dies_at_step_7)
    with pytest.raises(Killed):
        pretrain(cfg("cut"))
    monkeypatch.setattr(minibert.BertForPreTraining, "forward", forward)
    with pytest.raises(FileExistsError, match="--resume auto"):
        pretrain(cfg("cut"))  # a second start in the same folder would overwrite the run
    resumed = pretrain(cfg("cut"), resume="auto")
    losses = [[(r["step"], r["loss"], r["grad_norm"]) for r in read_log(tmp_path / run, "train")]
              for run in ("whole", "cut")]
    assert losses[0] == losses[1] and len(losses[0]) == 12  # bit for bit, steps 5-12 after the resume
    assert resumed == whole


def test_the_watchdog_stops_on_nan_and_keeps_the_last_good_checkpoint(small, tmp_path, monkeypatch):
    cfg = settings(small, tmp_path / "nan", max_steps=10, warmup_steps=2, batch_size=8, log_every=1,
                   eval_every=5, save_every=3, eval_batches=3)
    calls, forward = [0], minibert.BertForPreTraining.forward

    def nan_at_step_5(self, *args, **kwargs):
        out = forward(self, *args, **kwargs)
        calls[0] += self.training
        if calls[0] == 5:
            out.loss = out.loss * float("nan")
        return out

    monkeypatch.setattr(minibert.BertForPreTraining, "forward", nan_at_step_5)
    with pytest.raises(TrainingDiverged, match=r"step 5: the loss is nan.*last good checkpoint is .*step-0000003") as e:
        pretrain(cfg)
    assert f"--init-from {tmp_path / 'nan/checkpoints/step-0000003/model'}" in str(e.value)  # a new run's start
    assert read_log(cfg.out_dir)[-1]["kind"] == "diverged"
    assert [f.signature for f in diagnose(cfg.out_dir)] == ["exploding_gradients"]
    good = minibert.BertForPreTraining.from_pretrained(tmp_path / "nan/checkpoints/step-0000003/model")
    assert all(torch.isfinite(p).all() for p in good.parameters())


def test_one_batch_is_learned_by_heart(small):
    """Overfitting one fixed batch: the loss must go to ~0, or model, loss or optimiser is broken."""
    from minibert.pretrain.data import collator, prepare_shards, prepare_vocab
    from minibert.training import build_optimizer
    from minibert.pretrain.shards import ShardDataset
    from minibert.tokenizer import load_vocab

    cfg = recipe("tiny", **small, lr=1e-3, warmup_steps=0, max_steps=10_000)
    vocab_path = prepare_vocab(cfg)
    vocab = load_vocab(vocab_path)
    dataset = ShardDataset(prepare_shards(cfg, vocab_path, "valid"))
    batch = collator(cfg, vocab, seed=0, static=True)([dataset[i] for i in range(8)])
    torch.manual_seed(0)
    model = minibert.BertForPreTraining(cfg.model_config(len(vocab)))
    optimizer, _ = build_optimizer(model, lr=cfg.lr, warmup_steps=0, total_steps=cfg.max_steps)
    for _ in range(150):
        optimizer.zero_grad()
        out = model(**batch)
        out.loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        out = model(**batch)
    assert out.mlm_loss < 0.05 and out.nsp_loss < 0.05
    assert (out.mlm_logits.argmax(-1) == batch["labels"][batch["labels"] != -100]).all()


def test_two_processes_train_one_model(small, tmp_path, report):
    """`torchrun --nproc_per_node 2` on CPU (gloo): both ranks end with identical weights, each did
    half of every batch, and the losses are those of one process doing the whole batch."""
    from minibert.pretrain.data import prepare_vocab

    common = dict(small, vocab=str(prepare_vocab(recipe("tiny", **small))), max_steps=6, warmup_steps=2,
                  batch_size=8, log_every=1, eval_every=3, save_every=3, eval_batches=4,
                  model_overrides={"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0})
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("ACCELERATE_USE_CPU", None)  # the loop must find out by itself that this is a CPU run
    two = tmp_path / "two"
    subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
                    "tests/scripts/ddp_pretrain.py", json.dumps({**common, "out_dir": str(two)})],
                   env=env, check=True, capture_output=True)
    ranks = [torch.load(two / f"rank{r}.pt") for r in (0, 1)]
    assert [r["processes"] for r in ranks] == [2, 2]
    for name, tensor in ranks[0]["weights"].items():
        assert torch.equal(tensor, ranks[1]["weights"][name]), name
    header = read_log(two)[0]
    assert (header["processes"], header["micro_batch"]) == (2, 4)
    one = recipe("tiny", **{**common, "out_dir": str(tmp_path / "one")})
    pretrain(one)
    assert read_log(one.out_dir)[0]["micro_batch"] == 8
    # Same instances and masks, so the first step's loss agrees; later steps differ a little, as
    # the MLM loss of two processes is a mean of two half-batch means, not one mean of all tokens.
    one_log, two_log = read_log(one.out_dir, "train"), read_log(two, "train")
    assert [r["tokens"] for r in one_log] == [r["tokens"] for r in two_log] == [1024 * s for s in range(1, 7)]
    assert one_log[0]["loss"] == pytest.approx(two_log[0]["loss"], rel=1e-3)
    assert all(a["loss"] == pytest.approx(b["loss"], rel=5e-3) for a, b in zip(one_log, two_log, strict=True))
    report(f"pretrain: 2 processes (gloo) vs 1: identical weights on both ranks; losses "
           f"{[round(r['loss'], 4) for r in read_log(two, 'train')]} vs "
           f"{[round(r['loss'], 4) for r in read_log(one.out_dir, 'train')]}")


def test_phase_two_starts_from_phase_one_weights(small, tmp_path):
    """The paper's two phases in miniature: 64 tokens, then 128 from phase 1's final weights."""
    one = settings(small, tmp_path / "p1", max_steps=40, warmup_steps=4, lr=2e-3, max_seq_length=64, eval_batches=4)
    pretrain(one)
    two = settings(small, tmp_path / "p2", max_steps=1, warmup_steps=1, eval_batches=4,
                   init_from=str(tmp_path / "p1/final"))
    pretrain(two)
    header, start = read_log(two.out_dir)[0], read_log(two.out_dir, "eval")[0]
    assert header["config"]["max_seq_length"] == 128 and start["step"] == 0
    assert start["mlm_loss"] < header["ln_vocab"] - 0.5  # a fresh model starts at ~ln V
    with pytest.raises(CheckpointError, match="mismatched shapes"):  # phase 1 of another vocabulary
        pretrain(settings(small, tmp_path / "p3", vocab_size=1500, max_steps=1, init_from=str(tmp_path / "p1/final")))


def test_a_compiled_run_saves_plain_weights(small, tmp_path):
    """--compile (the encoder compiled in place) saves the model in the plain Hugging Face layout,
    not under a compiled wrapper's "_orig_mod." names."""
    cfg = settings(small, tmp_path / "compiled", compile=True, max_steps=2, warmup_steps=1, batch_size=4,
                   eval_batches=1, max_seq_length=32)
    pretrain(cfg)
    minibert.BertForPreTraining.from_pretrained(tmp_path / "compiled/final", strict=True)


def test_gradient_accumulation_sees_the_same_batch_in_pieces(small, tmp_path):
    common = dict(max_steps=3, warmup_steps=1, batch_size=8, log_every=1, eval_every=3, save_every=3,
                  eval_batches=2, model_overrides={"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0})
    whole = settings(small, tmp_path / "whole", **common)
    pieces = settings(small, tmp_path / "pieces", grad_accum=4, **common)
    pretrain(whole), pretrain(pieces)
    a, b = read_log(whole.out_dir, "train"), read_log(pieces.out_dir, "train")
    assert read_log(pieces.out_dir)[0]["micro_batch"] == 2 and [r["tokens"] for r in a] == [r["tokens"] for r in b]
    assert a[0]["loss"] == pytest.approx(b[0]["loss"], rel=1e-3)  # a mean of 4 means vs one mean
    assert all(x["loss"] == pytest.approx(y["loss"], rel=5e-3) for x, y in zip(a, b, strict=True))


def test_the_command_line_runs_a_preset_and_refuses_to_overwrite_it(small, tmp_path):
    command = [sys.executable, "-m", "minibert.pretrain", "--config", "tiny", "--max-steps", "2",
               "--warmup-steps", "1", "--batch-size", "4", "--eval-batches", "1", "--out-dir", str(tmp_path / "cli")]
    for key in ("train_corpus", "valid_corpus", "cache_dir", "vocab_size"):
        command += ["--" + key.replace("_", "-"), str(small[key])]
    command += ["--no-progress", "--no-tensorboard"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    assert math.isfinite(json.loads(done.stdout)["mlm_loss"])
    assert "no known failure signature in the log" in done.stderr
    assert "--max-steps 2" in (tmp_path / "cli/final/README.md").read_text()  # the card quotes the command
    again = subprocess.run(command, capture_output=True, text=True)
    assert again.returncode == 1 and again.stderr.startswith("error: ") and "--resume auto" in again.stderr
    assert "Traceback" not in again.stderr


def test_a_launch_that_accelerate_does_not_see_is_refused(monkeypatch):
    from minibert.training import accelerator

    class OneProcess:  # what a default Accelerator reports in each of 2 CPU processes
        num_processes = 1

        def __init__(self, **kwargs):
            pass

    monkeypatch.setattr(accelerator, "Accelerator", OneProcess)
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(RuntimeError, match="launched as 2 processes, but accelerate sees 1"):
        accelerator.make_accelerator()


def test_bad_data_and_checkpoints_are_refused_clearly(small, tmp_path):
    with pytest.raises(DataError, match="does not exist.*make setup"):
        pretrain(settings(small, tmp_path / "a", train_corpus=str(tmp_path / "nowhere.txt")))
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(DataError, match="is empty"):
        pretrain(settings(small, tmp_path / "b", train_corpus=str(tmp_path / "empty.txt")))
    (tmp_path / "no_shards").mkdir()
    with pytest.raises(DataError, match="no finished shards"):
        pretrain(settings(small, tmp_path / "c", valid_corpus=str(tmp_path / "no_shards")))
    with pytest.raises(ValueError, match="batch_size=6 sequences cannot be split evenly over 4 process"):
        micro_batch_size(6, 1, processes=4)
    first = settings(small, tmp_path / "e", max_steps=2, warmup_steps=1, batch_size=4, eval_batches=2, save_every=1)
    pretrain(first)
    other = settings(small, tmp_path / "e", max_steps=2, warmup_steps=1, batch_size=4, eval_batches=2,
                     save_every=1, model="mini", lr=1e-4, tensorboard=True)
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "e").rglob("*")}
    with pytest.raises(CheckpointError, match=r"another config(.|\n)*model: checkpoint 'tiny', now 'mini'(.|\n)*lr:"):
        pretrain(other, resume="auto")
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "e").rglob("*")} == before  # nothing written, not even TensorBoard
    with pytest.raises(CheckpointError, match="not a finished checkpoint"):
        pretrain(first, resume=str(tmp_path))
    assert math.isfinite(read_log(first.out_dir, "end")[0]["mlm_loss"])  # the refusals changed nothing
