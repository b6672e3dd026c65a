"""Every task by name, and `load_task`: the one way the fine-tuning code gets examples."""

from __future__ import annotations

import os
from pathlib import Path

from ..config import did_you_mean
from ..repository import DATA
from . import brown_tags, cloze, pairs, reading, sentiment
from .benchmarks import BENCHMARKS, from_hub
from .common import SPLITS, Task, TaskError, check_examples, find_file, unlabelled

COURSE = (sentiment.TASK, brown_tags.POS, brown_tags.NAMES, pairs.NEXT_SENTENCE, reading.TASK, cloze.TASK, pairs.CHOICE)
TASKS: dict[str, Task] = {t.name: t for t in COURSE + BENCHMARKS}
DATA_DIR = DATA / "tasks"  # where `prepare` writes the course tasks
PREPARE = "run `make setup`, or `python -m minibert.tasks prepare`"


def get_task(name: str) -> Task:
    if name not in TASKS:
        raise TaskError(f"no task {did_you_mean(name, TASKS)}; the tasks are: {', '.join(TASKS)}")
    return TASKS[name]


def load_task(name: str, split: str, data_dir: str | os.PathLike | None = None) -> list[dict]:
    """The examples of one split ("train", "dev" or "test") of a task, checked (fields, labels, and
    every span answer against its context).

    Course tasks are read from `data_dir` (default: data/tasks of this repository), either the folder
    of all tasks or the task's own. A benchmark is read from `data_dir`, the folder holding its
    official files; with no data_dir, through the `datasets` library (online)."""
    task = get_task(name)
    if split not in SPLITS:
        hint = " ('validation' is called 'dev' here)" if split in ("validation", "valid", "val") else ""
        raise TaskError(f"{name}: split {did_you_mean(split, SPLITS)}; use one of {', '.join(SPLITS)}{hint}")
    if task.prepared:
        root = Path(data_dir).expanduser() if data_dir is not None else DATA_DIR
        folder = root / name if (root / name).is_dir() else root
        path = folder / f"{split}.jsonl"
        if not path.is_file():
            raise TaskError(f"{name} is not prepared: there is no {root / name / f'{split}.jsonl'}; {PREPARE}")
        examples, where = task.read(task, folder, split), str(path)  # checked line by line as read
    else:
        if data_dir is None:
            examples, where = from_hub(task, split), f"{task.hub.name} through `datasets`"
        else:
            folder = Path(data_dir).expanduser()
            if not folder.is_dir():
                files = ", ".join(n for names in task.files.values() for n in names)
                raise TaskError(f"{name}: data_dir {str(data_dir)!r} is not a folder; pass the folder that holds "
                                f"{task.plays}'s files ({files})")
            examples, where = task.read(task, folder, split), str(find_file(folder, task, split))
        check_examples(task, examples, where)
    check_usable(task, examples, split, where)
    return examples


def check_usable(task: Task, examples: list[dict], split: str, where: str) -> None:
    """A split with no examples is refused (an empty or cut-short file); so is a train or dev split with
    an unlabelled example: only a benchmark's test split may lack its labels."""
    if not examples:
        how = f"prepare it again ({PREPARE})" if task.prepared else "download it again"
        raise TaskError(f"{where}: no {split} examples (an empty file, or a header alone); {task.name} needs "
                        f"at least one: {how}")
    if split != "test" and (missing := unlabelled(task, examples)):
        raise TaskError(f"{where}: {len(missing)} of the {len(examples)} {split} examples have no label (-1), e.g. "
                        f"{missing[0]['id']!r}; a {split} split needs every label (only a benchmark's test split "
                        "lacks them): is it the right file?")


# The fields whose text a pre-training corpus gets, by kind (a tagging task's words, joined); never
# a label, an answer or a choice's endings, which would give the labels away.
TEXT_FIELDS = {"sentence": ("text",), "pair": ("text", "text_pair"), "tagging": ("words",), "span": ("context",),
               "choice": ("context",)}


def task_text(name: str, data_dir: str | os.PathLike | None = None) -> str:
    """A task's training text without its labels, as a pre-training corpus (BERT's format: a line per
    sentence or field, a blank line between documents), each example one document, repeats once.

    Task-adaptive pre-training (Gururangan et al. 2020) goes on with the masked LM over this text
    before fine-tuning. Only the train split: dev and test are what the model is scored on, so their
    text must stay unseen, as their labels do."""
    fields = TEXT_FIELDS[get_task(name).kind]
    documents = {}  # a dict keeps the first of repeats, in order (a span task's context serves many questions)
    for example in load_task(name, "train", data_dir):  # checked: every field is there
        values = (example[f] for f in fields)
        lines = (" ".join((" ".join(v) if isinstance(v, list) else v).split()) for v in values)  # squeezed
        document = "\n".join(line for line in lines if line)
        if document:
            documents[document] = None
    return "".join(f"{document}\n\n" for document in documents)
