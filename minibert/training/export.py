"""A finished model written to a folder (a run's `final/`, or `--export-to models/course`), whole,
and never over someone's files.

A model folder is replaced only if it is absent, empty, or an earlier export: its README.md is a
model card that minibert wrote (first line `# minibert pre-trained ...`, pretrain/card.py) and every
other entry is a file an export holds (EXPORT_FILES). Anything else is refused, before the run
trains and again before it writes, naming the folder and what in it is not an export's. The new
folder is written beside the old one and renamed into place, so an interrupted export leaves the
old folder, not half of the new one.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ..config import ConfigError

# What an export holds: the weights and config, the tokenizer, the model card and the training logs.
EXPORT_FILES = frozenset({"config.json", "model.safetensors", "vocab.txt", "tokenizer.json", "tokenizer_config.json",
                          "README.md", "log.jsonl", "log-phase1.jsonl"})
CARD_TITLE = "# minibert pre-trained"


def check_replaceable(folder: str | Path, *, flag: str = "--export-to", apart_from: Path | None = None) -> None:
    """Refuse (FileExistsError) a folder that a new export would delete something of; and
    (ConfigError) one that holds the run's folder `apart_from`, or lies inside it."""
    folder = Path(folder)
    if apart_from is not None:
        target, run = folder.resolve(), Path(apart_from).resolve()
        if target == run or run in target.parents or target in run.parents:
            raise ConfigError(f"{flag} {folder} and the run's folder {apart_from} overlap (one holds the other); "
                              f"give a {flag} outside it (nothing was changed)")
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise FileExistsError(f"{folder} is a link or a file, not a folder a model can be written to; "
                              f"choose another {flag} (nothing was changed)")
    if not folder.exists() or not any(folder.iterdir()):
        return
    others = sorted(p.name for p in folder.iterdir() if p.name not in EXPORT_FILES or not p.is_file())
    if others or not is_card(folder / "README.md"):
        what = (f"holds {', '.join(others[:5])}{' ...' if len(others) > 5 else ''}, which an export does not write"
                if others else "has no model card that minibert wrote (README.md)")
        raise FileExistsError(f"{folder} is not empty and not an earlier export of minibert: it {what}. "
                              f"Writing the model there would delete it: choose another {flag}, or remove {folder} "
                              "yourself (nothing was changed)")


def is_card(path: Path) -> bool:
    if not path.is_file():
        return False
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.readline().startswith(CARD_TITLE)


def write_whole(folder: str | Path, fill, *, flag: str = "--export-to") -> Path:
    """`fill(new)` writes the model into `new`, a folder beside `folder` that does not exist yet;
    then `new` replaces `folder`. Refused (FileExistsError) if `folder` is not replaceable."""
    folder = Path(folder)
    check_replaceable(folder, flag=flag)
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".partial", dir=folder.parent))
    try:
        fill(staging / folder.name)
        check_replaceable(folder, flag=flag)  # again: it may have changed while the new one was written
        if folder.exists():  # an earlier export: its files one by one, so nothing else can go with them
            for name in EXPORT_FILES:
                (folder / name).unlink(missing_ok=True)
            folder.rmdir()  # fails, deleting nothing more, if anything else appeared in it meanwhile
        (staging / folder.name).rename(folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # made above, by mkdtemp: only ever ours
    return folder
