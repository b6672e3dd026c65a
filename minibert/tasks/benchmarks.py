"""The paper's real benchmarks (§4): GLUE, SQuAD v1.1 and v2.0, SWAG, and CoNLL-2003 NER (§5.3), read
in their official formats into the same example dicts as the course tasks. Nothing is downloaded
here: pass the folder you downloaded them to, or let the `datasets` library fetch them (online).

    load_task("glue-mrpc", "train", data_dir="~/glue/MRPC")   # train.tsv, dev.tsv, test.tsv
    load_task("squad-v2.0", "dev", data_dir="~/squad")        # train-v2.0.json, dev-v2.0.json
    load_task("swag", "dev", data_dir="~/swag")               # train.csv, val.csv, test.csv
    load_task("conll2003", "test", data_dir="~/conll2003")    # eng.train/testa/testb or train/valid/test.txt
    load_task("glue-mrpc", "train")                           # no folder: through `datasets` (nyu-mll/glue)

The `datasets` route uses nyu-mll/glue, rajpurkar/squad, rajpurkar/squad_v2, allenai/swag ("regular")
and eriktks/conll2003; a dataset the Hub keeps as a loading script (CoNLL-2003 there) is refused by
`datasets` 4 ("Dataset scripts are no longer supported"): download its files and pass the folder.

The formats, as their authors publish them:
    GLUE      tab-separated, read with no quoting (as Google's run_classifier.py); a header row
              except CoLA's train and dev (source, label, original mark, sentence). Test files have
              no label column: their examples get label -1, as `datasets` gives them.
    SQuAD     JSON: data[] -> paragraphs[] -> {context, qas[] -> {id, question, answers[{text,
              answer_start}], is_impossible (v2.0)}}; the test set is hidden, there is no test file.
    SWAG      CSV with a header: ..., sent1, sent2, ending0..ending3, label. As in the paper and in
              transformers' run_swag.py, the context is sent1 and each ending is "sent2 ending_i".
    CoNLL     "token POS chunk NER" per line, -DOCSTART- lines between documents, a blank line
              after each sentence. NER tags are made IOB2 (the original files are IOB1: I-PER
              starts a name unless it follows another PER word; many copies are already IOB2).
"""

from __future__ import annotations

import csv
import json
from functools import partial
from pathlib import Path

from .common import UNLABELLED, HubSource, Task, TaskError, check_answers

CONLL_LABELS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC")  # as `datasets`
NLI3 = ("entailment", "neutral", "contradiction")
NLI2 = ("entailment", "not_entailment")
GLUE_SPLITS = {"train": "train", "dev": "validation", "test": "test"}


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


def label_index(raw: str, labels: tuple[str, ...], where: str) -> int:
    """A label as the file writes it (a name, or its index) -> its index in `labels`."""
    if raw in labels:
        return labels.index(raw)
    if raw.isdigit() and int(raw) < len(labels):
        return int(raw)
    raise TaskError(f"{where}: label {raw!r} is not one of {labels} (or an index into them)")


# ---- GLUE ---------------------------------------------------------------------------------------------

def read_glue(columns: tuple[str, str | None, str], headerless: tuple[str, ...], task: Task, folder: Path,
              split: str) -> list[dict]:
    """A GLUE TSV -> sentence or pair examples. `columns` are the names of the text, pair and label
    columns; `headerless` the column names of a train or dev file that has no header (CoLA)."""
    path = find_file(folder, task, split)
    text_col, pair_col, label_col = columns
    examples = []
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = list(headerless) if headerless and split != "test" else next(rows, [])
        missing = [c for c in (text_col, pair_col) if c and c not in header]
        if missing:
            raise TaskError(f"{path}:1: no column {missing} in the header {header}; is it {task.plays}'s {split} file?")
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
                    raise TaskError(f"{path}:{number}: score {cell[label_col]!r} is not a number") from None
            else:
                example["label"] = label_index(cell[label_col], task.labels, f"{path}:{number}")
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


# ---- SQuAD, SWAG, CoNLL-2003 ----------------------------------------------------------------------------

def read_squad(task: Task, folder: Path, split: str) -> list[dict]:
    path = find_file(folder, task, split)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))["data"]
    except json.JSONDecodeError as e:
        raise TaskError(f"{path}:{e.lineno}: not JSON ({e.msg})") from None
    except (KeyError, TypeError):
        raise TaskError(f"{path}: no top-level \"data\" list; is it a SQuAD file?") from None
    examples = []
    for article in data:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                answers = [a for a in qa["answers"]]
                if qa.get("is_impossible", False) != (not answers):
                    raise TaskError(f"{path}: question {qa['id']!r}: is_impossible={qa.get('is_impossible')} but "
                                    f"{len(answers)} answers")
                example = {"id": qa["id"], "question": qa["question"], "context": paragraph["context"],
                           "answers": {"text": [a["text"] for a in answers],
                                       "answer_start": [a["answer_start"] for a in answers]}}
                check_answers(example, str(path))
                examples.append(example)
    return examples


def squad_row(row: dict, id_: str) -> dict:
    answers = row["answers"]
    return {"id": row["id"], "question": row["question"], "context": row["context"],
            "answers": {"text": list(answers["text"]), "answer_start": list(answers["answer_start"])}}


def swag_example(row: dict, id_: str) -> dict:
    """The paper's SWAG input (§4.4): sentence A the context, sentence B a continuation."""
    return {"id": id_, "context": row["sent1"],
            "endings": [f"{row['sent2']} {row[f'ending{i}']}" for i in range(4)],
            "label": int(row["label"]) if row.get("label") not in (None, "") else UNLABELLED}


def read_swag(task: Task, folder: Path, split: str) -> list[dict]:
    path = find_file(folder, task, split)
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        need = {"sent1", "sent2", "ending0", "ending1", "ending2", "ending3"}
        if not need <= set(reader.fieldnames or ()):
            raise TaskError(f"{path}:1: the header lacks {sorted(need - set(reader.fieldnames or ()))}")
        examples = []
        for row in reader:
            if None in row or None in row.values():
                raise TaskError(f"{path}:{reader.line_num}: {len(row)} fields where the header has "
                                f"{len(reader.fieldnames)}")
            try:
                examples.append(swag_example(row, f"{split}-{len(examples)}"))
            except ValueError:
                raise TaskError(f"{path}:{reader.line_num}: label {row['label']!r} is not 0-3") from None
    return examples


def iob2(tags: list[str]) -> list[str]:
    """IOB1 -> IOB2: an I-X that does not continue an X becomes B-X (IOB2 input comes out as it went in)."""
    out = []
    for tag in tags:
        if tag.startswith("I-") and (not out or out[-1][2:] != tag[2:]):
            tag = "B-" + tag[2:]
        out.append(tag)
    return out


def read_conll(task: Task, folder: Path, split: str) -> list[dict]:
    path = find_file(folder, task, split)
    examples, words, tags = [], [], []

    def end_sentence():
        if words:
            examples.append({"id": f"{split}-{len(examples)}", "words": list(words),
                             "tags": [task.labels.index(t) for t in iob2(tags)]})
            words.clear()
            tags.clear()

    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            fields = line.split()
            if not fields or fields[0] == "-DOCSTART-":
                end_sentence()
                continue
            if len(fields) != 4 or not (fields[3] == "O" or fields[3][:2] in ("B-", "I-") and
                                        "B-" + fields[3][2:] in task.labels):
                raise TaskError(f"{path}:{number}: expected 'token POS chunk NER' with NER one of "
                                f"{task.labels}, got {line.strip()!r}")
            words.append(fields[0])
            tags.append(fields[3])
    end_sentence()
    return examples


def conll_row(row: dict, id_: str) -> dict:
    return {"id": id_, "words": list(row["tokens"]), "tags": list(row["ner_tags"])}


SQUAD_SPLITS = {"train": "train", "dev": "validation"}
OTHERS = (
    Task("squad-v1.1", "span", None, "squad", "SQuAD v1.1: the answer is a span of the Wikipedia paragraph",
         stand_in=False, read=read_squad,
         plays="SQuAD v1.1", files={"train": ("train-v1.1.json",), "dev": ("dev-v1.1.json",)},
         hub=HubSource("rajpurkar/squad", None, SQUAD_SPLITS, squad_row)),
    Task("squad-v2.0", "span", None, "squad", "SQuAD v2.0: as v1.1, and a third of the questions have no answer",
         stand_in=False, read=read_squad,
         plays="SQuAD v2.0", files={"train": ("train-v2.0.json",), "dev": ("dev-v2.0.json",)},
         hub=HubSource("rajpurkar/squad_v2", None, SQUAD_SPLITS, squad_row)),
    Task("swag", "choice", None, "accuracy", "SWAG: which of four endings follows a video caption's sentence?",
         stand_in=False, read=read_swag,
         plays="SWAG", files={"train": ("train.csv",), "dev": ("val.csv",), "test": ("test.csv",)},
         hub=HubSource("allenai/swag", "regular", GLUE_SPLITS, swag_example)),
    Task("conll2003", "tagging", CONLL_LABELS, "entity_f1",
         "CoNLL-2003 NER: persons, organisations, locations and other names in Reuters news",
         stand_in=False, read=read_conll,
         plays="CoNLL-2003 NER", files={"train": ("eng.train", "train.txt"), "dev": ("eng.testa", "valid.txt",
                                                                                       "dev.txt"),
                                        "test": ("eng.testb", "test.txt")},
         hub=HubSource("eriktks/conll2003", None, GLUE_SPLITS, conll_row)),
)
BENCHMARKS = GLUE + OTHERS


def from_hub(task: Task, split: str) -> list[dict]:
    """The benchmark through the `datasets` library (downloads on first use; needs the internet)."""
    try:
        import datasets
    except ImportError:
        raise TaskError(f"{task.name}: reading it from the Hugging Face Hub needs the `datasets` library: `pip "
                        f"install datasets`. Or download {task.plays} yourself and pass its folder as data_dir="
                        ) from None
    hub = task.hub
    if split not in hub.splits:
        raise TaskError(f"{task.name} has no {split} split on the Hub ({hub.name}); use one of {list(hub.splits)}")
    try:
        rows = datasets.load_dataset(hub.name, hub.config, split=hub.splits[split])
    except Exception as e:
        raise TaskError(f"{task.name}: `datasets` could not load {hub.name} ({hub.config}, {hub.splits[split]}): "
                        f"{type(e).__name__}: {e}. Offline, download it and pass its folder as data_dir=") from e
    return [hub.convert(dict(row), f"{split}-{i}") for i, row in enumerate(rows)]
