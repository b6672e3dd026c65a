"""Heads that follow syntax, scored against relations defined from gold part-of-speech tags alone.

Clark et al. (2019, §4) scored each head on each dependency relation of a parsed corpus: for each
word, the word it attends to most is the head's guess, and a head is good at a relation when the
guess is the word the parse links it to. Our data (the Brown corpus's gold tags, `pos` task) have
no parse, so the relations here are **approximations** built from tags and word order, each a rule a
reader can check by eye:

    det → noun      a determiner and the noun that ends the phrase after it ("the [big] dog")
    adj → noun      an adjective and the noun that ends the phrase after it ("big [old] dog")
    adp → object    a preposition and the noun (or pronoun) that ends the phrase after it ("in the park")
    verb → verb     a verb and the next verb after adverbs only ("has not been", "did go"): an
                    auxiliary and the verb it helps, roughly (universal tags call both VERB)

"The noun that ends the phrase" skips determiners, adjectives, numbers and adverbs, then takes the
last noun of a run of nouns ("the Park Hotel" → Hotel), as a dependency parse would. Each relation
is a list of pairs (first, second) of word indices; direction "forward" asks whether the first word
attends most to the second, "backward" the other way. The baseline, as in Clark et al., is the best
fixed offset: always guess the word k places away, for the k that works best on this data.
"""

from __future__ import annotations

import torch


def _phrase_end(tags: list[str], j: int, skip: set[str], pronoun: bool = False) -> int | None:
    """The index of the noun ending the phrase that starts at j (after words whose tag is in `skip`)."""
    while j < len(tags) and tags[j] in skip:
        j += 1
    if j < len(tags) and pronoun and tags[j] == "PRON":
        return j
    if j >= len(tags) or tags[j] != "NOUN":
        return None
    while j + 1 < len(tags) and tags[j + 1] == "NOUN":
        j += 1
    return j


def _after(first_tag: str, skip: set[str], pronoun: bool = False):
    def pairs(tags):
        return [(i, h) for i, t in enumerate(tags)
                if t == first_tag and (h := _phrase_end(tags, i + 1, skip, pronoun)) is not None]
    return pairs


def _verb_verb(tags: list[str]) -> list[tuple[int, int]]:
    found = []
    for i, t in enumerate(tags):
        j = i + 1
        while t == "VERB" and j < len(tags) and tags[j] == "ADV":
            j += 1
        if t == "VERB" and j < len(tags) and tags[j] == "VERB":
            found.append((i, j))
    return found


RELATIONS = {
    "det → noun": _after("DET", {"DET", "ADJ", "NUM", "ADV"}),
    "adj → noun": _after("ADJ", {"ADJ", "NUM", "ADV"}),
    "adp → object": _after("ADP", {"DET", "ADJ", "NUM", "ADV"}, pronoun=True),
    "verb → verb": _verb_verb,
}


def relation_pairs(tags: list[str], relation: str) -> list[tuple[int, int]]:
    """The (first, second) word-index pairs of `relation` in one tagged sentence (0-based words)."""
    if relation not in RELATIONS:
        raise ValueError(f"unknown relation {relation!r}; known: {list(RELATIONS)}")
    return RELATIONS[relation](tags)


def _oriented(pairs, direction):
    if direction not in ("forward", "backward"):
        raise ValueError(f"direction must be 'forward' or 'backward', not {direction!r}")
    return pairs if direction == "forward" else [(h, d) for d, h in pairs]


def relation_accuracy(maps: list[torch.Tensor], tags: list[list[str]], relation: str,
                      direction: str = "forward") -> tuple[torch.Tensor, int]:
    """For every head, the share of the relation's pairs whose query word attends most to its partner,
    among the sentence's other words ([CLS], [SEP] and the query itself are not guesses): ((L, nh), n pairs)."""
    hits, n = 0, 0
    for A, sentence_tags in zip(maps, tags, strict=True):
        pairs = _oriented(relation_pairs(sentence_tags, relation), direction)
        if not pairs:
            continue
        q = torch.tensor([a + 1 for a, _ in pairs])  # word i is group i + 1
        target = torch.tensor([b for _, b in pairs])
        rows = A[..., q, 1:-1].clone()  # (L, nh, P, W): attention from each query to the words
        rows[..., torch.arange(len(pairs)), q - 1] = -1.0  # never guess the word itself
        hits = hits + (rows.argmax(-1) == target).double().sum(-1)
        n += len(pairs)
    if n == 0:
        raise ValueError(f"no pair of {relation!r} in these sentences")
    return hits / n, n


def best_offset(tags: list[list[str]], relation: str, direction: str = "forward",
                offsets=range(-5, 6)) -> tuple[int, float]:
    """The fixed-offset baseline: (k, accuracy) of always guessing the word k places away, best k."""
    pairs = [p for t in tags for p in _oriented(relation_pairs(t, relation), direction)]
    if not pairs:
        raise ValueError(f"no pair of {relation!r} in these sentences")
    scores = {k: sum(b - a == k for a, b in pairs) / len(pairs) for k in offsets if k != 0}
    k = max(scores, key=scores.get)
    return k, scores[k]
