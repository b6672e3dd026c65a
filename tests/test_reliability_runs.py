"""A careless user's folders: a run never deletes files it did not write, two runs into one folder
cannot both "succeed", a run that died before its first checkpoint can simply be started again,
and saved weights are readable like any other file."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import minibert
from minibert.ablations import TABLES, budget
from minibert.ablations import cells
from minibert.config import BertConfig, ConfigError
from minibert.finetune.loop import make_room
from minibert.finetune.recipes import FinetuneConfig
from minibert.finetune.sweep import finished
from minibert.pretrain import pretrain, read_log, recipe
from minibert.training import export
from minibert.training.claim import LOCK_FILE, Claim, FolderInUse, claimed

TINY = dict(max_steps=2, warmup_steps=1, batch_size=4, eval_batches=1, max_seq_length=32, save_every=1, log_every=1)


def settings(small, out, **overrides):
    return recipe("tiny", **{**small, **TINY, "out_dir": str(out), **overrides})


def snapshot(folder: Path) -> dict:
    """Every entry under `folder` with its contents (files) and modification time."""
    return {p: (p.read_bytes() if p.is_file() else None, p.stat().st_mtime_ns) for p in sorted(folder.rglob("*"))}


def user_folder(path: Path) -> Path:
    (path / "drafts").mkdir(parents=True)
    (path / "notes.txt").write_text("a month of notes")
    (path / "drafts" / "chapter.md").write_text("# chapter")
    return path


# --- 1. --export-to, final/ and the other folders a run replaces or removes


def test_export_to_a_folder_of_other_files_is_refused_before_training(small, tmp_path):
    mine = user_folder(tmp_path / "mine")
    before = snapshot(mine)
    with pytest.raises(FileExistsError, match=r"mine is not empty and not an earlier export of minibert: it holds "
                                              r"drafts, notes.txt, which an export does not write.*choose another "
                                              r"--export-to, or remove .*mine yourself \(nothing was changed\)"):
        pretrain(settings(small, tmp_path / "run", export_to=str(mine)))
    assert snapshot(mine) == before
    assert not (tmp_path / "run").exists()  # refused before the run wrote anything, or trained
    # Files an export would hold, but no model card of minibert's: someone's own model.
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "config.json").write_text("{}")
    (theirs / "README.md").write_text("# my fine-tuned BERT\n")
    with pytest.raises(FileExistsError, match="has no model card that minibert wrote"):
        pretrain(settings(small, tmp_path / "run", export_to=str(theirs)))
    assert (theirs / "README.md").read_text() == "# my fine-tuned BERT\n"
    with pytest.raises(ConfigError, match="overlap"):  # the export would replace the run, or hold it
        pretrain(settings(small, tmp_path / "run", export_to=str(tmp_path)))


def test_an_out_dir_holding_someone_elses_final_folder_is_refused(small, tmp_path):
    mine = user_folder(tmp_path / "thesis" / "final")
    before = snapshot(mine)
    with pytest.raises(FileExistsError, match=r"final is not empty and not an earlier export.*--out-dir"):
        pretrain(settings(small, tmp_path / "thesis"))
    assert snapshot(mine) == before and sorted(p.name for p in (tmp_path / "thesis").iterdir()) == ["final"]


def test_re_exporting_replaces_an_earlier_export_with_files_anyone_can_read(small, tmp_path):
    target = tmp_path / "models" / "course"
    old = os.umask(0o022)
    try:
        pretrain(settings(small, tmp_path / "one", export_to=str(target)))
        first = (target / "README.md").read_text()
        pretrain(settings(small, tmp_path / "two", export_to=str(target), seed=1))
    finally:
        os.umask(old)
    assert export.is_card(target / "README.md") and (target / "README.md").read_text() != first
    assert sorted(p.name for p in target.iterdir()) == sorted(p.name for p in (tmp_path / "two" / "final").iterdir())
    assert sorted(p.name for p in target.parent.iterdir()) == ["course"]  # nothing left beside it
    minibert.BertForPreTraining.from_pretrained(target, strict=True)
    state = next((tmp_path / "two" / "checkpoints").glob("step-*/state"))
    for path in [target / "model.safetensors", tmp_path / "two/final/model.safetensors", *state.glob("*.safetensors")]:
        assert path.stat().st_mode & 0o777 == 0o644, path  # finding 4: was 0o600


def test_a_folder_changed_during_the_run_is_not_replaced(tmp_path):
    """Checked again before the export is written: a file put there meanwhile stays, and so does the
    earlier export; the error says where the run's model is."""
    target = tmp_path / "export"
    target.mkdir()
    (target / "README.md").write_text("# minibert pre-trained with `tiny` sizes\n")
    (target / "config.json").write_text("{}")

    def fill(new: Path) -> None:
        new.mkdir()
        (new / "config.json").write_text('{"new": 1}')
        (target / "notes.txt").write_text("dropped in while the model was written")

    with pytest.raises(FileExistsError, match="holds notes.txt"):
        export.write_whole(target, fill)
    assert sorted(p.name for p in target.iterdir()) == ["README.md", "config.json", "notes.txt"]
    assert (target / "config.json").read_text() == "{}" and sorted(p.name for p in tmp_path.iterdir()) == ["export"]


def test_a_sweep_restarting_a_killed_run_removes_only_what_a_run_writes(tmp_path):
    out = tmp_path / "sweep" / "run" / "seed-0"
    (out / "model").mkdir(parents=True)
    (out / "log.jsonl").write_text('{"kind": "run", "step": 0}\n')
    (out / "notes.txt").write_text("mine")
    (out / "model" / "model.safetensors").write_text("half")
    cfg = FinetuneConfig(task="sentiment", out_dir=str(out))
    assert finished(cfg) is None and (out / "log.jsonl").exists()  # finding out changes nothing
    make_room(out, restart=True)  # what finetune(cfg, restart=True) does under its claim
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    (out / "model").mkdir()  # someone's folder named like a run's, no run there: refused, kept
    with pytest.raises(FileExistsError, match=r"already holds model, which a fine-tuning run writes"):
        make_room(out, restart=True)
    assert (out / "model").is_dir()


def test_an_ablation_run_killed_after_a_checkpoint_continues_from_it(tmp_path, monkeypatch):
    """Its checkpoints are in checkpoints/step-*: they are continued from, not deleted."""
    row, ci = TABLES["5"].rows[0], budget("ci")
    folder = tmp_path / "pretrain" / cells.variant_name(row) / "seed-0"
    (folder / "checkpoints" / "step-0000002").mkdir(parents=True)
    (folder / "checkpoints" / "step-0000002" / "COMPLETE").write_text("{}")
    (folder / "log.jsonl").write_text('{"kind": "run", "step": 0}\n')
    asked = []

    class Stop(Exception):
        pass

    def pretrain_(cfg, **kw):
        asked.append(kw["resume"])
        raise Stop

    monkeypatch.setattr(cells, "pretrain", pretrain_)
    with pytest.raises(Stop):
        cells.pretrained_model(row, ci, 0, tmp_path)
    assert asked == ["auto"] and (folder / "checkpoints" / "step-0000002" / "COMPLETE").is_file()


# --- 2. one run at a time in a folder


def wait_for_claim(process: subprocess.Popen, folder: Path, timeout: float = 300) -> None:
    lock, deadline = folder / LOCK_FILE, time.monotonic() + timeout
    while not (lock.is_file() and lock.read_text().startswith(f"process {process.pid} ")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run never claimed its folder"
        time.sleep(0.02)


def one_refused(first: list[str], second: list[str], claimed_folder: Path) -> tuple[subprocess.CompletedProcess, int]:
    """Start `first`; while it holds its folder (paused, so it surely does), start `second`."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    winner = subprocess.Popen(first, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_claim(winner, claimed_folder)
        winner.send_signal(signal.SIGSTOP)
        loser = subprocess.run(second, env=env, capture_output=True, text=True, timeout=300)
    finally:
        winner.send_signal(signal.SIGCONT)
    out, err = winner.communicate(timeout=300)
    assert winner.returncode == 0, err
    return loser, winner.pid


def test_two_fine_tuning_runs_into_one_folder_one_is_refused(tmp_path):
    data = tmp_path / "tasks" / "sentiment"
    data.mkdir(parents=True)
    for split, n in (("train", 12), ("dev", 6), ("test", 6)):
        rows = [{"id": str(i), "text": ["a gripping film", "dull and lifeless"][i % 2], "label": 1 - i % 2}
                for i in range(n)]
        (data / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    command = [sys.executable, "-m", "minibert.finetune", "--task", "sentiment", "--model", "course",
               "--data-dir", str(data.parent), "--epochs", "1", "--batch-size", "4", "--out-dir", str(tmp_path / "ft"),
               "--no-progress", "--no-tensorboard"]
    folder = tmp_path / "ft" / "run" / "seed-0"
    loser, pid = one_refused(command, command, folder)
    assert loser.returncode == 1 and "Traceback" not in loser.stderr
    assert loser.stderr.startswith(f"error: {folder} is in use by another run (process {pid} on ")
    assert "wait for it to end, or choose another --out-dir (nothing was changed)" in loser.stderr
    kinds = [r["kind"] for r in read_log(folder)]
    assert kinds.count("run") == 1 and kinds.count("end") == 1 and kinds[-1] == "end"
    assert (folder / "metrics.json").is_file() and not (folder / LOCK_FILE).exists()


def pretrain_command(small, out: Path, **overrides) -> list[str]:
    command = [sys.executable, "-m", "minibert.pretrain", "--config", "tiny", "--out-dir", str(out),
               "--no-progress", "--no-tensorboard"]
    for key, value in {**{k: v for k, v in small.items() if k not in ("progress", "tensorboard")},
                       **TINY, **overrides}.items():
        command += ["--" + key.replace("_", "-"), str(value)]
    return command


def test_two_pretraining_runs_into_one_folder_one_is_refused(small, tmp_path):
    out = tmp_path / "pre"
    loser, pid = one_refused(pretrain_command(small, out), pretrain_command(small, out), out)
    assert loser.returncode == 1 and "Traceback" not in loser.stderr
    assert loser.stderr.startswith(f"error: {out} is in use by another run (process {pid} on ")
    records = read_log(out)
    assert [r["kind"] for r in records].count("run") == 1 and records[-1]["kind"] == "end"
    assert [r["step"] for r in records if r["kind"] == "train"] == [1, 2]


def test_a_claim_is_released_by_the_run_and_by_its_death(tmp_path):
    folder = tmp_path / "run"
    with claimed(folder):
        with pytest.raises(FolderInUse, match=rf"in use by another run \(process {os.getpid()} on"):
            Claim(folder)
    assert not folder.exists()  # a run that wrote nothing leaves nothing, not even its folder
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from pathlib import Path; "
                               "from minibert.training.claim import Claim; Claim(Path(sys.argv[1])); "
                               "time.sleep(300)", str(folder)])
    try:
        wait_for_claim(holder, folder)
    finally:
        holder.kill()  # SIGKILL: no clean-up of its own
        holder.wait()
    assert (folder / LOCK_FILE).read_text().startswith(f"process {holder.pid} ")  # left behind, and stale
    with claimed(folder):
        assert (folder / LOCK_FILE).read_text().startswith(f"process {os.getpid()} ")


def test_a_run_that_died_can_be_resumed(small, tmp_path):
    """A process killed mid-run leaves run.lock behind; --resume auto takes the folder over."""
    cfg = settings(small, tmp_path / "run")
    pretrain(cfg)
    (Path(cfg.out_dir) / LOCK_FILE).write_text("process 999999999 on a machine that crashed\n")
    pretrain(cfg, resume="auto")
    assert [r["resumed"] for r in read_log(cfg.out_dir, "run")] == [False, True]


# --- 3. a run that failed before its first checkpoint


class Killed(Exception):
    pass


def test_a_run_that_failed_before_its_first_checkpoint_starts_again(small, tmp_path, monkeypatch, capsys):
    cfg = settings(small, tmp_path / "run")
    forward = minibert.BertForPreTraining.forward

    def dies_in_training(self, *args, **kwargs):
        if self.training:
            raise Killed
        return forward(self, *args, **kwargs)

    monkeypatch.setattr(minibert.BertForPreTraining, "forward", dies_in_training)
    with pytest.raises(Killed):
        pretrain(cfg)
    assert (tmp_path / "run" / "log.jsonl").is_file() and not (tmp_path / "run" / LOCK_FILE).exists()
    with pytest.raises(Killed):
        pretrain(cfg)  # a new start is accepted (it was refused: "continue it with --resume auto")
    monkeypatch.setattr(minibert.BertForPreTraining, "forward", forward)
    capsys.readouterr()
    pretrain(cfg, resume="auto")  # and so is --resume auto (it was refused: "no finished checkpoint")
    said = capsys.readouterr().err
    assert f"note: {cfg.out_dir} held a run that stopped before its first checkpoint; starting a new one" in said
    assert [r["resumed"] for r in read_log(cfg.out_dir, "run")] == [False]
    assert read_log(tmp_path / "run" / "log.failed.jsonl", "run")  # the failed run's log is kept
    with pytest.raises(FileExistsError, match="already holds a run; continue it with --resume auto"):
        pretrain(cfg)  # a run with a checkpoint is still never started over


def test_resume_auto_in_a_new_folder_starts_a_new_run(small, tmp_path, capsys):
    cfg = settings(small, tmp_path / "new")
    pretrain(cfg, resume="auto")
    assert f"note: --resume auto: no finished checkpoint in {cfg.out_dir}; starting a new run" in capsys.readouterr().err
    assert read_log(cfg.out_dir, "end")


# --- 4. file permissions


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_saved_weights_get_the_permissions_of_any_new_file(tmp_path, umask, mode):
    model = minibert.BertModel(BertConfig(vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                                          intermediate_size=16, max_position_embeddings=16))
    old = os.umask(umask)
    try:
        model.save_pretrained(tmp_path / "model")
    finally:
        os.umask(old)
    assert (tmp_path / "model" / "model.safetensors").stat().st_mode & 0o777 == mode  # was 0o600 whatever the umask
