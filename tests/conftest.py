from pathlib import Path

import pytest
from helpers import exercise_functions

import minibert
from minibert.corpus import read_documents

# Real English for the fidelity tests: the opening of Moby-Dick (public domain) and of the BERT
# abstract, as sentence pairs of different lengths so that a batch needs padding.
PAIRS = [
    ("Call me Ishmael.", "Some years ago, never mind how long precisely, having little or no money in my purse, "
     "and nothing particular to interest me on shore, I thought I would sail about a little and see the "
     "watery part of the world."),
    ("It is a way I have of driving off the spleen, and regulating the circulation.",
     "Whenever I find myself growing grim about the mouth, I account it high time to get to sea."),
    ("We introduce a new language representation model called BERT.",
     "It stands for Bidirectional Encoder Representations from Transformers."),
    ("BERT is conceptually simple and empirically powerful.", "Naïve café résumé — 北京 emoji 🙂?"),
]


@pytest.fixture(scope="session")
def minilm_dir():
    return minibert.minilm_path()


@pytest.fixture(scope="session")
def hf_tokenizer(minilm_dir):
    transformers = pytest.importorskip("transformers")
    return transformers.BertTokenizer(str(minilm_dir / "vocab.txt"))


@pytest.fixture(scope="session")
def real_batch(hf_tokenizer):
    """A padded batch of real sentence pairs, token types included, tokenised by BERT's own tokenizer."""
    firsts, seconds = zip(*PAIRS)
    enc = hf_tokenizer(list(firsts), list(seconds), padding=True, return_tensors="pt")
    assert (enc["attention_mask"] == 0).any() and (enc["token_type_ids"] == 1).any()
    return {k: enc[k] for k in ("input_ids", "token_type_ids", "attention_mask")}


@pytest.fixture(scope="session")
def small(tmp_path_factory):
    """Pre-training settings at CI size: the first 150 documents of the course corpus (~610k words)
    and its held-out split, with an own 2,000-entry vocabulary; real text."""
    course = Path("data/corpus")
    if not (course / "train.txt").is_file():
        pytest.fail("the course corpus is missing: run `make setup` first")
    root = tmp_path_factory.mktemp("pretrain")
    docs = read_documents(course / "train.txt")[:150]
    (root / "train.txt").write_text("\n\n".join("\n".join(d) for d in docs) + "\n", encoding="utf-8")
    return dict(train_corpus=str(root / "train.txt"), valid_corpus=str(course / "valid.txt"),
                cache_dir=str(root / "cache"), vocab_size=2000, progress=False, tensorboard=False)


# Counts a test measured (how many lines it compared, ...), printed at the end of every run.
MEASURED: list[str] = []


@pytest.fixture
def report():
    return MEASURED.append


def pytest_terminal_summary(terminalreporter):
    if MEASURED:
        terminalreporter.section("measured by the tests")
        for line in MEASURED:
            terminalreporter.write_line(line)


# The functions of an exercise notebook, for the checker tests: each test module names its notebook in NAME.
@pytest.fixture(scope="module")
def solutions(request):
    return exercise_functions(Path(__file__).parents[1] / "exercises" / "solutions" / request.module.NAME)


@pytest.fixture(scope="module")
def stubs(request):
    return exercise_functions(Path(__file__).parents[1] / "exercises" / request.module.NAME)
