"""Your own copy of the course, and JupyterLab on it (what `make course` runs).

    python notebooks/course.py             # make or complete course/, then open JupyterLab on it
    python notebooks/course.py --prepare   # only make or complete course/

The notebooks in notebooks/ and exercises/ belong to the course: the tests run them, and an update
of the course replaces them. You work in course/ (not tracked), which has the same layout:

    course/notebooks/NN_topic.ipynb            the chapters
    course/exercises/NN_topic.ipynb            the exercises, yours to fill in
    course/exercises/solutions/NN_topic.ipynb  the solutions
    course/data, course/models, course/results,   links to the repository's folders
    course/minibert, course/configs

so every relative link (a chapter to its exercises, an exercise to its chapter or its solution) and
every relative path a chapter reads (`../data/corpus/train.txt`, `../models/course`) leads to the
same place as in the repository, and JupyterLab, served from course/, never opens (and never
autosaves) the course's own notebooks. A notebook is copied only when course/ lacks it: your work is
never overwritten. To start one over, delete your copy and run `make course` again; when the course
has a newer version of a notebook you have, `make course` says so (rename your copy to keep it, then
run `make course` again to get the new one). Fresh copies are trusted (`jupyter trust`), so their
stored interactive views (bertviz) show before you run anything.
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORKSPACE = ROOT / "course"
# What is copied (the learner's to change) and what is linked (read through ../ by the chapters).
NOTEBOOKS = ("notebooks", "exercises", "exercises/solutions")
LINKED = ("data", "models", "results", "minibert", "configs")
DOCS = ("notebooks/README.md", "exercises/README.md")  # the course's guides: refreshed every time
ORIGIN = ".origin.json"  # the sha256 each notebook had in the course when it was copied
OLD_EXERCISES = ROOT / "exercises" / "mine"  # where `make course` used to put the exercises


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def course_notebooks(root: Path = ROOT) -> list[Path]:
    """The notebooks a workspace holds a copy of, relative to the repository: chapters, exercises, solutions."""
    return [path.relative_to(root) for folder in NOTEBOOKS
            for path in sorted((root / folder).glob("[0-9][0-9]_*.ipynb"))]


def trust(path: Path) -> None:
    """`jupyter trust path`: JupyterLab then runs the scripts of its stored outputs (bertviz's views)."""
    import nbformat
    from nbformat.sign import NotebookNotary

    # The signatures live in the Jupyter data folder (~/.local/share/jupyter, or $JUPYTER_DATA_DIR).
    NotebookNotary().sign(nbformat.read(path, as_version=4))


def prepare(workspace: Path = WORKSPACE, root: Path = ROOT, old_exercises: Path | None = None) -> list[str]:
    """Make or complete the learner's workspace; returns what a learner should know about it.

    Copies each course notebook that `workspace` lacks (never overwrites one; an exercise done in
    `old_exercises`, where they used to go, is taken from there), links data/, models/, results/, minibert/ and
    configs/,
    refreshes the guides, and trusts every copy that still equals the course's notebook.
    """
    notes = []
    workspace.mkdir(parents=True, exist_ok=True)
    for name in LINKED:
        link = workspace / name
        if not link.is_symlink() and not link.exists():
            link.symlink_to(os.path.relpath(root / name, workspace), target_is_directory=True)
    for doc in DOCS:
        (workspace / doc).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / doc, workspace / doc)
    origin_file = workspace / ORIGIN
    origin = json.loads(origin_file.read_text()) if origin_file.exists() else {}
    for name in course_notebooks(root):
        source, copy, key = root / name, workspace / name, name.as_posix()
        copy.parent.mkdir(parents=True, exist_ok=True)
        old = old_exercises / name.name if old_exercises else None
        if not copy.exists() and name.parent.as_posix() == "exercises" and old and old.exists():
            shutil.copyfile(old, copy)  # the learner's work from before course/ existed
            notes.append(f"{key}: copied your exercises/mine/{name.name}")
        elif not copy.exists():
            shutil.copyfile(source, copy)
            origin[key] = sha256(source)
        elif key in origin and origin[key] != sha256(source):
            notes.append(f"{key}: the course has a newer version; yours is kept. To take the new one, rename "
                         f"yours (e.g. to {copy.stem}-mine.ipynb) and run `make course` again.")
        if filecmp.cmp(source, copy, shallow=False):
            trust(copy)
    origin_file.write_text(json.dumps(origin, indent=1, sort_keys=True) + "\n")
    return notes


def lab_command(workspace: Path = WORKSPACE, *options: str) -> list[str]:
    """JupyterLab served from `workspace`, opened on its chapters; `options` go to `jupyter lab`."""
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={workspace}",
               "--LabApp.default_url=/lab/tree/notebooks"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # JupyterLab refuses to start as root unless told it may
    return command + list(options)


def lab_environment(gpu: bool = False) -> dict[str, str]:
    """The environment JupyterLab and its kernels run in: the one the tests run the chapters in
    (on the CPU, unless `gpu`)."""
    sys.path.insert(0, str(HERE))
    from execute import kernel_environment

    kernel_environment(gpu=gpu)
    return dict(os.environ)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only make or complete course/; do not start JupyterLab")
    parser.add_argument("--gpu", action="store_true",
                        help="let the chapters use a GPU (they run on the CPU by default, as they were stored)")
    parser.add_argument("options", nargs="*", help="passed to `jupyter lab` (after --), e.g. -- --port=8890")
    args = parser.parse_args()
    for note in prepare(old_exercises=OLD_EXERCISES):
        print(note)
    print(f"Your copy of the course is in {WORKSPACE.relative_to(ROOT)}/ (see notebooks/course.py).", flush=True)
    if not args.prepare:
        command = lab_command(WORKSPACE, *args.options)
        os.execve(command[0], command, lab_environment(gpu=args.gpu))


if __name__ == "__main__":
    main()
