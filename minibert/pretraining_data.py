"""Documents -> sentence-pair instances for pre-training, the recipe of Google's
`create_pretraining_data.py` (paper, section 3.1 and appendix A.2).

A document is a list of sentences, each a list of token ids. From each document we cut chunks of
whole sentences about `max_seq_length` long, split each chunk at a random sentence boundary into
A and B, and for half of them replace B by text from another document (NotNext). Then

    [CLS] A [SEP] B [SEP]      token types 0 ... 0 1 ... 1

Two details keep the model from learning shortcuts: in 10% of passes over a document
(`short_seq_prob`, drawn once per document as in Google's code) its instances get a shorter random
target length, so short fine-tuning inputs are not a surprise (a short target cuts its document into
more instances, so their share of instances is higher: chapter 04 measures it); and when B is replaced,
the sentences the chunk did not use are put back, so no text is wasted.

Two departures from Google's code, both so that the NSP label means what it says: a NotNext B
always comes from another document (Google's code draws among all documents up to ten times and,
if every draw is A's own, takes B from it), and a chunk of one sentence is cut in two for an IsNext
pair instead of always getting a random B (Google's rule made 52-55% of the labels NotNext on real
text, 0.539 on 100 documents of the course corpus in chapter 04; now it is a fair coin, tested).
Smaller ones: the documents are not shuffled first, and the coin is tossed before the cut, so the
same seed does not give Google's instances.

Masking is applied afterwards (`masking.py`), once per copy for static masking or per batch for
dynamic masking.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

IS_NEXT, NOT_NEXT = 0, 1  # next_sentence_label, as in transformers: 0 means B follows A


@dataclass
class Instance:
    input_ids: list[int]        # [CLS] A [SEP] B [SEP]
    token_type_ids: list[int]   # 0 for [CLS] A [SEP], 1 for B [SEP]
    next_sentence_label: int    # IS_NEXT or NOT_NEXT


def truncate_seq_pair(tokens_a: list, tokens_b: list, max_num_tokens: int, rng: random.Random) -> None:
    """Trim the longer of A and B, one token at a time, from its front or its back at random (in
    place). Cutting both ends, unlike the tokenizer's cut for fine-tuning, avoids always showing
    the model segments that end mid-sentence at the same place."""
    while len(tokens_a) + len(tokens_b) > max_num_tokens:
        longer = tokens_a if len(tokens_a) > len(tokens_b) else tokens_b
        if rng.random() < 0.5:
            del longer[0]
        else:
            longer.pop()


def create_instances_from_document(documents: list[list[list[int]]], index: int, *, max_seq_length: int,
                                   cls_id: int, sep_id: int, rng: random.Random, short_seq_prob: float = 0.1,
                                   nsp: bool = True, counts: Counter | None = None) -> list[Instance]:
    """All instances of `documents[index]`. With nsp=False, B is always the true continuation and
    the label is IS_NEXT (the paper's "No NSP" ablation builds its inputs this way). `counts`
    collects what could not become an instance."""
    counts = Counter() if counts is None else counts
    document = documents[index]
    max_num_tokens = max_seq_length - 3  # room for [CLS], [SEP], [SEP]
    target_length = max_num_tokens
    if rng.random() < short_seq_prob:
        target_length = rng.randint(2, max_num_tokens)

    instances = []
    chunk: list[list[int]] = []  # whole sentences, about target_length tokens in all
    chunk_length = 0
    i = 0
    while i < len(document):
        chunk.append(document[i])
        chunk_length += len(document[i])
        if i == len(document) - 1 or chunk_length >= target_length:
            random_next = nsp and rng.random() < 0.5
            if len(chunk) >= 2:
                a_end = rng.randint(1, len(chunk) - 1)  # the first a_end sentences go to A
                tokens_a = [t for sentence in chunk[:a_end] for t in sentence]
                tokens_b = [t for sentence in chunk[a_end:] for t in sentence]
                if random_next:
                    i -= len(chunk) - a_end  # put B's sentences back for the next chunk
            elif random_next or len(chunk[0]) < 2:
                tokens_a, tokens_b = list(chunk[0]), []
                random_next = nsp
            else:
                # One sentence (longer than the target, or a document's last) and a true B asked
                # for: cut the sentence in two, rather than make the chunk NotNext as Google does.
                cut = rng.randint(1, len(chunk[0]) - 1)
                tokens_a, tokens_b = chunk[0][:cut], chunk[0][cut:]
            if random_next:
                tokens_b = _random_segment(documents, index, target_length - len(tokens_a), rng)
            truncate_seq_pair(tokens_a, tokens_b, max_num_tokens, rng)
            if not tokens_b:  # nsp=False and a sentence of one token alone
                counts["one-token chunks without a B"] += 1
            else:
                instances.append(Instance(
                    input_ids=[cls_id, *tokens_a, sep_id, *tokens_b, sep_id],
                    token_type_ids=[0] * (len(tokens_a) + 2) + [1] * (len(tokens_b) + 1),
                    next_sentence_label=NOT_NEXT if random_next else IS_NEXT))
            chunk, chunk_length = [], 0
        i += 1
    return instances


def _random_segment(documents, index, target_length, rng) -> list[int]:
    """Sentences from a random point of a random *other* document, about target_length tokens.
    Google's code tries ten times to avoid the same document and then takes B from it anyway; with
    a small corpus that leaks true continuations into NotNext, so we draw among the others directly."""
    other = rng.randint(0, len(documents) - 2)
    other += other >= index  # skip the document itself
    document = documents[other]
    tokens: list[int] = []
    for sentence in document[rng.randint(0, len(document) - 1):]:
        tokens.extend(sentence)
        if len(tokens) >= max(target_length, 1):
            break
    return tokens


def create_instances(documents: list[list[list[int]]], *, max_seq_length: int, cls_id: int, sep_id: int,
                     seed: int, short_seq_prob: float = 0.1, nsp: bool = True,
                     dupe_factor: int = 1) -> tuple[list[Instance], dict]:
    """Instances of every document, `dupe_factor` times over (each pass cuts the documents at other
    places), shuffled. Returns the instances and the counts of what was skipped, by reason."""
    if max_seq_length < 5:
        raise ValueError(f"max_seq_length={max_seq_length} leaves no room for A and B after [CLS] and "
                         "two [SEP]; BERT uses 128 and 512")
    skipped = Counter({"empty documents": 0, "empty sentences": 0})
    kept = []
    for document in documents:
        sentences = [s for s in document if s]
        skipped["empty sentences"] += len(document) - len(sentences)
        if sentences:
            kept.append(sentences)
        else:
            skipped["empty documents"] += 1
    if nsp and len(kept) < 2:
        raise ValueError(f"next-sentence prediction needs at least 2 non-empty documents to draw "
                         f"NotNext segments from, got {len(kept)}; pass nsp=False for MLM only")
    rng = random.Random(seed)
    instances = []
    for _ in range(dupe_factor):
        for index in range(len(kept)):
            instances += create_instances_from_document(
                kept, index, max_seq_length=max_seq_length, cls_id=cls_id, sep_id=sep_id, rng=rng,
                short_seq_prob=short_seq_prob, nsp=nsp, counts=skipped)
    rng.shuffle(instances)
    return instances, dict(skipped)
