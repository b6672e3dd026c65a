"""Bad inputs are refused clearly: a file a reader cannot use says which file, line and column and
how to fix it, the command lines say `error: ...` (never a traceback), the checks come before any
training, and nothing is left half-written. Tiny files written here; no network (the Hub is an
address nothing answers at, or HF_HUB_OFFLINE)."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import minibert
from minibert import Tokenizer, hub
from minibert.checkpoint import CheckpointError
from minibert.corpus import stream
from minibert.corpus.__main__ import main as corpus_main
from minibert.corpus.common import CorpusError
from minibert.finetune import evaluation, loop
from minibert.finetune.__main__ import main
from minibert.finetune.recipes import FinetuneConfig
from minibert.tasks import TASKS, TaskError, load_task

ROOT = Path(__file__).resolve().parents[1]
RTE_HEADER = "index\tsentence1\tsentence2"
RTE = {  # GLUE RTE as published: the test file has no label column
    "train.tsv": f"{RTE_HEADER}\tlabel\n0\tNo weapons were found.\tWeapons were found.\tnot_entailment\n"
                 "1\tA man sleeps.\tA man rests.\tentailment\n",
    "dev.tsv": f"{RTE_HEADER}\tlabel\n0\tA dog runs.\tAn animal moves.\tentailment\n",
    "test.tsv": f"{RTE_HEADER}\n0\tA cat sits.\tA cat stands.\n1\tIt rains.\tIt is wet.\n",
}


def write(folder: Path, files: dict) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return folder


@pytest.fixture
def no_training(monkeypatch):
    """Any run that gets as far as building its model fails the test: the input checks come first."""
    def refuse(*args, **kwargs):
        raise AssertionError("training started before the inputs were checked")
    monkeypatch.setattr(loop, "build_model", refuse)


def finetune_args(task: str, data_dir, out: Path, *more: str) -> list[str]:
    return ["--task", task, "--model", "course", "--data-dir", str(data_dir), "--out-dir", str(out), "--epochs", "1",
            "--batch-size", "2", "--no-progress", *more]


# --- 1. A split without labels: refused for training, never scored ----------------------------------------

def test_a_glue_train_or_dev_file_without_its_label_column_is_refused(tmp_path):
    write(tmp_path, {"train.tsv": RTE["test.tsv"], "dev.tsv": "sentence\tlabel\nA.\t1\n"})
    with pytest.raises(TaskError, match=r"train.tsv:1: no label column 'label' in the header \['index', 'sentence1', "
                                        r"'sentence2'\]: a train file needs its labels"):
        load_task("glue-rte", "train", data_dir=tmp_path)
    with pytest.raises(TaskError, match=r"dev.tsv:1: no column \['sentence1', 'sentence2'\] in the header"):
        load_task("glue-rte", "dev", data_dir=tmp_path)
    (tmp_path / "sentiment").mkdir()
    (tmp_path / "sentiment" / "dev.jsonl").write_text(json.dumps({"id": "a", "text": "fine", "label": -1}) + "\n")
    with pytest.raises(TaskError, match=r"dev.jsonl: 1 of the 1 dev examples have no label \(-1\), e.g. 'a'"):
        load_task("sentiment", "dev", data_dir=tmp_path)
    assert [e["label"] for e in load_task("glue-rte", "test", data_dir=write(tmp_path / "t", RTE))] == [-1, -1]


def test_an_unlabelled_test_split_is_refused_before_training_and_leaves_nothing(tmp_path, no_training):
    data = write(tmp_path / "rte", RTE)
    with pytest.raises(SystemExit, match=r"error: glue-rte: the test split has no labels \(2 of its 2 examples, "
                                         r"e.g. 'test-0'; GLUE RTE's test labels are kept secret\), so it cannot be "
                                         r"scored: score on --eval-split dev .*evaluation.predictions"):
        main(finetune_args("glue-rte", data, tmp_path / "out", "--eval-split", "test"))
    assert not (tmp_path / "out").exists()
    (tmp_path / "rte" / "train.tsv").write_text(RTE["test.tsv"])  # a test file passed as the training file
    with pytest.raises(SystemExit, match=r"error: .*train.tsv:1: no label column 'label'"):
        main(finetune_args("glue-rte", data, tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_unlabelled_examples_are_predicted_never_scored():
    task, folder = TASKS["glue-rte"], ROOT / "models" / "course"
    model = minibert.BertForSequenceClassification.from_pretrained(folder, num_labels=2)
    tokenizer, cfg = Tokenizer.from_pretrained(folder), FinetuneConfig(task="glue-rte")
    unlabelled = [{"id": "test-0", "text": "A cat sits.", "text_pair": "A cat stands.", "label": -1},
                  {"id": "test-1", "text": "It rains.", "text_pair": "It is wet.", "label": -1}]
    with pytest.raises(TaskError, match=r"has no labels"):
        evaluation.evaluate(model, task, unlabelled, tokenizer, cfg)
    predicted = evaluation.predictions(model, task, unlabelled, tokenizer, cfg)
    assert sorted(predicted) == ["test-0", "test-1"] and set(predicted.values()) <= {0, 1}
    labelled = [{**e, "label": 1} for e in unlabelled]
    kept = {}
    evaluation.evaluate(model, task, labelled, tokenizer, cfg, keep=kept)
    assert kept == predicted  # the predictions a score is computed from


# --- 2. Raw tracebacks turned into errors that say where and how to fix --------------------------------------

LATIN1 = "café".encode("latin-1")  # b"caf\xe9": not UTF-8
NOT_UTF8 = {  # task: (file, bytes, the line and column of the bad byte)
    "glue-rte": ("train.tsv", f"{RTE_HEADER}\tlabel\n0\ta\tb\tentailment\n1\t".encode() + LATIN1 + b"\tb\tentailment\n",
                 "3:6"),
    "sentiment": ("sentiment/train.jsonl", b'{"id": "0", "text": "ok", "label": 1}\n{"id": "1", "text": "'
                  + LATIN1 + b'", "label": 0}\n', "2:25"),
    "squad-v1.1": ("train-v1.1.json", b'{"data": [{"title": "' + LATIN1 + b'", "paragraphs": []}]}', "1:25"),
    "swag": ("train.csv", b"sent1,sent2,ending0,ending1,ending2,ending3,label\nA " + LATIN1 + b",B,c,d,e,f,0\n", "2:6"),
    "conll2003": ("train.txt", b"EU NNP B-NP B-ORG\n" + LATIN1 + b" NN I-NP O\n", "2:4"),
}


@pytest.mark.parametrize("task", list(NOT_UTF8))
def test_a_byte_that_is_not_utf8_is_named_by_file_line_and_column(task, tmp_path):
    name, data, where = NOT_UTF8[task]
    write(tmp_path, {name: data})
    with pytest.raises(TaskError, match=rf"{name}:{where}: byte 0xe9 \(byte \d+ of the file\) is not UTF-8 .*"
                                        r"save the file as UTF-8, e.g. `iconv -f latin1 -t utf-8"):
        load_task(task, "train", data_dir=tmp_path)


def test_an_empty_split_is_refused_before_training(tmp_path, no_training):
    data = tmp_path / "tasks"
    write(data / "sentiment", {"train.jsonl": json.dumps({"id": "0", "text": "fine", "label": 1}) + "\n",
                               "dev.jsonl": ""})
    with pytest.raises(SystemExit, match=r"error: .*sentiment/dev.jsonl: no dev examples \(an empty file, or a header "
                                         r"alone\); sentiment needs at least one"):
        main(finetune_args("sentiment", data, tmp_path / "out"))
    assert not (tmp_path / "out").exists()
    write(tmp_path / "rte", {"train.tsv": "", "test.tsv": RTE_HEADER + "\n"})
    with pytest.raises(TaskError, match=r"train.tsv: the file is empty; download GLUE RTE again"):
        load_task("glue-rte", "train", data_dir=tmp_path / "rte")
    with pytest.raises(TaskError, match=r"test.tsv: no test examples \(an empty file, or a header alone\)"):
        load_task("glue-rte", "test", data_dir=tmp_path / "rte")


@pytest.fixture
def truncated(tmp_path) -> Path:
    """The course model with its model.safetensors cut in half, as an interrupted download leaves it."""
    folder = tmp_path / "model"
    folder.mkdir()
    for file in (ROOT / "models" / "course").iterdir():
        if file.is_file():
            (folder / file.name).write_bytes(file.read_bytes())
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:weights.stat().st_size // 2])
    return folder


def test_a_truncated_safetensors_file_is_named_as_damaged(truncated, tmp_path):
    with pytest.raises(CheckpointError, match=r"model.safetensors is damaged or incomplete \([\d,]+ bytes; "
                                              r"SafetensorError: .*\); download it again, or export it again"):
        minibert.BertModel.from_pretrained(truncated)
    row = json.dumps({"id": "0", "text": "ok", "label": 1}) + "\n"
    data = write(tmp_path / "tasks" / "sentiment", {"train.jsonl": row, "dev.jsonl": row}).parent
    argv = finetune_args("sentiment", data, tmp_path / "out")
    argv[argv.index("course")] = str(truncated)
    with pytest.raises(SystemExit, match=r"error: .*model.safetensors is damaged or incomplete"):
        main(argv)
    assert not (tmp_path / "out").exists()


def test_a_string_where_a_number_goes_says_so_and_how_to_write_it(tmp_path):
    write(tmp_path / "sentiment", {"train.jsonl": json.dumps({"id": "a", "text": "ok", "label": 1}) + "\n"
                                   + json.dumps({"id": "b", "text": "bad", "label": "0"}) + "\n"})
    with pytest.raises(TaskError, match=r"sentiment/train.jsonl:2: example 'b': label is '0' \(str\); it must be an "
                                        r"integer, an index into \('rotten', 'fresh'\); write it without quotes: 0"):
        load_task("sentiment", "train", data_dir=tmp_path)
    write(tmp_path / "pos", {"train.jsonl": json.dumps({"id": "p", "words": ["The", "whale"], "tags": ["5", "0"]})})
    with pytest.raises(TaskError, match=r"pos/train.jsonl:1: example 'p': tags is \['5', '0'\] \(list\); it must be "
                                        r"a list of integers"):
        load_task("pos", "train", data_dir=tmp_path)
    squad = {"data": [{"title": "t", "paragraphs": [{"context": "Call me Ishmael.", "qas": [
        {"id": "q1", "question": "Who?", "answers": [{"text": "Ishmael", "answer_start": "8"}]}]}]}]}
    write(tmp_path, {"dev-v1.1.json": json.dumps(squad)})
    with pytest.raises(TaskError, match=r"dev-v1.1.json: example 'q1': the answer_start of 'Ishmael' is '8' \(str\); "
                                        r"it must be a character index \(an integer\); write it without quotes: 8"):
        load_task("squad-v1.1", "dev", data_dir=tmp_path)


@pytest.mark.parametrize("drop, message", [
    (lambda qa, paragraph: qa.pop("question"), r"question 'q1' \(paragraph 1 of article 1\) has no 'question'"),
    (lambda qa, paragraph: paragraph.pop("context"), r"paragraph 1 of article 1 has no 'context'"),
    (lambda qa, paragraph: qa["answers"][0].pop("answer_start"),
     r"answer 1 of question 'q1' \(paragraph 1 of article 1\) has no 'answer_start'"),
])
def test_a_missing_squad_key_names_the_file_the_example_and_the_key(drop, message, tmp_path):
    qa = {"id": "q1", "question": "Who?", "answers": [{"text": "Ishmael", "answer_start": 8}]}
    paragraph = {"context": "Call me Ishmael.", "qas": [qa]}
    drop(qa, paragraph)
    write(tmp_path, {"dev-v1.1.json": json.dumps({"data": [{"title": "t", "paragraphs": [paragraph]}]})})
    with pytest.raises(TaskError, match=rf"dev-v1.1.json: {message}\. A SQuAD file is"):
        load_task("squad-v1.1", "dev", data_dir=tmp_path)


RECORD = json.dumps({"id": "1", "title": "A", "text": "Call me Ishmael. Some years ago I went to sea."})


@pytest.mark.parametrize("text, message", [
    (RECORD + '\n{"id": "2", "title": "B", "text": "broken\n', r"sample.jsonl:2:35: not JSON \(Unterminated string "
     r"starting at\): .*each line of a .jsonl file is one JSON object, a record: fix or remove that line"),
    ('{"id": "1", "text": "cut\n' + RECORD + "\n", r"sample.jsonl:1:21: not JSON"),
    (RECORD + "\n[1, 2]\n", r"sample.jsonl:2: a JSON list, not an object"),
    ("", r"sample.jsonl: an empty file, no records; remove it, or write its records again"),
    (RECORD + '\n{"id": "2", "title": "B", "text": 5}\n', r"record '2 B': field 'text' holds 5 \(int\), not text"),
])
def test_a_broken_jsonl_line_is_named_when_streaming(text, message, tmp_path, capsys, monkeypatch):
    import logging
    for handler in logging.getLogger("datasets").handlers:  # made at its first use, on an earlier test's stderr
        monkeypatch.setattr(handler, "stream", sys.stderr)
    (tmp_path / "sample.jsonl").write_text(text)
    assert corpus_main(["stream", "--source", str(tmp_path / "sample.jsonl"), "--out", str(tmp_path / "parts")]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert __import__("re").search(rf"error: .*{message}", err), err
    assert not list((tmp_path / "parts").glob("part-*"))  # no part, not even half of one


# --- 3. A misspelt model name, and a Hub that cannot help ------------------------------------------------------

@pytest.fixture
def no_hub(monkeypatch):
    """The Hub "download": offline, every repo fails as huggingface_hub fails when it cannot connect."""
    import huggingface_hub
    from huggingface_hub.errors import LocalEntryNotFoundError
    asked = []

    def snapshot_download(repo_id, **kwargs):
        asked.append(repo_id)
        raise LocalEntryNotFoundError("An error happened while trying to locate the files on the Hub, and we\n"
                                      "cannot find the appropriate snapshot folder. Please check your connection.")
    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    return asked


@pytest.fixture
def sentiment(tmp_path) -> Path:
    """A folder of tasks holding a tiny sentiment task."""
    rows = "".join(json.dumps({"id": str(i), "text": "fine", "label": i % 2}) + "\n" for i in range(4))
    return write(tmp_path / "tasks" / "sentiment", {"train.jsonl": rows, "dev.jsonl": rows}).parent


def test_a_misspelt_model_name_gets_a_did_you_mean_and_never_asks_the_hub(tmp_path, no_hub, sentiment):
    argv = finetune_args("sentiment", sentiment, tmp_path / "out")
    argv[argv.index("course")] = "minilmm"
    with pytest.raises(SystemExit, match=r"error: model 'minilmm' \(did you mean 'minilm'\?\) is not a folder, nor one "
                                         r"of the course's names \(minilm, course\); give one of them, a checkpoint "
                                         r"folder or a Hugging Face Hub id"):
        main(argv)
    with pytest.raises(FileNotFoundError, match=r"models/corse is not a checkpoint folder .*\(did you mean "
                                                r"models/course\?\)"):
        hub.resolve(Path("models") / "corse" if (Path("models") / "course").is_dir() else ROOT / "models" / "corse")
    assert no_hub == [] and not (tmp_path / "out").exists()


def test_a_name_the_hub_cannot_give_is_one_clear_error(tmp_path, no_hub, monkeypatch, sentiment):
    from huggingface_hub import constants
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    argv = finetune_args("sentiment", sentiment, tmp_path / "out")
    argv[argv.index("course")] = "someone/no-such-bert"
    with pytest.raises(SystemExit, match=r"error: 'someone/no-such-bert' is not a local folder, and downloading it "
                                         r"from the Hugging Face Hub failed: the Hub could not be reached, or has no "
                                         r"such repo \(LocalEntryNotFoundError: .*\)\. Check the name; offline, pass "
                                         r"the path of a checkpoint folder"):
        main(argv)
    assert no_hub == ["someone/no-such-bert"] and not (tmp_path / "out").exists()
    from huggingface_hub.errors import RepositoryNotFoundError

    class NoSuchRepo(RepositoryNotFoundError):  # as the Hub answers online: 404
        def __init__(self, message):
            Exception.__init__(self, message)

    import huggingface_hub
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda repo_id, **kw: (_ for _ in ()).throw(
        NoSuchRepo("404 Client Error. Repository Not Found")))
    with pytest.raises(FileNotFoundError, match=r"the Hub has no repo 'someone/no-such-bert' \(or it is private"):
        hub.resolve("someone/no-such-bert")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda repo_id, **kw: (_ for _ in ()).throw(
        huggingface_hub.errors.LocalEntryNotFoundError("offline mode is enabled")))
    with pytest.raises(FileNotFoundError, match=r"failed: HF_HUB_OFFLINE is set and no copy of 'x/y' is cached"):
        hub.resolve("x/y")


# --- 4. Offline, a Hub task fails in seconds, not after half a minute of retries -------------------------------

def test_a_hub_task_offline_fails_fast_with_the_fix(tmp_path):
    """Without HF_HUB_OFFLINE, `datasets` retried an unreachable Hub for ~25 s before failing."""
    pytest.importorskip("datasets")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_OFFLINE")}
    env.update(HF_ENDPOINT="http://127.0.0.1:9", HF_HOME=str(tmp_path / "hf"))  # a closed port: nothing answers
    code = "from minibert.tasks import load_task; load_task('glue-rte', 'dev')"
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 1
    assert __import__("re").search(
        r"TaskError: glue-rte: the Hugging Face Hub cannot be reached \(http://127.0.0.1:9 gave no answer in 3 s: "
        r".*\), so `datasets` cannot load nyu-mll/glue\. Download GLUE RTE and pass its folder as --data-dir "
        r"\(data_dir= in Python\); or, to use a copy `datasets` has cached, set HF_HUB_OFFLINE=1",
        done.stderr.strip().splitlines()[-1]), done.stderr[-2000:]
    assert time.perf_counter() - start < 15  # Python and torch starting included; it was over 25 s of retries


def test_a_hub_corpus_offline_fails_fast(monkeypatch):
    pytest.importorskip("datasets")
    from huggingface_hub import constants
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    start = time.perf_counter()
    with pytest.raises(CorpusError, match=r"wikipedia: the Hugging Face Hub cannot be reached \(http://127.0.0.1:9 "
                                          r"gave no answer in 3 s: .*\), so `datasets` cannot open "
                                          r"wikimedia/wikipedia\. Offline, pass local files"):
        stream.open_stream("wikipedia")
    assert time.perf_counter() - start < 5


def test_with_hf_hub_offline_the_command_fails_fast_and_clearly(tmp_path):
    pytest.importorskip("datasets")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "minibert.finetune", "--task", "glue-rte", "--model", "course",
                           "--out-dir", str(tmp_path / "out"), "--no-progress"], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1].startswith(
        "error: glue-rte: `datasets` could not load nyu-mll/glue (rte, train) from its cache (HF_HUB_OFFLINE is set)")
    assert time.perf_counter() - start < 60  # the start of Python and torch included; no retries
    assert not (tmp_path / "out").exists()
