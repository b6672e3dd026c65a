"""Two tasks from pairs of neighbouring sentences of the course corpus (documents in `documents.py`):

    next-sentence         A, B -> "next" (B follows A in its document) or "random" (B is from another
                          document), half and half: the pre-training NSP task itself (§3.1), as a
                          sentence-pair classification (Figure 4a)
    next-sentence-choice  a sentence and four endings, one its true next sentence, three from other
                          documents -> which one: multiple choice shaped as SWAG (§4.4)

Distractors and random B's come from other documents of the same split (test's only from test
documents). A choice's three distractors are, of twelve random sentences, the three whose length
is closest to the true ending's, so that length alone does not give the answer away.
"""

from __future__ import annotations

import random

from .common import SEED, Built, Card, Task, TaskError, read_prepared, sample
from .documents import CORPUS_LICENCE, CORPUS_SOURCE, SEEN_NOTE, SPLIT_NOTE, MAX_WORDS, MIN_WORDS, Doc, \
    usable, words

NSP_LABELS = ("next", "random")  # 0 = IsNext, as next_sentence_label in Google's code and transformers
CHOICES = 4
CANDIDATES = 12  # random sentences from other documents, of which the CHOICES - 1 closest in length are used

NEXT_SENTENCE = Task("next-sentence", "pair", NSP_LABELS, "accuracy",
                     "does sentence B follow sentence A in its document, or is it from another one?",
                     stand_in=True, read=read_prepared, plays="the sentence-pair tasks: MRPC, QQP, MNLI, ... "
                     "(Figure 4a)", prepared=True)
CHOICE = Task("next-sentence-choice", "choice", None, "accuracy",
              "which of four sentences comes next? one is, three are from other documents",
              stand_in=True, read=read_prepared, plays="SWAG (§4.4)", prepared=True)


def anchors(docs: list[Doc]) -> list[tuple[int, int]]:
    """(document, sentence) positions whose sentence and the next are both usable."""
    return [(d, i) for d, doc in enumerate(docs) for i in range(len(doc.sentences) - 1)
            if usable(doc.sentences[i]) and usable(doc.sentences[i + 1])]


def other_sentence(docs: list[Doc], pool: list[tuple[int, int]], d: int, avoid: str, rng: random.Random) -> str:
    """A usable sentence from a document other than docs[d], whose text is not `avoid`."""
    while True:
        od, oi = pool[rng.randrange(len(pool))]
        if od != d and docs[od].sentences[oi] != avoid:
            return docs[od].sentences[oi]


def usable_pool(docs: list[Doc]) -> list[tuple[int, int]]:
    """Every usable sentence's (document, sentence): where random B's and distractors are drawn from."""
    pool = [(d, i) for d, doc in enumerate(docs) for i, s in enumerate(doc.sentences) if usable(s)]
    if len({d for d, _ in pool}) < 2 or len({docs[d].sentences[i] for d, i in pool}) <= CHOICES:
        raise TaskError(f"{len(docs)} documents with {len(pool)} usable sentences: too few to draw sentences "
                        "of other documents from")
    return pool


def next_sentence_split(docs: list[Doc], cap: int, rng: random.Random) -> list[dict]:
    pool = usable_pool(docs)
    chosen = sample(anchors(docs), cap, rng)
    labels = [i % 2 for i in range(len(chosen))]  # exactly half "next" (0), half "random" (1)
    rng.shuffle(labels)
    examples = []
    for (d, i), label in zip(chosen, labels):
        true_next = docs[d].sentences[i + 1]
        b = true_next if label == 0 else other_sentence(docs, pool, d, true_next, rng)
        examples.append({"id": f"{docs[d].id}/{i}", "text": docs[d].sentences[i], "text_pair": b, "label": label})
    return examples


def choice_split(docs: list[Doc], cap: int, rng: random.Random) -> list[dict]:
    pool = usable_pool(docs)
    examples = []
    for d, i in sample(anchors(docs), cap, rng):
        true_next = docs[d].sentences[i + 1]
        candidates = list(dict.fromkeys(other_sentence(docs, pool, d, true_next, rng) for _ in range(CANDIDATES)))
        while len(candidates) < CHOICES - 1:  # a tiny corpus: draw until there are enough different ones
            candidates = list(dict.fromkeys([*candidates, other_sentence(docs, pool, d, true_next, rng)]))
        candidates.sort(key=lambda s: abs(words(s) - words(true_next)))  # stable: ties keep the random order
        endings = [true_next, *candidates[:CHOICES - 1]]
        rng.shuffle(endings)
        examples.append({"id": f"{docs[d].id}/{i}", "context": docs[d].sentences[i], "endings": endings,
                         "label": endings.index(true_next)})
    return examples


def build(docs: dict[str, list[Doc]], caps: dict[str, int], seed: int = SEED) -> dict[str, Built]:
    out = {}
    for task, make in ((NEXT_SENTENCE, next_sentence_split), (CHOICE, choice_split)):
        splits = {s: make(docs[s], caps[s], random.Random(f"{seed}/{task.name}/{s}")) for s in caps}
        notes = {"documents": {s: len(docs[s]) for s in caps},
                 "usable anchors": {s: len(anchors(docs[s])) for s in caps}}
        out[task.name] = Built(splits, notes)
    return out


SENTENCES_NOTE = (f"Every sentence used (A and B, context and endings) has {MIN_WORDS} to {MAX_WORDS} words; "
                  "an anchor (a sentence with a usable next sentence in its document) is drawn at random, up "
                  "to the caps.")
NEXT_SENTENCE_CARD = Card(
    source=CORPUS_SOURCE, licence=CORPUS_LICENCE,
    how=(SENTENCES_NOTE,
         "Exactly half of each split's examples are `next` (B is the sentence after A in A's document), half "
         "`random` (B is a random sentence of another document of the same split, never the text of the true "
         "next sentence); which is which is a seeded shuffle.",
         SPLIT_NOTE, SEEN_NOTE),
    is_=("BERT's own next-sentence-prediction task (§3.1), as a sentence-pair classification: a sanity check "
         "that fine-tuning works (a pre-trained model with an NSP head should score well before any "
         "fine-tuning) and a pair task for a CPU"),
    is_not=("a GLUE task: not paraphrase (MRPC, QQP), not entailment (MNLI, RTE, QNLI); the labels come from "
            "document order, not from people, and the random B is usually off-topic, which makes it easy"))
CHOICE_CARD = Card(
    source=CORPUS_SOURCE, licence=CORPUS_LICENCE,
    how=(SENTENCES_NOTE,
         f"The endings are the true next sentence and {CHOICES - 1} sentences of other documents of the same "
         f"split: of {CANDIDATES} drawn at random, the {CHOICES - 1} closest in length to the true one. The "
         "true ending's position is a seeded shuffle.",
         SPLIT_NOTE, SEEN_NOTE),
    is_="a four-way multiple choice of the next sentence, in SWAG's shape (context, four endings, label)",
    is_not=("SWAG: no video captions, no adversarial filtering of the distractors (they are merely random "
            "sentences of other documents of a similar length, so topic alone often gives the answer away); "
            "scores are not comparable with the paper's SWAG numbers"))
