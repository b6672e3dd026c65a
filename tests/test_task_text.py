"""A task's training text as a pre-training corpus (`python -m minibert.tasks text NAME`): the text
of every train example once, its labels and the dev and test splits never; and the task-adaptive
preset (`--config course-sentiment`) that reads it."""

import json
import shlex
from pathlib import Path

import pytest

from minibert.pretrain import heldout_metrics, pretrain, read_log, recipe
from minibert.pretrain.__main__ import parse
from minibert.pretrain.passes import corpus_lines
from minibert.tasks import TaskError
from minibert.tasks.__main__ import main
from minibert.tasks.catalog import task_text

ROOT = Path(__file__).resolve().parents[1]

SPLITS = {
    "sentiment": {"train": [{"id": "a", "text": "A gripping,   wonderful film.", "label": 1},
                            {"id": "b", "text": "Dull and lifeless.", "label": 0},
                            {"id": "c", "text": "A gripping, wonderful film.", "label": 1}],  # a repeat, once
                  "dev": [{"id": "d", "text": "Seen by no one in training.", "label": 1}]},
    "next-sentence": {"train": [{"id": "p", "text": "He went to sea.", "text_pair": "The sea was calm.", "label": 1}],
                      "dev": [{"id": "q", "text": "Dev first.", "text_pair": "Dev second.", "label": 0}]},
}


@pytest.fixture
def tasks(tmp_path):
    for name, splits in SPLITS.items():
        (tmp_path / name).mkdir()
        for split, rows in splits.items():
            (tmp_path / name / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path


def test_each_train_example_is_one_document_without_its_label(tasks):
    assert task_text("sentiment", tasks) == "A gripping, wonderful film.\n\nDull and lifeless.\n\n"
    assert task_text("next-sentence", tasks) == "He went to sea.\nThe sea was calm.\n\n"  # a pair: two lines


def test_the_command_writes_the_file_the_preset_reads_and_never_dev(tasks, capsys):
    assert main(["text", "sentiment", "--data-dir", str(tasks)]) == 0
    written = (tasks / "sentiment" / "train.txt").read_text(encoding="utf-8")
    assert "Seen by no one" not in written and written == task_text("sentiment", tasks)
    assert "wrote " in capsys.readouterr().out
    assert recipe("course-sentiment").train_corpus == "data/tasks/sentiment/train.txt"  # the default place


def test_an_unknown_task_is_an_error_that_lists_the_tasks(tasks, capsys):
    assert main(["text", "sentimnet", "--data-dir", str(tasks)]) == 1
    assert "no task 'sentimnet' (did you mean 'sentiment'?)" in capsys.readouterr().err
    with pytest.raises(TaskError, match="sentiment is not prepared"):
        task_text("sentiment", tasks / "nowhere")


def test_a_missing_task_corpus_names_the_command_that_writes_it(tmp_path):
    cfg = recipe("course-sentiment", train_corpus=str(tmp_path / "tasks" / "sentiment" / "train.txt"))
    assert "`python -m minibert.tasks text sentiment` writes it" in corpus_lines(cfg)[0]


def test_the_task_adaptive_preset_goes_on_from_the_course_model(tasks, tmp_path):
    """Two steps of `--config course-sentiment` on the small task's text: the course model's weights
    and vocabulary, the masked LM alone, the snippets' own length."""
    main(["text", "sentiment", "--data-dir", str(tasks)])
    cfg = recipe("course-sentiment", train_corpus=str(tasks / "sentiment" / "train.txt"), max_steps=2, warmup_steps=1,
                 batch_size=2, eval_every=2, eval_batches=1, save_every=2, out_dir=str(tmp_path / "run"),
                 cache_dir=str(tmp_path / "cache"), progress=False, tensorboard=False)
    assert cfg.init_from == "models/course" and cfg.vocab == "models/course" and not cfg.nsp
    pretrain(cfg)
    (header,) = read_log(tmp_path / "run", "run")
    assert header["config"]["init_from"] == "models/course" and read_log(tmp_path / "run", "end")[-1]["step"] == 2


def test_the_stored_log_is_the_preset_today_and_the_page_quotes_it():
    """results/pretrain/course-sentiment-log.jsonl (the model behind sentiment/course-sentiment*): its
    command parses into its logged settings today, and docs/finetuning.md quotes its minutes and its
    held-out accuracy at [MASK], beside the course model's on the same text and positions."""
    log = ROOT / "results" / "pretrain" / "course-sentiment-log.jsonl"
    header, end = read_log(log, "run")[0], read_log(log, "end")[-1]
    assert header["command"] == "python -m minibert.pretrain --config course-sentiment --no-progress"
    cfg, _ = parse(shlex.split(header["command"])[3:])
    skip = ("out_dir", "progress")
    assert {k: v for k, v in cfg.to_dict().items() if k not in skip} == {
        k: (tuple(v) if isinstance(v, list) else v) for k, v in header["config"].items() if k not in skip}
    assert end["step"] == cfg.max_steps
    before = heldout_metrics(recipe("course-sentiment", eval_batches=None), str(ROOT / "models" / "course"))
    page = (ROOT / "docs" / "finetuning.md").read_text(encoding="utf-8")
    assert f"falls from {before['mlm_accuracy_at_mask']:.1%} to {end['mlm_accuracy_at_mask']:.1%}" in page
    assert f"{end['seconds'] / 60:.1f} minutes; dev and test text never seen" in page


def test_text_never_overwrites_a_file_holding_other_text(tasks, tmp_path, capsys):
    """A mistyped --out must not cost the file it names: it is kept, byte for byte, unless --force;
    writing the same text again (the command re-run) is allowed."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my own notes\n")
    assert main(["text", "sentiment", "--data-dir", str(tasks), "--out", str(notes)]) == 1
    err = capsys.readouterr().err
    assert f"{notes} exists and holds other text" in err and "--force" in err and "nothing was written" in err
    assert notes.read_text() == "my own notes\n"
    assert main(["text", "sentiment", "--data-dir", str(tasks), "--out", str(tmp_path)]) == 1
    assert "is a folder" in capsys.readouterr().err
    assert main(["text", "sentiment", "--data-dir", str(tasks)]) == 0
    assert main(["text", "sentiment", "--data-dir", str(tasks)]) == 0  # the same text again: no error
    assert main(["text", "sentiment", "--data-dir", str(tasks), "--out", str(notes), "--force"]) == 0
    assert notes.read_text(encoding="utf-8") == task_text("sentiment", tasks)
