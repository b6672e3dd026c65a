"""Documents -> NSP instances, on real documents: Python's help topics, one document per topic."""

import math
import random

import pytest
from pydoc_data.topics import topics

from minibert import Tokenizer
from minibert.pretraining_data import IS_NEXT, NOT_NEXT, create_instances, truncate_seq_pair

OFFSET = 100_000  # document d's ids are shifted by d * OFFSET, so every id names its document


@pytest.fixture(scope="module")
def documents(minilm_dir):
    tok = Tokenizer.from_vocab(minilm_dir)
    docs = []
    for d, name in enumerate(sorted(topics)):
        lines = [line for line in topics[name].splitlines() if line.strip()]
        docs.append([[i + d * OFFSET for i in row] for row in tok(lines, add_special_tokens=False)["input_ids"]])
    return docs


def make(documents, seed=0, **kwargs):
    kwargs = {"max_seq_length": 128, "dupe_factor": 5, **kwargs}
    return create_instances(documents, cls_id=-1, sep_id=-2, seed=seed, **kwargs)


def split(instance):
    ids = instance.input_ids
    sep = ids.index(-2)
    return ids[1:sep], ids[sep + 1:-1]


def find(part, flat, after=0):
    """Where `part` first appears as one contiguous run of `flat`, at or after `after`; -1 if not."""
    n = len(part)
    return next((i for i in range(after, len(flat) - n + 1) if flat[i:i + n] == part), -1)


def is_contiguous_in(part, flat):
    return find(part, flat) >= 0


def test_layout_lengths_and_token_types(documents):
    instances, skipped = make(documents)
    assert len(instances) > 5_000 and skipped == {"empty documents": 0, "empty sentences": 0}
    for inst in instances:
        a, b = split(inst)
        assert a and b and inst.input_ids[0] == -1 and inst.input_ids[-1] == -2
        assert len(inst.input_ids) <= 128
        assert inst.token_type_ids == [0] * (len(a) + 2) + [1] * (len(b) + 1)
    short = sum(len(inst.input_ids) < 64 for inst in instances) / len(instances)
    assert 0.05 < short < 0.5  # short_seq_prob gives some short instances, most are near full


def test_next_is_the_true_continuation_and_not_next_another_document(documents):
    instances, _ = make(documents, dupe_factor=1)
    flat = [[t for sentence in doc for t in sentence] for doc in documents]
    for inst in instances:
        a, b = split(inst)
        doc_a = a[0] // OFFSET
        assert all(t // OFFSET == doc_a for t in a)
        doc_b = b[0] // OFFSET
        assert all(t // OFFSET == doc_b for t in b)
        assert is_contiguous_in(a, flat[doc_a]) and is_contiguous_in(b, flat[doc_b])
        if inst.next_sentence_label == IS_NEXT:  # B follows A (truncation may cut where they meet)
            assert doc_b == doc_a and find(b, flat[doc_a], after=find(a, flat[doc_a]) + len(a)) >= 0
        else:
            assert doc_b != doc_a


def test_labels_are_a_fair_coin(documents, report):
    for max_seq_length in (128, 64):
        instances, _ = make(documents, max_seq_length=max_seq_length, dupe_factor=10)
        n = len(instances)
        not_next = sum(inst.next_sentence_label == NOT_NEXT for inst in instances)
        assert abs(not_next - n / 2) <= 3.29 * math.sqrt(n / 4), (max_seq_length, not_next / n)
        report(f"NSP instances at length {max_seq_length}: {n:,}, NotNext {not_next / n:.4f}")


def test_same_seed_same_instances(documents):
    assert make(documents, seed=3)[0] == make(documents, seed=3)[0]
    assert make(documents, seed=3)[0] != make(documents, seed=4)[0]


def test_without_nsp_every_b_follows_its_a(documents):
    instances, _ = make(documents, nsp=False, dupe_factor=1)
    assert {inst.next_sentence_label for inst in instances} == {IS_NEXT}
    tokens = sum(len(inst.input_ids) - 3 for inst in instances)
    assert tokens > 0.9 * sum(len(s) for doc in documents for s in doc)  # only truncation cuts text


def test_awkward_documents_are_counted_not_fatal(documents):
    long_sentence = [list(range(7, 7 + 1000))]  # a sentence far longer than the maximum
    docs = [[], [[], [5, 6]], long_sentence, *documents[:3]]
    instances, skipped = make(docs, dupe_factor=1)
    assert skipped == {"empty documents": 1, "empty sentences": 1}
    assert instances and all(len(inst.input_ids) <= 128 for inst in instances)
    with pytest.raises(ValueError, match="needs at least 2 non-empty documents"):
        make([[], documents[0]])
    assert make([documents[0]], nsp=False)[0]
    with pytest.raises(ValueError, match="max_seq_length=4 leaves no room"):
        make(documents, max_seq_length=4)


def test_truncation_trims_the_longer_side_from_both_ends():
    rng = random.Random(0)
    fronts = backs = 0
    for _ in range(200):
        a, b = list(range(50)), list(range(100, 120))
        truncate_seq_pair(a, b, 40, rng)
        assert len(a) + len(b) == 40 and b == list(range(100, 120)) and len(a) == 20
        fronts += a[0] > 0
        backs += a[-1] < 49
    assert fronts > 150 and backs > 150  # both ends are cut, at random
