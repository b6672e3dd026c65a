"""The checker of exercise 4.3: one A/B pair for next-sentence prediction."""

from __future__ import annotations

import random
from collections import Counter

import numpy

from ..common import ExerciseError, call, expect_rate, passed

# ---- 4.3 NSP pairs -------------------------------------------------------------------------------

def _locate(documents):
    """sentence -> (document, position); the checker's sentences are all different."""
    return {s: (d, i) for d, document in enumerate(documents) for i, s in enumerate(document)}


def _run(where):
    """(document, first, end) if `where` (a list of (document, position)) is one contiguous run."""
    d, first = where[0]
    if any(w != (d, first + k) for k, w in enumerate(where)):
        return None
    return d, first, first + len(where)


def _pair_problem(case, documents, index, out) -> tuple[str | None, tuple | None]:
    """(the first broken promise, None) or (None, (is_next, the document B came from, B's first sentence))."""
    if not (isinstance(out, tuple) and len(out) == 3):
        return f"{case}: expected a tuple (a_sentences, b_sentences, is_next), received {out!r}", None
    a, b, is_next = out
    if not isinstance(is_next, (bool, numpy.bool_)):  # a Python or numpy bool; not an int label
        hint = ("\n  hint: is_next is True when B follows A: return a bool, not an int label such as minibert's "
                "(0 for IsNext); rng.random() < 0.5 is a bool, rng.randint(0, 1) an int") if is_next in (0, 1) else ""
        return f"{case}: is_next must be True or False, received {is_next!r}" + hint, None
    is_next = bool(is_next)
    where_is = _locate(documents)
    for name, part in (("A", a), ("B", b)):
        if not isinstance(part, (list, tuple)) or not part or not all(isinstance(x, str) for x in part):
            return f"{case}: {name} must be a non-empty list of sentences (strings), received {part!r}", None
        strange = [s for s in part if s not in where_is]
        if strange:
            hint = ""
            if any(t.strip() == strange[0].strip() for t in where_is):
                hint = ("\n  hint: return the documents' sentences as they are, spaces and newlines included "
                        "(no .strip()): B is cut from the text, not rewritten")
            return f"{case}: {name} holds {strange[0]!r}, which is no sentence of the documents" + hint, None
    run_a, run_b = _run([where_is[s] for s in a]), _run([where_is[s] for s in b])
    if run_a is None or run_a[0] != index:
        return (f"{case}: A = {list(a)} must be consecutive sentences of documents[{index}] (the document "
                "the pair is made from)"), None
    if run_b is None:
        return (f"{case}: B = {list(b)} must be consecutive sentences of one document\n  hint: a span of "
                "text, cut at sentence boundaries"), None
    label_hint = ("\n  hint: is_next is True when B follows A (minibert's next_sentence_label is an int with "
                  "0 for IsNext; here return a bool): is your label the wrong way round?")
    if is_next:
        if run_b[0] != index:
            return (f"{case}: is_next is True but B = {list(b)} comes from documents[{run_b[0]}], not from the "
                    f"document of A (documents[{index}])" + label_hint), None
        if run_b[:2] != (index, run_a[2]):
            follows = (f"documents[{index}][{run_a[2]}]" if run_a[2] < len(documents[index])
                       else "nothing (A ends the document)")
            return (f"{case}: is_next is True, A = {list(a)}, B = {list(b)}; an IsNext B starts with the sentence "
                    f"right after A, which is {follows}\n  hint: IsNext means B is the actual continuation "
                    "of A in the same document; pick A's end so that something follows it"), None
    elif run_b[:2] == (index, run_a[2]):
        return (f"{case}: is_next is False but B = {list(b)} is the continuation of A = {list(a)} in "
                f"documents[{index}]\n  hint: a NotNext B comes from a DIFFERENT document; and is_next is True "
                "when B follows A (minibert's next_sentence_label is an int with 0 for IsNext; here return a "
                "bool)"), None
    elif run_b[0] == index:
        return (f"{case}: is_next is False but B = {list(b)} comes from documents[{index}], the document of A\n"
                f"  hint: a NotNext B comes from a DIFFERENT document: draw it among the other "
                f"{len(documents) - 1} (e.g. rng.randrange(len(documents) - 1), then skip index)"), None
    return None, (is_next, run_b[0], run_b[1])


def _pair_run(fn, case, documents, index, seed):
    frozen = [list(d) for d in documents]
    out = call(fn, case, documents, index, random.Random(seed))
    if documents != frozen:
        raise ExerciseError(f"{case}: your function changed the documents; leave them as they are")
    problem, result = _pair_problem(case, documents, index, out)
    if problem:
        raise ExerciseError(problem)
    return out, result


def _corpus(rng: random.Random, index_length: int | None = None):
    """3 to 8 documents of 1 to 9 sentences, named 'd<document>s<sentence>'; the one the pair is made
    from has at least 2."""
    n = rng.randint(3, 8)
    index = rng.randrange(n)
    lengths = [rng.randint(1, 9) for _ in range(n)]
    lengths[index] = index_length or rng.randint(2, 9)
    return [[f"d{d}s{i}" for i in range(length)] for d, length in enumerate(lengths)], index


class _Counted:
    """The learner's function, counting its calls."""

    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args):
        self.calls += 1
        return self.fn(*args)


def nsp_pair(fn) -> None:
    """`fn(documents, index, rng) -> (a_sentences, b_sentences, is_next)`: A from documents[index];
    half the time B its continuation (is_next True), else a span of another document."""
    fn = _Counted(fn)  # every call below goes through it, so the ✓ line can say how many there were
    documents = [["a1", "a2"], ["b1"]]
    labels = set()
    for seed in range(20):  # by hand: IsNext must be (['a1'], ['a2']); NotNext B must be ['b1']
        _, (is_next, _, _) = _pair_run(fn, f"documents = {documents}, index = 0, rng = random.Random({seed})",
                                    [list(d) for d in documents], 0, seed)
        labels.add(is_next)
    if len(labels) < 2:
        only = "IsNext" if labels == {True} else "NotNext"
        raise ExerciseError(f"documents = {documents}, index = 0, rng = random.Random(0..19): all 20 pairs are "
                            f"{only}\n  hint: toss a fair coin with rng (rng.random() < 0.5) for each pair")

    documents = [["a1", "a2", "a3"], ["b1", "b2", "b3"], ["c1", "c2"]]
    for seed in range(20):
        _pair_run(fn, f"documents = {documents}, index = 1, rng = random.Random({seed})",
                  [list(d) for d in documents], 1, seed)
    case = f"documents = {documents}, index = 1, rng = random.Random(0..9), each seed called twice"
    first, second = ([call(fn, case, [list(d) for d in documents], 1, random.Random(seed)) for seed in range(10)]
                     for _ in range(2))
    if first != second:
        raise ExerciseError(f"{case}: the two calls gave different pairs\n  hint: draw every random number "
                            "from rng (rng.random(), rng.randrange(...)), not from the random module")
    _rng_moves(fn, documents)

    documents = [["a1", "a2"], ["b1", "b2"]]
    for seed in range(20_000):  # a retry loop that gives up (Google's ten tries) lands here once in 1,024
        _pair_run(fn, f"documents = {documents}, index = 0, rng = random.Random({seed})",
                  documents, 0, seed)

    corpora = random.Random(3)
    outcomes = []
    for c in range(80):
        documents, index = _corpus(corpora)
        for seed in range(50):
            _, result = _pair_run(fn, f"documents = {documents}, index = {index}, rng = random.Random({seed})",
                                  documents, index, 1000 * c + seed)
            outcomes.append(result[0])
    expect_rate(f"IsNext among {len(outcomes)} pairs from 80 random corpora", sum(outcomes), len(outcomes), 0.5,
                hint="IsNext and NotNext half of the time each: one fair coin per pair (rng.random() < 0.5; "
                     "rng.randint(0, 2) has three outcomes)")
    _coin_apart_from_a(fn)

    documents = [[f"d{d}s{i}" for i in range(6)] for d in range(5)]
    sources, starts = Counter(), Counter()
    for seed in range(400):
        _, (is_next, source, start) = _pair_run(
            fn, f"5 documents of 6 sentences, index = 2, rng = random.Random({seed})", documents, 2, seed)
        if not is_next:
            sources[source] += 1
            starts[start] += 1
    never = [d for d in (0, 1, 3, 4) if not sources[d]]
    if never:
        raise ExerciseError(f"5 documents of 6 sentences, index = 2, rng = random.Random(0..399): "
                            f"{sum(sources.values())} NotNext pairs took B from documents "
                            f"{dict(sorted(sources.items()))}, "
                            f"never from document {never[0]}\n  hint: every document but index must be "
                            "possible: draw among the len(documents) - 1 others")
    if len(starts) == 1:
        start = next(iter(starts))
        raise ExerciseError(f"5 documents of 6 sentences, index = 2, rng = random.Random(0..399): every one of the "
                            f"{sum(starts.values())} NotNext Bs starts at sentence {start} of its document\n  hint: "
                            "a NotNext B is taken from a random starting sentence of the other document, as "
                            "Google's random_start: text from anywhere in the corpus, not only its openings")
    documents = [["a1", "a2", "a3"], ["b1"], [f"c{i}" for i in range(1, 31)]]
    case = "documents of 3, 1 and 30 sentences, index = 0, rng = random.Random(0..799)"
    sources = Counter(_pair_run(fn, case, documents, 0, seed)[1][1] for seed in range(800))
    del sources[0]  # IsNext pairs
    expect_rate(f"{case}: NotNext pairs whose B is the one-sentence document", sources[1], sum(sources.values()), 0.5,
                hint="each other document with the same chance, whatever its length: draw the document first "
                     "(rng.randrange(len(documents) - 1), stepping over index), then a sentence in it; one "
                     "sentence drawn among all the others' sentences favours the long documents")
    documents = [["a1 ", "a2\n", "a3 "], ["b1\n", "b2 "]]  # as a sentence splitter leaves them
    for seed in range(20):
        _pair_run(fn, f"documents = {documents} (sentences with their spaces and newlines), index = 0, "
                      f"rng = random.Random({seed})", [list(d) for d in documents], 0, seed)
    _equal_documents(fn)
    calls = fn.calls - len(outcomes) - 400  # the hand-built corpora's: all but the random pairs'
    passed("nsp_pair", f"7 hand-built corpora ({calls:,} calls) and {len(outcomes) + 400:,} random pairs "
                       "keep the promises of minibert's create_instances_from_document (IsNext rate "
                       f"{sum(outcomes) / len(outcomes):.3f})")


def _rng_moves(fn, documents) -> None:
    """rng is the caller's: the next pair drawn with it must come from where this call left it."""
    rng = random.Random(0)
    case = f"documents = {documents}, index = 1, rng = random.Random(0)"
    call(fn, case, [list(d) for d in documents], 1, rng)
    if rng.getstate() == random.Random(0).getstate():
        raise ExerciseError(f"{case}: rng is where it was before the call, so every call with it gives the same "
                            "pair\n  hint: draw from rng itself (rng.random(), rng.randrange(...)), not from a copy "
                            "of it or a generator of your own: the caller's next pair starts where yours ended")


def _coin_apart_from_a(fn) -> None:
    """The coin is fair for every A, not only on average: a label that follows from A would give it away."""
    documents = [["a1", "a2", "a3"], ["b1", "b2"]]
    case = f"documents = {documents}, index = 0, rng = random.Random(0..1599)"
    by_a = {}
    for seed in range(1600):
        (a, _, _), (is_next, _, _) = _pair_run(fn, case, documents, 0, seed)
        by_a.setdefault(tuple(a), []).append(is_next)
    for a, labels in sorted(by_a.items()):
        if len(labels) >= 100:  # an A drawn this often shows its own IsNext rate; z = 6, as the early draws of
            # neighbouring seeds are not quite independent (a correct coin reaches 4 sd on seeds 0..1599)
            expect_rate(f"{case}: IsNext among the {len(labels)} pairs whose A is {list(a)}", sum(labels),
                        len(labels), 0.5, z=6.0,
                        hint="toss the coin with a draw of its own (rng.random() < 0.5), apart from the draws that "
                             "choose A: a label that follows from A's length gives the answer away")


def _equal_documents(fn) -> None:
    """Two documents with the same sentences are still two documents: the copy of A's document is an
    "other" document like any. (The promises are checked elsewhere; here sentences repeat, so only
    where B came from is counted.)"""
    documents = [["p1", "p2"], ["p1", "p2"], ["r1"]]
    case = f"documents = {documents} (the first two equal), index = 0, rng = random.Random(0..799)"
    from_the_copy = not_next = 0
    for seed in range(800):
        out = call(fn, case, [list(d) for d in documents], 0, random.Random(seed))
        if isinstance(out, tuple) and len(out) == 3 and not out[2] and isinstance(out[1], (list, tuple)):
            not_next += 1
            from_the_copy += list(out[1][:1]) != ["r1"]
    if not_next:
        expect_rate(f"{case}: NotNext pairs whose B comes from documents[1], the copy of documents[0]",
                    from_the_copy, not_next, 0.5,
                    hint="documents[1] is another document, although it holds the same sentences: tell documents "
                         "apart by position (any index but index), not by comparing them (d != documents[index], "
                         "documents.index(d))")
