"""`reading-qa`: extractive question answering at SQuAD's difficulty (§4.2, §4.3), from the course corpus.

SQuAD's crowd workers read a paragraph and wrote questions about it, and most questions reuse the
words of the sentence that holds the answer. Rules can make such a question: take a sentence of
the passage, put a question word where the answer was, keep the words around it, and ask:

    sentence  "Ahab's leg was made of ivory, Starbuck said."          (in the passage)
    question  "Ahab's leg was made of what, Starbuck said?"
    answers   {"text": ["ivory"], "answer_start": [...]}               (where the sentence holds it)

So the answer is found by finding the sentence the question rewords, then the word it asks for.
`cloze-qa` (cloze.py) is the harder variant: its passage never holds the question's sentence. What
is asked about: preferably a name or a number, else a content word of five or more letters, as
there. A third of the questions get the passage of another document in which the answer does not
occur: no answer, as SQuAD 2.0's unanswerable questions (and the question's sentence is not there
either, which is the clue a reader uses). A name's possessive stays a word of its own after the
question word ("who or what 's law"): BERT's tokenizer splits "'s" off either way, so the model reads
the same pieces as for "who or what's law".
"""

from __future__ import annotations

import random
import re

from .cloze import MAX_CONTEXT_WORDS, MIN_CONTEXT_SENTENCES, NEIGHBOURS, candidates, cloze_split
from .common import SEED, Built, Card, Task, occurrences, read_prepared
from .documents import CORPUS_LICENCE, CORPUS_SOURCE, SEEN_NOTE, SPLIT_NOTE, Doc, usable, words

KEEP = 8  # words of the sentence kept on each side of the question word: questions are shorter than sentences
LEADING = {"and", "but", "or", "so", "yet", "then", "now", "well", "oh"}  # dropped from a question's start
PLURAL_NOUN = re.compile(r"[a-z]+s\b")

TASK = Task("reading-qa", "span", None, "squad",
            "answer a question that rewords a sentence of the passage, with a span of it; a third have no answer",
            stand_in=True, read=read_prepared, plays="SQuAD v2.0 (Figure 4c, §4.3)", prepared=True)


def question_word(sentence: str, start: int, end: int) -> str:
    """What to ask with: "how many" for a number before a plural noun, "what number" for another
    number, "who or what" for a name, "what" for a content word."""
    answer, after = sentence[start:end], sentence[end:].split()
    if answer[0].isdigit():
        return "how many" if after and PLURAL_NOUN.fullmatch(after[0].lower()) else "what number"
    return "who or what" if answer[0].isupper() else "what"


def reword(sentence: str, start: int, end: int) -> str:
    """The sentence as a question about sentence[start:end]: the question word in its place, at most
    KEEP words each side of it, no leading conjunction, a question mark for the final punctuation."""
    before, after = sentence[:start].split(), sentence[end:].split()
    before, after = before[-KEEP:], after[:KEEP]
    if before and before[0].lower().strip(",") in LEADING:
        before = before[1:]
    words_ = [*before, question_word(sentence, start, end), *after]
    text = " ".join(words_).rstrip(" .!?;:,\"'”’")
    return text[0].upper() + text[1:] + "?"


def window_with(doc: Doc, i: int, rng: random.Random) -> tuple[list[str], int] | None:
    """Sentences around sentence i *with* it (at a random place), and its index among them; None when
    no window of MIN_CONTEXT_SENTENCES to MAX_CONTEXT_WORDS fits."""
    for k in range(NEIGHBOURS, 0, -1):
        first = max(0, i - rng.randint(0, k))
        passage = list(doc.sentences[first:first + 2 * k + 1])
        if i < first + len(passage) and len(passage) >= MIN_CONTEXT_SENTENCES \
                and sum(map(words, passage)) <= MAX_CONTEXT_WORDS:
            return passage, i - first
    return None


def question(doc: Doc, i: int, rng: random.Random) -> dict | None:
    """A question on sentence i of `doc` with its passage, or None when none can be made."""
    sentence = doc.sentences[i]
    made = window_with(doc, i, rng)
    if made is None or not usable(sentence):
        return None
    passage, at = made
    offset = sum(len(s) + 1 for s in passage[:at])  # where the sentence starts in the context
    for spans in candidates(sentence):
        found = [(s, e) for s, e in spans if occurrences(sentence[s:e], sentence) == [s]]
        if found:
            s, e = found[rng.randrange(len(found))]
            context = " ".join(passage)
            assert context[offset + s:offset + e] == sentence[s:e]
            return {"question": reword(sentence, s, e), "context": context,
                    "answers": {"text": [sentence[s:e]], "answer_start": [offset + s]}}
    return None


def reading_split(docs: list[Doc], cap: int, rng: random.Random) -> list[dict]:
    """Up to `cap` questions at random sentences, a third without an answer, as cloze-qa's are drawn."""
    return cloze_split(docs, cap, rng, make=question)


QUESTION_WORDS = ("how many", "what number", "who or what", "what")  # longest first: "what" is in two others


def asked_with(question_: str) -> str:
    """The question word a question was made with (the first of QUESTION_WORDS it holds)."""
    padded = f" {question_.lower().rstrip('?')} "
    return next((w for w in QUESTION_WORDS if f" {w} " in padded), "")


def build(docs: dict[str, list[Doc]], caps: dict[str, int], seed: int = SEED) -> Built:
    splits = {s: reading_split(docs[s], caps[s], random.Random(f"{seed}/reading-qa/{s}")) for s in caps}
    notes = {"documents": {s: len(docs[s]) for s in caps}, "questions by question word": {}}
    for split, examples in splits.items():
        asked = [asked_with(e["question"]) for e in examples]
        notes["questions by question word"][split] = ", ".join(f"{w}: {asked.count(w):,}" for w in QUESTION_WORDS)
    return Built(splits, notes)


CARD = Card(
    source=CORPUS_SOURCE, licence=CORPUS_LICENCE,
    how=("A question rewords a sentence (3 to 40 words) of the passage: one name or number (a run of capitalised "
         "words that is not the sentence's first word, or digits), else a content word of five or more letters, "
         "occurring once in the sentence, is replaced by `who or what` (a name), `how many` (a number before a "
         "plural noun), `what number` (another number) or `what`; at most 8 words are kept on each side of it, "
         "a leading conjunction is dropped, and the final punctuation becomes `?`.",
         f"The passage (`context`) is the question's sentence with up to {NEIGHBOURS} sentences around it, placed "
         f"at random within them: at least {MIN_CONTEXT_SENTENCES} sentences, at most {MAX_CONTEXT_WORDS} words. "
         "`answers` holds the span of the question's sentence (`context[answer_start:answer_start + len(text)] "
         "== text`, checked on every load).",
         "A seeded third of the questions get instead a passage from another document of the same split in "
         "which the answer does not occur (case-insensitive), and empty answer lists, as SQuAD 2.0's "
         "unanswerable questions. Questions are drawn at random positions up to the caps.",
         SPLIT_NOTE, SEEN_NOTE),
    is_=("extractive QA in SQuAD 2.0's format and with its metric, with SQuAD's kind of difficulty: the question "
         "shares most of its words with the sentence that answers it"),
    is_not=("SQuAD: nobody wrote these questions, and rules reword less than people do (no synonyms, no change "
            "of word order), so it is easier than SQuAD; scores are not comparable with the paper's"))
