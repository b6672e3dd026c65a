from pathlib import Path

import pytest
from helpers import exercise_functions

import minibert

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
