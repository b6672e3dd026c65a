"""Checkpoints of a run, for any loop that checkpoints mid-run: everything needed to continue
exactly, and the weights in the Hugging Face layout. (Pre-training does; a fine-tuning run is
short, and writes its model once, at the end.)

    runs/tiny/checkpoints/step-0000500/
        model/                 config.json, model.safetensors, vocab.txt, tokenizer files:
                               loads in minibert (`BertForPreTraining.from_pretrained`) and transformers
        state/                 accelerate's save_state: weights, optimizer, scheduler, the step and
                               tokens seen, and the RNG states of every process
        pretrain_config.json   the settings that made it (the loop names the file)
        COMPLETE               written last: a folder without it was interrupted and is ignored

Pre-training's data position needs no saving of its own: the batch of step k is a function of k
(pretrain/data.py).

Where a run starts (`start`), by what its folder holds:

    resume     out_dir holds                                     the run
    None       no finished checkpoint                            starts at step 0
    None       a finished checkpoint                             is refused: continue with --resume auto
    "auto"     a finished checkpoint                             continues from the newest
    "auto"     no finished checkpoint                            starts at step 0
    a folder   -                                                 continues from it, if it is finished

A run that starts at step 0 where an earlier one stopped before its first checkpoint sets that one's
log aside as log.failed.jsonl (`set_aside`); a folder holding final/ but no checkpoint is refused
(a new run would replace the model in final/).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from ..checkpoint import CheckpointError, usual_mode
from ..tokenizer import Tokenizer


class Progress:
    """The step, the tokens seen and the seconds spent training; saved with the state so a resumed
    run knows where it is."""

    def __init__(self):
        self.step, self.tokens, self.seconds = 0, 0, 0.0

    def state_dict(self) -> dict:
        return {"step": self.step, "tokens": self.tokens, "seconds": self.seconds}

    def load_state_dict(self, state: dict) -> None:
        self.step, self.tokens, self.seconds = state["step"], state["tokens"], state["seconds"]


def save(accelerator, model, *, out_dir: Path, progress: Progress, settings: str, settings_file: str,
         keep_last: int, vocab: Path, lowercase: bool) -> Path:
    """Every process writes its part of the state; the main process writes the weights, the
    tokenizer and `settings` (the run's config as JSON) into `settings_file`, then COMPLETE."""
    folder = Path(out_dir) / "checkpoints" / f"step-{progress.step:07d}"
    accelerator.save_state(str(folder / "state"))
    state = accelerator.get_state_dict(model)  # gathered: a collective under FSDP and ZeRO-3
    if accelerator.is_main_process:
        export_model(accelerator.unwrap_model(model), state, folder / "model", vocab, lowercase)
        (folder / settings_file).write_text(settings, encoding="utf-8")
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        for path in (folder / "state").glob("*.safetensors"):  # accelerate's, written by safetensors
            usual_mode(path)
        (folder / "COMPLETE").write_text(json.dumps(progress.state_dict()) + "\n")
        prune(Path(out_dir), keep_last)
    accelerator.wait_for_everyone()
    return folder


def export_model(model, state: dict, folder: Path, vocab: Path, lowercase: bool) -> Path:
    """The weights and the tokenizer in the Hugging Face layout."""
    # A model wrapped by torch.compile(model) has a state dict whose every key starts with "_orig_mod."
    # (the loop's --compile compiles in place, `Module.compile`, and keeps the plain names).
    model.save_pretrained(folder, state_dict={k.removeprefix("_orig_mod."): v for k, v in state.items()})
    Tokenizer.from_vocab(vocab, lowercase=lowercase).save(folder)
    return folder


def completed(out_dir: Path) -> list[Path]:
    """The finished checkpoints of a run, oldest first."""
    return sorted(p.parent for p in (out_dir / "checkpoints").glob("step-*/COMPLETE"))


def prune(out_dir: Path, keep_last: int) -> None:
    for old in completed(out_dir)[:-keep_last]:
        shutil.rmtree(old)


def start(resume: str | None, out_dir: str | Path) -> Path | None:
    """The checkpoint a run in `out_dir` continues from, or None for a new run (see the table above).
    Refusals are FileExistsError or CheckpointError, and change nothing."""
    out = Path(out_dir)
    if resume not in (None, "auto"):
        return find(resume)
    found = completed(out)
    if found and resume == "auto":
        return found[-1]
    if found:
        raise FileExistsError(f"{out} already holds a run; continue it with --resume auto, or choose "
                              "another --out-dir (nothing was changed)")
    if (out / "final").exists():
        raise FileExistsError(f"{out} holds a finished model ({out / 'final'}) but no checkpoint to continue "
                              f"from, so a new run would replace it; choose another --out-dir, or move "
                              f"{out / 'final'} away yourself (nothing was changed)")
    return None


def set_aside(out_dir: Path, resume: str | None = None) -> str | None:
    """Before a new run in `out_dir` (no finished checkpoint there, see `start`): the log of a run
    that stopped before its first checkpoint becomes log.failed.jsonl (replacing an older one), and
    the checkpoint folders it left unfinished are removed. Returns what the user should be told:
    that, or that `resume` "auto" found nothing to continue; else None."""
    log, failed = out_dir / "log.jsonl", out_dir / "log.failed.jsonl"
    unfinished = [p for p in (out_dir / "checkpoints").glob("step-*")
                  if re.fullmatch(r"step-\d{7}", p.name) and p.is_dir() and not (p / "COMPLETE").exists()]
    for folder in unfinished:
        shutil.rmtree(folder)
    if not log.is_file():
        return f"--resume auto: no finished checkpoint in {out_dir}; starting a new run" if resume == "auto" else None
    log.replace(failed)
    return (f"{out_dir} held a run that stopped before its first checkpoint; starting a new one "
            f"(the old run's log is kept as {failed})")


def find(resume: str) -> Path:
    """`resume`, a checkpoint folder, if it is finished (`start` handles "auto")."""
    folder = Path(resume)
    if not (folder / "COMPLETE").is_file():
        raise CheckpointError(f"{resume} is not a finished checkpoint (a step-NNNNNNN folder holding "
                              "COMPLETE); pass one from <out_dir>/checkpoints, or --resume auto")
    return folder


def check_compatible(folder: Path, settings: str, settings_file: str, must_match: tuple[str, ...],
                     defaults: dict | None = None) -> None:
    """Refuse to resume a checkpoint made by other settings, naming every one of `must_match` (the
    settings that change what a run computes) that differs. The rest (logging, evaluation,
    checkpoint cadence, workers) may change between the two runs. A setting the checkpoint does
    not name was added since it was made: it ran with that setting's default (`defaults`)."""
    saved = {**(defaults or {}), **json.loads((folder / settings_file).read_text(encoding="utf-8"))}
    now = json.loads(settings)
    differ = [f"{k}: checkpoint {saved.get(k)!r}, now {now[k]!r}" for k in must_match if saved.get(k) != now[k]]
    if differ:
        raise CheckpointError(f"{folder} was made by another config, so resuming would not continue that "
                              "run:\n  " + "\n  ".join(differ) + "\nResume with the checkpoint's settings "
                              f"(they are in {folder / settings_file}) or start a new out_dir.")
