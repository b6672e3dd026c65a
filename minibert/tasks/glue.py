"""GLUE (§4.1), read from its official files: the sentence and sentence-pair tasks (`benchmarks.py`
holds the other benchmarks and the route through `datasets`).

    load_task("glue-mrpc", "train", data_dir="~/glue/MRPC")   # train.tsv, dev.tsv, test.tsv

The files are tab-separated, read with no quoting (as Google's run_classifier.py), with a header
row except CoLA's train and dev (source, label, original mark, sentence). The test files have no
label column: their examples get label -1, as `datasets` gives them. A train or dev file without
its label column is refused (it is a test file, or not GLUE's), and a test split is never scored
(`minibert.finetune.evaluation.check_scorable`).
"""

from __future__ import annotations

import csv
from functools import partial
from pathlib import Path

from .common import UNLABELLED, HubSource, Task, TaskError, find_file, not_utf8

NLI3 = ("entailment", "neutral", "contradiction")
NLI2 = ("entailment", "not_entailment")
GLUE_SPLITS = {"train": "train", "dev": "validation", "test": "test"}


def label_index(raw: str, labels: tuple[str, ...], where: str, column: str = "") -> int:
    """A label as the file writes it (a name, or its index) -> its index in `labels`."""
    if raw in labels:
        return labels.index(raw)
    if raw.isdigit() and int(raw) < len(labels):
        return int(raw)
    raise TaskError(f"{where}: label {raw!r} is not one of {labels} (or an index into them){column}")


def read_glue(columns: tuple[str, str | None, str], headerless: tuple[str, ...], task: Task, folder: Path,
              split: str) -> list[dict]:
    """A GLUE TSV -> sentence or pair examples. `columns` are the names of the text, pair and label
    columns; `headerless` the column names of a train or dev file that has no header (CoLA)."""
    path = find_file(folder, task, split)
    try:
        return _glue_rows(columns, headerless, task, path, split)
    except UnicodeDecodeError:
        raise not_utf8(path) from None


def _glue_rows(columns: tuple[str, str | None, str], headerless: tuple[str, ...], task: Task, path: Path,
               split: str) -> list[dict]:
    text_col, pair_col, label_col = columns
    examples = []
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = list(headerless) if headerless and split != "test" else next(rows, [])
        if not header:
            raise TaskError(f"{path}: the file is empty; download {task.plays} again")
        missing = [c for c in (text_col, pair_col) if c and c not in header]
        if missing:
            raise TaskError(f"{path}:1: no column {missing} in the header {header}; is it {task.plays}'s {split} file?")
        if split != "test" and label_col not in header:
            raise TaskError(f"{path}:1: no label column {label_col!r} in the header {header}: a {split} file needs "
                            f"its labels. Is it {task.plays}'s {split} file? (The test files have no labels: they "
                            "can be predicted, not trained on or scored.)")
        column = f" (column {label_col!r}, field {header.index(label_col) + 1})" if label_col in header else ""
        for number, row in enumerate(rows, start=1 if headerless and split != "test" else 2):
            if len(row) != len(header):
                raise TaskError(f"{path}:{number}: {len(row)} tab-separated fields, the header has {len(header)} "
                                f"({header}): {row[:3]}")
            cell = dict(zip(header, row))
            example = {"id": f"{split}-{len(examples)}", "text": cell[text_col]}
            if pair_col:
                example["text_pair"] = cell[pair_col]
            if label_col not in cell:
                example["label"] = float(UNLABELLED) if task.labels is None else UNLABELLED
            elif task.labels is None:
                try:
                    example["label"] = float(cell[label_col])
                except ValueError:
                    raise TaskError(f"{path}:{number}: score {cell[label_col]!r} is not a number{column}") from None
            else:
                example["label"] = label_index(cell[label_col], task.labels, f"{path}:{number}", column)
            examples.append(example)
    return examples


def glue_row(columns: tuple[str, str | None], row: dict, id_: str) -> dict:
    text_col, pair_col = columns
    return {"id": id_, "text": row[text_col], **({"text_pair": row[pair_col]} if pair_col else {}),
            "label": row["label"]}


def glue(name, config, labels, metric, description, files, columns, hub_columns, splits=GLUE_SPLITS,
         headerless=()) -> Task:
    kind = "pair" if columns[1] else "sentence"
    return Task(name, kind, labels, metric, description, stand_in=False,
                read=partial(read_glue, columns, headerless),
                plays=f"GLUE {config.upper() if config != 'stsb' else 'STS-B'}", files=files,
                hub=HubSource("nyu-mll/glue", config, splits, partial(glue_row, hub_columns)))


TSV = {"train": ("train.tsv",), "dev": ("dev.tsv",), "test": ("test.tsv",)}
MNLI = {"matched": {"train": ("train.tsv",), "dev": ("dev_matched.tsv",), "test": ("test_matched.tsv",)},
        "mismatched": {"train": ("train.tsv",), "dev": ("dev_mismatched.tsv",), "test": ("test_mismatched.tsv",)}}
GLUE = (
    glue("glue-cola", "cola", ("unacceptable", "acceptable"), "matthews",
         "CoLA: is the sentence grammatical English?", TSV, ("sentence", None, "label"), ("sentence", None),
         headerless=("source", "label", "original_mark", "sentence")),
    glue("glue-sst2", "sst2", ("negative", "positive"), "accuracy", "SST-2: the sentiment of a movie-review sentence",
         TSV, ("sentence", None, "label"), ("sentence", None)),
    glue("glue-mrpc", "mrpc", ("not_equivalent", "equivalent"), "f1", "MRPC: do two news sentences say the same?",
         TSV, ("#1 String", "#2 String", "Quality"), ("sentence1", "sentence2")),
    glue("glue-stsb", "stsb", None, "pearson_spearman", "STS-B: how similar in meaning are two sentences, 0 to 5?",
         TSV, ("sentence1", "sentence2", "score"), ("sentence1", "sentence2")),
    glue("glue-qqp", "qqp", ("not_duplicate", "duplicate"), "f1", "QQP: do two Quora questions ask the same?",
         TSV, ("question1", "question2", "is_duplicate"), ("question1", "question2")),
    glue("glue-mnli-matched", "mnli", NLI3, "accuracy", "MNLI-m: does the premise entail, contradict or neither "
         "(dev and test in the training genres)", MNLI["matched"], ("sentence1", "sentence2", "gold_label"),
         ("premise", "hypothesis"), {"train": "train", "dev": "validation_matched", "test": "test_matched"}),
    glue("glue-mnli-mismatched", "mnli", NLI3, "accuracy", "MNLI-mm: as MNLI-m, dev and test in other genres",
         MNLI["mismatched"], ("sentence1", "sentence2", "gold_label"), ("premise", "hypothesis"),
         {"train": "train", "dev": "validation_mismatched", "test": "test_mismatched"}),
    glue("glue-qnli", "qnli", NLI2, "accuracy", "QNLI: does the sentence answer the question?",
         TSV, ("question", "sentence", "label"), ("question", "sentence")),
    glue("glue-rte", "rte", NLI2, "accuracy", "RTE: does the first text entail the second?",
         TSV, ("sentence1", "sentence2", "label"), ("sentence1", "sentence2")),
    glue("glue-wnli", "wnli", ("not_entailment", "entailment"), "accuracy",
         "WNLI: Winograd schemas as entailment (the paper leaves it out, §4.1 footnote)",
         TSV, ("sentence1", "sentence2", "label"), ("sentence1", "sentence2")),
)
