"""What every task shares: the `Task` description, the example dicts of each kind and their checks,
JSON-lines files, and the key that keeps a test example out of the training set.

An example of each kind (labels and tags are indices into `task.labels`):

    sentence  {"id", "text", "label"}
    pair      {"id", "text", "text_pair", "label"}      (label a float for regression)
    tagging   {"id", "words": [str], "tags": [int]}
    span      {"id", "question", "context", "answers": {"text": [str], "answer_start": [int]}}
    choice    {"id", "context", "endings": [str, ...], "label"}

The span fields are SQuAD's; empty answer lists mean "no answer in the context", as in SQuAD 2.0.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..config import did_you_mean

KINDS = ("sentence", "pair", "tagging", "span", "choice")
METRICS = ("accuracy", "f1", "matthews", "pearson_spearman", "squad", "entity_f1", "tag_accuracy")
SPLITS = ("train", "dev", "test")
SEED = 0  # every seeded choice of the course tasks: random.Random(f"{SEED}/<what>")
CAPS = {"train": 10_000, "dev": 2_000, "test": 2_000}  # examples (tagging: sentences), for CPU fine-tuning
UNLABELLED = -1  # the label of a benchmark's test example whose label is kept secret (as `datasets` does)
FIELDS = {
    "sentence": ("id", "text", "label"),
    "pair": ("id", "text", "text_pair", "label"),
    "tagging": ("id", "words", "tags"),
    "span": ("id", "question", "context", "answers"),
    "choice": ("id", "context", "endings", "label"),
}


class TaskError(RuntimeError):
    """A task's data could not be loaded or prepared; the message says what was wrong and the fix."""


@dataclass(frozen=True)
class HubSource:
    """Where the `datasets` library finds a benchmark (online only) and how a row becomes an example."""
    name: str                      # "nyu-mll/glue"
    config: str | None             # "mrpc"; None when the dataset has one configuration
    splits: Mapping[str, str]      # our split -> theirs: {"dev": "validation", ...}
    convert: Callable[[dict, str], dict]  # (row, id) -> example


@dataclass(frozen=True)
class Task:
    """One fine-tuning task: what its examples look like, how it is scored, and how it is read."""
    name: str
    kind: str                          # one of KINDS: which panel of the paper's Figure 4 fits it
    labels: tuple[str, ...] | None     # class or tag names; None for regression, spans and choices
    metric: str                        # one of METRICS (minibert.finetune.metrics computes them)
    description: str                   # one line
    stand_in: bool                     # True: labels made by a rule from text, playing a benchmark's part
    read: Callable[[Task, Path, str], list[dict]] = field(repr=False)  # (task, folder, split) -> examples
    plays: str = ""                    # the paper's benchmark the task is (or plays the part of)
    prepared: bool = False             # made by `python -m minibert.tasks prepare` into data/tasks/<name>
    hub: HubSource | None = field(default=None, repr=False)  # benchmarks: the `datasets` route
    files: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)  # benchmarks: split -> names

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind {did_you_mean(self.kind, KINDS)}; use one of {KINDS}")
        if self.metric not in METRICS:
            raise ValueError(f"{self.name}: metric {did_you_mean(self.metric, METRICS)}; use one of {METRICS}")


@dataclass
class Built:
    """A course task as one run made it: its splits, and what the run measured on the way (JSON-able:
    the card shows it)."""
    splits: dict[str, list[dict]]
    notes: dict


@dataclass(frozen=True)
class Card:
    """What a course task's card says besides the numbers (markdown)."""
    source: str              # where the text and the labels come from
    licence: str             # licence and attribution
    how: tuple[str, ...]     # how it was built, one bullet each
    is_: str                 # what it is...
    is_not: str              # ...and what it is not


def sample(items: list, cap: int, rng: random.Random) -> list:
    """At most `cap` of `items`, a seeded sample, in their original order."""
    if len(items) <= cap:
        return list(items)
    return [items[i] for i in sorted(rng.sample(range(len(items)), cap))]


# ---- checks ----------------------------------------------------------------------------------------

def is_int(value) -> bool:
    return type(value) is int  # not a bool, not "3", not 3.0


def wrong_type(where: str, example: dict, name: str, value, want: str) -> TaskError:
    """An example field holding the wrong kind of value: what it holds, what it must, and, for a
    number written as a string ("3"), the number to write."""
    number = isinstance(value, str) and value.strip().lstrip("-").isdigit()
    hint = f"; write it without quotes: {value}" if number else ""
    return TaskError(f"{where}: example {example.get('id', '?')!r}: {name} is {value!r} ({type(value).__name__}); "
                     f"it must be {want}{hint}")


def check_answers(example: dict, where: str) -> None:
    """Every answer must be its context's text at its answer_start (SQuAD's convention)."""
    answers, context = example["answers"], example["context"]
    if not isinstance(answers, dict) or not {"text", "answer_start"} <= set(answers) \
            or not isinstance(answers["text"], list) or not isinstance(answers["answer_start"], list) \
            or len(answers["text"]) != len(answers["answer_start"]):
        raise TaskError(f"{where}: example {example['id']!r}: answers must be {{'text': [...], "
                        f"'answer_start': [...]}}, two lists of equal length, got {answers!r}")
    for text, start in zip(answers["text"], answers["answer_start"]):
        if not isinstance(text, str):
            raise wrong_type(where, example, "an answer's text", text, "a string")
        if not is_int(start):
            raise wrong_type(where, example, f"the answer_start of {text!r}", start, "a character index (an integer)")
        found = context[start:start + len(text)] if start >= 0 else None
        if found != text:
            raise TaskError(f"{where}: example {example['id']!r}: the answer {text!r} is not in its context at "
                            f"answer_start={start!r} (the context has {found!r} there)")


def check_example(task: Task, example: dict, where: str) -> None:
    """Fail if `example` lacks its kind's fields, holds a value of the wrong type (a string where a
    number goes), or has a label out of range; the message names `where` (file and line) and the field."""
    want = FIELDS[task.kind]
    missing = [f for f in want if f not in example]
    if missing:
        raise TaskError(f"{where}: example {example.get('id', '?')!r} lacks {missing}; a {task.kind} "
                        f"example has {list(want)}")
    for name in ("text", "text_pair", "question", "context"):
        if name in want and not isinstance(example[name], str):
            raise wrong_type(where, example, name, example[name], "a string")
    n_labels = len(task.labels) if task.labels else None
    label = example.get("label")
    if task.kind == "span":
        check_answers(example, where)
    elif task.kind == "tagging":
        words, tags = example["words"], example["tags"]
        if not (isinstance(words, list) and all(isinstance(w, str) for w in words)):
            raise wrong_type(where, example, "words", words, "a list of strings")
        if not isinstance(tags, list) or not all(is_int(t) for t in tags):
            raise wrong_type(where, example, "tags", tags, f"a list of integers, tag indices into {task.labels}")
        if len(words) != len(tags) or any(not 0 <= t < n_labels for t in tags):
            raise TaskError(f"{where}: example {example['id']!r}: {len(words)} words, {len(tags)} tags "
                            f"{tags[:10]}; need one tag in 0..{n_labels - 1} per word")
    elif task.kind == "choice":
        endings = example["endings"]
        if not (isinstance(endings, list) and len(endings) > 1 and all(isinstance(e, str) for e in endings)):
            raise wrong_type(where, example, "endings", example["endings"], "a list of two or more strings")
        if not is_int(label):
            raise wrong_type(where, example, "label", label, "an integer, the index of the right ending")
        if not UNLABELLED <= label < len(example["endings"]):
            raise TaskError(f"{where}: example {example['id']!r}: label {label!r} is not an index into its "
                            f"{len(example['endings'])} endings")
    elif n_labels is None:  # regression: a score
        if type(label) not in (int, float):
            raise wrong_type(where, example, "label", label, "a number (a score)")
    elif not is_int(label):
        raise wrong_type(where, example, "label", label, f"an integer, an index into {task.labels}")
    elif label != UNLABELLED and not 0 <= label < n_labels:
        raise TaskError(f"{where}: example {example['id']!r}: label {label!r} is not an index into {task.labels}")


def check_examples(task: Task, examples: list[dict], where: str) -> None:
    """Fail on the first example that `check_example` refuses."""
    for example in examples:
        check_example(task, example, where)


def unlabelled(task: Task, examples: list[dict]) -> list[dict]:
    """The examples without a label: a benchmark's test examples, whose labels are kept secret."""
    if task.kind not in ("sentence", "pair", "choice"):
        return []
    return [e for e in examples if e["label"] == UNLABELLED]


KEY_FIELD = {"sentence": "text", "pair": "text", "span": "question", "choice": "context"}


def overlap_key(kind: str, example: dict) -> str:
    """What makes two examples "the same" when a test example must not be in the training set: the
    input the model reads first (for pairs, QA and choices: the sentence the task is built around)."""
    if kind == "tagging":
        return " ".join(example["words"])
    return example[KEY_FIELD[kind]]


def drop_overlap(kind: str, splits: dict[str, list[dict]]) -> dict[str, int]:
    """Remove from train (and dev) the examples whose key is in test (or dev); returns how many went.
    Documents never cross splits, but a sentence can occur in two documents ("Thank you.")."""
    held = {"test": set(), "dev": set()}
    dropped = {}
    for split, out_of in (("test", ()), ("dev", ("test",)), ("train", ("test", "dev"))):
        unseen = set().union(*(held[s] for s in out_of)) if out_of else set()
        kept = [e for e in splits[split] if overlap_key(kind, e) not in unseen]
        dropped[split] = len(splits[split]) - len(kept)
        splits[split] = kept
        if split in held:
            held[split] = {overlap_key(kind, e) for e in kept}
    return dropped


def assert_no_overlap(kind: str, splits: dict[str, list[dict]], name: str) -> None:
    keys = {split: {overlap_key(kind, e) for e in examples} for split, examples in splits.items()}
    for a, b in (("train", "test"), ("train", "dev"), ("dev", "test")):
        if both := keys[a] & keys[b]:
            raise TaskError(f"{name}: {len(both)} {b} examples are also in {a}, e.g. {sorted(both)[0]!r}")


# ---- text helpers ---------------------------------------------------------------------------------

def whole_word(text: str) -> re.Pattern:
    """`text` as a whole word: not part of a longer word, a hyphenated word ("two-season"), a fraction
    ("1/8") or a number ("1.5", "3,000")."""
    return re.compile(r"(?<![\w/-])" + re.escape(text) + r"(?![\w/-]|[.,]\d)")


def occurrences(text: str, context: str) -> list[int]:
    """Character starts of `text` as a whole word (see `whole_word`) in `context`."""
    return [m.start() for m in whole_word(text).finditer(context)]


# ---- JSON lines -------------------------------------------------------------------------------------

def jsonl_bytes(examples: list[dict]) -> bytes:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in examples).encode("utf-8")


def find_file(folder: Path, task: Task, split: str) -> Path:
    names = task.files.get(split, ())
    if not names:
        raise TaskError(f"{task.name} has no {split} split you can have (e.g. SQuAD's test set is hidden); use "
                        f"{' or '.join(repr(s) for s in task.files)}")
    for name in names:
        if (folder / name).is_file():
            return folder / name
    raise TaskError(f"{task.name}: no {' or '.join(names)} in {folder}; download {task.plays} and pass its "
                    "folder as data_dir, or pass no data_dir to load it with the `datasets` library")


def not_utf8(path: Path) -> TaskError:
    """The error for a file that is not UTF-8 text: where its first bad byte is, and the fix."""
    data = Path(path).read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        return TaskError(f"{path}:{line}:{column}: byte {data[e.start]:#04x} (byte {e.start} of the file) is not "
                         f"UTF-8 ({e.reason}); save the file as UTF-8, e.g. `iconv -f latin1 -t utf-8 {path}`")
    return TaskError(f"{path}: not UTF-8 text; save the file as UTF-8")


def numbered_jsonl(path: Path) -> list[tuple[int, dict]]:
    """(line number, object) for each non-blank line; a bad line is an error naming the file and the line."""
    rows = []
    try:
        with open(path, encoding="utf-8-sig") as f:
            for number, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise TaskError(f"{path}:{number}: not a JSON object ({e.msg} at column {e.colno}): "
                                    f"{line[:80]!r}; each line must be one whole JSON object") from None
                if not isinstance(row, dict):
                    raise TaskError(f"{path}:{number}: expected a JSON object, got {type(row).__name__}")
                rows.append((number, row))
    except UnicodeDecodeError:
        raise not_utf8(path) from None
    return rows


def read_jsonl(path: Path) -> list[dict]:
    """One JSON object per line; a bad line is an error naming the file and the line."""
    return [row for _, row in numbered_jsonl(path)]


def read_prepared(task: Task, folder: Path, split: str) -> list[dict]:
    """A course task's split, as `python -m minibert.tasks prepare` wrote it: `<folder>/<split>.jsonl`,
    each example checked (`check_example`) with its line named in any error."""
    path = folder / f"{split}.jsonl"
    rows = numbered_jsonl(path)
    for number, example in rows:
        check_example(task, example, f"{path}:{number}")
    return [example for _, example in rows]
