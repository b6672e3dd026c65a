"""Exercise 4.3 (my_nsp_pair): learners' NSP pairs with one mistake each, and correct ones in other styles.

Split rule (fixed before any checker changed): within the exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import random

from . import Exercise
import torch
from minibert.masking import IGNORE_INDEX
import itertools
import torch.nn.functional as F
import functools
import numpy as np
import re

EX = Exercise("4.3", "nsp_pair")


@EX.bug
def other_document_may_be_itself(documents, index, rng):
    """For NotNext I drew any document, rng.randrange(len(documents)), which is sometimes A's own."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = documents[rng.randrange(len(documents))]
    start = rng.randrange(len(other))
    return document[:a_end], other[start:start + len(document) - a_end], False


@EX.bug
def a_may_take_everything(documents, index, rng):
    """I drew a_end with rng.randint(1, len(document)), so A sometimes takes the whole document."""
    document = documents[index]
    a_end = rng.randint(1, len(document))
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + max(1, len(document) - a_end)], False


@EX.bug
def coin_from_the_random_module(documents, index, rng):
    """I tossed the coin with random.random() (the module), not with rng."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if random.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def a_may_be_empty(documents, index, rng):
    """I drew a_end with rng.randint(0, len(document) - 1), so A is sometimes empty."""
    document = documents[index]
    a_end = rng.randint(0, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def own_document_removed_from_the_list(documents, index, rng):
    """I removed A's document from the list before drawing the other one (documents.pop changes the caller's list)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    documents.pop(index)
    other = rng.choice(documents)
    start = rng.randrange(len(other))
    return document[:a_end], other[start:start + len(document) - a_end], False


@EX.bug
def other_document_from_its_start(documents, index, rng):
    """For NotNext I always took the other document's first sentences."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    return document[:a_end], documents[other][:len(document) - a_end], False


@EX.bug
def minibert_label_convention(documents, index, rng):
    """I returned minibert's label, 0 for IsNext and 1 for NotNext, as is_next."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], 0
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], 1


@EX.bug
def last_document_never_drawn(documents, index, rng):
    """To skip A's document I wrote `if other == index: other += 1` (so the last document is never the other one)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    if other == index:
        other += 1
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def rng_seeded_with_the_index(documents, index, rng):
    """I called rng.seed(index) first so that each document gives a reproducible pair."""
    rng.seed(index)
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def notnext_three_times_in_four(documents, index, rng):
    """I wrote `if rng.random() < 0.25` for IsNext (I mixed up the two halves with a quarter)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.25:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def b_sentences_shuffled(documents, index, rng):
    """For NotNext I drew the sentences of B one at a time at random from the other document."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    n = min(len(document) - a_end, len(documents[other]))
    return document[:a_end], rng.sample(documents[other], n), False


@EX.bug
def sentences_joined(documents, index, rng):
    """I joined A's and B's sentences into one string each, ready for the tokenizer."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return " ".join(document[:a_end]), " ".join(document[a_end:]), True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return " ".join(document[:a_end]), " ".join(documents[other][start:start + len(document) - a_end]), False


@EX.correct
def redraw_until_another(documents, index, rng):
    """A as a random window, the other document drawn again until it is not A's own."""
    document = documents[index]
    a_start = rng.randrange(len(document) - 1)
    a_end = rng.randint(a_start + 1, len(document) - 1)
    a = list(document[a_start:a_end])
    if rng.randint(0, 1) == 1:
        return a, list(document[a_end:]), True
    other = index
    while other == index:
        other = rng.randrange(len(documents))
    start = rng.randrange(len(documents[other]))
    return a, list(documents[other][start:start + len(document) - a_end]), False


@EX.correct
def choice_among_the_others(documents, index, rng):
    """The other document by rng.choice over a new list without A's own."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    is_next = rng.random() >= 0.5
    if is_next:
        return document[:a_end], document[a_end:], is_next
    others = [d for j, d in enumerate(documents) if j != index]
    other = rng.choice(others)
    start = rng.randrange(len(other))
    return document[:a_end], other[start:start + len(document) - a_end], is_next


# --- Batch 2: written without reading any checker, before the checkers were changed against it ---
EX.batch = 2


@EX.bug
def start_past_the_end(documents, index, rng):
    """For NotNext I drew B's start with rng.randint(0, len(other)), which can start past its end (B empty)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randint(0, len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def b_skips_a_sentence(documents, index, rng):
    """For IsNext I took B as document[a_end + 1:], starting one sentence after A's last."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end + 1:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def other_by_sentence_count(documents, index, rng):
    """For NotNext I drew one sentence among all the other documents' sentences ("a random sentence from the corpus"), so long documents win more often."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    places = [(j, s) for j, d in enumerate(documents) if j != index for s in range(len(d))]
    other, start = rng.choice(places)
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def randrange_for_a_end(documents, index, rng):
    """I drew a_end with rng.randrange(1, len(document) - 1), so A never takes all but the last sentence."""
    document = documents[index]
    a_end = rng.randrange(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.correct
def offset_modulo(documents, index, rng):
    """The other document as index + an offset of 1 .. len - 1, modulo the number of documents; A's end by choice."""
    document = list(documents[index])
    a_end = rng.choice(range(1, len(document)))
    is_next = rng.randrange(2) == 0
    if is_next:
        return document[:a_end], document[a_end:], True
    other = documents[(index + rng.randrange(1, len(documents))) % len(documents)]
    start = rng.randrange(len(other))
    return document[:a_end], list(other[start:start + len(document) - a_end]), False


# --- Batch 3: written without reading any checker, before the checkers were changed against it ---
EX.batch = 3


@EX.bug
def coin_returned_as_an_int(documents, index, rng):
    """I tossed the coin with rng.randint(0, 1) and returned it as is_next, 1 or 0 rather than True or False."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    is_next = rng.randint(0, 1)
    if is_next:
        return document[:a_end], document[a_end:], is_next
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], is_next


@EX.bug
def documents_shuffled_to_pick(documents, index, rng):
    """For NotNext I shuffled the documents with rng.shuffle(documents) and took the first that is not A's (the caller's list is reordered)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    rng.shuffle(documents)
    other = next(d for d in documents if d is not document)
    start = rng.randrange(len(other))
    return document[:a_end], other[start:start + len(document) - a_end], False


@EX.bug
def others_by_equality(documents, index, rng):
    """I listed the other documents as [d for d in documents if d != document], so a document equal to A's is never drawn."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.choice([d for d in documents if d != document])
    start = rng.randrange(len(other))
    return document[:a_end], other[start:start + len(document) - a_end], False


@EX.bug
def own_draw_moved_to_the_next(documents, index, rng):
    """I drew among all the documents and, when A's own came up, took the next one ((index + 1) % n), which is then drawn twice as often."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents))
    if other == index:
        other = (other + 1) % len(documents)
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def stepped_over_with_greater_than(documents, index, rng):
    """I stepped over A's document with `if other > index: other += 1`, so a draw equal to index stays on A's own."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    if other > index:
        other += 1
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


_OTHERS_B3 = {}


@EX.bug
def others_cached_per_index(documents, index, rng):
    """I built the list of the other documents once per index and kept it in a module-level dict (a later corpus gets the first one's)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    if index not in _OTHERS_B3:
        _OTHERS_B3[index] = [d for j, d in enumerate(documents) if j != index]
    other = rng.choice(_OTHERS_B3[index])
    start = rng.randrange(len(other))
    return document[:a_end], other[start:start + len(document) - a_end], False


@EX.correct
def two_distinct_draws(documents, index, rng):
    """A as a random window; the other document from rng.sample of two distinct indices, the one that is not A's."""
    document = documents[index]
    a_start = rng.randint(0, len(document) - 2)
    a_end = rng.randint(a_start + 1, len(document) - 1)
    is_next = rng.choice([True, False])
    if is_next:
        return document[a_start:a_end], document[a_end:], True
    first, second = rng.sample(range(len(documents)), 2)
    other = documents[second if first == index else first]
    start = rng.randint(0, len(other) - 1)
    return document[a_start:a_end], other[start:start + len(document) - a_end], False


# --- batch 4: written without reading any checker ------------------------------------------
EX.batch = 4


@EX.bug
def a_end_from_the_number_of_documents(documents, index, rng):
    """I typed len(documents) for len(document) when drawing A's end, rng.randint(1, len(documents) - 1).
    Differs on: [["a1", "a2"], ["b1"], ["c1"], ["d1"]], index 0: A can be the whole document, with B = [] (IsNext or NotNext)."""
    document = documents[index]
    a_end = rng.randint(1, len(documents) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def other_drawn_from_one_up(documents, index, rng):
    """I drew the other document with rng.randint(1, len(documents) - 1), leaving out document 0 (A came from document 0 in my tests), so for index > 0 A's own document can come up.
    Differs on: [["a1", "a2"], ["b1", "b2"]], index 1: every NotNext B comes from document 1, A's own, and document 0 is never used."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = documents[rng.randint(1, len(documents) - 1)]
    start = rng.randrange(len(other))
    return document[:a_end], other[start:start + len(document) - a_end], False


@EX.bug
def b_one_sentence_short(documents, index, rng):
    """For NotNext I took len(document) - a_end - 1 sentences of the other document (one short), so when A leaves one sentence the NotNext B is empty.
    Differs on: [["a1", "a2"], ["b1", "b2"]], index 0: every NotNext pair is (["a1"], [], False)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end - 1], False


@EX.bug
def isnext_b_from_a_length(documents, index, rng):
    """I drew A as a window document[a_start:a_start + n] and took the IsNext B as document[n:], from A's length instead of from A's end.
    Differs on: [["a1", "a2", "a3"], ["b1"]], index 0: A = ["a2"] comes with IsNext B ["a2", "a3"] (should be ["a3"])."""
    document = documents[index]
    a_start = rng.randrange(len(document) - 1)
    n = rng.randint(1, len(document) - 1 - a_start)
    a_sentences = document[a_start:a_start + n]
    if rng.random() < 0.5:
        return a_sentences, document[n:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return a_sentences, documents[other][start:start + len(document) - a_start - n], False


@EX.bug
def next_document_as_the_other(documents, index, rng):
    """For NotNext I took the document after A's, (index + 1) % len(documents): a different document, which seemed random enough, but the others are never drawn.
    Differs on: [["a1", "a2"], ["b1"], ["c1"]], index 0: NotNext B is always ["b1"], never ["c1"]."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = documents[(index + 1) % len(documents)]
    start = rng.randrange(len(other))
    return document[:a_end], other[start:start + len(document) - a_end], False


@EX.bug
def isnext_b_repeats_a_last(documents, index, rng):
    """For IsNext I took B from document[a_end - 1:], so it starts with A's last sentence instead of the one after it.
    Differs on: [["a1", "a2"], ["b1"]], index 0: IsNext gives (["a1"], ["a1", "a2"], True)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end - 1:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.correct
def coin_first_then_a_window(documents, index, rng):
    """The coin first; A a window whose end is drawn first and start second; the other document by rng.randrange over a list of the other indices."""
    document = documents[index]
    is_next = rng.random() >= 0.5
    a_end = rng.randrange(1, len(document))
    a_start = rng.randrange(a_end)
    a_sentences = document[a_start:a_end]
    if is_next:
        return a_sentences, document[a_end:], True
    candidates = [j for j in range(len(documents)) if j != index]
    other = documents[candidates[rng.randrange(len(candidates))]]
    start = rng.randrange(len(other))
    return a_sentences, other[start:start + len(document) - a_end], False


# --- batch 5: written without reading any checker ------------------------------------------
EX.batch = 5


@EX.bug
def notnext_slice_ends_at_the_count(documents, index, rng):
    """For NotNext I sliced the other document as other[start:n], with n the number of sentences I wanted, instead of other[start:start + n]: B is empty whenever start >= n.
    Differs on: [["a1", "a2"], ["b1", "b2", "b3"]], index 0: a_end = 1, n = 1, and a NotNext start of 1 or 2 gives (["a1"], [], False) instead of ["b2"] or ["b3"]."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    n = len(document) - a_end
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:n], False


@EX.bug
def notnext_start_leaves_a_sentence(documents, index, rng):
    """I drew the NotNext start with rng.randrange(len(other) - 1), as I had drawn A's end, so B never starts at the other document's last sentence, and a one-sentence document raises.
    Differs on: the worked example's documents, index 0: a NotNext draw of document 2 (["c1"]) raises ValueError (empty range); with [["a1", "a2"], ["b1", "b2"]], B is never ["b2"]."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]) - 1)
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def coin_from_randint_zero_to_two(documents, index, rng):
    """I tossed the coin with rng.randint(0, 2) == 1, thinking randint(0, 2) gives 0 or 1 like randrange, so IsNext comes one time in three.
    Differs on: [["a1", "a2"], ["b1"]], index 0, seeds 0 to 1999: about 33% IsNext instead of 50%."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.randint(0, 2) == 1:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def sentences_stripped(documents, index, rng):
    """I returned each sentence with .strip(), to tidy the spaces and newlines a sentence splitter leaves, so A and B are no longer the document's own sentences.
    Differs on: [["a1 ", "a2\\n"], ["b1 "]], index 0: A is ["a1"] instead of ["a1 "], and B ["a2"] or ["b1"] instead of ["a2\\n"] or ["b1 "]."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    a_sentences = [s.strip() for s in document[:a_end]]
    if rng.random() < 0.5:
        return a_sentences, [s.strip() for s in document[a_end:]], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return a_sentences, [s.strip() for s in documents[other][start:start + len(document) - a_end]], False


@EX.bug
def paper_labels_as_strings(documents, index, rng):
    """I returned the paper's labels, "IsNext" and "NotNext", as is_next (and "NotNext" is a true value).
    Differs on: any call: is_next is "IsNext" or "NotNext" instead of True or False; a NotNext pair tests as true."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], "IsNext"
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], "NotNext"


@EX.bug
def label_from_a_second_toss(documents, index, rng):
    """I set is_next = rng.random() < 0.5 first and then, writing the if, tossed again with rng.random() < 0.5, so the label and the B it comes with disagree half of the time.
    Differs on: [["a1", "a2"], ["b1"]], index 0: some seeds give (["a1"], ["a2"], False) or (["a1"], ["b1"], True)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    is_next = rng.random() < 0.5
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], is_next
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], is_next


@EX.correct
def bits_and_choices(documents, index, rng):
    """The coin from rng.getrandbits(1); the other document by rng.choices over the other indices; A and B built index by index, B stopping at its document's end."""
    document = documents[index]
    a_end = 1 + rng.randrange(len(document) - 1)
    a_sentences = [document[j] for j in range(a_end)]
    if rng.getrandbits(1):
        return a_sentences, [document[j] for j in range(a_end, len(document))], True
    (other,) = rng.choices([j for j in range(len(documents)) if j != index])
    source = documents[other]
    start = rng.randrange(len(source))
    stop = min(len(source), start + len(document) - a_end)
    return a_sentences, [source[j] for j in range(start, stop)], False


# --- batch 6: written without reading any checker ------------------------------------------
EX4_1 = Exercise("4.1", "mask_tokens")
EX4_1.batch = 6


@EX4_1.bug
def random_among_the_rest_at_ten_percent(input_ids, special_tokens_mask, mask_token_id, vocab_size,
                                         special_token_ids, max_predictions, generator):
    """I did the 80/10/10 like transformers' collator, one coin for [MASK] and a second for random, but gave the second coin 0.1 ("10% random"), not 0.5 of the remaining 20%.
    Differs on: 1,000 rows of [CLS] + 17 candidates + [SEP], seed 0: about 2% of the selected become a random id and 18% are kept, instead of 10% and 10%."""
    candidates = ~special_tokens_mask
    counts = candidates.sum(dim=1).tolist()
    k = []
    for n in counts:
        if n == 0:
            k.append(0)
            continue
        kn = max(1, round(0.15 * n))
        k.append(kn if max_predictions is None else min(kn, max_predictions))
    k = torch.tensor(k)
    key = torch.rand(input_ids.shape, generator=generator)
    key[~candidates] = 2.0
    rank = key.argsort(dim=1).argsort(dim=1)
    selected = rank < k.unsqueeze(1)
    to_mask = selected & (torch.rand(input_ids.shape, generator=generator) < 0.8)
    to_random = selected & ~to_mask & (torch.rand(input_ids.shape, generator=generator) < 0.1)
    banned = set(int(i) for i in special_token_ids)
    pool = torch.tensor([i for i in range(vocab_size) if i not in banned])
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=generator)]
    masked_ids = torch.where(to_mask, torch.full_like(input_ids, mask_token_id), input_ids)
    masked_ids = torch.where(to_random, random_ids, masked_ids)
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.bug
def rank_from_a_single_argsort(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                               max_predictions, generator):
    """I took key.argsort(dim=1) as each position's rank and kept rank < k, but one argsort gives, at each place, the position that sorts there, not the rank of the position.
    Differs on: [[101, 2057, 2293, 8870, 102]] ([CLS] we love cats [SEP]), seeds 0 to 99: the one selected position is always 3 (the rank of [CLS] among the keys), never 1 or 2; the right answer selects 1, 2 or 3, each about a third of the time (in longer rows the bug also selects specials)."""
    B, T = input_ids.shape
    candidates = ~special_tokens_mask
    n = candidates.sum(dim=1)
    k = torch.tensor([min(max(1, round(0.15 * int(c))), max_predictions or int(c)) if c else 0 for c in n])
    key = torch.rand((B, T), generator=generator).masked_fill(~candidates, 2.0)
    rank = key.argsort(dim=1)
    selected = rank < k[:, None]
    fate = torch.rand((B, T), generator=generator)
    to_mask = selected & (fate < 0.8)
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[list(special_token_ids)] = False
    pool = allowed.nonzero().squeeze(1)
    random_ids = pool[torch.randint(len(pool), (B, T), generator=generator)]
    masked_ids = input_ids.clone()
    masked_ids[to_mask] = mask_token_id
    masked_ids[to_random] = random_ids[to_random]
    labels = input_ids.masked_fill(~selected, IGNORE_INDEX)
    return masked_ids, labels


@EX4_1.bug
def at_least_one_even_without_candidates(input_ids, special_tokens_mask, mask_token_id, vocab_size,
                                         special_token_ids, max_predictions, generator):
    """I wrote the count as max(1, round(0.15 * n)), capped, and forgot the case n = 0, so a row with no candidate (all [PAD]) still gets one prediction, on a special token.
    Differs on: [[101, 2057, 2293, 8870, 102], [0, 0, 0, 0, 0]] with the second row all special ([PAD]): the bug selects one position of the [PAD] row (label 0 there), the right answer selects none (all -100)."""
    candidates = ~special_tokens_mask
    k = []
    for row in candidates:
        n = int(row.sum())
        count = max(1, round(0.15 * n))
        if max_predictions is not None:
            count = min(count, max_predictions)
        k.append(count)
    k = torch.tensor(k)
    key = torch.rand(input_ids.shape, generator=generator).masked_fill(~candidates, 2.0)
    selected = key.argsort(dim=1).argsort(dim=1) < k[:, None]
    fate = torch.rand(input_ids.shape, generator=generator)
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[list(special_token_ids)] = False
    pool = allowed.nonzero().squeeze(1)
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=generator)]
    masked_ids = input_ids.clone()
    masked_ids[selected & (fate < 0.8)] = mask_token_id
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    masked_ids[to_random] = random_ids[to_random]
    labels = torch.full_like(input_ids, IGNORE_INDEX)
    labels[selected] = input_ids[selected]
    return masked_ids, labels


@EX4_1.bug
def count_rounded_half_up(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                          max_predictions, generator):
    """I rounded 15% of the candidates the way I learned at school, int(0.15 * n + 0.5), not with Python's round (which sends halves to the even number).
    Differs on: one row of [CLS] + 30 candidates + [SEP], no cap: the bug selects 5 positions, the right answer round(4.5) = 4 (also 70 candidates: 11 instead of 10)."""
    candidates = ~special_tokens_mask
    k = []
    for n in candidates.sum(dim=1).tolist():
        count = max(1, int(0.15 * n + 0.5)) if n > 0 else 0
        if max_predictions is not None:
            count = min(count, max_predictions)
        k.append(count)
    k = torch.tensor(k)
    key = torch.rand(input_ids.shape, generator=generator).masked_fill(~candidates, 2.0)
    rank = key.argsort(dim=1).argsort(dim=1)
    selected = rank < k[:, None]
    fate = torch.rand(input_ids.shape, generator=generator)
    to_mask = selected & (fate < 0.8)
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[list(special_token_ids)] = False
    pool = allowed.nonzero().squeeze(1)
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=generator)]
    masked_ids = input_ids.clone()
    masked_ids[to_mask] = mask_token_id
    masked_ids[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.correct
def row_by_row_with_randperm(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                             max_predictions, generator):
    """A loop over the rows: the candidates' positions shuffled with torch.randperm(generator=...), the first k kept, then one fresh uniform per selected position for its fate."""
    masked_ids = input_ids.clone()
    labels = torch.full_like(input_ids, IGNORE_INDEX)
    special = set(int(i) for i in special_token_ids)
    pool = torch.tensor([i for i in range(vocab_size) if i not in special], dtype=input_ids.dtype)
    for b in range(input_ids.shape[0]):
        positions = torch.nonzero(~special_tokens_mask[b]).flatten()
        n = len(positions)
        if n == 0:
            continue
        k = max(1, round(0.15 * n))
        if max_predictions is not None:
            k = min(k, max_predictions)
        chosen = positions[torch.randperm(n, generator=generator)[:k]]
        labels[b, chosen] = input_ids[b, chosen]
        u = torch.rand(k, generator=generator)
        replacement = pool[torch.randint(len(pool), (k,), generator=generator)]
        for j, t in enumerate(chosen.tolist()):
            if u[j] < 0.8:
                masked_ids[b, t] = mask_token_id
            elif u[j] < 0.9:
                masked_ids[b, t] = replacement[j]
    return masked_ids, labels


# --- batch 6: written without reading any checker ------------------------------------------
EX4_2 = Exercise("4.2", "word_groups")
EX4_2.batch = 6


@EX4_2.bug
def single_hash_continues(tokens):
    """I tested for a continuation piece with token.startswith("#"), so a lone "#" (punctuation) joins the word before it.
    Differs on: ["[CLS]", "c", "#", "is", "[SEP]"]: [[1, 2], [3]] instead of [[1], [2], [3]]."""
    groups = []
    for t, token in enumerate(tokens):
        if token in ("[CLS]", "[SEP]", "[PAD]"):
            continue
        if token.startswith("#") and groups and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.bug
def every_bracketed_token_left_out(tokens):
    """I left out every token written in brackets, [UNK] and [MASK] with [CLS], [SEP] and [PAD], as special tokens.
    Differs on: ["[CLS]", "the", "[UNK]", "man", "[SEP]"]: [[1], [3]] instead of [[1], [2], [3]]."""
    groups = []
    for t, token in enumerate(tokens):
        if token.startswith("[") and token.endswith("]"):
            continue
        if token.startswith("##") and groups and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.bug
def last_word_never_flushed(tokens):
    """I built the current word and appended it to the groups when the next word or a special token began, and forgot to append the last one after the loop.
    Differs on: ["the", "una", "##ffa", "##ble", "man"] (no [SEP] at the end): [[0], [1, 2, 3]] instead of [[0], [1, 2, 3], [4]]."""
    groups, current = [], []
    for t, token in enumerate(tokens):
        if token in ("[CLS]", "[SEP]", "[PAD]"):
            if current:
                groups.append(current)
            current = []
        elif token.startswith("##") and current:
            current.append(t)
        else:
            if current:
                groups.append(current)
            current = [t]
    return groups


@EX4_2.bug
def positions_counted_without_specials(tokens):
    """I dropped [CLS], [SEP] and [PAD] first and numbered the remaining tokens from 1 (the [CLS] at 0 being gone), so every position after a [SEP] is off and a piece after [SEP] joins the word before it.
    Differs on: ["[CLS]", "he", "[SEP]", "ran", "[SEP]"]: [[1], [2]] instead of [[1], [3]] (the worked example, a single segment, comes out right)."""
    words = [tok for tok in tokens if tok not in ("[CLS]", "[SEP]", "[PAD]")]
    groups = []
    for t, token in enumerate(words, start=1):
        if token.startswith("##") and groups:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.correct
def word_ids_then_groupby(tokens):
    """A word id for every non-special token (a new id unless it is a "##" piece right after a grouped token), then itertools.groupby over the ids."""
    special = {"[CLS]", "[SEP]", "[PAD]"}
    word_ids, word, prev_in_word = [], -1, False
    for t, token in enumerate(tokens):
        if token in special:
            prev_in_word = False
            continue
        if not (token[:2] == "##" and prev_in_word):
            word += 1
        word_ids.append((word, t))
        prev_in_word = True
    return [[t for _, t in members] for _, members in itertools.groupby(word_ids, key=lambda pair: pair[0])]


# --- batch 6: written without reading any checker ------------------------------------------
EX.batch = 6


@EX.bug
def notnext_b_as_long_as_a(documents, index, rng):
    """For NotNext I took as many sentences of the other document as A has ("a pair of the same size"), not as many as the true B would have had.
    Differs on: [["a1", "a2", "a3"], ["b1", "b2", "b3"]], index 0: with a_end = 2, a NotNext B from start 0 is ["b1", "b2"] instead of ["b1"]."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    a_sentences = document[:a_end]
    if rng.random() < 0.5:
        return a_sentences, document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    if other >= index:
        other += 1
    start = rng.randrange(len(documents[other]))
    return a_sentences, documents[other][start:start + len(a_sentences)], False


@EX.bug
def a_popped_off_the_document(documents, index, rng):
    """I moved A's sentences off the front of the document with document.pop(0), so that what remains is the true B, which empties the caller's document.
    Differs on: [["a1", "a2", "a3"], ["b1"]], index 0: the pairs are right, but afterwards documents[0] has lost A's sentences (e.g. ["a3"] when a_end = 2)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    a_sentences = [document.pop(0) for _ in range(a_end)]
    if rng.random() < 0.5:
        return a_sentences, list(document), True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    start = rng.randrange(len(documents[other]))
    return a_sentences, documents[other][start:start + len(document)], False


@EX.bug
def notnext_start_keeps_b_full(documents, index, rng):
    """To give the NotNext B its full length I drew its start with rng.randrange(len(other) - n + 1), which has no value when the other document is shorter than n.
    Differs on: the worked example [["a1", "a2", "a3"], ["b1", "b2"], ["c1"]], index 0: with a_end = 1 (n = 2), a NotNext draw of document 2 raises ValueError instead of returning (["a1"], ["c1"], False)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    n = len(document) - a_end
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    if other >= index:
        other += 1
    source = documents[other]
    start = rng.randrange(len(source) - n + 1)
    return document[:a_end], source[start:start + n], False


@EX.bug
def notnext_start_from_a_document_length(documents, index, rng):
    """I drew the NotNext start with rng.randrange(len(document)), A's document, where I meant the other one, so B can start past the other's end or never reach its last sentences.
    Differs on: [["a1", "a2", "a3"], ["b1"]], index 0: a NotNext start of 1 or 2 gives B = [] instead of ["b1"]; with [["a1", "a2"], ["b1", "b2", "b3"]], B is never ["b3"]."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    if other >= index:
        other += 1
    start = rng.randrange(len(document))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.correct
def uniform_coin_and_islice(documents, index, rng):
    """A a random window drawn with rng.sample; the coin from rng.uniform; the other document by rng.sample over the other indices; B cut with itertools.islice."""
    document = documents[index]
    a_start, a_end = sorted(rng.sample(range(len(document)), 2))
    a_sentences = list(itertools.islice(document, a_start, a_end))
    if rng.uniform(0.0, 1.0) < 0.5:
        return a_sentences, list(itertools.islice(document, a_end, None)), True
    (other,) = rng.sample([j for j in range(len(documents)) if j != index], 1)
    source = documents[other]
    start = rng.randrange(len(source))
    return a_sentences, list(itertools.islice(source, start, start + len(document) - a_end)), False


# --- batch 6: written without reading any checker ------------------------------------------
EX4_4 = Exercise("4.4", "whole_word_selection")
EX4_4.batch = 6


@EX4_4.bug
def stop_at_the_first_word_that_overflows(groups, num_to_predict, rng):
    """I stopped the walk at the first word that would take the count past num_to_predict, with break where the skip needed continue.
    Differs on: groups [[1], [2, 3, 4], [5], [6, 7]], num_to_predict 3, with the shuffle order [5], [2, 3, 4], [6, 7], [1]: [5] instead of [5, 6, 7]."""
    order = groups[:]
    rng.shuffle(order)
    chosen = []
    for word in order:
        if len(chosen) + len(word) > num_to_predict:
            break
        chosen += word
    return sorted(chosen)


@EX4_4.bug
def word_must_leave_room(groups, num_to_predict, rng):
    """I skipped a word when len(chosen) + len(word) >= num_to_predict, so a word that would fill the count exactly is never taken.
    Differs on: groups [[1], [2, 3, 4], [5], [6, 7]], num_to_predict 3, with the shuffle order [5], [2, 3, 4], [6, 7], [1]: [1, 5] instead of [5, 6, 7]; and [[1, 2]] with num_to_predict 2 gives [] instead of [1, 2]."""
    order = list(groups)
    rng.shuffle(order)
    chosen = []
    for word in order:
        if len(chosen) >= num_to_predict:
            break
        if len(chosen) + len(word) >= num_to_predict:
            continue
        chosen.extend(word)
    return sorted(chosen)


@EX4_4.bug
def short_words_first(groups, num_to_predict, rng):
    """After the shuffle I sorted the words by length (a stable sort, so equal lengths stay shuffled), thinking the short ones first would fill the count best; a long word is then only taken when all the shorter ones fit.
    Differs on: groups [[1], [2, 3, 4], [5], [6, 7]], num_to_predict 3, any seed: always [1, 5] (never [2, 3, 4] nor [5, 6, 7]), instead of one of [1, 5], [1, 6, 7], [5, 6, 7], [2, 3, 4] by the shuffle."""
    order = list(groups)
    rng.shuffle(order)
    order.sort(key=len)
    chosen = []
    for word in order:
        if len(chosen) >= num_to_predict:
            break
        if len(chosen) + len(word) <= num_to_predict:
            chosen.extend(word)
    return sorted(chosen)


@EX4_4.bug
def shuffled_the_callers_list(groups, num_to_predict, rng):
    """I shuffled groups itself with rng.shuffle(groups), so the caller's list of words comes back in the shuffled order.
    Differs on: groups [[1], [2, 3, 4], [5], [6, 7]], num_to_predict 3, seed 0: the selection is right but the caller's groups are reordered afterwards."""
    rng.shuffle(groups)
    chosen = []
    for word in groups:
        if len(chosen) >= num_to_predict:
            break
        if len(chosen) + len(word) > num_to_predict:
            continue
        chosen.extend(word)
    return sorted(chosen)


@EX4_4.correct
def budget_countdown_on_a_copy(groups, num_to_predict, rng):
    """A shuffled copy walked with a remaining budget that counts down; the positions returned in the walk's order, unsorted."""
    order = [list(word) for word in groups]
    rng.shuffle(order)
    budget = num_to_predict
    picked = []
    for word in order:
        if budget == 0:
            break
        if len(word) <= budget:
            picked += word
            budget -= len(word)
    return picked


# --- batch 6: written without reading any checker ------------------------------------------
EX4_5 = Exercise("4.5", "masked_lm_metrics")
EX4_5.batch = 6


@EX4_5.bug
def loss_as_a_mean_of_row_means(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I averaged the loss over each sequence's labelled positions and then over the sequences, so a row with few labelled positions weighs as much as one with many.
    Differs on: B = 2, V = 3, H = 3, E = I, bias 0, row 0 one labelled position with logits [2, 0, 0] and label 0, row 1 three with logits [0, 0, 0] and label 1: (0.2395 + 1.0986) / 2 = 0.669 instead of (0.2395 + 3 * 1.0986) / 4 = 0.884."""
    row_losses = []
    correct = []
    kinds = []
    for b in range(hidden.shape[0]):
        where = labels[b] != IGNORE_INDEX
        if not where.any():
            continue
        logits = hidden[b][where] @ word_embeddings.T + bias
        targets, shown = labels[b][where], input_ids[b][where]
        row_losses.append(F.cross_entropy(logits, targets))
        correct.append(logits.argmax(-1) == targets)
        kinds.append(torch.where(shown == mask_id, 0, torch.where(shown == targets, 2, 1)))
    metrics = {"loss": torch.stack(row_losses).mean()}
    correct, kinds = torch.cat(correct), torch.cat(kinds)
    for code, kind in enumerate(("mask", "random", "kept")):
        at = kinds == code
        metrics[kind] = correct[at].float().mean().item() if at.any() else None
    return metrics


@EX4_5.bug
def empty_kind_gives_nan(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I computed each kind's accuracy as right[where].float().mean().item() and forgot the None case, so a kind with no position gives nan.
    Differs on: the worked example (one labelled position, logits [2, 0, 0], label 0, input [MASK]): "random" and "kept" are nan instead of None."""
    selected = labels != IGNORE_INDEX
    logits = hidden[selected] @ word_embeddings.T + bias
    targets, shown = labels[selected], input_ids[selected]
    right = logits.argmax(dim=-1) == targets
    is_mask = shown == mask_id
    is_kept = (shown == targets) & ~is_mask
    is_random = ~is_mask & ~is_kept
    return {"loss": F.cross_entropy(logits, targets),
            "mask": right[is_mask].float().mean().item(),
            "random": right[is_random].float().mean().item(),
            "kept": right[is_kept].float().mean().item()}


@EX4_5.bug
def random_wherever_the_input_differs(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I counted as "random" every labelled position whose input differs from its label, which includes the [MASK] positions too.
    Differs on: V = 5, E = I (H = 5), bias 0, mask_id 4, two labelled positions: input 4 ([MASK]) with label 0 and logits argmax 0, input 3 with label 1 and logits argmax 3: "random" is 0.5 instead of 0.0 ("mask" 1.0 in both)."""
    selected = labels.ne(IGNORE_INDEX)
    logits = torch.matmul(hidden[selected], word_embeddings.t()) + bias
    targets = labels[selected]
    shown = input_ids[selected]
    right = logits.argmax(-1).eq(targets)
    kinds = {"mask": shown.eq(mask_id), "random": shown.ne(targets), "kept": shown.eq(targets) & shown.ne(mask_id)}
    out = {"loss": F.cross_entropy(logits, targets)}
    for kind, where in kinds.items():
        out[kind] = right[where].float().mean().item() if where.any() else None
    return out


@EX4_5.bug
def log_sum_exp_by_hand(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I wrote the loss from its formula, log(sum(exp(logits))) - logits[label], without subtracting the largest logit first, so exp overflows for large logits.
    Differs on: one labelled position, V = 3, E = I, bias 0, logits [100, 0, 0] (float32), label 0: the loss is inf instead of about 7.4e-44 (0 in float32)."""
    selected = labels != IGNORE_INDEX
    logits = hidden[selected] @ word_embeddings.T + bias
    targets, shown = labels[selected], input_ids[selected]
    picked = logits.gather(1, targets[:, None]).squeeze(1)
    loss = (logits.exp().sum(dim=1).log() - picked).mean()
    right = logits.argmax(-1) == targets
    is_mask = shown == mask_id
    is_kept = ~is_mask & (shown == targets)
    metrics = {"loss": loss}
    for kind, where in (("mask", is_mask), ("random", ~is_mask & ~is_kept), ("kept", is_kept)):
        metrics[kind] = right[where].float().mean().item() if where.any() else None
    return metrics


@EX4_5.correct
def full_decode_einsum_and_gather(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """Every position decoded with einsum, log_softmax gathered at a clamped copy of the labels, a masked sum over the count; the kinds as (B, T) masks counted with sums."""
    selected = labels != IGNORE_INDEX
    logits = torch.einsum("bth,vh->btv", hidden, word_embeddings) + bias  # (B, T, V)
    safe = labels.masked_fill(~selected, 0)  # a new tensor: labels stay as they were
    log_p = logits.log_softmax(dim=-1).gather(-1, safe.unsqueeze(-1)).squeeze(-1)  # (B, T)
    count = selected.sum()
    loss = -torch.where(selected, log_p, torch.zeros_like(log_p)).sum() / count
    right = (logits.argmax(dim=-1) == labels) & selected
    is_mask = selected & (input_ids == mask_id)
    is_kept = selected & ~is_mask & (input_ids == labels)
    is_random = selected & ~is_mask & ~is_kept
    out = {"loss": loss}
    for kind, where in (("mask", is_mask), ("random", is_random), ("kept", is_kept)):
        n = int(where.sum())
        out[kind] = int((right & where).sum()) / n if n else None
    return out


# --- batch 7: written without reading any checker ------------------------------------------
EX4_1.batch = 7


@EX4_1.bug
def candidates_counted_over_the_batch(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                      max_predictions, generator):
    """I counted the candidates with candidates.sum() and forgot dim=1, so n is the whole batch's count and every row gets round(15%) of it.
    Differs on: two rows of [CLS] + 17 candidates + [SEP], no cap, seed 0: 5 selected in each row (round(0.15 * 34)) instead of 3 (right when B = 1)."""
    candidates = ~special_tokens_mask
    n = int(candidates.sum())
    k = 0 if n == 0 else max(1, round(0.15 * n))
    if max_predictions is not None:
        k = min(k, max_predictions)
    key = torch.rand(input_ids.shape, generator=generator).masked_fill(~candidates, 2.0)
    rank = key.argsort(dim=1).argsort(dim=1)
    selected = (rank < k) & candidates
    fate = torch.rand(input_ids.shape, generator=generator)
    to_mask = selected & (fate < 0.8)
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[list(special_token_ids)] = False
    pool = allowed.nonzero().squeeze(1)
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=generator)]
    masked_ids = input_ids.clone()
    masked_ids[to_mask] = mask_token_id
    masked_ids[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.bug
def random_ids_drawn_without_the_generator(input_ids, special_tokens_mask, mask_token_id, vocab_size,
                                           special_token_ids, max_predictions, generator):
    """I passed generator= to both torch.rand calls but forgot it in the torch.randint that draws the random replacement ids, so those come from torch's global generator.
    Differs on: 200 rows of [CLS] + 17 candidates + [SEP], seed 0, called once after torch.manual_seed(1) and once after torch.manual_seed(2): the labels agree but the masked ids differ at all 66 randomly replaced positions between the two calls (the solution returns the same tensors twice)."""
    B, T = input_ids.shape
    candidates = ~special_tokens_mask
    counts = candidates.sum(dim=1).tolist()
    k = torch.tensor([0 if n == 0 else min(max(1, round(0.15 * n)), max_predictions if max_predictions is not None else n)
                      for n in counts])
    key = torch.rand((B, T), generator=generator)
    key[~candidates] = 2.0
    selected = key.argsort(dim=1).argsort(dim=1) < k.unsqueeze(1)
    u = torch.rand((B, T), generator=generator)
    banned = torch.tensor(sorted(set(int(i) for i in special_token_ids)), dtype=torch.long)
    pool = torch.arange(vocab_size)
    pool = pool[~torch.isin(pool, banned)]
    random_ids = pool[torch.randint(len(pool), (B, T))]
    masked_ids = torch.where(selected & (u < 0.8), torch.full_like(input_ids, mask_token_id), input_ids)
    masked_ids = torch.where(selected & (u >= 0.8) & (u < 0.9), random_ids, masked_ids)
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.bug
def kept_positions_left_unlabelled(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                   max_predictions, generator):
    """I put a label only where the token was changed, [MASK] or random, thinking a kept token has nothing to predict, so the 10% kept positions get -100.
    Differs on: [[101, 2057, 2293, 8870, 102]] ([CLS] we love cats [SEP]), seeds 0 to 99: in 15 of the 100 calls (the one selected token kept) the bug's labels are all -100, where the solution always labels the selected position with its original id."""
    candidates = ~special_tokens_mask
    n = candidates.sum(dim=1)
    k = torch.tensor([min(max(1, round(0.15 * int(c))), max_predictions or int(c)) if c else 0 for c in n])
    key = torch.rand(input_ids.shape, generator=generator).masked_fill(~candidates, 2.0)
    rank = key.argsort(dim=1).argsort(dim=1)
    selected = rank < k[:, None]
    fate = torch.rand(input_ids.shape, generator=generator)
    to_mask = selected & (fate < 0.8)
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[list(special_token_ids)] = False
    pool = allowed.nonzero().squeeze(1)
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=generator)]
    masked_ids = input_ids.clone()
    masked_ids[to_mask] = mask_token_id
    masked_ids[to_random] = random_ids[to_random]
    changed = to_mask | to_random
    labels = torch.where(changed, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.bug
def masked_in_the_callers_tensor(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                 max_predictions, generator):
    """I cloned input_ids for the labels, then wrote the [MASK] and random ids straight into input_ids and returned it, so the caller's tensor is corrupted too.
    Differs on: [[101, 2057, 2293, 8870, 102]], seed 0: the returned tensors equal the solution's, but afterwards the caller's input_ids is [[101, 2057, 2799, 8870, 102]] ("love" replaced by a random id), not [[101, 2057, 2293, 8870, 102]]."""
    candidates = ~special_tokens_mask
    k = []
    for n in candidates.sum(dim=1).tolist():
        if n == 0:
            k.append(0)
        elif max_predictions is None:
            k.append(max(1, round(0.15 * n)))
        else:
            k.append(min(max_predictions, max(1, round(0.15 * n))))
    k = torch.tensor(k)
    key = torch.rand(input_ids.shape, generator=generator).masked_fill(~candidates, 2.0)
    selected = key.argsort(dim=1).argsort(dim=1) < k[:, None]
    fate = torch.rand(input_ids.shape, generator=generator)
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[list(special_token_ids)] = False
    pool = allowed.nonzero().squeeze(1)
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=generator)]
    labels = input_ids.clone()
    labels[~selected] = IGNORE_INDEX
    masked_ids = input_ids
    masked_ids[selected & (fate < 0.8)] = mask_token_id
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    masked_ids[to_random] = random_ids[to_random]
    return masked_ids, labels


@EX4_1.correct
def sorted_keys_scatter_and_bucketize(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                      max_predictions, generator):
    """Vectorised differently: keys sorted once and the selection scattered back by position; the fate from torch.bucketize of one fresh uniform; the random ids by torch.multinomial over a 0/1 weight vector."""
    B, T = input_ids.shape
    candidates = ~special_tokens_mask
    n = candidates.sum(dim=1)
    k = torch.clamp((0.15 * n.double()).round(), min=1).long()  # float64 and half to even, like round()
    if max_predictions is not None:
        k = torch.clamp(k, max=max_predictions)
    k = torch.where(n > 0, k, torch.zeros_like(k))
    key = torch.rand((B, T), generator=generator)
    key = torch.where(candidates, key, torch.full_like(key, float("inf")))
    order = key.sort(dim=1).indices  # positions, smallest key first
    first_k = torch.arange(T).expand(B, T) < k[:, None]
    selected = torch.zeros((B, T), dtype=torch.bool).scatter(1, order, first_k)
    fate = torch.bucketize(torch.rand((B, T), generator=generator), torch.tensor([0.8, 0.9]), right=True)  # 0 mask, 1 random, 2 kept
    weights = torch.ones(vocab_size, dtype=torch.double)
    weights[torch.tensor(list(special_token_ids), dtype=torch.long)] = 0.0
    random_ids = torch.multinomial(weights, B * T, replacement=True, generator=generator).view(B, T)
    masked_ids = torch.where(selected & (fate == 0), torch.full_like(input_ids, mask_token_id), input_ids)
    masked_ids = torch.where(selected & (fate == 1), random_ids.to(input_ids.dtype), masked_ids)
    labels = input_ids.masked_fill(~selected, IGNORE_INDEX)
    return masked_ids, labels


# --- batch 7: written without reading any checker ------------------------------------------
EX4_2.batch = 7


@EX4_2.bug
def pad_not_among_the_specials(tokens):
    """I left out [CLS] and [SEP], the tokens of the worked example, and forgot [PAD], so every padding position becomes a word of its own.
    Differs on: ["[CLS]", "hi", "[SEP]", "[PAD]", "[PAD]"]: [[1], [3], [4]] instead of [[1]]."""
    groups = []
    for t, token in enumerate(tokens):
        if token == "[CLS]" or token == "[SEP]":
            continue
        if token.startswith("##") and groups and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.bug
def first_and_last_token_sliced_off(tokens):
    """I dropped the special tokens with tokens[1:-1], since a sequence is [CLS] ... [SEP], so a [SEP] in the middle of a pair, or any [PAD], is taken for a word (and a sequence without [CLS] loses its first token).
    Differs on: ["[CLS]", "he", "[SEP]", "ran", "[SEP]"]: [[1], [2], [3]] instead of [[1], [3]]."""
    groups = []
    for t, token in enumerate(tokens[1:-1], start=1):
        if token.startswith("##") and groups and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.bug
def piece_compared_with_the_word_start(tokens):
    """To see whether a "##" piece follows its word, I compared its position with the first position of the last group, groups[-1][0] == t - 1, so only a word's second piece joins it and a third piece starts a new word.
    Differs on: the worked example ["[CLS]", "the", "una", "##ffa", "##ble", "man", ".", "[SEP]"]: [[1], [2, 3], [4], [5], [6]] instead of [[1], [2, 3, 4], [5], [6]]."""
    groups = []
    for t, token in enumerate(tokens):
        if token in ("[CLS]", "[SEP]", "[PAD]"):
            continue
        if token[:2] == "##" and groups and groups[-1][0] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.bug
def orphan_piece_dropped(tokens):
    """A "##" piece with no word right before it cannot be part of a word, I thought, so I left it out, where the statement makes it a group of its own.
    Differs on: ["##s", "cat"]: [[1]] instead of [[0], [1]]; and ["[CLS]", "a", "[SEP]", "##b", "[SEP]"]: [[1]] instead of [[1], [3]]."""
    groups = []
    previous_in_word = False
    for t, token in enumerate(tokens):
        if token in ("[CLS]", "[SEP]", "[PAD]"):
            previous_in_word = False
            continue
        if token.startswith("##"):
            if previous_in_word:
                groups[-1].append(t)
            continue
        groups.append([t])
        previous_in_word = True
    return groups


@EX4_2.correct
def word_starts_then_extend(tokens):
    """Two passes: the positions that start a word first (a non-special token that is not a "##" piece following a non-special token), then each word extended over the "##" pieces after it with a while loop."""
    special = {"[CLS]", "[SEP]", "[PAD]"}

    def starts_word(t):
        token = tokens[t]
        if token in special:
            return False
        return not token.startswith("##") or t == 0 or tokens[t - 1] in special

    groups = []
    for start in [t for t in range(len(tokens)) if starts_word(t)]:
        end = start + 1
        while end < len(tokens) and tokens[end] not in special and tokens[end].startswith("##"):
            end += 1
        groups.append(list(range(start, end)))
    return groups


# --- batch 7: written without reading any checker ------------------------------------------
EX.batch = 7


@EX.bug
def coin_reuses_the_a_end_draw(documents, index, rng):
    """To save a draw I used one rng.random() both for A's end (1 + int(u * (len(document) - 1))) and for the coin (u < 0.5), so the coin is fair overall but tied to A's length: short A's are always IsNext, long ones NotNext.
    Differs on: [["a1", "a2", "a3"], ["b1", "b2"]], index 0, seeds 0 to 999: (["a1"], ...) is always IsNext and (["a1", "a2"], ...) always NotNext, so (["a1", "a2"], ["a3"], True) never comes, where the solution gives it about a quarter of the time."""
    document = documents[index]
    u = rng.random()
    a_end = 1 + int(u * (len(document) - 1))
    a_sentences = document[:a_end]
    if u < 0.5:
        return a_sentences, document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    if other >= index:
        other += 1
    start = rng.randrange(len(documents[other]))
    return a_sentences, documents[other][start:start + len(document) - a_end], False


@EX.bug
def other_drawn_with_randint_then_stepped(documents, index, rng):
    """I drew among the other documents with rng.randint(0, len(documents) - 1), thinking it gives len(documents) - 1 values, and then stepped over A's own, so the last draw steps past the end of the list.
    Differs on: [["a1", "a2"], ["b1"]], index 0, seeds 0 to 99: 19 of the 100 calls raise IndexError (NotNext with the draw 1 stepped to 2, about one call in four), where the solution always returns a pair."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    a_sentences = document[:a_end]
    if rng.random() < 0.5:
        return a_sentences, document[a_end:], True
    other = rng.randint(0, len(documents) - 1)
    if other >= index:
        other += 1
    source = documents[other]
    start = rng.randrange(len(source))
    return a_sentences, source[start:start + len(document) - a_end], False


@EX.bug
def drew_from_a_copy_of_the_rng(documents, index, rng):
    """So as not to disturb the caller's generator (as I must not disturb documents), I drew from a copy, random.Random() with rng's state, and rng never moves: every call with the same rng gives the same pair.
    Differs on: the worked example [["a1", "a2", "a3"], ["b1", "b2"], ["c1"]], index 0, 50 calls with one random.Random(0): the same pair 50 times, where the solution's successive calls give different pairs (IsNext and NotNext both)."""
    own = random.Random()
    own.setstate(rng.getstate())
    document = documents[index]
    a_end = own.randint(1, len(document) - 1)
    a_sentences = document[:a_end]
    if own.random() < 0.5:
        return a_sentences, document[a_end:], True
    other = own.randrange(len(documents) - 1)
    other += other >= index
    start = own.randrange(len(documents[other]))
    return a_sentences, documents[other][start:start + len(document) - a_end], False


@EX.bug
def short_notnext_falls_back_to_isnext(documents, index, rng):
    """When the other document could not give B as many sentences as the true B, I returned the IsNext pair instead, thinking a shorter NotNext B would be a give-away; NotNext then comes less than half of the time.
    Differs on: [["a1", "a2", "a3"], ["b1"]], index 0, seeds 0 to 1999: about 75% IsNext (every NotNext toss with a_end = 1 falls back), instead of 50%."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    a_sentences, true_b = document[:a_end], document[a_end:]
    if rng.random() < 0.5:
        return a_sentences, true_b, True
    other = rng.randrange(len(documents) - 1)
    if other >= index:
        other += 1
    start = rng.randrange(len(documents[other]))
    b_sentences = documents[other][start:start + len(true_b)]
    if len(b_sentences) < len(true_b):
        return a_sentences, true_b, True
    return a_sentences, b_sentences, False


@EX.correct
def choice_coin_and_weighted_other(documents, index, rng):
    """A's end from int(rng.random() * (len - 1)) + 1; the coin by rng.choice((True, False)); the other document by rng.choices with weight 0 on A's own; B's start by rng.randint."""
    document = documents[index]
    a_end = int(rng.random() * (len(document) - 1)) + 1
    a_sentences = list(document[:a_end])
    is_next = rng.choice((True, False))
    if is_next:
        return a_sentences, list(document[a_end:]), True
    weights = [0 if j == index else 1 for j in range(len(documents))]
    (other,) = rng.choices(range(len(documents)), weights=weights)
    source = documents[other]
    start = rng.randint(0, len(source) - 1)
    return a_sentences, [source[j] for j in range(start, min(len(source), start + len(document) - a_end))], False


# --- batch 7: written without reading any checker ------------------------------------------
EX4_4.batch = 7


@EX4_4.bug
def walked_the_unshuffled_list(groups, num_to_predict, rng):
    """I shuffled a copy, order = list(groups); rng.shuffle(order), but then wrote the loop over groups, so the walk always goes in position order and the shuffle is lost.
    Differs on: the worked example groups [[1], [2, 3, 4], [5], [6, 7]], num_to_predict 3: always [1, 5], whatever the seed; the solution gives [1, 6, 7] with random.Random(1), [2, 3, 4] with random.Random(2), [5, 6, 7] with random.Random(6)."""
    order = list(groups)
    rng.shuffle(order)
    chosen = []
    for word in groups:
        if len(chosen) >= num_to_predict:
            break
        if len(chosen) + len(word) > num_to_predict:
            continue
        chosen.extend(word)
    return sorted(chosen)


@EX4_4.bug
def counted_the_words_not_the_pieces(groups, num_to_predict, rng):
    """I kept the chosen words in a list and flattened it at the end, but tested the count with len(picked), the number of words, so words of several pieces take the selection past num_to_predict.
    Differs on: groups [[1], [2, 3, 4], [5], [6, 7]], num_to_predict 3, random.Random(6) (order [6, 7], [5], [2, 3, 4], [1]): [1, 5, 6, 7] (4 positions) instead of [5, 6, 7]."""
    order = groups[:]
    rng.shuffle(order)
    picked = []
    for word in order:
        if len(picked) + len(word) <= num_to_predict:
            picked.append(word)
    return sorted(position for word in picked for position in word)


@EX4_4.bug
def first_word_always_taken(groups, num_to_predict, rng):
    """I always took the first word of the shuffle, as 4.1 gives every row at least one prediction, and applied the count only to the words after it, so a first word longer than num_to_predict overflows.
    Differs on: groups [[1, 2, 3]], num_to_predict 2: [1, 2, 3] instead of []; and the worked example's groups with num_to_predict 1, random.Random(2) (order [2, 3, 4], [5], [6, 7], [1]): [2, 3, 4] instead of [5]."""
    order = list(groups)
    rng.shuffle(order)
    if not order:
        return []
    chosen = list(order[0])
    for word in order[1:]:
        if len(chosen) + len(word) <= num_to_predict:
            chosen += word
    return sorted(chosen)


@EX4_4.bug
def popped_until_the_count_is_reached(groups, num_to_predict, rng):
    """I popped words off the front of the shuffled copy while fewer than num_to_predict positions were chosen, keeping those that fit; when the words run out before the count is reached, pop() raises.
    Differs on: groups [[1], [2]], num_to_predict 3: IndexError (pop from empty list) instead of [1, 2]; and [[1], [2, 3]] with num_to_predict 2 raises whenever the shuffle puts [1] first (random.Random(0)), where the solution returns [1]."""
    order = list(groups)
    rng.shuffle(order)
    chosen = []
    while len(chosen) < num_to_predict:
        word = order.pop(0)
        if len(chosen) + len(word) <= num_to_predict:
            chosen.extend(word)
    return sorted(chosen)


@EX4_4.correct
def shuffled_indices_and_reduce(groups, num_to_predict, rng):
    """The shuffle applied to a list of word indices (the same permutation rng.shuffle gives a copy of groups), the walk written as functools.reduce over a (positions, room left) pair; a set of positions returned as a list."""
    order = list(range(len(groups)))
    rng.shuffle(order)

    def take(state, i):
        positions, room = state
        word = groups[i]
        return (positions | set(word), room - len(word)) if len(word) <= room else state

    positions, _ = functools.reduce(take, order, (set(), num_to_predict))
    return list(positions)


# --- batch 7: written without reading any checker ------------------------------------------
EX4_5.batch = 7


@EX4_5.bug
def decoder_bias_left_out(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I decoded with the tied matrix alone, hidden @ E.T, since "the decoder's weight is the word-embedding matrix", and never added the decoder's own bias.
    Differs on: one labelled position, V = 3, H = 3, E = I, hidden [2, 0, 0], bias [0, 0, 3], label 0, input [MASK]: loss 0.2395 and "mask" 1.0 instead of log(1 + e^-2 + e) = 1.3490 and "mask" 0.0 (the logits are [2, 0, 3])."""
    selected = labels != IGNORE_INDEX
    logits = hidden[selected] @ word_embeddings.T
    targets, shown = labels[selected], input_ids[selected]
    metrics = {"loss": F.cross_entropy(logits, targets)}
    right = logits.argmax(-1) == targets
    is_mask = shown == mask_id
    is_kept = ~is_mask & (shown == targets)
    for kind, where in (("mask", is_mask), ("random", ~is_mask & ~is_kept), ("kept", is_kept)):
        metrics[kind] = right[where].float().mean().item() if where.any() else None
    return metrics


@EX4_5.bug
def accuracy_over_every_labelled_position(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I read "the share of the labelled positions ... whose highest logit is the label" as a share of all the labelled positions, so each kind's right answers are divided by N, not by that kind's count.
    Differs on: V = 4, H = 4, E = I, bias 0, mask_id 3, two labelled positions in one row: input 3 ([MASK]), label 0, hidden [1, 0, 0, 0] (right) and input 2, label 1, hidden [1, 0, 0, 0] (random, wrong): "mask" 0.5 instead of 1.0 ("random" 0.0 and "kept" None in both)."""
    selected = labels.ne(IGNORE_INDEX)
    logits = torch.matmul(hidden[selected], word_embeddings.t()) + bias
    targets = labels[selected]
    shown = input_ids[selected]
    loss = F.cross_entropy(logits, targets)
    right = logits.argmax(dim=1).eq(targets)
    n = targets.numel()
    is_mask = shown.eq(mask_id)
    is_kept = shown.eq(targets) & ~is_mask
    is_random = ~is_mask & ~is_kept
    out = {"loss": loss}
    for kind, where in {"mask": is_mask, "random": is_random, "kept": is_kept}.items():
        out[kind] = (right & where).sum().item() / n if where.any() else None
    return out


@EX4_5.bug
def masked_mean_over_every_position(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I decoded every position, zeroed the losses where the label is -100 and took .mean() of the (B, T) losses, which divides by B * T instead of by the number of labelled positions.
    Differs on: B = 1, T = 4, V = 3, E = I, bias 0, only position 1 labelled (label 0, hidden [2, 0, 0], input [MASK]): loss 0.0599 (= 0.2395 / 4) instead of 0.2395."""
    selected = labels != IGNORE_INDEX
    logits = hidden @ word_embeddings.T + bias  # (B, T, V)
    per_position = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), reduction="none").view(labels.shape)
    loss = (per_position * selected).mean()
    predicted = logits.argmax(-1)
    out = {"loss": loss}
    is_mask = selected & (input_ids == mask_id)
    is_kept = selected & (input_ids == labels) & ~is_mask
    is_random = selected & ~is_mask & ~is_kept
    for kind, where in (("mask", is_mask), ("random", is_random), ("kept", is_kept)):
        out[kind] = (predicted[where] == labels[where]).float().mean().item() if where.any() else None
    return out


@EX4_5.bug
def ignored_labels_zeroed_in_place(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """To gather the log-probabilities at every position I set the -100 labels to 0 with labels[~selected] = 0, in the caller's tensor, so its labels are changed (and a second call finds no -100 left).
    Differs on: the worked example in a row of two (position 0 labelled 0 with hidden [2, 0, 0] and input [MASK], position 1 unlabelled): the metrics are right, but afterwards the caller's labels are [[0, 0]] instead of [[0, -100]]."""
    selected = labels != IGNORE_INDEX
    labels[~selected] = 0
    logits = hidden @ word_embeddings.T + bias
    log_p = logits.log_softmax(-1).gather(-1, labels.unsqueeze(-1)).squeeze(-1)
    loss = -log_p[selected].mean()
    right = (logits.argmax(-1) == labels)[selected]
    shown, targets = input_ids[selected], labels[selected]
    is_mask = shown == mask_id
    is_kept = ~is_mask & (shown == targets)
    out = {"loss": loss}
    for kind, where in (("mask", is_mask), ("random", ~is_mask & ~is_kept), ("kept", is_kept)):
        out[kind] = right[where].float().mean().item() if where.any() else None
    return out


@EX4_5.correct
def position_by_position_logsumexp(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """A Python loop over the labelled positions: each logit vector by torch.mv, its loss as logsumexp minus the label's logit, the losses stacked and averaged; the kinds counted in dicts."""
    losses, total, hits = [], {"mask": 0, "random": 0, "kept": 0}, {"mask": 0, "random": 0, "kept": 0}
    B, T = labels.shape
    for b in range(B):
        for t in range(T):
            label = int(labels[b, t])
            if label == IGNORE_INDEX:
                continue
            logits = torch.mv(word_embeddings, hidden[b, t]) + bias
            losses.append(torch.logsumexp(logits, dim=0) - logits[label])
            shown = int(input_ids[b, t])
            kind = "mask" if shown == mask_id else ("kept" if shown == label else "random")
            total[kind] += 1
            hits[kind] += int(int(logits.argmax()) == label)
    out = {"loss": torch.stack(losses).mean() if losses else hidden.sum() * float("nan")}  # no labelled position: nan, as a mean of nothing
    for kind in ("mask", "random", "kept"):
        out[kind] = hits[kind] / total[kind] if total[kind] else None
    return out


# --- batch 8: written without reading any checker ------------------------------------------
EX4_1.batch = 8


@EX4_1.bug
def random_index_used_as_the_id(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                max_predictions, generator):
    """I built the pool of allowed ids and drew torch.randint(len(pool), ...), but used the drawn index itself as the replacement id and never looked it up in the pool, so random ids come from [0, len(pool)): special ids such as 0 ([PAD]) or 101 ([CLS]) can come up, and the top len(special_token_ids) ids never do.
    Differs on: vocab_size 6, special_token_ids [0, 1], mask_token_id 1, 40 rows of 50 candidates all id 4 between [CLS] and [SEP], seeds 0 to 199: about 1,560 positions replaced by id 0 (a special id) and none by 5, where the replacements are uniform over 2..5 (id 0 never, id 5 about 1,530 times)."""
    candidates = ~special_tokens_mask
    n = candidates.sum(dim=1)
    k = torch.tensor([min(max(1, round(0.15 * int(c))), max_predictions or int(c)) if c else 0 for c in n])
    key = torch.rand(input_ids.shape, generator=generator).masked_fill(~candidates, 2.0)
    rank = key.argsort(dim=1).argsort(dim=1)
    selected = rank < k[:, None]
    fate = torch.rand(input_ids.shape, generator=generator)
    to_mask = selected & (fate < 0.8)
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    pool = [i for i in range(vocab_size) if i not in set(special_token_ids)]
    random_ids = torch.randint(len(pool), input_ids.shape, generator=generator)  # an index into pool
    masked_ids = input_ids.clone()
    masked_ids[to_mask] = mask_token_id
    masked_ids[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.bug
def rank_kept_up_to_k_inclusive(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                max_predictions, generator):
    """I kept the positions whose rank is at most k, rank <= k, forgetting that ranks start at 0, so every row with a candidate to spare gets k + 1 predictions.
    Differs on: [[101, 2057, 2293, 8870, 102]] with [CLS]/[SEP] special, max_predictions None, any seed: 2 positions labelled instead of exactly 1."""
    candidates = ~special_tokens_mask
    n = candidates.sum(dim=1)
    k = torch.tensor([min(max(1, round(0.15 * int(c))), max_predictions or int(c)) if c else 0 for c in n])
    key = torch.rand(input_ids.shape, generator=generator).masked_fill(~candidates, 2.0)
    rank = key.argsort(dim=1).argsort(dim=1)
    selected = (rank <= k[:, None]) & candidates  # never a special token
    fate = torch.rand(input_ids.shape, generator=generator)
    to_mask = selected & (fate < 0.8)
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[list(special_token_ids)] = False
    pool = allowed.nonzero().squeeze(1)
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=generator)]
    masked_ids = input_ids.clone()
    masked_ids[to_mask] = mask_token_id
    masked_ids[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.bug
def cls_and_sep_counted_like_google(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                    max_predictions, generator):
    """I counted n the way Google's create_masked_lm_predictions does, with the row's [CLS] and [SEP] (every non-[PAD] token), instead of the candidates only, so round(15%) is taken of two more tokens.
    Differs on: one row [CLS] + 8 candidates + [SEP] (special mask True at both ends), max_predictions None: 2 predictions (round(0.15 * 10) = 2) instead of 1 (round(0.15 * 8) = 1)."""
    candidates = ~special_tokens_mask
    n = candidates.sum(dim=1) + 2  # Google's count: the candidates, [CLS] and one [SEP]
    ks = []
    for c, real in zip(n.tolist(), candidates.sum(dim=1).tolist()):
        if real == 0:
            ks.append(0)
            continue
        k = max(1, round(0.15 * c))
        if max_predictions is not None:
            k = min(k, max_predictions)
        ks.append(min(k, real))
    k = torch.tensor(ks)
    key = torch.rand(input_ids.shape, generator=generator).masked_fill(~candidates, 2.0)
    rank = key.argsort(dim=1).argsort(dim=1)
    selected = rank < k[:, None]
    fate = torch.rand(input_ids.shape, generator=generator)
    to_mask = selected & (fate < 0.8)
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[list(special_token_ids)] = False
    pool = allowed.nonzero().squeeze(1)
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=generator)]
    masked_ids = input_ids.clone()
    masked_ids[to_mask] = mask_token_id
    masked_ids[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.bug
def generator_rebuilt_from_its_seed(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                    max_predictions, generator):
    """So that the same seed gives the same masks, I made a fresh torch.Generator seeded with generator.initial_seed() and drew everything from it, so the caller's generator never moves and every call with it gives the same masks again.
    Differs on: [[101, 2057, 2293, 8870, 102]], one generator seeded 0 and called twice (or any row, on the second call): the second call repeats the first call's masks, where the solution's second call goes on from the advanced generator."""
    g = torch.Generator().manual_seed(generator.initial_seed())
    candidates = ~special_tokens_mask
    n = candidates.sum(dim=1)
    k = torch.tensor([min(max(1, round(0.15 * int(c))), max_predictions or int(c)) if c else 0 for c in n])
    key = torch.rand(input_ids.shape, generator=g).masked_fill(~candidates, 2.0)
    rank = key.argsort(dim=1).argsort(dim=1)
    selected = rank < k[:, None]
    fate = torch.rand(input_ids.shape, generator=g)
    to_mask = selected & (fate < 0.8)
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[list(special_token_ids)] = False
    pool = allowed.nonzero().squeeze(1)
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=g)]
    masked_ids = input_ids.clone()
    masked_ids[to_mask] = mask_token_id
    masked_ids[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.correct
def numpy_rows_with_python_ranking(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                   max_predictions, generator):
    """Row by row in numpy: the three draws made once with the generator, each row's candidates ranked by sorted() on their keys, the fates and replacements applied in a Python loop."""
    shape = tuple(input_ids.shape)
    keys = torch.rand(shape, generator=generator).numpy()
    fates = torch.rand(shape, generator=generator).numpy()
    forbidden = set(int(i) for i in special_token_ids)
    pool = np.array([i for i in range(vocab_size) if i not in forbidden], dtype=np.int64)
    picks = torch.randint(len(pool), shape, generator=generator).numpy()
    ids = input_ids.numpy()
    special = special_tokens_mask.numpy()
    masked = ids.copy()
    labels = np.full_like(ids, IGNORE_INDEX)
    for b in range(shape[0]):
        cands = [t for t in range(shape[1]) if not special[b, t]]
        if not cands:
            continue
        k = max(1, round(0.15 * len(cands)))
        if max_predictions is not None:
            k = min(k, max_predictions)
        for t in sorted(cands, key=lambda t: keys[b, t])[:k]:
            labels[b, t] = ids[b, t]
            if fates[b, t] < 0.8:
                masked[b, t] = mask_token_id
            elif fates[b, t] < 0.9:
                masked[b, t] = pool[picks[b, t]]
    return torch.from_numpy(masked), torch.from_numpy(labels)


# --- batch 8: written without reading any checker ------------------------------------------
EX4_2.batch = 8


@EX4_2.bug
def specials_tested_by_substring(tokens):
    """I left out the special tokens with `if token in "[CLS][SEP][PAD]"`, one string holding the three, so any token that is a piece of that string, the punctuation "[" and "]" among them, is left out too.
    Differs on: ["[CLS]", "see", "[", "1", "]", "[SEP]"]: [[1], [3]] instead of [[1], [2], [3], [4]]."""
    groups = []
    for t, token in enumerate(tokens):
        if token in "[CLS][SEP][PAD]":
            continue
        if token.startswith("##") and groups and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.bug
def piece_at_position_zero_reads_an_empty_list(tokens):
    """I checked that a "##" piece follows its word with groups[-1][-1] == t - 1, without first checking that groups is not empty, so a "##" piece before any word (at position 0, or after leading specials) raises IndexError.
    Differs on: ["##ing", "well"]: raises IndexError instead of returning [[0], [1]]."""
    groups = []
    for t, token in enumerate(tokens):
        if token in ("[CLS]", "[SEP]", "[PAD]"):
            continue
        if token.startswith("##") and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.bug
def piece_joins_the_last_word_across_a_special(tokens):
    """I grouped as Google's code does, skipping the special tokens first and then attaching every "##" piece to the last word, so a "##" piece right after [SEP] joins the last word of sentence A.
    Differs on: ["[CLS]", "a", "[SEP]", "##b", "c", "[SEP]"]: [[1, 3], [4]] instead of [[1], [3], [4]]."""
    kept = [(t, token) for t, token in enumerate(tokens) if token not in ("[CLS]", "[SEP]", "[PAD]")]
    groups = []
    for t, token in kept:
        if groups and token.startswith("##"):
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.bug
def orphan_piece_not_made_the_current_word(tokens):
    """I walked the tokens with a `current` word, reset to None at each special token; a "##" piece with no current word became a group of its own, but I forgot to make it the current word, so the next "##" piece starts yet another group.
    Differs on: ["[CLS]", "##a", "##b", "c", "[SEP]"]: [[1], [2], [3]] instead of [[1, 2], [3]]."""
    groups = []
    current = None
    for t, token in enumerate(tokens):
        if token in ("[CLS]", "[SEP]", "[PAD]"):
            current = None
        elif token.startswith("##"):
            if current is not None:
                current.append(t)
            else:
                groups.append([t])
        else:
            current = [t]
            groups.append(current)
    return groups


@EX4_2.correct
def index_scanner_that_reads_ahead(tokens):
    """A while loop with an index: each group starts at a non-special token and reads ahead over the "##" pieces that follow it."""
    special = {"[CLS]", "[SEP]", "[PAD]"}
    groups = []
    t = 0
    while t < len(tokens):
        if tokens[t] in special:
            t += 1
            continue
        end = t + 1
        while end < len(tokens) and tokens[end] not in special and tokens[end].startswith("##"):
            end += 1
        groups.append(list(range(t, end)))
        t = end
    return groups


# --- batch 8: written without reading any checker ------------------------------------------
EX.batch = 8


@EX.bug
def ten_tries_then_a_own_document(documents, index, rng):
    """I copied Google's loop for the NotNext document: up to ten draws among all the documents, stopping at the first that is not A's own, and keeping the tenth draw otherwise, so once in a while (one NotNext in 1,024 on two documents) B comes from A's own document.
    Differs on: [["a1", "a2"], ["b1", "b2"]], index 0, seeds 0 to 19999: about 10 NotNext pairs (of about 10,000) whose B comes from A's own document ("a1" or "a2"), where the solution never has one."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    a_sentences = document[:a_end]
    if rng.random() < 0.5:
        return a_sentences, document[a_end:], True
    for _ in range(10):
        other = rng.randint(0, len(documents) - 1)
        if other != index:
            break
    start = rng.randint(0, len(documents[other]) - 1)
    return a_sentences, documents[other][start:start + len(document) - a_end], False


@EX.bug
def notnext_a_may_take_the_whole_document(documents, index, rng):
    """I tossed the coin first and, for NotNext, let A run to the end of its document (a_end from 1 to len(document)), since B comes from elsewhere and A need leave nothing for it, as Google's code does with a one-sentence chunk; so A sometimes leaves no sentence after it, and when it does the pair is always NotNext.
    Differs on: [["a1", "a2"], ["b1"]], index 0, seeds 0 to 999: about 250 pairs with A = ["a1", "a2"] (leaving nothing after it), all NotNext, where A always leaves "a2" and IsNext is half of the pairs for every A."""
    document = documents[index]
    is_next = rng.random() < 0.5
    last = len(document) - 1 if is_next else len(document)
    a_end = rng.randint(1, last)
    a_sentences = document[:a_end]
    if is_next:
        return a_sentences, document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    if other >= index:
        other += 1
    start = rng.randrange(len(documents[other]))
    n = max(1, len(document) - a_end)
    return a_sentences, documents[other][start:start + n], False


@EX.bug
def a_window_start_may_be_the_last_sentence(documents, index, rng):
    """I drew A as a window, its start with rng.randrange(len(document)) and its end with rng.randint(start + 1, len(document) - 1); when the start falls on the last sentence the end has no value left and randint raises ValueError.
    Differs on: [["a1", "a2"], ["b1"]], index 0, random.Random(0) (and about half of all seeds): raises ValueError (randint(2, 1), an empty range) instead of returning (["a1"], ["b1"], False)."""
    document = documents[index]
    a_start = rng.randrange(len(document))
    a_end = rng.randint(a_start + 1, len(document) - 1)
    a_sentences = document[a_start:a_end]
    if rng.random() < 0.5:
        return a_sentences, document[a_end:], True
    others = [i for i in range(len(documents)) if i != index]
    other = documents[rng.choice(others)]
    start = rng.randrange(len(other))
    return a_sentences, other[start:start + len(document) - a_end], False


@EX.bug
def notnext_b_is_one_sentence_string(documents, index, rng):
    """For NotNext I took "a random sentence from the corpus", as the paper says: one sentence of the other document, documents[other][start], and returned it as B, a string where B should be a list of sentences.
    Differs on: [["a1", "a2", "a3"], ["b1", "b2"], ["c1"]], index 0, random.Random(5) (NotNext from document 1 at sentence 1): (["a1", "a2"], "b2", False) instead of (["a1", "a2"], ["b2"], False)."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    a_sentences = document[:a_end]
    if rng.random() < 0.5:
        return a_sentences, document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    if other >= index:
        other += 1
    start = rng.randrange(len(documents[other]))
    return a_sentences, documents[other][start], False


@EX.correct
def window_a_and_random_length_b(documents, index, rng):
    """A as a random window (start and end drawn); the other document by rng.choice over the sorted set of the other indices; NotNext B of a random length, one sentence up to the rest of the other document, built in a loop."""
    document = documents[index]
    a_start = rng.randrange(len(document) - 1)
    a_end = rng.randint(a_start + 1, len(document) - 1)
    a_sentences = [document[i] for i in range(a_start, a_end)]
    if not rng.random() < 0.5:
        other = documents[rng.choice(sorted(set(range(len(documents))) - {index}))]
        start = rng.randrange(len(other))
        length = rng.randint(1, len(other) - start)
        b_sentences = []
        for i in range(start, start + length):
            b_sentences.append(other[i])
        return a_sentences, b_sentences, False
    return a_sentences, list(document[a_end:]), True


# --- batch 8: written without reading any checker ------------------------------------------
EX4_4.batch = 8


@EX4_4.bug
def shuffled_with_the_random_module(groups, num_to_predict, rng):
    """I shuffled my copy with random.shuffle(order), the module's function, instead of rng.shuffle, so the selection ignores the rng it is given: the same seed gives different words from run to run, and the caller's rng never moves.
    Differs on: [[1], [2, 3, 4], [5], [6, 7]], num_to_predict 3, random.Random(0) twice: the two results come from the module's global generator (not reproducible, often different from each other), where the solution gives the same answer both times and moves rng."""
    order = list(groups)
    random.shuffle(order)
    chosen = []
    for word in order:
        if len(chosen) >= num_to_predict:
            break
        if len(chosen) + len(word) > num_to_predict:
            continue
        chosen.extend(word)
    return sorted(chosen)


@EX4_4.bug
def overflowing_word_cut_to_fit(groups, num_to_predict, rng):
    """When a word would take the count past num_to_predict I took as many of its pieces as still fit, to reach the count exactly, so the last word selected is sometimes torn.
    Differs on: [[1, 2, 3]], num_to_predict 2, any rng: [1, 2] instead of []."""
    order = groups[:]
    rng.shuffle(order)
    chosen = []
    for word in order:
        room = num_to_predict - len(chosen)
        if room <= 0:
            break
        chosen += word[:room]
    return sorted(chosen)


@EX4_4.bug
def positions_shuffled_then_their_words(groups, num_to_predict, rng):
    """I shuffled the positions instead of the words and, walking them, took the whole word of each position I met (when it fits and is not taken yet), so a word of many pieces comes up early more often than a short one, where the statement shuffles words.
    Differs on: [[1], [2, 3, 4]], num_to_predict 3, seeds 0 to 999: [2, 3, 4] about 75% of the time instead of 50%."""
    word_of = {}
    for word in groups:
        for position in word:
            word_of[position] = word
    positions = sorted(word_of)
    rng.shuffle(positions)
    chosen = []
    for position in positions:
        word = word_of[position]
        if word[0] in chosen or len(chosen) + len(word) > num_to_predict:
            continue
        chosen.extend(word)
    return sorted(chosen)


@EX4_4.bug
def first_word_grown_in_place(groups, num_to_predict, rng):
    """I kept the first word that fits as my selection and added the later words to it with +=, which extends that word's list in the caller's groups.
    Differs on: groups = [[1], [2, 3, 4], [5], [6, 7]], num_to_predict 3, random.Random(0): the same selection [1, 5], but afterwards the caller's groups is [[1], [2, 3, 4], [5, 1], [6, 7]] (the word taken first grew by the word taken after it), where the solution leaves groups as it was."""
    order = list(groups)
    rng.shuffle(order)
    selected = None
    for word in order:
        count = len(selected) if selected is not None else 0
        if count >= num_to_predict:
            break
        if count + len(word) > num_to_predict:
            continue
        if selected is None:
            selected = word
        else:
            selected += word
    return sorted(selected or [])


@EX4_4.correct
def recursive_walk_over_the_shuffle(groups, num_to_predict, rng):
    """The walk written as a recursion over the shuffled copy, carrying the remaining budget; the positions gathered in a set."""
    order = [list(word) for word in groups]
    rng.shuffle(order)

    def walk(words, budget):
        if not words or budget <= 0:
            return set()
        head, rest = words[0], words[1:]
        if len(head) <= budget:
            return set(head) | walk(rest, budget - len(head))
        return walk(rest, budget)

    return sorted(walk(order, num_to_predict))


# --- batch 8: written without reading any checker ------------------------------------------
EX4_5.batch = 8


@EX4_5.bug
def empty_kind_reported_as_zero(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """When a kind had no position I reported its accuracy as 0.0, nothing right out of nothing, instead of None.
    Differs on: one labelled position shown as [MASK] (V = 3, logits [2, 0, 0], label 0): {"mask": 1.0, "random": 0.0, "kept": 0.0} instead of {"mask": 1.0, "random": None, "kept": None}."""
    selected = labels != IGNORE_INDEX
    logits = hidden[selected] @ word_embeddings.T + bias
    targets, shown = labels[selected], input_ids[selected]
    metrics = {"loss": F.cross_entropy(logits, targets)}
    right = (logits.argmax(-1) == targets).float()
    is_mask = shown == mask_id
    is_kept = ~is_mask & (shown == targets)
    is_random = ~is_mask & ~is_kept
    for kind, where in (("mask", is_mask), ("random", is_random), ("kept", is_kept)):
        count = int(where.sum())
        metrics[kind] = float(right[where].sum()) / count if count else 0.0
    return metrics


@EX4_5.bug
def computed_under_no_grad(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """These are metrics, so I computed everything inside `with torch.no_grad():` to save memory, the loss included, so the loss has no graph and .backward() raises.
    Differs on: any input with hidden.requires_grad=True (e.g. the worked example): metrics["loss"].backward() raises RuntimeError (the loss does not require grad), where the solution's loss back-propagates to hidden, word_embeddings and bias."""
    with torch.no_grad():
        selected = labels != IGNORE_INDEX
        logits = hidden[selected] @ word_embeddings.T + bias
        targets, shown = labels[selected], input_ids[selected]
        metrics = {"loss": F.cross_entropy(logits, targets)}
        right = logits.argmax(-1) == targets
        is_mask = shown == mask_id
        is_kept = ~is_mask & (shown == targets)
        for kind, where in (("mask", is_mask), ("random", ~is_mask & ~is_kept), ("kept", is_kept)):
            metrics[kind] = right[where].float().mean().item() if where.any() else None
    return metrics


@EX4_5.bug
def mask_id_hard_coded_as_103(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I recognised the [MASK] positions by BERT's id, input == 103, the [MASK] of the uncased vocabulary, instead of the mask_id I am given, so with another vocabulary the [MASK] positions are counted as random ones.
    Differs on: V = 5, mask_id 4, one labelled position shown as 4 with label 0 and logits [2, 0, 0, 0, 0]: {"mask": None, "random": 1.0, "kept": None} instead of {"mask": 1.0, "random": None, "kept": None}."""
    MASK = 103
    selected = labels != IGNORE_INDEX
    logits = hidden[selected] @ word_embeddings.T + bias
    targets, shown = labels[selected], input_ids[selected]
    metrics = {"loss": F.cross_entropy(logits, targets)}
    right = logits.argmax(-1) == targets
    is_mask = shown == MASK
    is_kept = ~is_mask & (shown == targets)
    for kind, where in (("mask", is_mask), ("random", ~is_mask & ~is_kept), ("kept", is_kept)):
        metrics[kind] = right[where].float().mean().item() if where.any() else None
    return metrics


@EX4_5.bug
def loss_only_at_the_mask_positions(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I averaged the loss over the positions shown as [MASK] only, the ones the model really has to predict (at a kept one it can copy its input), where the statement averages over every labelled position.
    Differs on: V = 3, mask_id 1, two labelled positions with logits [2, 0, 0] each, one shown as [MASK] with label 0, one kept (shown 2, label 2): loss 0.2395 (the [MASK] one alone) instead of (0.2395 + 2.2395) / 2 = 1.2395."""
    selected = labels != IGNORE_INDEX
    logits = hidden[selected] @ word_embeddings.T + bias
    targets, shown = labels[selected], input_ids[selected]
    is_mask = shown == mask_id
    metrics = {"loss": F.cross_entropy(logits[is_mask], targets[is_mask])}
    right = logits.argmax(-1) == targets
    is_kept = ~is_mask & (shown == targets)
    for kind, where in (("mask", is_mask), ("random", ~is_mask & ~is_kept), ("kept", is_kept)):
        metrics[kind] = right[where].float().mean().item() if where.any() else None
    return metrics


@EX4_5.correct
def index_select_and_counts(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """The labelled positions found with nonzero on the flattened labels and gathered by index_select; the decoder as F.linear; the loss as -log_softmax gathered and averaged; each kind counted with sums."""
    H = hidden.shape[-1]
    flat_labels = labels.reshape(-1)
    idx = (flat_labels != IGNORE_INDEX).nonzero().squeeze(1)
    h = hidden.reshape(-1, H).index_select(0, idx)
    targets = flat_labels.index_select(0, idx)
    shown = input_ids.reshape(-1).index_select(0, idx)
    logits = F.linear(h, word_embeddings, bias)
    logp = logits.log_softmax(dim=-1)
    loss = -logp.gather(1, targets[:, None]).squeeze(1).sum() / len(idx)
    right = logits.argmax(dim=-1) == targets
    kinds = {"mask": shown == mask_id}
    kinds["kept"] = (shown != mask_id) & (shown == targets)
    kinds["random"] = (shown != mask_id) & (shown != targets)
    out = {"loss": loss}
    for kind in ("mask", "random", "kept"):
        n = int(kinds[kind].sum())
        out[kind] = int((right & kinds[kind]).sum()) / n if n else None
    return out


# --- batch 9: written without reading any checker ------------------------------------------
EX4_1.batch = 9


@EX4_1.bug
def fate_from_the_selection_key(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                max_predictions, generator):
    """To save a draw I decided each selected position's fate with the random key that selected it (key < 0.8 gives [MASK]), but the selected keys are the smallest of the row, so nearly every selected token becomes [MASK].
    Differs on: 2000 rows of 20 candidates, max_predictions None, seed 0: all 6000 selected positions shown as [MASK] and none random or kept, instead of about 80 / 10 / 10."""
    candidates = ~special_tokens_mask
    B, T = input_ids.shape
    n = candidates.sum(dim=1)
    ks = []
    for c in n.tolist():
        if c == 0:
            ks.append(0)
            continue
        k = max(1, round(0.15 * c))
        ks.append(k if max_predictions is None else min(k, max_predictions))
    k = torch.tensor(ks)
    key = torch.rand(input_ids.shape, generator=generator)
    key = torch.where(candidates, key, torch.full_like(key, 2.0))
    rank = key.argsort(dim=1).argsort(dim=1)
    selected = rank < k.unsqueeze(1)
    to_mask = selected & (key < 0.8)
    to_random = selected & (key >= 0.8) & (key < 0.9)
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[list(special_token_ids)] = False
    pool = allowed.nonzero().squeeze(1)
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=generator)]
    masked_ids = input_ids.clone()
    masked_ids[to_mask] = mask_token_id
    masked_ids[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.bug
def cap_zero_read_as_no_cap(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                            max_predictions, generator):
    """I wrote the cap as `max_predictions or n`, to let None mean "no cap", so a cap of 0 is also read as no cap and every row still gets its round(15%).
    Differs on: [[101, 2057, 2293, 8870, 102]] with [CLS] and [SEP] special, max_predictions 0: one labelled position instead of none."""
    candidates = ~special_tokens_mask
    masked_ids = input_ids.clone()
    labels = torch.full_like(input_ids, IGNORE_INDEX)
    n = candidates.sum(dim=1)
    key = torch.rand(input_ids.shape, generator=generator).masked_fill(special_tokens_mask, float("inf"))
    order = key.argsort(dim=1)
    rank = torch.empty_like(order)
    rank.scatter_(1, order, torch.arange(input_ids.shape[1]).expand_as(order).contiguous())
    k = torch.zeros_like(n)
    for b, c in enumerate(n.tolist()):
        if c:
            k[b] = min(max(1, round(0.15 * c)), max_predictions or c)
    selected = rank < k[:, None]
    fate = torch.rand(input_ids.shape, generator=generator)
    keep_out = torch.zeros(vocab_size, dtype=torch.bool)
    keep_out[list(special_token_ids)] = True
    pool = torch.arange(vocab_size)[~keep_out]
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=generator)]
    masked_ids = torch.where(selected & (fate < 0.8), torch.full_like(input_ids, mask_token_id), masked_ids)
    masked_ids = torch.where(selected & (fate >= 0.8) & (fate < 0.9), random_ids, masked_ids)
    labels[selected] = input_ids[selected]
    return masked_ids, labels


@EX4_1.bug
def random_id_never_the_original(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                 max_predictions, generator):
    """A random replacement that draws the original token replaces nothing, I thought, so I drew it among the allowed ids other than the original one (skipping over it in the pool), where the statement draws uniformly from all the allowed ids.
    Differs on: vocab_size 6, special_token_ids [0, 1, 2], 4000 rows of 20 candidates with ids 3 to 5: a selected token is left unchanged 10.0% of the time instead of 10% + 10% / 3 = 13.3%."""
    candidates = ~special_tokens_mask
    n = candidates.sum(dim=1)
    cap = [int(c) if max_predictions is None else max_predictions for c in n]
    k = torch.tensor([min(max(1, round(0.15 * int(c))), m) if c else 0 for c, m in zip(n, cap)])
    key = torch.rand(input_ids.shape, generator=generator).masked_fill(~candidates, 2.0)
    rank = key.argsort(dim=1).argsort(dim=1)
    selected = rank < k[:, None]
    fate = torch.rand(input_ids.shape, generator=generator)
    to_mask = selected & (fate < 0.8)
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[list(special_token_ids)] = False
    pool = allowed.nonzero().squeeze(1)
    # where the original sits in the pool, if it is there: draw among the others and step over it
    where = torch.searchsorted(pool, input_ids).clamp(max=len(pool) - 1)
    in_pool = pool[where] == input_ids
    u = torch.rand(input_ids.shape, generator=generator)
    r = (u * (len(pool) - in_pool.long())).long()
    r = r + (in_pool & (r >= where)).long()
    random_ids = pool[r]
    masked_ids = input_ids.clone()
    masked_ids[to_mask] = mask_token_id
    masked_ids[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.bug
def random_ids_above_the_special_count(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                                       max_predictions, generator):
    """I thought the special tokens take the first ids of a vocabulary, so I drew a random replacement with torch.randint(len(special_token_ids), vocab_size), which can give a special id that sits higher up and never gives the low ordinary ids.
    Differs on: vocab_size 10, mask_token_id 7, special_token_ids [7, 8, 9], 1000 rows of 20 candidates, seed 2: random ids from 3 to 9 (the specials 8 and 9 among them) and never 0 to 2, instead of from 0 to 6."""
    candidates = ~special_tokens_mask
    n = candidates.sum(dim=1)
    cap = [int(c) if max_predictions is None else max_predictions for c in n]
    k = torch.tensor([min(max(1, round(0.15 * int(c))), m) if c else 0 for c, m in zip(n, cap)])
    key = torch.rand(input_ids.shape, generator=generator).masked_fill(~candidates, 2.0)
    rank = key.argsort(dim=1).argsort(dim=1)
    selected = rank < k[:, None]
    fate = torch.rand(input_ids.shape, generator=generator)
    to_mask = selected & (fate < 0.8)
    to_random = selected & (fate >= 0.8) & (fate < 0.9)
    random_ids = torch.randint(len(special_token_ids), vocab_size, input_ids.shape, generator=generator)
    masked_ids = input_ids.clone()
    masked_ids[to_mask] = mask_token_id
    masked_ids[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked_ids, labels


@EX4_1.correct
def rows_with_multinomial_without_replacement(input_ids, special_tokens_mask, mask_token_id, vocab_size,
                                              special_token_ids, max_predictions, generator):
    """A loop over the rows: the k positions drawn by torch.multinomial without replacement over equal weights, the pool built from a Python set, fates applied position by position."""
    pool = torch.tensor(sorted(set(range(vocab_size)) - set(int(i) for i in special_token_ids)), dtype=torch.long)
    masked_ids = input_ids.clone()
    labels = torch.full_like(input_ids, IGNORE_INDEX)
    for b in range(input_ids.shape[0]):
        cand = (~special_tokens_mask[b]).nonzero().flatten()
        n = len(cand)
        if n == 0:
            continue
        k = max(1, round(0.15 * n))
        if max_predictions is not None:
            k = min(k, max_predictions)
        if k == 0:
            continue
        chosen = cand[torch.multinomial(torch.ones(n), k, replacement=False, generator=generator)]
        fate = torch.rand(k, generator=generator)
        repl = pool[torch.randint(len(pool), (k,), generator=generator)]
        labels[b, chosen] = input_ids[b, chosen]
        for pos, u, r in zip(chosen.tolist(), fate.tolist(), repl.tolist()):
            if u < 0.8:
                masked_ids[b, pos] = mask_token_id
            elif u < 0.9:
                masked_ids[b, pos] = r
    return masked_ids, labels


# --- batch 9: written without reading any checker ------------------------------------------
EX4_2.batch = 9


@EX4_2.bug
def position_from_list_index(tokens):
    """I looped over the tokens themselves and found each one's position with tokens.index(token), which gives the first place the token occurs, so a token that occurs twice gets the position of its first occurrence.
    Differs on: ["[CLS]", "the", "cat", "saw", "the", "dog", "[SEP]"]: [[1], [2], [3], [1], [5]] instead of [[1], [2], [3], [4], [5]]."""
    specials = {"[CLS]", "[SEP]", "[PAD]"}
    groups = []
    for token in tokens:
        t = tokens.index(token)
        if token in specials:
            continue
        if token.startswith("##") and groups and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.bug
def walk_stopped_at_the_first_sep(tokens):
    """A sequence ends with [SEP], so I stopped the walk there with break, forgetting that a pair has a [SEP] after A too and sentence B's words come after it.
    Differs on: ["[CLS]", "we", "row", "[SEP]", "he", "rowed", "[SEP]"]: [[1], [2]] instead of [[1], [2], [4], [5]]."""
    groups = []
    current = None
    for t, token in enumerate(tokens):
        if token == "[SEP]":
            break
        if token in ("[CLS]", "[PAD]"):
            current = None
            continue
        if token.startswith("##") and current is not None:
            current.append(t)
        else:
            current = [t]
            groups.append(current)
    return groups


@EX4_2.bug
def continuation_matched_by_a_word_regex(tokens):
    """I recognised a continuation piece with re.match(r"##\\w", token), "##" and then a letter or digit, so a piece like "##°" (from "25°") or "##×" starts a word of its own.
    Differs on: ["[CLS]", "it", "was", "25", "##°", "outside", ".", "[SEP]"]: [[1], [2], [3], [4], [5], [6]] instead of [[1], [2], [3, 4], [5], [6]]."""
    piece = re.compile(r"##\w")
    groups = []
    for t, token in enumerate(tokens):
        if token in ("[CLS]", "[SEP]", "[PAD]"):
            continue
        if piece.match(token) and groups and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.bug
def stopped_at_the_first_pad(tokens):
    """Padding comes after the sequence, I thought, so I stopped the walk at the first [PAD]; a left-padded sequence (or any [PAD] before real tokens) loses every word after it.
    Differs on: ["[PAD]", "[PAD]", "[CLS]", "the", "man", "[SEP]"]: [] instead of [[3], [4]]."""
    groups = []
    for t, token in enumerate(tokens):
        if token == "[PAD]":
            break
        if token in ("[CLS]", "[SEP]"):
            continue
        if token.startswith("##") and groups and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


@EX4_2.correct
def numpy_masks_and_split(tokens):
    """numpy: boolean arrays for the specials and the pieces, the word starts found by shifting, the non-special positions cut with np.split at the starts."""
    if not tokens:
        return []
    toks = np.array(tokens, dtype=object)
    special = np.isin(toks, ["[CLS]", "[SEP]", "[PAD]"])
    piece = np.array([str(t).startswith("##") for t in tokens])
    prev_word = np.concatenate([[False], ~special[:-1]])  # a non-special token right before
    start = ~special & ~(piece & prev_word)
    keep = np.flatnonzero(~special)
    cuts = np.flatnonzero(start[keep])[1:]
    return [part.tolist() for part in np.split(keep, cuts) if len(part)]


# --- batch 9: written without reading any checker ------------------------------------------
EX.batch = 9


@EX.bug
def notnext_b_wraps_around(documents, index, rng):
    """To give the NotNext B as many sentences as the true B even when the other document ends too soon, I wrapped around to its first sentence (modulo its length), so B is not consecutive there and can repeat a sentence.
    Differs on: [["a1", "a2", "a3"], ["b1", "b2"], ["c1"]], index 0, random.Random(3): (["a1"], ["b2", "b1"], False), where a NotNext B must be consecutive (["b2"] or ["b1", "b2"])."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    a_sentences = document[:a_end]
    if rng.random() < 0.5:
        return a_sentences, document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    if other >= index:
        other += 1
    other_doc = documents[other]
    start = rng.randrange(len(other_doc))
    wanted = len(document) - a_end
    b_sentences = [other_doc[(start + i) % len(other_doc)] for i in range(wanted)]
    return a_sentences, b_sentences, False


@EX.bug
def others_sliced_one_short(documents, index, rng):
    """I listed the other documents as documents[:index - 1] + documents[index + 1:], one short on the left, so the document before A's is never drawn, and for index 0 the slice [:-1] brings back A's own document (and repeats others).
    Differs on: [["a1", "a2"], ["b1"], ["c1"]], index 0, seeds 0 to 3999: NotNext B comes from A's own document (["a1"] or ["a2"]) about a quarter of the time and ["c1"] only a quarter, instead of ["b1"] and ["c1"] half each."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    others = documents[:index - 1] + documents[index + 1:]
    other = rng.choice(others)
    start = rng.randrange(len(other))
    return document[:a_end], other[start:start + len(document) - a_end], False


@EX.bug
def other_index_minus_one_outside_the_parentheses(documents, index, rng):
    """I drew among the other documents with int(rng.random() * len(documents) - 1), meaning len(documents) - 1 in parentheses, then stepped over A's own; the draw is in [-1, n - 1), int() sends both -0.x and 0.x to 0, so the first other document is drawn twice as often as each of the rest.
    Differs on: [["a1", "a2"], ["b1"], ["c1"]], index 0, seeds 0 to 3999: NotNext B is ["b1"] about 2/3 of the time and ["c1"] 1/3, instead of half each."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    other = int(rng.random() * len(documents) - 1)
    if other >= index:
        other += 1
    start = rng.randrange(len(documents[other]))
    return document[:a_end], documents[other][start:start + len(document) - a_end], False


@EX.bug
def only_long_enough_documents_drawn(documents, index, rng):
    """So that a NotNext B always has as many sentences as the true B, I drew the other document only among those long enough to give them, so a short document is never the source when A leaves several sentences (and when none is long enough, rng.choice([]) raises).
    Differs on: [["a1", "a2", "a3"], ["b1"], ["c1", "c2", "c3"]], index 0: whenever A is ["a1"] the NotNext B comes from document 2 every time, never from document 1, instead of half each."""
    document = documents[index]
    a_end = rng.randint(1, len(document) - 1)
    if rng.random() < 0.5:
        return document[:a_end], document[a_end:], True
    wanted = len(document) - a_end
    long_enough = [i for i, d in enumerate(documents) if i != index and len(d) >= wanted]
    other = documents[rng.choice(long_enough)]
    start = rng.randrange(len(other) - wanted + 1)
    return document[:a_end], other[start:start + wanted], False


@EX.correct
def negative_offset_and_choice(documents, index, rng):
    """A's end by rng.choice over a range; the coin read the other way round (>= 0.5 is NotNext); the other document as index - 1 - an offset, wrapped by Python's negative indexing; B's start from int(rng.random() * len)."""
    document = documents[index]
    a_end = rng.choice(range(1, len(document)))
    a_sentences = list(document[:a_end])
    true_b = list(document[a_end:])
    if rng.random() >= 0.5:
        offset = rng.randrange(len(documents) - 1)
        source = documents[index - 1 - offset]  # negative indices wrap round to the end of the list
        start = int(rng.random() * len(source))
        return a_sentences, list(source[start:start + len(true_b)]), False
    return a_sentences, true_b, True


# --- batch 9: written without reading any checker ------------------------------------------
EX4_4.batch = 9


@EX4_4.bug
def random_rotation_instead_of_shuffle(groups, num_to_predict, rng):
    """For "a random order" I started the walk at a random word, rng.randrange(len(groups)), and went on in position order, wrapping round, instead of shuffling: only the rotations of the list ever come up, so words far apart are rarely taken together.
    Differs on: [[1], [2], [3], [4]], num_to_predict 2, seeds 0 to 1999: only [1, 2], [2, 3], [3, 4] and [1, 4], never [1, 3] or [2, 4] (which the shuffle gives a third of the time)."""
    if not groups:
        return []
    first = rng.randrange(len(groups))
    order = groups[first:] + groups[:first]
    chosen = []
    for word in order:
        if len(chosen) + len(word) <= num_to_predict:
            chosen.extend(word)
    return sorted(chosen)


@EX4_4.bug
def words_drawn_with_replacement(groups, num_to_predict, rng):
    """I picked the words one at a time with rng.choice(groups), as many draws as there are words, skipping a word already taken or too long; draws with replacement repeat some words and never reach others, so a word that would still fit is often left out.
    Differs on: [[1], [2], [3], [4]], num_to_predict 4, random.Random(0): [1, 3, 4] (word [2] never drawn) instead of [1, 2, 3, 4]."""
    chosen = []
    taken = set()
    for _ in range(len(groups)):
        i = rng.choice(range(len(groups)))
        word = groups[i]
        if i in taken or len(chosen) + len(word) > num_to_predict:
            continue
        taken.add(i)
        chosen.extend(word)
    return sorted(chosen)


@EX4_4.bug
def only_checked_room_before_each_word(groups, num_to_predict, rng):
    """I walked the shuffled words taking each one while fewer than num_to_predict positions were chosen, and forgot the second test, whether the word itself still fits, so the last word taken can run past the count.
    Differs on: [[1], [2, 3, 4], [5], [6, 7]], num_to_predict 3, random.Random(0): 5 positions, [1, 2, 3, 4, 5], instead of [1, 5]."""
    order = groups[:]
    rng.shuffle(order)
    chosen = []
    for word in order:
        if len(chosen) < num_to_predict:
            chosen += word
    return sorted(chosen)


@EX4_4.bug
def word_length_from_its_span(groups, num_to_predict, rng):
    """I counted a word's pieces as word[-1] - word[0], the distance from its first position to its last, forgetting the + 1, so a one-piece word costs nothing and every word costs one piece too few.
    Differs on: [[1], [2], [3]], num_to_predict 1, any seed: [1, 2, 3] instead of one position."""
    order = list(groups)
    rng.shuffle(order)
    used = 0
    chosen = []
    for word in order:
        size = word[-1] - word[0]
        if used + size > num_to_predict:
            continue
        used += size
        chosen.extend(word)
    return sorted(chosen)


@EX4_4.correct
def compress_with_a_budget_closure(groups, num_to_predict, rng):
    """A shuffled copy made by unpacking, the walk as itertools.compress with a selector generator that spends a budget, the positions chained and returned unsorted."""
    order = [*groups]
    rng.shuffle(order)

    def fits():
        room = num_to_predict
        for word in order:
            take = len(word) <= room
            if take:
                room -= len(word)
            yield take

    return list(itertools.chain.from_iterable(itertools.compress(order, fits())))


# --- batch 9: written without reading any checker ------------------------------------------
EX4_5.batch = 9


@EX4_5.bug
def nll_loss_on_raw_logits(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I took F.nll_loss for the negative log-likelihood and gave it the logits straight from the decoder, forgetting that it expects log-probabilities, so my loss is minus the label's logit, with no log-softmax.
    Differs on: the worked example, logits [2.0, 0.0, 0.0] (hidden [[[2.0, 0.0]]], E = [[1, 0], [0, 1], [0, 0]], bias 0), label 0: loss -2.0 instead of 0.2395."""
    selected = labels != IGNORE_INDEX
    logits = hidden[selected] @ word_embeddings.T + bias
    targets = labels[selected]
    shown = input_ids[selected]
    out = {"loss": F.nll_loss(logits, targets)}
    right = logits.argmax(dim=-1) == targets
    is_mask = shown == mask_id
    is_kept = (shown == targets) & ~is_mask
    is_random = ~is_mask & ~is_kept
    for kind, where in (("mask", is_mask), ("random", is_random), ("kept", is_kept)):
        out[kind] = float(right[where].float().mean()) if where.any() else None
    return out


@EX4_5.bug
def log_softmax_over_the_positions(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I wrote the log-softmax with dim=0, thinking of the first axis as the classes, but the logits are (N, V), so it normalises each word over the labelled positions instead of each position over the vocabulary.
    Differs on: one labelled position with logits [2.0, 0.0, 0.0] and label 0 (the worked example): loss 0.0 instead of 0.2395; with N > 1 any value."""
    selected = labels != IGNORE_INDEX
    rows = hidden[selected]  # (N, H)
    logits = rows @ word_embeddings.T + bias  # (N, V)
    targets = labels[selected]
    shown = input_ids[selected]
    logp = torch.log_softmax(logits, dim=0)
    loss = -logp.gather(1, targets[:, None]).squeeze(1).mean()
    right = logits.argmax(dim=1) == targets
    is_mask = shown == mask_id
    is_kept = ~is_mask & (shown == targets)
    metrics = {"loss": loss}
    for kind, where in (("mask", is_mask), ("random", ~is_mask & ~is_kept), ("kept", is_kept)):
        metrics[kind] = right[where].float().mean().item() if where.any() else None
    return metrics


@EX4_5.bug
def labelled_where_positive(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I found the labelled positions with labels > 0, since -100 is the only negative label, forgetting that 0 is an id too (the worked example's label), so a position labelled 0 is left out of the loss and the accuracies.
    Differs on: the worked example, logits [2.0, 0.0, 0.0], label 0, input mask_id: loss nan (no position) and "mask" None instead of 0.2395 and 1.0."""
    selected = labels > 0
    logits = hidden[selected] @ word_embeddings.T + bias
    targets, shown = labels[selected], input_ids[selected]
    metrics = {"loss": F.cross_entropy(logits, targets)}
    right = logits.argmax(-1) == targets
    is_mask = shown == mask_id
    is_kept = ~is_mask & (shown == targets)
    for kind, where in (("mask", is_mask), ("random", ~is_mask & ~is_kept), ("kept", is_kept)):
        metrics[kind] = right[where].float().mean().item() if where.any() else None
    return metrics


@EX4_5.bug
def argmax_without_dim(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """I took the prediction with logits.argmax(), forgetting dim=-1, which gives one index into the flattened (N, V) logits, so every position is compared with that one number.
    Differs on: two [MASK] positions, V = 3, logits [[2, 0, 0], [0, 3, 0]], labels [0, 1]: "mask" accuracy 0.0 instead of 1.0 (argmax() is 4)."""
    selected = labels != IGNORE_INDEX
    logits = hidden[selected] @ word_embeddings.T + bias
    targets, shown = labels[selected], input_ids[selected]
    metrics = {"loss": F.cross_entropy(logits, targets)}
    right = logits.argmax() == targets
    is_mask = shown == mask_id
    is_kept = ~is_mask & (shown == targets)
    for kind, where in (("mask", is_mask), ("random", ~is_mask & ~is_kept), ("kept", is_kept)):
        metrics[kind] = right[where].float().mean().item() if where.any() else None
    return metrics


@EX4_5.correct
def flat_views_logsumexp_and_bincount(hidden, word_embeddings, bias, input_ids, labels, mask_id):
    """Flattened views and nonzero indices; the loss as logsumexp minus the label's logit; each position given a kind code 0/1/2 and the rights counted with torch.bincount."""
    H = hidden.shape[-1]
    flat_labels = labels.reshape(-1)
    idx = (flat_labels != IGNORE_INDEX).nonzero().squeeze(1)
    h = hidden.reshape(-1, H).index_select(0, idx)
    target = flat_labels.index_select(0, idx)
    shown = input_ids.reshape(-1).index_select(0, idx)
    logits = torch.addmm(bias, h, word_embeddings.t())  # (N, V)
    picked = logits.gather(1, target.unsqueeze(1)).squeeze(1)
    loss = (torch.logsumexp(logits, dim=1) - picked).sum() / idx.numel()
    with torch.no_grad():
        code = torch.where(shown == mask_id, 0, torch.where(shown == target, 2, 1))
        right = (logits.argmax(dim=1) == target).long()
        totals = torch.bincount(code, minlength=3).tolist()
        hits = torch.bincount(code, weights=right.double(), minlength=3).tolist()
    result = {"loss": loss}
    for c, kind in enumerate(("mask", "random", "kept")):
        result[kind] = hits[c] / totals[c] if totals[c] else None
    return result
