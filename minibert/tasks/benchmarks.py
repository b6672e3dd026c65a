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
    GLUE      tab-separated, read in `glue.py`; the test files have no labels (label -1 here).
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
from pathlib import Path

from .. import hub as hf
from .common import UNLABELLED, HubSource, Task, TaskError, check_answers, find_file, not_utf8
from .glue import GLUE, GLUE_SPLITS

CONLL_LABELS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC")  # as `datasets`


# ---- SQuAD, SWAG, CoNLL-2003 ----------------------------------------------------------------------------

def squad_field(node, key: str, want: type, path: Path, where: str):
    """node[key], checked: a missing key, or a value of another type, is an error naming the file,
    the place in it (the article, paragraph, question or answer) and the key."""
    if not isinstance(node, dict) or key not in node:
        raise TaskError(f"{path}: {where} has no {key!r}. A SQuAD file is {{data: [{{paragraphs: [{{context, qas: "
                        "[{id, question, answers: [{text, answer_start}]}]}]}]}: is it a SQuAD file, and whole?")
    if not isinstance(node[key], want):
        raise TaskError(f"{path}: {where}: {key!r} is {node[key]!r:.80}, not a {want.__name__}")
    return node[key]


def read_squad(task: Task, folder: Path, split: str) -> list[dict]:
    path = find_file(folder, task, split)
    try:
        data = squad_field(json.loads(path.read_text(encoding="utf-8")), "data", list, path, "the file")
    except UnicodeDecodeError:
        raise not_utf8(path) from None
    except json.JSONDecodeError as e:
        raise TaskError(f"{path}:{e.lineno}: not JSON ({e.msg} at column {e.colno}); is the file whole? "
                        "Download it again") from None
    examples = []
    for a, article in enumerate(data, start=1):
        for p, paragraph in enumerate(squad_field(article, "paragraphs", list, path, f"article {a}"), start=1):
            place = f"paragraph {p} of article {a}"
            context = squad_field(paragraph, "context", str, path, place)
            for q, qa in enumerate(squad_field(paragraph, "qas", list, path, place), start=1):
                where = f"question {squad_field(qa, 'id', str, path, f'question {q} of {place}')!r} ({place})"
                question = squad_field(qa, "question", str, path, where)
                answers = squad_field(qa, "answers", list, path, where)
                if qa.get("is_impossible", False) != (not answers):
                    raise TaskError(f"{path}: {where}: is_impossible={qa.get('is_impossible')} but "
                                    f"{len(answers)} answers")
                spans = [(squad_field(x, "text", str, path, f"answer {j} of {where}"),
                          squad_field(x, "answer_start", object, path, f"answer {j} of {where}"))
                         for j, x in enumerate(answers, start=1)]
                example = {"id": qa["id"], "question": question, "context": context,
                           "answers": {"text": [t for t, _ in spans], "answer_start": [s for _, s in spans]}}
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
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            return _swag_rows(csv.DictReader(f), path, split)
    except UnicodeDecodeError:
        raise not_utf8(path) from None


def _swag_rows(reader: csv.DictReader, path: Path, split: str) -> list[dict]:
    need = {"sent1", "sent2", "ending0", "ending1", "ending2", "ending3"} | ({"label"} if split != "test" else set())
    if not need <= set(reader.fieldnames or ()):
        raise TaskError(f"{path}:1: the header lacks {sorted(need - set(reader.fieldnames or ()))}"
                        + (" (a train or dev file needs its labels; the test file has none)"
                           if "label" not in (reader.fieldnames or ()) and split != "test" else ""))
    examples = []
    for row in reader:
        if None in row or None in row.values():
            raise TaskError(f"{path}:{reader.line_num}: {len(row)} fields where the header has "
                            f"{len(reader.fieldnames)}")
        try:
            examples.append(swag_example(row, f"{split}-{len(examples)}"))
        except ValueError:
            raise TaskError(f"{path}:{reader.line_num}: column 'label': {row['label']!r} is not 0-3") from None
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

    try:
        with open(path, encoding="utf-8-sig") as f:
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
    except UnicodeDecodeError:
        raise not_utf8(path) from None
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
    offline = hf.hub_offline()  # HF_HUB_OFFLINE=1: `datasets` reads its cache alone, and fails fast
    if not offline and (why := hf.hub_unreachable()):  # else it would retry for ~25 s before failing
        raise TaskError(f"{task.name}: the Hugging Face Hub cannot be reached ({why}), so `datasets` cannot load "
                        f"{hub.name}. Download {task.plays} and pass its folder as --data-dir (data_dir= in Python); "
                        "or, to use a copy `datasets` has cached, set HF_HUB_OFFLINE=1")
    try:
        rows = datasets.load_dataset(hub.name, hub.config, split=hub.splits[split])
    except Exception as e:
        said = " ".join(str(e).split())[:300]
        raise TaskError(f"{task.name}: `datasets` could not load {hub.name} ({hub.config}, {hub.splits[split]})"
                        f"{' from its cache (HF_HUB_OFFLINE is set)' if offline else ''}: {type(e).__name__}: "
                        f"{said}. Download {task.plays} and pass its folder as --data-dir (data_dir= in Python)") from e
    return [hub.convert(dict(row), f"{split}-{i}") for i, row in enumerate(rows)]
