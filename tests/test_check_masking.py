"""The checkers of chapter 04's exercises: the solutions pass, the stubs raise NotImplementedError, and
mistakes learners really make are rejected with a message that names them."""

import random
from pathlib import Path

import pytest
import torch
from helpers import exercise_functions

from minibert import check
from minibert.check import ExerciseError
from minibert.check.masking import whole_words as masking_check
from minibert.masking import mask_tokens
from minibert.pretraining_data import IS_NEXT, create_instances_from_document

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = exercise_functions(ROOT / "exercises" / "solutions" / "04_masking.ipynb")
STUBS = exercise_functions(ROOT / "exercises" / "04_masking.ipynb")
CHECKERS = {"my_mask_tokens": check.mask_tokens, "my_word_groups": check.word_groups,
            "my_nsp_pair": check.nsp_pair}


@pytest.mark.parametrize("name", CHECKERS)
def test_the_solution_passes(name, capsys):
    CHECKERS[name](SOLUTIONS[name])
    assert capsys.readouterr().out.startswith("✓")


@pytest.mark.parametrize("name", CHECKERS)
def test_the_stub_is_let_through(name):
    with pytest.raises(NotImplementedError, match="Exercise 4"):
        CHECKERS[name](STUBS[name])


# ---- 4.1: masking ------------------------------------------------------------------------------------

def test_minibert_exact_rule_passes_too(capsys):
    """minibert takes exactly round(15%) per row, the solution a coin per token: both are right."""
    check.mask_tokens(lambda ids, special, mask_id, V, g: mask_tokens(
        ids, special_tokens_mask=special, mask_token_id=mask_id, vocab_size=V, generator=g))
    assert "✓" in capsys.readouterr().out


def _fates(shape, g):
    return torch.rand(shape, generator=g), torch.rand(shape, generator=g), torch.randint(1000, shape, generator=g)


def _finish(ids, selected, to_mask, to_random, random_ids, mask_id):
    masked = torch.where(to_mask, torch.full_like(ids, mask_id), ids)
    masked = torch.where(to_random, random_ids, masked)
    return masked, torch.where(selected, ids, torch.full_like(ids, -100))


def specials_maskable(ids, special, mask_id, V, g):
    coin, u, r = _fates(ids.shape, g)
    selected = coin < 0.15  # forgot & ~special
    return _finish(ids, selected, selected & (u < 0.8), selected & (u >= 0.8) & (u < 0.9), r % V, mask_id)


def overlapping_draws(ids, special, mask_id, V, g):
    coin, u, r = _fates(ids.shape, g)
    selected = (coin < 0.15) & ~special
    to_mask = selected & (u < 0.8)
    to_random = selected & (torch.rand(ids.shape, generator=g) < 0.1)  # independent: overwrites some [MASK]s
    return _finish(ids, selected, to_mask, to_random, r % V, mask_id)


def eighty_eighteen_two(ids, special, mask_id, V, g):
    coin, u, r = _fates(ids.shape, g)
    selected = (coin < 0.15) & ~special
    to_mask = selected & (u < 0.8)
    to_random = selected & ~to_mask & (torch.rand(ids.shape, generator=g) < 0.9)  # cumulative 0.9 on a new draw
    return _finish(ids, selected, to_mask, to_random, r % V, mask_id)


def labels_everywhere(ids, special, mask_id, V, g):
    coin, u, r = _fates(ids.shape, g)
    selected = (coin < 0.15) & ~special
    masked, _ = _finish(ids, selected, selected & (u < 0.8), selected & (u >= 0.8) & (u < 0.9), r % V, mask_id)
    return masked, ids.clone()


def fifteen_percent_of_all_positions(ids, special, mask_id, V, g):
    """Exactly round(15% of T) per row, T counting [CLS], [SEP] and padding, chosen among the candidates."""
    coin, u, r = _fates(ids.shape, g)
    k = round(0.15 * ids.shape[1])
    rank = coin.masked_fill(special, 2.0).argsort(1).argsort(1)
    selected = (rank < k) & ~special
    return _finish(ids, selected, selected & (u < 0.8), selected & (u >= 0.8) & (u < 0.9), r % V, mask_id)


def random_becomes_mask(ids, special, mask_id, V, g):
    coin, u, r = _fates(ids.shape, g)
    selected = (coin < 0.15) & ~special
    return _finish(ids, selected, selected & (u < 0.9), selected & (u >= 0.9) & (u < 0.9), r % V, mask_id)


def one_random_id(ids, special, mask_id, V, g):
    coin, u, _ = _fates(ids.shape, g)
    selected = (coin < 0.15) & ~special
    r = torch.randint(V, (1,), generator=g).expand(ids.shape)  # one draw for the whole batch
    return _finish(ids, selected, selected & (u < 0.8), selected & (u >= 0.8) & (u < 0.9), r, mask_id)


def global_random_state(ids, special, mask_id, V, g):
    coin, u, r = torch.rand(ids.shape), torch.rand(ids.shape), torch.randint(V, ids.shape)  # generator ignored
    selected = (coin < 0.15) & ~special
    return _finish(ids, selected, selected & (u < 0.8), selected & (u >= 0.8) & (u < 0.9), r, mask_id)


def in_place(ids, special, mask_id, V, g):
    coin, u, r = _fates(ids.shape, g)
    selected = (coin < 0.15) & ~special
    ids[selected & (u < 0.8)] = mask_id  # corrupts the caller's tensor
    return ids, torch.where(selected, ids, torch.full_like(ids, -100))


def labels_from_masked(ids, special, mask_id, V, g):
    coin, u, r = _fates(ids.shape, g)
    selected = (coin < 0.15) & ~special
    masked, _ = _finish(ids, selected, selected & (u < 0.8), selected & (u >= 0.8) & (u < 0.9), r % V, mask_id)
    return masked, torch.where(selected, masked, torch.full_like(ids, -100))


@pytest.mark.parametrize("bug, message", [
    (specials_maskable, r"special_tokens_mask is True there\) but was selected"),
    (overlapping_draws, r"\[MASK\] among the selected positions.*\n.*too few \[MASK\].*ONE uniform draw"),
    (eighty_eighteen_two, r"random replacements among the selected.*\n.*cumulative 0.9"),
    (labels_everywhere, r"every position has a label"),
    (fifteen_percent_of_all_positions, r"selected among the non-special positions.*\n.*15% of all T positions"),
    (random_becomes_mask, r"too many \[MASK\].*random ones become \[MASK\] too"),
    (one_random_id, r"746 random replacements take only 1 distinct id \(\d+ appears 746 times\)"),
    (global_random_state, r"generators seeded 0 gave different results"),
    (in_place, r"changed input_ids in place"),
    (labels_from_masked, r"your labels hold the corrupted ids"),
], ids=lambda x: getattr(x, "__name__", ""))
def test_mask_tokens_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.mask_tokens(bug)


def test_a_rate_failure_names_the_case_and_the_numbers():
    with pytest.raises(ExerciseError) as info:
        check.mask_tokens(random_becomes_mask)
    first_line = str(info.value).splitlines()[0]
    assert first_line.startswith("1000 seeded rows of 64 tokens") and "expected about 0.8000" in first_line


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


@pytest.mark.parametrize("bug, message", [
    (no_piece_check,
     r"'##aff'.*\n  expected \[\[1, 2, 3\]\]\n  received \[\[1\], \[2\], \[3\]\]\n.*continues the word"),
    (joins_across_specials, r"received \[\[1\], \[2\], \[3, 5\], \[6\]\].*\n.*right after a special token"),
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


def label_reversed(documents, index, rng):
    a, b, is_next = SOLUTIONS["my_nsp_pair"](documents, index, rng)
    return a, b, int(not is_next)  # minibert's next_sentence_label: 0 for IsNext


def module_random(documents, index, rng):
    return SOLUTIONS["my_nsp_pair"](documents, index, random.Random(random.random()))  # rng ignored


@pytest.mark.parametrize("bug, message", [
    (negatives_from_the_same_document, r"is_next is False but B = .* documents\[0\].*\n.*DIFFERENT document"),
    (is_next_from_anywhere_in_the_document, r"an IsNext B starts with the sentence right after A"),
    (always_is_next, r"all 20 pairs are IsNext\n.*fair coin"),
    (negative_document_may_be_index, r"is_next is False but B = .*documents\[0\].*\n.*DIFFERENT document"),
    (last_document_never_drawn, r"never from document 4\n.*every document but index"),
    (label_reversed, r"wrong way round|is_next is True when B follows A"),
], ids=lambda x: getattr(x, "__name__", ""))
def test_nsp_pair_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.nsp_pair(bug)


def test_nsp_pair_wants_the_rng_used():
    random.seed(0)  # so that the bug's two calls differ the same way on every run
    with pytest.raises(ExerciseError, match="the two calls gave different pairs"):
        check.nsp_pair(module_random)
