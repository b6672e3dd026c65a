"""How many times a run reads its corpus, said by `--plan` and by the run itself before it starts:
BERT-BASE's recipe on the course corpus is warned, the course's own recipes are not."""

import json
from pathlib import Path

import pytest

from minibert import paper
from minibert.pretrain import passes, pretrain, recipe
from minibert.pretrain.__main__ import main
from minibert.pretrain.passes import TOO_MANY, corpus_lines, corpus_passes, corpus_size

TINY = dict(max_steps=2, warmup_steps=1, batch_size=4, eval_batches=1, max_seq_length=32, save_every=2, log_every=1)


def words_in(path) -> int:
    return sum(len(line.split()) for line in Path(path).read_text(encoding="utf-8").splitlines())


def test_the_papers_own_count_is_tokens_over_words():
    """A.2: 1M steps of 128,000 tokens "is approximately 40 epochs over the 3.3 billion word corpus"."""
    p = paper.PRETRAINING
    assert p["steps"] * p["tokens_per_batch"] / p["corpus_words"] == pytest.approx(p["epochs"], rel=0.05)


def test_base_on_the_course_corpus_is_warned_and_the_course_recipe_is_not(capsys):
    corpus = "data/corpus/train.txt"
    base = corpus_passes(recipe("base", train_corpus=corpus))
    assert base["corpus"] == dict(path=corpus, unit="words", size=words_in(corpus), how="counted")
    assert base["passes"] == 900_000 * 256 * 128 / words_in(corpus) > 1_000  # thousands of passes
    main(["--config", "base", "--plan"])
    plan = capsys.readouterr().out
    assert f"train corpus {corpus}: {words_in(corpus):,} words (counted)" in plan
    assert "held-out corpus data/corpus/valid.txt" in plan
    assert f"warning: {base['passes']:,.0f} passes over" in plan and "--train-corpus" in plan
    course = corpus_passes(recipe("course"))
    assert course["passes"] < TOO_MANY and not any("warning" in line for line in corpus_lines(recipe("course")))


def test_a_folder_of_shards_counts_its_tokens(tmp_path):
    (tmp_path / "00000.json").write_text(json.dumps({"tokens": 600}))
    (tmp_path / "00001.json").write_text(json.dumps({"tokens": 400}))
    unfinished = corpus_size(tmp_path)
    assert unfinished["size"] == 1_000 and "no complete.json" in unfinished["how"]
    (tmp_path / "complete.json").write_text(json.dumps({"tokens": 1_000, "instances": 10}))
    assert corpus_size(tmp_path) == dict(path=str(tmp_path), unit="tokens", size=1_000,
                                         how="instances' tokens, from its complete.json")
    cfg = recipe("tiny", train_corpus=str(tmp_path), max_steps=100, batch_size=8, max_seq_length=64)
    assert corpus_passes(cfg)["passes"] == 100 * 8 * 64 / 1_000
    assert "warning: 51 passes" not in "\n".join(corpus_lines(cfg))  # 51.2: below TOO_MANY


def test_a_large_file_is_estimated_from_its_beginning(tmp_path, monkeypatch):
    text = tmp_path / "big.txt"
    text.write_text("one two three\n" * 20_000 + "four five six seven\n" * 20_000)
    monkeypatch.setattr(passes, "COUNT_UP_TO", 1_000)  # as if it were over 1 GB
    monkeypatch.setattr(passes, "SAMPLE", 2 ** 10)
    estimate = corpus_size(text)
    # 140,000 words; the first 1,024 bytes have 3 words in 14 where the rest has 4 in 20: an
    # estimate, near and not equal, and said to be one
    assert estimate["how"] == "estimated from its first 1,024 bytes" and estimate["size"] != 140_000
    assert estimate["size"] == pytest.approx(140_000, rel=0.1)


def test_a_missing_corpus_says_how_to_make_one(tmp_path):
    lines = corpus_lines(recipe("base", train_corpus=str(tmp_path / "nothing.txt")))
    assert lines[0] == (f"train corpus {tmp_path / 'nothing.txt'}: not there yet; `make setup` (or `python -m "
                        "minibert.corpus prepare`) prepares the course corpus, and chapter 10 a large one (python -m "
                        "minibert.corpus stream, then python -m minibert.pretrain.shards)")
    assert corpus_passes(recipe("base", train_corpus=str(tmp_path / "nothing.txt")))["passes"] is None


def test_a_run_says_what_it_reads_before_it_starts(small, tmp_path, capsys):
    """The command says it (on the main process) once the run is accepted, before the run's own output;
    `pretrain()` called from a notebook prints nothing of it, so stored outputs hold no corpus path."""
    flags = ["--train-corpus", small["train_corpus"], "--valid-corpus", small["valid_corpus"], "--cache-dir",
             small["cache_dir"], "--vocab-size", "2000", "--no-progress", "--no-tensorboard",
             *(f"--{k.replace('_', '-')}={v}" for k, v in TINY.items())]
    main(["--config", "tiny", "--out-dir", str(tmp_path / "run"), *flags])
    said = capsys.readouterr().err
    assert f"train corpus {small['train_corpus']}: {words_in(small['train_corpus']):,} words (counted)" in said
    assert said.index("train corpus") < said.index("held-out corpus") and "warning: " not in said.split("\n")[2]
    pretrain(recipe("tiny", **{**small, **TINY, "out_dir": str(tmp_path / "quiet")}))
    assert "train corpus" not in capsys.readouterr().err
