"""Exercise 4.3 (my_nsp_pair): learners' NSP pairs with one mistake each, and correct ones in other styles.

Split rule (fixed before any checker changed): within the exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import random

from . import Exercise

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
