"""Checkers for the exercises of chapter 04 (pre-training data and masking).

mask_tokens   the 15% selection and the 80/10/10 rule: invariants on small named rows, then the
              rates on a thousand seeded rows, each within a binomial interval (the selection may be
              a coin per token or exactly 15% per row, as minibert.masking.mask_tokens does).
word_groups   the positions of each word ("##" pieces joined to the token that starts their word):
              hand cases, then real sentences checked against minibert.masking.word_starts.
nsp_pair      one A/B pair for next-sentence prediction: hand cases on tiny documents, then the
              guarantees of minibert.pretraining_data.create_instances_from_document (IsNext: B
              continues A; NotNext: B comes from another document; a fair coin) over many seeds.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import torch

from .common import ExerciseError, call, expect_equal, expect_rate, passed

__all__ = ["mask_tokens", "word_groups", "nsp_pair"]

# ---- 4.1 masking ---------------------------------------------------------------------------------

PAD, CLS, SEP, MASK = 0, 101, 102, 103  # BERT's ids for the special tokens
V = 1000  # a small vocabulary, so that random replacements can be seen to spread over it
MLM, P_MASK, P_RANDOM, P_KEEP = 0.15, 0.8, 0.1, 0.1
IGNORE = -100


def _small_rows():
    """Two rows of ten: [CLS] A [SEP] B [SEP] [PAD] [PAD], and [CLS] eight tokens [SEP]."""
    ids = torch.tensor([[CLS, 500, 501, 502, SEP, 503, 504, SEP, PAD, PAD],
                        [CLS, 505, 506, 507, 508, 509, 510, 511, 512, SEP]])
    return ids, (ids == CLS) | (ids == SEP) | (ids == PAD)


def _many_rows(rows: int = 1000, T: int = 64):
    """Rows of [CLS] A [SEP] B [SEP] and padding, alternately 60 and 40 candidates (15% of either
    is a whole number, so an exact per-row rule and a coin per token have the same mean)."""
    g = torch.Generator().manual_seed(2018)
    ids = torch.full((rows, T), PAD)
    for r in range(rows):
        n = 60 if r % 2 == 0 else 40
        len_a = int(torch.randint(1, n, (), generator=g))
        words = torch.randint(MASK + 1, V, (n,), generator=g).tolist()
        ids[r, :n + 3] = torch.tensor([CLS, *words[:len_a], SEP, *words[len_a:], SEP])
    return ids, (ids == CLS) | (ids == SEP) | (ids == PAD)


def _mask_problem(case: str, ids, special, out) -> str | None:
    """The first broken invariant of one call, described; None when all hold."""
    if not (isinstance(out, tuple) and len(out) == 2):
        return f"{case}: expected a tuple (masked_ids, labels), received {type(out).__name__}"
    masked, labels = out
    for name, t in (("masked_ids", masked), ("labels", labels)):
        if not isinstance(t, torch.Tensor):
            return f"{case}: {name} must be a tensor, received {type(t).__name__}"
        if t.shape != ids.shape:
            return f"{case}: {name} has shape {tuple(t.shape)}, expected {tuple(ids.shape)} (the shape of input_ids)"
        if t.dtype != torch.long:
            return (f"{case}: {name} has dtype {t.dtype}, expected torch.long (token ids; cross_entropy "
                    "wants long labels)")
    if (labels != IGNORE).all() and special.any():
        return (f"{case}: every position has a label, the special tokens too; expected -100 at every "
                "position that was not selected\n  hint: the loss must count only the selected 15%: "
                "start from labels full of -100 and copy the original id at the selected positions")
    for b, t in (special & (labels != IGNORE)).nonzero().tolist():
        return (f"{case}: position ({b}, {t}) holds the special token {int(ids[b, t])} "
                f"(special_tokens_mask is True there) but was selected: its label is {int(labels[b, t])}, "
                "expected -100\n  hint: select only among the positions where special_tokens_mask is False")
    for b, t in ((labels != IGNORE) & (labels != ids)).nonzero().tolist():
        hint = ("your labels hold the corrupted ids: take them from the original input_ids (clone before "
                "you replace anything)" if int(labels[b, t]) == int(masked[b, t]) else
                "a label is the ORIGINAL id at a selected position, -100 elsewhere")
        return (f"{case}: at position ({b}, {t}) the original id is {int(ids[b, t])} and the label "
                f"{int(labels[b, t])}; expected {int(ids[b, t])} (or -100 if not selected)\n  hint: {hint}")
    for b, t in ((labels == IGNORE) & (masked != ids)).nonzero().tolist():
        return (f"{case}: position ({b}, {t}) was changed from {int(ids[b, t])} to {int(masked[b, t])} but has "
                "label -100\n  hint: only selected positions may change, and every selected position "
                "carries its original id as label")
    if ((masked < 0) | (masked >= V)).any():
        bad = int(masked[(masked < 0) | (masked >= V)][0])
        return (f"{case}: masked_ids contains {bad}, outside the vocabulary [0, {V})\n  hint: random ids "
                "are drawn with torch.randint(vocab_size, ...)")
    return None


def _masking_run(fn, case, ids, special, seed):
    original = ids.clone()
    out = call(fn, case, ids, special.clone(), MASK, V, torch.Generator().manual_seed(seed))
    if not torch.equal(ids, original):
        raise ExerciseError(f"{case}: your function changed input_ids in place\n  hint: work on a copy "
                            "(masked = input_ids.clone()); the labels need the original ids")
    problem = _mask_problem(case, original, special, out)
    if problem:
        raise ExerciseError(problem)
    return out


def _rate(name, count, total, p, too_low: str, too_high: str):
    expect_rate(name, count, total, p, hint=too_low if count < p * total else too_high)


def mask_tokens(fn) -> None:
    """`fn(input_ids, special_tokens_mask, mask_token_id, vocab_size, generator) -> (masked_ids, labels)`,
    all (B, T): 15% of the non-special positions selected, 80% of those [MASK], 10% random, 10% kept."""
    ids = torch.tensor([[CLS, PAD, SEP, PAD]])
    where = (f"input_ids = {ids.tolist()} (specials only), special_tokens_mask all True, "
             f"mask_token_id={MASK}, vocab_size={V}")
    masked, labels = _masking_run(fn, where, ids, torch.ones_like(ids, dtype=torch.bool), 0)
    expect_equal(f"{where}: masked_ids", masked, ids, hint="nothing can be selected, so nothing may change")
    expect_equal(f"{where}: labels", labels, torch.full_like(ids, IGNORE), hint="nothing is selected: all -100")

    ids, special = _small_rows()
    for seed in range(25):
        _masking_run(fn, f"input_ids = {ids.tolist()} ([CLS]={CLS}, [SEP]={SEP}, [PAD]={PAD}), "
                         f"mask_token_id={MASK}, vocab_size={V}, generator seed {seed}", ids, special, seed)

    ids, special = _many_rows()
    case = f"{ids.shape[0]} seeded rows of {ids.shape[1]} tokens (40 or 60 candidates each), vocab_size={V}"
    masked, labels = _masking_run(fn, f"{case}, generator seed 0", ids, special, 0)
    again = _masking_run(fn, f"{case}, generator seed 0", ids, special, 0)
    if not (torch.equal(masked, again[0]) and torch.equal(labels, again[1])):
        raise ExerciseError(f"{case}: two calls with generators seeded 0 gave different results\n  hint: draw "
                            "every random number from `generator` (torch.rand(..., generator=generator)), "
                            "never from the global random state")
    other = _masking_run(fn, f"{case}, generator seed 1", ids, special, 1)
    if torch.equal(labels, other[1]):
        raise ExerciseError(f"{case}: generators seeded 0 and 1 selected exactly the same positions\n  hint: "
                            "use the generator you are given, not one you create inside the function")

    candidates, selected = ~special, labels != IGNORE
    n_cand, n_sel = int(candidates.sum()), int(selected.sum())
    _rate(f"{case}: selected among the non-special positions", n_sel, n_cand, MLM,
          "select 15% of the candidates (each with probability 0.15, or round(15%) of each row)",
          "too many selected: did you take 15% of all T positions, padding and specials included, "
          "and then choose them among the candidates?")
    first = candidates.clone()
    first[:, ids.shape[1] // 4:] = False
    _rate(f"{case}: selected among the candidates of the first {ids.shape[1] // 4} columns",
          int((selected & first).sum()), int(first.sum()), MLM,
          "the selection must be uniform over the candidates of a row",
          "the selection must be uniform over the candidates of a row, not favour its first positions")
    shown_mask = selected & (masked == MASK)
    kept = selected & (masked == ids)
    changed = selected & ~shown_mask & ~kept
    _rate(f"{case}: [MASK] among the selected positions", int(shown_mask.sum()), n_sel, P_MASK,
          "too few [MASK]: if the random replacement is drawn separately, it overwrites some [MASK]s; "
          "decide each selected position's fate with ONE uniform draw u (u < 0.8: [MASK]; u < 0.9: random; "
          "else kept)",
          "too many [MASK]: only 80% of the selected positions become [MASK]; did the 10% random ones "
          "become [MASK] too?")
    _rate(f"{case}: random replacements among the selected positions", int(changed.sum()), n_sel,
          P_RANDOM * (1 - 1 / V),
          "10% of the selected positions get a random id; is the random branch missing, or overwritten?",
          "too many random replacements: only 10% of the selected positions; with two separate draws, "
          "the second must split the remaining 20% in half (0.5), not use the cumulative 0.9")
    _rate(f"{case}: kept (unchanged) among the selected positions", int(kept.sum()), n_sel, P_KEEP + P_RANDOM / V,
          "10% of the selected positions must keep their token (and still carry a label)",
          "too many kept: 10% only; 80% [MASK] and 10% random")

    random_ids = masked[changed]
    if len(random_ids) > 10 and len(set(random_ids.tolist())) < len(random_ids) // 4:
        top, count = Counter(random_ids.tolist()).most_common(1)[0]
        distinct = len(set(random_ids.tolist()))
        raise ExerciseError(f"{case}: {len(random_ids)} random replacements take only {distinct} distinct "
                            f"id{'s' if distinct > 1 else ''} ({top} appears {count} times)\n  hint: "
                            "draw one random id per position: torch.randint(vocab_size, input_ids.shape, "
                            "generator=generator), then keep it where the fate is 'random'")
    passed("mask_tokens", f"2 hand-built cases (26 calls) hold every invariant, and {n_sel:,} selections "
                          f"in {ids.shape[0]} random rows match minibert's rates (15%, 80/10/10)")


# ---- 4.2 word groups -----------------------------------------------------------------------------

SPECIALS = ("[CLS]", "[SEP]", "[PAD]")

WORD_CASES = [  # tokens, the groups worked out by hand, what the case is about
    (["[CLS]", "un", "##aff", "##able", "[SEP]"], [[1, 2, 3]],
     'a "##" piece continues the word before it; [CLS] and [SEP] belong to no word'),
    (["[CLS]", "the", "play", "##ing", "cat", "[SEP]", "[PAD]", "[PAD]"], [[1], [2, 3], [4]],
     'only "##" joins tokens; special tokens and padding belong to no word'),
    (["[CLS]", "hello", ",", "world", "!", "[SEP]"], [[1], [2], [3], [4]],
     'punctuation is a word of its own for BERT (its basic tokenizer splits it off before WordPiece); '
     'only "##" joins a token to the one before it, whatever the text looks like'),
    (["[CLS]", "it", "'", "s", "[SEP]", "##x", "b", "[SEP]"], [[1], [2], [3], [5], [6]],
     'a "##" piece right after a special token cannot join a word across it: it starts a group of its '
     "own (minibert's whole-word masking does the same)"),
    (["##ing", "is", "fun", "##ny"], [[0], [1], [2, 3]],
     'a "##" piece at the very start has no word to join: it starts a group of its own'),
    (["[CLS]", "[SEP]", "[PAD]"], [], "special tokens only: no word at all"),
]


def _real_token_lists(n: int = 40):
    """n real sentence pairs from the course corpus (valid.txt), tokenised by all-MiniLM-L6-v2's
    WordPiece, laid out as [CLS] A [SEP] B [SEP] with 0 to 3 [PAD]."""
    import minibert
    from minibert.corpus.common import iter_documents

    tok = minibert.Tokenizer.from_pretrained(minibert.minilm_path())
    path = Path(minibert.__file__).resolve().parents[1] / "data" / "corpus" / "valid.txt"
    documents = [d for d in iter_documents(path) if len(d) >= 2]
    rng = random.Random(4)
    cases = []
    for _ in range(n):
        document = rng.choice(documents)
        i = rng.randrange(len(document) - 1)
        tokens = ["[CLS]", *tok.tokenize(document[i]), "[SEP]", *tok.tokenize(document[i + 1]), "[SEP]"]
        cases.append(tokens + ["[PAD]"] * rng.randint(0, 3))
    return tok, cases


def _group_problem(case: str, tokens: list[str], groups, starts: list[bool]) -> str | None:
    """The first way `groups` disagrees with the word starts `starts` (minibert's), or None."""
    if not isinstance(groups, (list, tuple)) or not all(isinstance(g, (list, tuple)) for g in groups):
        return f"{case}: expected a list of lists of positions, received {groups!r}"
    flat = [p for g in groups for p in g]
    if not all(isinstance(p, int) and 0 <= p < len(tokens) for p in flat):
        return f"{case}: groups must hold positions 0..{len(tokens) - 1} (ints), received {groups!r}"
    words = [t for t in range(len(tokens)) if tokens[t] not in SPECIALS]
    for p in flat:
        if tokens[p] in SPECIALS:
            return (f"{case}: position {p} is {tokens[p]}, which belongs to no word, but your groups "
                    f"include it\n  hint: leave out {', '.join(SPECIALS)}")
    if sorted(flat) != words:
        missing = sorted(set(words) - set(flat))
        twice = sorted(p for p, c in Counter(flat).items() if c > 1)
        what = f"position {missing[0]} ({tokens[missing[0]]!r}) is in no group" if missing else \
            f"position {twice[0]} ({tokens[twice[0]]!r}) is in more than one group"
        return f"{case}: every non-special position must be in exactly one group; {what}"
    if flat != words:
        return f"{case}: list the groups and the positions inside them in order of position, received {groups!r}"
    for g in groups:
        if not g:
            return f"{case}: an empty group in {groups!r}"
        if list(g) != list(range(g[0], g[0] + len(g))):
            return f"{case}: group {list(g)} is not a run of consecutive positions"
        for p in g[1:]:
            if starts[p]:
                return (f"{case}: position {p} ({tokens[p]!r}) starts a word (no \"##\") but your groups put it in "
                        f"the word of position {g[0]} ({tokens[g[0]]!r})\n  hint: only a \"##\" piece joins "
                        "the word before it")
        p = g[0]
        if not starts[p] and p > 0 and tokens[p - 1] not in SPECIALS:
            return (f"{case}: position {p} ({tokens[p]!r}) is a \"##\" piece of the word before it "
                    f"(position {p - 1}, {tokens[p - 1]!r}) but your groups start a new word with it")
    return None


def word_groups(fn) -> None:
    """`fn(tokens: list[str]) -> list[list[int]]`: the positions of each word, "##" pieces with the token
    that starts their word; [CLS], [SEP] and [PAD] in no group."""
    for tokens, expected, why in WORD_CASES:
        got = call(fn, f"tokens = {tokens}", list(tokens))
        if isinstance(got, (list, tuple)) and all(isinstance(g, (list, tuple)) for g in got):
            got = [list(g) for g in got]  # tuples are fine too
        expect_equal(f"tokens = {tokens}", got, expected, hint=why)

    from minibert.masking import word_starts

    tok, cases = _real_token_lists()
    for tokens in cases:
        ids = torch.tensor([tok.convert_tokens_to_ids(tokens)])
        starts = word_starts(ids, tok.ids_to_tokens)[0].tolist()
        shown = " ".join(tokens)
        case = f"tokens = {shown if len(shown) < 300 else shown[:300] + ' ...'}"
        problem = _group_problem(case, tokens, call(fn, case, list(tokens)), starts)
        if problem:
            raise ExerciseError(problem)
    passed("word_groups", f"{len(WORD_CASES)} hand-computed cases and {len(cases)} real sentence pairs "
                          "(MiniLM's WordPiece) agree with minibert.masking.word_starts")


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
    """(the first broken promise, None) or (None, (is_next, the document B came from))."""
    if not (isinstance(out, tuple) and len(out) == 3):
        return f"{case}: expected a tuple (a_sentences, b_sentences, is_next), received {out!r}", None
    a, b, is_next = out
    if not isinstance(is_next, bool) and is_next not in (0, 1):
        return f"{case}: is_next must be True or False, received {is_next!r}", None
    is_next = bool(is_next)
    where_is = _locate(documents)
    for name, part in (("A", a), ("B", b)):
        if not isinstance(part, (list, tuple)) or not part or not all(isinstance(x, str) for x in part):
            return f"{case}: {name} must be a non-empty list of sentences (strings), received {part!r}", None
        strange = [s for s in part if s not in where_is]
        if strange:
            return f"{case}: {name} holds {strange[0]!r}, which is no sentence of the documents", None
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
    return None, (is_next, run_b[0])


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


def nsp_pair(fn) -> None:
    """`fn(documents, index, rng) -> (a_sentences, b_sentences, is_next)`: A from documents[index];
    half the time B its continuation (is_next True), else a span of another document."""
    documents = [["a1", "a2"], ["b1"]]
    labels = set()
    for seed in range(20):  # by hand: IsNext must be (['a1'], ['a2']); NotNext B must be ['b1']
        _, (is_next, _) = _pair_run(fn, f"documents = {documents}, index = 0, rng = random.Random({seed})",
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

    corpora = random.Random(3)
    outcomes = []
    for c in range(40):
        documents, index = _corpus(corpora)
        for seed in range(50):
            _, result = _pair_run(fn, f"documents = {documents}, index = {index}, rng = random.Random({seed})",
                                  documents, index, 1000 * c + seed)
            outcomes.append(result[0])
    expect_rate(f"IsNext among {len(outcomes)} pairs from 40 random corpora", sum(outcomes), len(outcomes), 0.5,
                hint="IsNext and NotNext half of the time each: one fair coin per pair")

    documents = [[f"d{d}s{i}" for i in range(6)] for d in range(5)]
    sources = Counter()
    for seed in range(400):
        _, (is_next, source) = _pair_run(fn, f"5 documents of 6 sentences, index = 2, rng = random.Random({seed})",
                                         documents, 2, seed)
        if not is_next:
            sources[source] += 1
    never = [d for d in (0, 1, 3, 4) if not sources[d]]
    if never:
        raise ExerciseError(f"5 documents of 6 sentences, index = 2, rng = random.Random(0..399): "
                            f"{sum(sources.values())} NotNext pairs took B from documents "
                            f"{dict(sorted(sources.items()))}, "
                            f"never from document {never[0]}\n  hint: every document but index must be "
                            "possible: draw among the len(documents) - 1 others")
    passed("nsp_pair", f"2 hand-built corpora (40 calls) and {len(outcomes) + 400:,} random pairs keep the "
                       "promises of minibert's create_instances_from_document (IsNext rate "
                       f"{sum(outcomes) / len(outcomes):.3f})")
