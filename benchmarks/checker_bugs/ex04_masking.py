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
