"""`cloze-qa`: extractive question answering shaped as SQuAD 2.0 (§4.2, §4.3), from the course corpus;
harder than SQuAD, and than `reading-qa` (reading.py), which plays SQuAD itself.

A question is a sentence of a document with one word or name blanked out; the passage is the
sentences around it, *without* the question's own sentence; the answer is where the blanked text
occurs in the passage. So the answer must be found by reading, not copied from the question:

    question  "Ahab's leg was made of _____ , Starbuck said."        (a sentence, answer blanked)
    context   "... the captain stood on his ivory leg. ... Starbuck watched the ivory ..."
    answers   {"text": ["ivory", "ivory"], "answer_start": [27, 71]}  (every occurrence)

What is blanked: preferably a name (a run of capitalised words, not the sentence's first word) or
a number; failing those, a content word of five or more letters. It must occur once in the
question's sentence and, as a whole word, in the passage. A third of the questions get the passage
of another document in which the blanked text does not occur: no answer (empty lists), as SQuAD
2.0's unanswerable questions.
"""

from __future__ import annotations

import random
import re

from .common import SEED, Built, Card, Task, occurrences, read_prepared, sample
from .documents import CORPUS_LICENCE, CORPUS_SOURCE, SEEN_NOTE, SPLIT_NOTE, Doc, usable, words

BLANK = "_____"
NEIGHBOURS = 3              # sentences before and after the question's, at most...
MIN_CONTEXT_SENTENCES = 4   # ...and at least this many in the passage
MAX_CONTEXT_WORDS = 160     # so that question and passage fit in 256 WordPiece tokens
NO_ANSWER_FRACTION = 1 / 3
NAME = re.compile(r"\b[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*")  # a run of capitalised words
POSSESSIVE = re.compile(r"(['’]s?)?$")
NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")
WORD = re.compile(r"\b[a-z]{5,}\b")
# Capitalised words that are not names (a quotation's first word, a pronoun, titles on their own).
NOT_NAMES = set("I A An The He She It We They You This That These Those There Here His Her Its Our Their My "
                "But And Or If In On At Of To For As By So Yet When Then What Who Why How Mr Mrs Ms Dr Sir "
                "Yes No Oh Well Now Let Not All One".split())
COMMON = set("about above after again against among around because before being below between could "
             "didn't doesn't during every first further having itself little might never other others ought "
             "shall should since still their there these thing things those three through under until "
             "upon where which while whole whose would years great people".split())

TASK = Task("cloze-qa", "span", None, "squad",
            "find in a passage the word or name blanked out of a nearby sentence; a third have no answer",
            stand_in=True, read=read_prepared, prepared=True,
            plays="SQuAD v2.0, harder: the answer's sentence is not in the passage (reading-qa plays it as asked)")


def candidates(sentence: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(start, end) of the names and numbers of a sentence, and of its content words."""
    first = re.search(r"\w", sentence)
    names = []
    for m in NAME.finditer(sentence):
        start, end, words_ = m.start(), m.end(), m.group().split()
        if (first is not None and start == first.start()) or words_[0] in NOT_NAMES:  # not part of a name
            start += len(words_[0]) + 1
        end -= len(POSSESSIVE.search(m.group()).group())  # "Atlanta's" -> "Atlanta"
        if start < end and sentence[start:end] not in NOT_NAMES:
            names.append((start, end))
    names += [m.span() for m in NUMBER.finditer(sentence)]
    content = [m.span() for m in WORD.finditer(sentence) if m.group() not in COMMON]
    return names, content


def window(doc: Doc, i: int) -> list[str] | None:
    """The sentences around sentence i (not i itself): up to NEIGHBOURS each side, fewer when the
    passage would be longer than MAX_CONTEXT_WORDS; None when no window fits."""
    for k in range(NEIGHBOURS, 1, -1):
        passage = [*doc.sentences[max(0, i - k):i], *doc.sentences[i + 1:i + 1 + k]]
        if len(passage) >= MIN_CONTEXT_SENTENCES and sum(map(words, passage)) <= MAX_CONTEXT_WORDS:
            return passage
    return None


def question(doc: Doc, i: int, rng: random.Random) -> dict | None:
    """A cloze question on sentence i of `doc` with its passage, or None when none can be made."""
    passage = window(doc, i)
    sentence = doc.sentences[i]
    if passage is None or not usable(sentence):
        return None
    context = " ".join(passage)
    for spans in candidates(sentence):
        found = [(s, e) for s, e in spans if occurrences(sentence[s:e], sentence) == [s]
                 and occurrences(sentence[s:e], context)]
        if found:
            s, e = found[rng.randrange(len(found))]
            answer = sentence[s:e]
            starts = occurrences(answer, context)
            return {"question": sentence[:s] + BLANK + sentence[e:], "context": context,
                    "answers": {"text": [answer] * len(starts), "answer_start": starts}}
    return None


def unanswerable(example: dict, docs: list[Doc], d: int, rng: random.Random, tries: int = 20) -> dict | None:
    """The same question with the passage of another document in which the answer does not occur."""
    answer = example["answers"]["text"][0]
    for _ in range(tries):
        od = rng.randrange(len(docs))
        if od == d or len(docs[od].sentences) < MIN_CONTEXT_SENTENCES + 1:
            continue
        passage = window(docs[od], rng.randrange(len(docs[od].sentences)))
        if passage and not re.search(re.escape(answer), " ".join(passage), re.IGNORECASE):
            return {**example, "context": " ".join(passage), "answers": {"text": [], "answer_start": []}}
    return None


def cloze_split(docs: list[Doc], cap: int, rng: random.Random, make=question) -> list[dict]:
    """Up to `cap` questions made by `make(doc, i, rng)` (this file's `question`, or reading.py's) at
    random sentences, a third of them then given another document's passage without the answer."""
    positions = [(d, i) for d, doc in enumerate(docs) for i in range(len(doc.sentences))]
    rng.shuffle(positions)
    made = []
    for d, i in positions:  # in random order until the cap is reached
        if (example := make(docs[d], i, rng)) is not None:
            made.append((d, i, example))
            if len(made) == cap:
                break
    no_answer = set(sample(range(len(made)), round(NO_ANSWER_FRACTION * len(made)), rng))
    examples = []
    for n, (d, i, example) in enumerate(made):
        if n in no_answer:
            example = unanswerable(example, docs, d, rng) or example
        examples.append({"id": f"{docs[d].id}/{i}", **example})
    return sorted(examples, key=lambda e: e["id"])


def build(docs: dict[str, list[Doc]], caps: dict[str, int], seed: int = SEED) -> Built:
    splits = {s: cloze_split(docs[s], caps[s], random.Random(f"{seed}/cloze-qa/{s}")) for s in caps}
    notes = {"documents": {s: len(docs[s]) for s in caps}, "answers that are a name or a number": {}}
    for split, examples in splits.items():
        answers = [e["answers"]["text"][0] for e in examples if e["answers"]["text"]]
        names = sum(a[0].isupper() or a[0].isdigit() for a in answers)
        notes["answers that are a name or a number"][split] = f"{names:,} of {len(answers):,}"
    return Built(splits, notes)


CARD = Card(
    source=CORPUS_SOURCE, licence=CORPUS_LICENCE,
    how=("A question is a sentence (3 to 40 words) with one word or name replaced by `_____`: preferably a "
         "name (a run of capitalised words that is not the sentence's first word) or a number, otherwise a "
         "content word of five or more letters; it must occur once in the sentence and, as a whole word, in "
         "the passage (a whole word: not part of a longer or hyphenated word, a fraction such as `1/8` or a "
         "number such as `1.5`).",
         f"The passage (`context`) is the sentences around the question's: up to {NEIGHBOURS} before and "
         f"{NEIGHBOURS} after, at least {MIN_CONTEXT_SENTENCES}, at most {MAX_CONTEXT_WORDS} words, never the "
         "question's own sentence. `answers` lists every whole-word occurrence of the blanked text in it "
         "(`context[answer_start:answer_start + len(text)] == text`, checked on every load).",
         "A seeded third of the questions get instead a passage from another document of the same split in "
         "which the blanked text does not occur (case-insensitive), and empty answer lists, as SQuAD 2.0's "
         "unanswerable questions. Questions are drawn at random positions up to the caps.",
         SPLIT_NOTE, SEEN_NOTE),
    is_=("extractive QA in SQuAD 2.0's format and with its metric: find a span of the passage, or say there "
         "is none"),
    is_not=("SQuAD: nobody wrote these questions; a question is a sentence with a blank (a cloze), so "
            "matching words around the blank often finds the answer; scores are not comparable with the "
            "paper's SQuAD numbers"))
