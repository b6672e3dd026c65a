"""The checkers of chapter 04's exercises: the solutions pass, the stubs raise NotImplementedError, and
mistakes learners really make are rejected with a message that names them, while correct code in other
styles (numpy, plain lists, torch.multinomial, minibert's own functions) is accepted."""

import functools
import random
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from helpers import checker_contract

from minibert import check
from minibert.check import ExerciseError
from minibert.check.masking import whole_words as masking_check
from minibert.masking import mask_tokens
from minibert.pretraining_data import IS_NEXT, create_instances_from_document

EXERCISES = [("mask_tokens", "my_mask_tokens"), ("word_groups", "my_word_groups"), ("nsp_pair", "my_nsp_pair"),
             ("whole_word_selection", "my_whole_word_selection"), ("masked_lm_metrics", "my_masked_lm_metrics")]
SOLUTIONS, STUBS, test_the_solution_passes, test_the_stub_raises_not_implemented = checker_contract(
    "04_masking", EXERCISES)


# ---- 4.1: masking ------------------------------------------------------------------------------------

def masker(ids, special, mask_id, V, special_ids, cap, g, *, count="round", select="rank", fate="one",
           pool="nonspecial", labels_from="ids", inplace=False, generator="given"):
    """A learner's masking with one switch per possible mistake; the defaults are right."""
    if generator == "global":
        g = None
    elif generator == "own":
        g = torch.Generator().manual_seed(0)
    elif generator == "copy":
        copy = torch.Generator()
        copy.set_state(g.get_state())
        g = copy
    cand = ~special if select != "all" else torch.ones_like(special)
    n = cand.sum(1)
    T = ids.shape[1]
    limit = T if cap is None else cap
    if count == "round":
        k = [min(max(1, round(0.15 * int(c))), limit) if c else 0 for c in n]
    elif count == "floor":
        k = [min(max(1, int(0.15 * int(c))), limit) if c else 0 for c in n]
    elif count == "half_up":  # int(x + 0.5): 4.5 -> 5, where round() gives 4
        k = [min(max(1, int(0.15 * int(c) + 0.5)), limit) if c else 0 for c in n]
    elif count == "no_min":
        k = [min(round(0.15 * int(c)), limit) for c in n]
    elif count == "no_cap":
        k = [max(1, round(0.15 * int(c))) if c else 0 for c in n]
    elif count == "padded":
        k = [min(max(1, round(0.15 * T)), limit)] * len(n)
    elif count == "with_cls_sep":
        k = [min(max(1, round(0.15 * int(c + s))), limit) for c, s in zip(n, (special & (ids != 0)).sum(1))]
    elif count == "row0":
        k = [min(max(1, round(0.15 * int(n[0]))), limit)] * len(n)
    elif count == "cap_or":  # `or` takes a cap of 0 for no cap
        k = [min(max(1, round(0.15 * int(c))), cap or T) if c else 0 for c in n]
    key = torch.rand(ids.shape, generator=g)
    if select == "coin":
        selected = (key < 0.15) & cand
    else:
        if select == "first":
            key = torch.arange(T, dtype=torch.float).expand(ids.shape).clone()
        rank = key.masked_fill(~cand, 2.0 * T).argsort(1)
        if select != "argsort_once":  # argsort gives the order; a second argsort gives each position's rank
            rank = rank.argsort(1)
        selected = (rank < torch.tensor(k)[:, None]) & cand
    u = key if fate == "reuse" else torch.rand(ids.shape, generator=g)
    if fate == "two_overlapping":
        to_mask = selected & (u < 0.8)
        to_random = selected & (torch.rand(ids.shape, generator=g) < 0.1)
    elif fate == "cumulative":
        to_mask = selected & (u < 0.8)
        to_random = selected & ~to_mask & (torch.rand(ids.shape, generator=g) < 0.9)
    elif fate == "random_as_mask":
        to_mask, to_random = selected & (u < 0.9), selected & (u > 2)
    else:
        to_mask, to_random = selected & (u < 0.8), selected & (u >= 0.8) & (u < 0.9)
    if pool == "whole":
        random_ids = torch.randint(V, ids.shape, generator=g)
    elif pool == "short":
        random_ids = torch.randint(5, V - 1, ids.shape, generator=g)
    elif pool == "one":
        random_ids = torch.randint(5, V, (1,), generator=g).expand(ids.shape)
    elif pool == "after_first":  # as if the special ids were the first len(special_ids) ids of the vocabulary
        random_ids = torch.randint(len(special_ids), V, ids.shape, generator=g)
    elif pool == "above_max":  # as if every id below the largest special id were special
        random_ids = torch.randint(max(special_ids) + 1, V, ids.shape, generator=g)
    else:
        allowed = torch.ones(V, dtype=torch.bool)
        allowed[special_ids] = False
        ok = allowed.nonzero().squeeze(1)
        random_ids = ok[torch.randint(len(ok), ids.shape, generator=g)]
    masked = ids if inplace else ids.clone()
    masked[to_mask] = mask_id
    masked[to_random] = random_ids[to_random]
    if labels_from == "everywhere":
        return masked, ids.clone()
    source = masked if labels_from == "masked" else ids
    labels = torch.where(selected, source, torch.full_like(ids, -100))
    return masked, labels


def bug(**flags):
    fn = functools.partial(masker, **flags)
    fn.__name__ = "_".join(f"{k}={v}" for k, v in flags.items())
    return fn


def masks_special_mask_in_place(ids, special, *args):
    candidates = special.logical_not_()  # the trailing underscore: flips the caller's mask in place
    return masker(ids, ~candidates, *args)


def float_labels(*args):
    masked, labels = masker(*args)
    return masked, labels.float()


def test_minibert_mask_tokens_passes(capsys):
    check.mask_tokens(lambda ids, special, mask_id, V, special_ids, cap, g: mask_tokens(
        ids, special_tokens_mask=special, mask_token_id=mask_id, vocab_size=V, special_token_ids=special_ids,
        max_predictions=cap, generator=g))
    assert "✓" in capsys.readouterr().out


def numpy_style(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids, max_predictions,
                generator):
    """Random numbers from the generator, everything else in numpy; numpy arrays returned."""
    ids, special = input_ids.numpy(), special_tokens_mask.numpy()
    key = torch.rand(ids.shape, generator=generator, dtype=torch.float64).numpy()
    fate = torch.rand(ids.shape, generator=generator).numpy()
    pick = torch.randint(2**31 - 1, ids.shape, generator=generator).numpy()
    pool = np.setdiff1d(np.arange(vocab_size), special_token_ids)
    masked, labels = ids.copy(), np.full_like(ids, -100)
    for b in range(ids.shape[0]):
        cand = np.flatnonzero(~special[b])
        cap = len(cand) if max_predictions is None else max_predictions
        k = min(max(1, int(np.round(0.15 * len(cand)))), cap) if len(cand) else 0
        chosen = cand[np.argsort(key[b, cand])[:k]]
        labels[b, chosen] = ids[b, chosen]
        for t in chosen:
            if fate[b, t] < 0.8:
                masked[b, t] = mask_token_id
            elif fate[b, t] < 0.9:
                masked[b, t] = pool[pick[b, t] % len(pool)]
    return masked.astype(np.int32), labels


def loop_style(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids, max_predictions,
               generator):
    """Plain Python lists, torch.randperm per row, Google's two draws for the fate."""
    masked, labels = input_ids.tolist(), [[-100] * input_ids.shape[1] for _ in range(input_ids.shape[0])]
    pool = [i for i in range(vocab_size) if i not in special_token_ids]
    for b, row in enumerate(input_ids.tolist()):
        cand = [t for t in range(len(row)) if not special_tokens_mask[b, t]]
        cap = len(cand) if max_predictions is None else max_predictions
        k = min(max(1, round(len(cand) * 0.15)), cap) if cand else 0
        for j in torch.randperm(len(cand), generator=generator)[:k].tolist():
            t = cand[j]
            labels[b][t] = row[t]
            if torch.rand((), generator=generator) < 0.8:
                masked[b][t] = mask_token_id
            elif torch.rand((), generator=generator) < 0.5:
                pass  # kept
            else:
                masked[b][t] = pool[int(torch.randint(len(pool), (), generator=generator))]
    return torch.tensor(masked), torch.tensor(labels)


def multinomial_style(input_ids, special_tokens_mask, mask_token_id, vocab_size, special_token_ids,
                      max_predictions, generator):
    """torch.multinomial without replacement over each row's candidates, a categorical fate."""
    masked, labels = input_ids.clone(), torch.full_like(input_ids, -100)
    weights = torch.ones(vocab_size)
    weights[special_token_ids] = 0
    for b in range(input_ids.shape[0]):
        cand = (~special_tokens_mask[b]).float()
        n = int(cand.sum())
        k = min(max(1, round(0.15 * n)), max_predictions if max_predictions is not None else n) if n else 0
        if not k:  # torch.multinomial refuses to draw 0 samples
            continue
        chosen = torch.multinomial(cand, k, replacement=False, generator=generator)
        labels[b, chosen] = input_ids[b, chosen]
        fate = torch.multinomial(torch.tensor([0.8, 0.1, 0.1]), k, replacement=True, generator=generator)
        masked[b, chosen[fate == 0]] = mask_token_id
        random_pos = chosen[fate == 1]
        masked[b, random_pos] = torch.multinomial(weights, len(random_pos), replacement=True, generator=generator) \
            if len(random_pos) else masked[b, random_pos]
    return masked, labels


@pytest.mark.parametrize("style", [numpy_style, loop_style, multinomial_style], ids=lambda f: f.__name__)
def test_mask_tokens_accepts_other_styles(style, capsys):
    check.mask_tokens(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (bug(select="all"), r"special_tokens_mask is True there\) but was selected"),
    (bug(fate="two_overlapping"), r"\[MASK\] among the selected positions.*\n.*too few \[MASK\].*ONE uniform draw"),
    (bug(fate="cumulative"), r"random replacements among the selected.*\n.*cumulative 0.9"),
    (bug(labels_from="everywhere"), r"every position has a label"),
    (bug(count="padded"), r"must get exactly \d+ selected .*\n.*15% of the padded length"),
    (bug(fate="random_as_mask"), r"too many \[MASK\]"),
    (bug(pool="one"), r"never took the id"),
    (bug(generator="global"), r"generators seeded 0 gave different results"),
    (bug(inplace=True), r"changed input_ids in place"),
    (bug(labels_from="masked"), r"your labels hold the corrupted ids"),
    (bug(count="floor"), r"row 0 has 17 candidates, so it must get exactly 3 selected.*received 2\n.*rounded down"),
    (bug(count="half_up"), r"row 1 has 30 candidates, so it must get exactly 4 selected \(max_predictions=None\); "
                           r"received 5\n.*you rounded a half up.*round\(4.5\) = 4"),
    (bug(count="no_min"), r"row 0 has 3 candidates, so it must get exactly 1 selected.*received 0\n.*still gets one prediction"),
    (bug(count="cap_or"), r"row 0 has 17 candidates, so it must get exactly 0 selected \(max_predictions=0\); received 3"),
    (bug(count="no_cap"), r"row 0 has 200 candidates, so it must get exactly 20 .*received 30\n.*max_predictions=20"),
    (bug(select="coin"), r"row \d has \d+ candidates and got \[.*\] selected positions depending on the seed.*\n.*EXACTLY k"),
    (bug(count="with_cls_sep"), r"counted \[CLS\], \[SEP\] or \[PAD\]"),
    (bug(count="row0"), r"row 1 has 40 candidates, so it must get exactly 6 selected .*received 20"),
    (bug(pool="whole"), r"a random replacement is the special id \d .*\n.*not special"),
    (bug(pool="short"), r"never took the id 49"),
    (bug(fate="reuse"), r"too many \[MASK\].*reuse the draw that selected"),
    (bug(select="first"), r"seeded 0 and 1 selected exactly the same positions\n.*select at random"),
    (bug(select="argsort_once"), r"so it must get exactly \d+ selected"),
    (bug(generator="copy"), r"same generator object gave the same masks"),
    (bug(generator="own"), r"generators seeded 0 and 1 selected exactly the same positions"),
    (masks_special_mask_in_place, r"changed special_tokens_mask in place"),
    (float_labels, r"labels has dtype torch.float32, expected integers"),
    (bug(pool="after_first"), r"\[MASK\] 103\).*a random replacement is the special id 10\d .*\n.*not special"),
    (bug(pool="above_max"), r"\[MASK\] 103\).*random replacements among the ids 1-99: 0 of .*\n.*not the first ids"),
], ids=lambda x: getattr(x, "__name__", ""))
def test_mask_tokens_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.mask_tokens(bug)


def test_a_rate_failure_names_the_case_and_the_numbers():
    with pytest.raises(ExerciseError) as info:
        check.mask_tokens(bug(fate="random_as_mask"))
    first_line = str(info.value).splitlines()[0]
    assert first_line.startswith("1080 seeded rows of 64 tokens") and "expected about 0.8000" in first_line


# ---- 4.2: word groups --------------------------------------------------------------------------------

SPECIAL = ("[CLS]", "[SEP]", "[PAD]")


def no_piece_check(tokens):
    return [[t] for t, token in enumerate(tokens) if token not in SPECIAL]


def joins_across_specials(tokens):
    groups = []
    for t, token in enumerate(tokens):
        if token in SPECIAL:
            continue
        if token.startswith("##") and groups:
            groups[-1].append(t)  # joins the last word even when a [SEP] lies between
        else:
            groups.append([t])
    return groups


def words_from_text(tokens):
    """Split the decoded text on spaces (punctuation glued to its word, as decode writes it), then give
    each word the tokens that spell it."""
    text = " ".join(t for t in tokens if t not in SPECIAL).replace(" ##", "")
    for mark in ".,!?;:'":
        text = text.replace(" " + mark, mark)
    positions = [t for t, token in enumerate(tokens) if token not in SPECIAL]
    groups, k = [], 0
    for word in text.split():
        group, spelled = [], ""
        while spelled != word:
            spelled += tokens[positions[k]].removeprefix("##")
            group.append(positions[k])
            k += 1
        groups.append(group)
    return groups


def specials_as_words(tokens):
    groups = []
    for t, token in enumerate(tokens):
        if token.startswith("##") and groups and groups[-1][-1] == t - 1 and tokens[t - 1] not in SPECIAL:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


def crashes_on_a_leading_piece(tokens):
    groups = []
    for t, token in enumerate(tokens):
        if token in SPECIAL:
            continue
        if token.startswith("##") and (not groups or groups[-1][-1] == t - 1):
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


def hash_is_a_piece(tokens):
    groups = []
    for t, token in enumerate(tokens):
        if token in SPECIAL:
            continue
        if token.startswith("#") and groups and groups[-1][-1] == t - 1:  # one "#" is not enough
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


def _groups_skipping(tokens, is_special, is_piece=lambda token: token.startswith("##")):
    """Word groups as the solution makes them, with the learner's own tests of what is special and what continues
    a word."""
    groups = []
    for t, token in enumerate(tokens):
        if is_special(token):
            continue
        if is_piece(token) and groups and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


def every_bracket_is_special(tokens):
    return _groups_skipping(tokens, lambda token: token.startswith("["))  # [UNK] is a word, not a special token


def pops_the_specials(tokens):
    while tokens and tokens[-1] in SPECIAL:
        tokens.pop()  # trims the caller's list
    return SOLUTIONS["my_word_groups"](tokens)


def one_based(tokens):
    return [[t + 1 for t in g] for g in SOLUTIONS["my_word_groups"](tokens)]


def pads_are_words(tokens):
    groups = []
    for t, token in enumerate(tokens):
        if token in ("[CLS]", "[SEP]"):  # forgot [PAD]
            continue
        if token.startswith("##") and groups and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


def mask_is_special(tokens):
    groups = []
    for t, token in enumerate(tokens):
        if token in ("[CLS]", "[SEP]", "[PAD]", "[MASK]"):  # [MASK] taken for a special token too
            continue
        if token.startswith("##") and groups and groups[-1][-1] == t - 1:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


def specials_by_substring(tokens):
    return _groups_skipping(tokens, lambda token: token in "[CLS][SEP][PAD]")  # "[" and "]" are in that string too


def orphan_piece_alone(tokens):
    groups, current = [], None
    for t, token in enumerate(tokens):
        if token in SPECIAL:
            current = None
        elif token.startswith("##") and current is not None:
            current.append(t)
        elif token.startswith("##"):
            groups.append([t])  # its own group, but not made the current word: the next piece starts another
        else:
            current = [t]
            groups.append(current)
    return groups


def numpy_groups(tokens):
    """Word ids with numpy: a cumulative sum of word starts; groups as tuples of numpy integers."""
    special = np.array([t in SPECIAL for t in tokens])
    piece = np.array([t.startswith("##") for t in tokens])
    after_word = np.concatenate([[False], ~special[:-1]])
    starts = ~special & ~(piece & after_word)
    word = np.cumsum(starts)
    return [tuple(np.flatnonzero((word == w) & ~special)) for w in range(1, int(word.max(initial=0)) + 1)]


def test_word_groups_accepts_numpy_and_tuples(capsys):
    check.word_groups(numpy_groups)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (hash_is_a_piece, r"'#'.*\n.*\n  received \[\[1, 2\], \[3, 4\]\]\n.*\"#\" alone is punctuation"),
    (every_bracket_is_special, r"\[UNK\].*\n.*\n  received \[\[1\], \[3\], \[5\]\]\n.*\[UNK\] stands for a whole word"),
    (pops_the_specials, r"changed the list it was given"),
    (one_based, r"received \[\[2, 3, 4\]\]"),
    (mask_is_special, r"'\[MASK\]'.*\n.*\n  received \[\[1\], \[3\]\]\n.*\[MASK\] is an ordinary token here"),
    (pads_are_words, r"received \[\[1\], \[2, 3\], \[4\], \[6\], \[7\]\]\n.*padding belong to no word"),
    (no_piece_check,
     r"'##aff'.*\n  expected \[\[1, 2, 3\]\]\n  received \[\[1\], \[2\], \[3\]\]\n.*continues the word"),
    (joins_across_specials, r"received \[\[1\], \[2\], \[3, 5, 6\], \[7\]\].*\n.*right after a special token"),
    (specials_by_substring, r"'\['.*\n.*\n  received \[\[1\], \[3\]\]\n.*\"\[\" and \"\]\" are punctuation"),
    (orphan_piece_alone, r"received \[\[1\], \[2\], \[3\], \[5\], \[6\], \[7\]\]\n.*the \"##\" piece after it "
                         r"joins that group"),
    (words_from_text, r"'hello'.*\n.*\n  received \[\[1, 2\], \[3, 4\]\]\n.*punctuation is a word of its own"),
    (specials_as_words, r"received \[\[0\], \[1, 2, 3\], \[4\]\]\n.*belong to no word"),
    (crashes_on_a_leading_piece, r"\['##ing', 'is', 'fun', '##ny'\]: your function raised IndexError"),
], ids=lambda x: getattr(x, "__name__", ""))
def test_word_groups_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.word_groups(bug)


def test_real_sentences_are_checked_against_word_starts():
    """Past the hand cases, a wrong grouping of a real sentence is named by position and token."""
    tokens = ["[CLS]", "the", "una", "##ffa", "##ble", "man", "[SEP]"]
    starts = [True, True, True, False, False, True, True]  # minibert.masking.word_starts of these tokens
    problem = masking_check._group_problem
    assert problem("case", tokens, [[1], [2, 3, 4], [5]], starts) is None
    assert "position 5 ('man') starts a word" in problem("case", tokens, [[1], [2, 3, 4, 5]], starts)
    assert "position 4 ('##ble') is a \"##\" piece" in problem("case", tokens, [[1], [2, 3], [4], [5]], starts)
    assert "position 5 ('man') is in no group" in problem("case", tokens, [[1], [2, 3, 4]], starts)
    assert "is [CLS], which belongs to no word" in problem("case", tokens, [[0], [1], [2, 3, 4], [5]], starts)


# ---- 4.3: NSP pairs ----------------------------------------------------------------------------------

def minibert_pair(documents, index, rng):
    """minibert's own builder, one sentence = one token and no length limit: its first instance."""
    names = [s for d in documents for s in d]
    ids = {s: i for i, s in enumerate(names)}
    instance = create_instances_from_document([[[ids[s]] for s in d] for d in documents], index,
                                              max_seq_length=10_000, cls_id=-1, sep_id=-2, rng=rng,
                                              short_seq_prob=0.0)[0]
    len_a = instance.token_type_ids.count(0)
    a, b = instance.input_ids[1:len_a - 1], instance.input_ids[len_a:-1]
    return [names[i] for i in a], [names[i] for i in b], instance.next_sentence_label == IS_NEXT


def test_minibert_builder_passes(capsys):
    check.nsp_pair(minibert_pair)
    assert "✓" in capsys.readouterr().out


def _split(document, rng):
    a_end = rng.randint(1, len(document) - 1)
    return document[:a_end], len(document) - a_end


def negatives_from_the_same_document(documents, index, rng):
    a, n = _split(documents[index], rng)
    if rng.random() < 0.5:
        return a, documents[index][len(a):], True
    start = rng.randrange(len(documents[index]))
    return a, documents[index][start:start + n], False


def is_next_from_anywhere_in_the_document(documents, index, rng):
    a, _ = _split(documents[index], rng)
    if rng.random() < 0.5:
        return a, [rng.choice(documents[index])], True  # a random sentence, not the next one
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    return a, documents[other][:1], False


def always_is_next(documents, index, rng):
    a, _ = _split(documents[index], rng)
    return a, documents[index][len(a):], True


def negative_document_may_be_index(documents, index, rng):
    a, n = _split(documents[index], rng)
    if rng.random() < 0.5:
        return a, documents[index][len(a):], True
    other = rng.randrange(len(documents))  # index itself included
    start = rng.randrange(len(documents[other]))
    return a, documents[other][start:start + n], False


def last_document_never_drawn(documents, index, rng):
    a, n = _split(documents[index], rng)
    if rng.random() < 0.5:
        return a, documents[index][len(a):], True
    other = rng.randrange(len(documents) - 1)
    other += other == index  # skips index, but then the last document can only come after index = n - 2
    start = rng.randrange(len(documents[other]))
    return a, documents[other][start:start + n], False


def coin_as_an_int(documents, index, rng):  # the right sense, but 1/0 from rng.randint(0, 1), not a bool
    a, b, is_next = SOLUTIONS["my_nsp_pair"](documents, index, rng)
    return a, b, int(is_next)


def label_reversed(documents, index, rng):
    a, b, is_next = SOLUTIONS["my_nsp_pair"](documents, index, rng)
    return a, b, int(not is_next)  # minibert's next_sentence_label: 0 for IsNext


def module_random(documents, index, rng):
    return SOLUTIONS["my_nsp_pair"](documents, index, random.Random(random.random()))  # rng ignored


def google_ten_tries(documents, index, rng):
    """Google's create_instances_from_document: ten draws to avoid the same document, then it gives up."""
    a, n = _split(documents[index], rng)
    if rng.random() < 0.5:
        return a, documents[index][len(a):], True
    for _ in range(10):
        other = rng.randint(0, len(documents) - 1)
        if other != index:
            break
    start = rng.randint(0, len(documents[other]) - 1)
    return a, documents[other][start:start + n], False


def one_coin_in_three(documents, index, rng):
    a, n = _split(documents[index], rng)
    if rng.randint(0, 2) == 0:  # randint includes both ends: three outcomes
        return a, documents[index][len(a):], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    return a, documents[other][:n], False


def a_may_take_everything(documents, index, rng):
    a_end = rng.randint(1, len(documents[index]))  # may leave nothing for B
    a = documents[index][:a_end]
    if rng.random() < 0.5:
        return a, documents[index][a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    return a, documents[other][:1], False


def b_overlaps_a(documents, index, rng):
    a, _ = _split(documents[index], rng)
    if rng.random() < 0.5:
        return a, documents[index][len(a) - 1:], True  # starts with A's last sentence
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    return a, documents[other][:1], False


def deletes_its_document(documents, index, rng):
    a, n = _split(documents[index], rng)
    if rng.random() < 0.5:
        return a, documents[index][len(a):], True
    del documents[index]  # "the others": but this is the caller's list
    return a, rng.choice(documents)[:n], False


def negative_from_the_opening(documents, index, rng):
    a, n = _split(documents[index], rng)
    if rng.random() < 0.5:
        return a, documents[index][len(a):], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    return a, documents[other][:n], False  # always its first sentences: the corpus's openings only


def negative_weighted_by_length(documents, index, rng):  # B's start drawn among every other sentence
    a, n = _split(documents[index], rng)
    if rng.random() < 0.5:
        return a, documents[index][len(a):], True
    starts = [(d, i) for d, document in enumerate(documents) if d != index for i in range(len(document))]
    d, i = rng.choice(starts)
    return a, documents[d][i:i + n], False


def negative_among_unequal_documents(documents, index, rng):  # "the others" by content: a copy is never drawn
    a, n = _split(documents[index], rng)
    if rng.random() < 0.5:
        return a, documents[index][len(a):], True
    other = rng.choice([d for d in documents if d != documents[index]])
    start = rng.randrange(len(other))
    return a, other[start:start + n], False


def coin_shared_with_a_end(documents, index, rng):  # fair on average, but short As are IsNext, long ones NotNext
    document = documents[index]
    u = rng.random()  # one draw for both
    a_end = 1 + int(u * (len(document) - 1))
    if u < 0.5:
        return document[:a_end], document[a_end:], True
    other = rng.randrange(len(documents) - 1)
    other += other >= index
    return document[:a_end], documents[other][:1], False


def draws_from_a_copy_of_rng(documents, index, rng):  # the caller's rng never moves
    own = random.Random()
    own.setstate(rng.getstate())
    return SOLUTIONS["my_nsp_pair"](documents, index, own)


def b_joined_into_text(documents, index, rng):
    a, b, is_next = SOLUTIONS["my_nsp_pair"](documents, index, rng)
    return a, " ".join(b), is_next


def retry_until_other(documents, index, rng):
    """Correct in another style: draw any document until it is not index; B of one to three sentences."""
    a_end = rng.randint(1, len(documents[index]) - 1)
    if rng.random() >= 0.5:
        return documents[index][:a_end], documents[index][a_end:a_end + rng.randint(1, 3)], True
    other = index
    while other == index:
        other = rng.randrange(len(documents))
    start = rng.randrange(len(documents[other]))
    return tuple(documents[index][:a_end]), tuple(documents[other][start:start + 2]), np.bool_(False)


def test_nsp_pair_accepts_other_styles(capsys):
    check.nsp_pair(retry_until_other)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (google_ten_tries, r"is_next is False but B = .* comes from documents\[0\], the document of A|"
                       r"is_next is False but B = .* is the continuation"),
    (one_coin_in_three, r"IsNext among 4000 pairs.*\n.*three outcomes"),
    (a_may_take_everything, r"B must be a non-empty list of sentences"),
    (b_overlaps_a, r"an IsNext B starts with the sentence right after A"),
    (deletes_its_document, r"changed the documents"),
    (b_joined_into_text, r"B must be a non-empty list of sentences \(strings\)"),
    (negatives_from_the_same_document, r"is_next is False but B = .* documents\[0\].*\n.*DIFFERENT document"),
    (is_next_from_anywhere_in_the_document, r"an IsNext B starts with the sentence right after A"),
    (always_is_next, r"all 20 pairs are IsNext\n.*fair coin"),
    (negative_document_may_be_index, r"is_next is False but B = .*documents\[0\].*\n.*DIFFERENT document"),
    (last_document_never_drawn, r"never from document 4\n.*every document but index"),
    (label_reversed, r"wrong way round|is_next is True when B follows A"),
    (coin_as_an_int, r"is_next must be True or False, received [01]\n.*return a bool"),
    (negative_from_the_opening, r"every one of the \d+ NotNext Bs starts at sentence 0.*\n.*random starting sentence"),
    (negative_weighted_by_length, r"3, 1 and 30 sentences.*one-sentence document.*\n.*favours the long documents"),
    (negative_among_unequal_documents, r"\(the first two equal\).*the copy of documents\[0\]: 0 of.*\n.*by position"),
    (coin_shared_with_a_end, r"IsNext among the \d+ pairs whose A is \['a1'\]: (\d+) of \1 .*\n.*a draw of its own"),
    (draws_from_a_copy_of_rng, r"rng is where it was before the call.*\n.*not from a copy of it"),
], ids=lambda x: getattr(x, "__name__", ""))
def test_nsp_pair_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.nsp_pair(bug)


def test_nsp_pair_wants_the_rng_used():
    random.seed(0)  # so that the bug's two calls differ the same way on every run
    with pytest.raises(ExerciseError, match="the two calls gave different pairs"):
        check.nsp_pair(module_random)


# ---- 4.4: whole-word selection -----------------------------------------------------------------------

def select_words(groups, k, rng, *, on_overflow="skip", order="shuffle", in_place=False, unit="pieces"):
    """A learner's whole-word selection with one switch per possible mistake; the defaults are right."""
    words = groups if in_place else list(groups)
    if order == "shuffle":
        rng.shuffle(words)
    elif order == "global":
        random.shuffle(words)
    elif order == "long_first":
        rng.shuffle(words)
        words.sort(key=len, reverse=True)
    elif order == "short_first":  # "short words first, so that more of them fit"
        rng.shuffle(words)
        words.sort(key=len)
    chosen = []
    for word in words:
        used = len(chosen) if unit == "pieces" else sum(1 for g in groups if g[0] in chosen)
        if used >= k:
            break
        if len(chosen) + len(word) > k and unit == "pieces":
            if on_overflow == "skip":
                continue
            if on_overflow == "stop":
                break
        chosen.extend(word)
    return chosen


def word_bug(**flags):
    fn = functools.partial(select_words, **flags)
    fn.__name__ = "_".join(f"{k}={v}" for k, v in flags.items())
    return fn


def pieces_not_words(groups, k, rng):
    positions = [p for g in groups for p in g]
    return sorted(rng.sample(positions, min(k, len(positions))))


def index_style(groups, k, rng):
    """Correct in another style: shuffled indices, a numpy array returned."""
    order = list(range(len(groups)))
    rng.shuffle(order)
    chosen = []
    for i in order:
        if len(chosen) + len(groups[i]) <= k:
            chosen += groups[i]
    return np.array(sorted(chosen), dtype=np.int64)


def test_whole_word_selection_accepts_other_styles(capsys):
    check.whole_word_selection(index_style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (word_bug(on_overflow="stop"), r"was left out and still fits\n.*continue, not break"),
    (word_bug(on_overflow="take"), r"more than num_to_predict=1\n.*skip a word"),
    (word_bug(unit="words"), r"more than num_to_predict"),
    (word_bug(order="none"), r"all ten seeds selected"),
    (word_bug(order="global"), r"the two calls gave different selections"),
    (word_bug(order="long_first"), r"all ten seeds selected \[2, 3, 4\]"),
    (word_bug(order="short_first"), r"all ten seeds selected \[1, 5\]"),
    (word_bug(in_place=True), r"changed the groups it was given"),
    (pieces_not_words, r"is torn"),
], ids=lambda x: getattr(x, "__name__", ""))
def test_whole_word_selection_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.whole_word_selection(bug)


# ---- 4.5: the MLM loss, and the accuracy by kind of position -------------------------------------------

def loss_of(hidden, emb, bias, labels, *, reduce="mean", use_bias=True, where="labelled", softmax=False,
            detach=False, in_place=False):
    """A learner's MLM loss with one switch per possible mistake; the defaults are right."""
    if in_place:
        labels[labels == -100] = 0
        sel = torch.ones_like(labels, dtype=torch.bool)
    else:
        sel = labels != -100 if where == "labelled" else torch.ones_like(labels, dtype=torch.bool)
    h = hidden.detach() if detach else hidden
    logits = h[sel] @ emb.T + (bias if use_bias else 0)
    target = labels[sel].clamp(min=0)
    if softmax:
        logits = logits.softmax(-1)
    if reduce == "rows":
        rows = sel.nonzero()[:, 0]
        per = F.cross_entropy(logits, target, reduction="none")
        return torch.stack([per[rows == b].mean() for b in rows.unique()]).mean()
    if reduce == "item":
        return F.cross_entropy(logits, target).item()
    return F.cross_entropy(logits, target, reduction=reduce)


def accuracies(hidden, emb, bias, ids, labels, mask_id, *, kinds="right", empty=None):
    """A learner's accuracy at [MASK], random and kept positions, one switch per mistake; the defaults are right."""
    sel = labels != -100
    hit = ((hidden[sel] @ emb.T + bias).argmax(-1) == labels[sel]).tolist()
    shown, target = ids[sel].tolist(), labels[sel].tolist()
    kind_of = {"right": lambda s, y: "mask" if s == mask_id else "kept" if s == y else "random",
               "all": lambda s, y: None,  # every labelled position, for each kind
               "random_has_kept": lambda s, y: "mask" if s == mask_id else "random",
               "swapped": lambda s, y: "mask" if s == mask_id else "random" if s == y else "kept"}[kinds]
    out = {}
    for kind in ("mask", "random", "kept"):
        mine = [h for h, s, y in zip(hit, shown, target) if kind_of(s, y) in (kind, None)]
        if kinds == "random_has_kept" and kind == "kept":
            mine = [h for h, s, y in zip(hit, shown, target) if s == y and s != mask_id]
        out[kind] = sum(mine) / len(mine) if mine else empty
    return out


def metrics_of(loss=loss_of, **flags):
    """The exercise's function from a loss and the accuracies; a flag of either turns on its mistake."""
    loss_flags = {k: v for k, v in flags.items() if k in ("reduce", "use_bias", "where", "softmax", "detach", "in_place")}
    acc_flags = {k: v for k, v in flags.items() if k not in loss_flags}

    def fn(hidden, emb, bias, ids, labels, mask_id):
        acc = accuracies(hidden.detach(), emb.detach(), bias.detach(), ids, labels, mask_id, **acc_flags)
        return {"loss": loss(hidden, emb, bias, labels, **loss_flags), **acc}
    fn.__name__ = "_".join(f"{k}={v}" for k, v in flags.items()) or loss.__name__
    return fn


def loss_bug(**flags):
    return metrics_of(**flags)


def every_position_then_ignore(hidden, emb, bias, labels):
    """Correct in another style: decode every position, let cross_entropy skip -100 (more work, same loss)."""
    logits = torch.einsum("bth,vh->btv", hidden, emb) + bias
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten())


def log_softmax_by_hand(hidden, emb, bias, labels):
    """Correct in another style: log-softmax and the gather written out, float64."""
    sel = (labels != -100).nonzero(as_tuple=True)
    logits = (hidden[sel] @ emb.T + bias).double()
    logp = logits - logits.logsumexp(-1, keepdim=True)
    return -logp.gather(1, labels[sel][:, None]).mean()


def kinds_as_tensors(hidden, emb, bias, ids, labels, mask_id):
    """Correct in another style: minibert's own selected_kinds, accuracies as 0-dim tensors."""
    from minibert.masking import selected_kinds
    hit = (hidden @ emb.T + bias).argmax(-1) == labels
    acc = {k: (hit[w].float().mean() if w.any() else None) for k, w in selected_kinds(ids, labels, mask_id).items()}
    return {"loss": every_position_then_ignore(hidden, emb, bias, labels), **acc}


def loss_in_float32(hidden, emb, bias, labels):
    """A mistake: everything cast to float32 "to be safe", so a float64 batch loses its precision."""
    sel = labels != -100
    return F.cross_entropy(hidden[sel].float() @ emb.float().T + bias.float(), labels[sel])


def loss_flattened_with_view(hidden, emb, bias, labels):
    """A mistake: the tokens flattened with .view(-1, H), which refuses hidden states in a non-contiguous layout."""
    sel = labels.view(-1) != -100
    logits = hidden.view(-1, hidden.shape[-1])[sel] @ emb.T + bias
    return F.cross_entropy(logits, labels.view(-1)[sel])


@pytest.mark.parametrize("style", [metrics_of(every_position_then_ignore), metrics_of(log_softmax_by_hand),
                                   kinds_as_tensors], ids=lambda f: f.__name__)
def test_masked_lm_metrics_accepts_other_styles(style, capsys):
    check.masked_lm_metrics(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (loss_bug(reduce="sum"), r"expected the loss .*\n.*you summed"),
    (loss_bug(use_bias=False), r"output bias of its own"),
    (loss_bug(reduce="rows"), r"rows with 1, 6 and 2 labels.*\n.*averaged each row"),
    (loss_bug(where="all"), r"counted the positions labelled -100"),
    (loss_bug(softmax=True), r"not probabilities"),
    (loss_bug(detach=True), r"no gradient reached hidden"),
    (loss_bug(reduce="item"), r"expected the loss as a tensor .*\n.*\.item\(\)"),
    (loss_bug(in_place=True), r"changed input_ids or labels in place"),
    (metrics_of(loss_in_float32), r"float64: .*expected the loss in torch.float64, received torch.float32"),
    (metrics_of(loss_flattened_with_view), r"float64: .*non-contiguous.*raised RuntimeError"),
    (metrics_of(kinds="all"), r"(random|kept).*\n.*(over every labelled position|'always wrong')"),
    (metrics_of(kinds="random_has_kept"), r"accuracy at random positions.*\n.*input is its own label is kept"),
    (metrics_of(kinds="swapped"), r"accuracy at random positions.*\n.*kept and random are swapped"),
    (metrics_of(empty=0.0), r"no labelled position is (random|kept) here.*None.*\n.*'always wrong'"),
    (lambda hidden, emb, bias, ids, labels, mask_id: loss_of(hidden, emb, bias, labels), r"expected a dict"),
], ids=lambda x: getattr(x, "__name__", ""))
def test_masked_lm_metrics_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.masked_lm_metrics(bug)


# ---- batch 9: a draw that skips the original (4.1), "##°" and left padding (4.2), a rotation (4.4) --------------

def random_id_skips_the_original(ids, special, mask_id, vocab_size, special_ids, cap, g):
    """Right count and fates, but a random replacement is drawn among the allowed ids other than the original."""
    n = (~special).sum(1)
    k = torch.tensor([min(max(1, round(0.15 * int(c))), cap if cap is not None else int(c)) if c else 0 for c in n])
    rank = torch.rand(ids.shape, generator=g).masked_fill(special, 2.0).argsort(1).argsort(1)
    selected = rank < k[:, None]
    fate = torch.rand(ids.shape, generator=g)
    pool = torch.tensor([i for i in range(vocab_size) if i not in special_ids])
    where = torch.searchsorted(pool, ids).clamp(max=len(pool) - 1)
    in_pool = pool[where] == ids
    r = (torch.rand(ids.shape, generator=g) * (len(pool) - in_pool.long())).long()
    random_ids = pool[r + (in_pool & (r >= where)).long()]  # step over the original
    masked = torch.where(selected & (fate < 0.8), mask_id, ids)
    masked = torch.where(selected & (fate >= 0.8) & (fate < 0.9), random_ids, masked)
    return masked, torch.where(selected, ids, torch.full_like(ids, -100))


def test_mask_tokens_rejects_a_draw_that_skips_the_original():
    with pytest.raises(ExerciseError, match=r"special_token_ids=\[0, 1, 2, 3\] \(3 ids a replacement may take\).*: "
                                            r"kept \(unchanged\) among the selected positions.*\n  hint: .*the "
                                            r"original one included"):
        check.mask_tokens(random_id_skips_the_original)


def pieces_by_word_regex(tokens):
    return _groups_skipping(tokens, lambda token: token in SPECIAL, lambda token: re.match(r"##\w", token))


def stops_at_the_first_pad(tokens):
    walked = tokens[:tokens.index("[PAD]")] if "[PAD]" in tokens else tokens  # the walk breaks at the first [PAD]
    return _groups_skipping(walked, lambda token: token in SPECIAL)


@pytest.mark.parametrize("bug, message", [
    (pieces_by_word_regex, r"'##°'.*\n.*\n  received \[\[1\], \[2\], \[3\], \[4\], \[5\]\]\n.*whatever follows"),
    (stops_at_the_first_pad, r"\['\[PAD\]', '\[PAD\]', '\[CLS\]'.*\n.*\n  received \[\]\n.*padding may come first"),
], ids=lambda x: getattr(x, "__name__", ""))
def test_word_groups_rejects_odd_pieces_and_left_padding(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.word_groups(bug)


def rotation_not_shuffle(groups, k, rng):
    first = rng.randrange(len(groups)) if groups else 0
    chosen = []
    for word in groups[first:] + groups[:first]:
        if len(chosen) + len(word) <= k:
            chosen += word
    return chosen


def test_whole_word_selection_rejects_a_rotation():
    with pytest.raises(ExerciseError, match=r"\[\[1\], \[2\], \[3\], \[4\]\], num_to_predict = 2, seeds 0..1199: "
                                            r"\[1, 3\] or \[2, 4\] selected: 0 of 1200.*\n  hint: .*rotation"):
        check.whole_word_selection(rotation_not_shuffle)
