"""The teaching WordPiece trainer (minibert/tokenizer/learn.py) on cases worked out by hand, against
minibert's greedy encoder, and against the Rust trainer it explains."""

import pytest

from benchmarks.real_text import real_lines
from minibert import Tokenizer, TokenizerError, train_wordpiece
from minibert.tokenizer.learn import (count_pairs, count_pieces, initial_splits, learn_wordpiece, merge_pair,
                                      merge_steps, merged_token, pair_scores, word_counts)
from minibert.tokenizer.vocab import SPECIAL_TOKENS

# Five words and their counts: hug 10, pug 5, pun 12, bun 4, hugs 5.
TOY = ["hug " * 10, "pug " * 5, "pun " * 12, "bun " * 4, "hugs " * 5]
SPECIALS = list(SPECIAL_TOKENS.values())


def test_words_are_counted_after_bert_normalisation():
    assert word_counts(["Héllo, hello!", "HELLO\tworld"]) == {"hello": 3, ",": 1, "!": 1, "world": 1}
    assert word_counts(["Héllo"], lowercase=False) == {"Héllo": 1}  # cased: accents kept too
    assert word_counts(TOY) == {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def test_words_start_as_characters_and_continuations_carry_the_prefix():
    assert initial_splits({"hugs": 5, "a": 1}) == {"hugs": ["h", "##u", "##g", "##s"], "a": ["a"]}


def test_pair_scores_by_hand():
    counts = word_counts(TOY)
    splits = initial_splits(counts)
    # freq(piece): h 10+5, p 5+12, b 4, ##u 36 (every word), ##g 10+5+5, ##n 12+4, ##s 5
    assert count_pieces(counts, splits) == {"h": 15, "p": 17, "b": 4, "##u": 36, "##g": 20, "##n": 16, "##s": 5}
    assert count_pairs(counts, splits) == {("h", "##u"): 15, ("##u", "##g"): 20, ("p", "##u"): 17,
                                           ("##u", "##n"): 16, ("b", "##u"): 4, ("##g", "##s"): 5}
    scores = pair_scores(counts, splits)
    # Every pair with ##u scores 1/36: ##u follows each of its partners every time (e.g. 15 / (15 * 36)).
    # ##g ##s is rarer, 5, but ##s never appears without ##g: 5 / (20 * 5) = 1/20, the best.
    assert scores == pytest.approx({("h", "##u"): 1 / 36, ("##u", "##g"): 1 / 36, ("p", "##u"): 1 / 36,
                                    ("##u", "##n"): 1 / 36, ("b", "##u"): 1 / 36, ("##g", "##s"): 1 / 20})
    # Counting alone, the most frequent pair wins instead.
    assert max(pair_scores(counts, splits, score="frequency").items(), key=lambda kv: kv[1]) == (("##u", "##g"), 20)


def test_a_merge_is_applied_in_every_word_left_to_right():
    counts = word_counts(TOY)
    splits = initial_splits(counts)
    merged = merge_pair(("##u", "##g"), splits)
    assert merged == {"hug": ["h", "##ug"], "pug": ["p", "##ug"], "pun": ["p", "##u", "##n"],
                      "bun": ["b", "##u", "##n"], "hugs": ["h", "##ug", "##s"]}
    assert splits["hug"] == ["h", "##u", "##g"]  # the input is left as it was
    assert merge_pair(("h", "##ug"), merged)["hugs"] == ["hug", "##s"]  # a word-initial result has no ##
    # Overlapping occurrences: the leftmost pair is merged first, as the trainer does.
    assert merge_pair(("##a", "##a"), initial_splits({"aaaa": 1}))["aaaa"] == ["a", "##aa", "##a"]


def test_learned_vocab_on_the_toy_corpus():
    alphabet = ["##g", "##n", "##s", "##u", "b", "h", "p"]
    vocab = learn_wordpiece(TOY, vocab_size=len(SPECIALS) + len(alphabet) + 3)
    # 1. ##g ##s scores 1/20. 2. Six pairs tie at 1/36; (##u, ##g) has the smallest ids (8, 5).
    # 3. With ##ug made, ##u is left in pun, bun and hugs (21 times): (##u, ##gs) 5 / (21 * 5),
    #    (##u, ##n) 16 / (21 * 16) and (b, ##u) 4 / (4 * 21) tie at 1/21, above (h, ##ug) 10 / (15 * 15);
    #    (##u, ##n) has the smallest ids (8, 6).
    assert vocab == SPECIALS + alphabet + ["##gs", "##ug", "##un"]
    everything = learn_wordpiece(TOY, vocab_size=1000)  # stops once every word is one piece
    assert {"hug", "pug", "pun", "bun", "hugs"} <= set(everything) and len(everything) < 1000


def test_merge_steps_are_the_merges_learn_wordpiece_makes():
    """Chapter 01 draws merge_steps and tabulates learn_wordpiece: the same merges, ties broken alike."""
    counts = word_counts(TOY)
    steps = list(merge_steps(counts))
    assert [pair for pair, _ in steps[:3]] == [("##g", "##s"), ("##u", "##g"), ("##u", "##n")]  # not ("h", "##u")
    assert steps[1][1] == merge_pair(("##u", "##g"), steps[0][1])  # each step's splits follow from the last
    assert steps[-1][1] == {w: [w] for w in counts}  # it stops once every word is one piece
    made = list(dict.fromkeys(merged_token(*pair) for pair, _ in steps))
    assert learn_wordpiece(TOY, vocab_size=1000)[len(SPECIALS) + 7:] == made
    with pytest.raises(TokenizerError, match="score='bpe'"):
        next(merge_steps(counts, score="bpe"))


def test_learned_vocab_encodes_its_training_text_without_unk():
    lines = real_lines()[:300]
    vocab = learn_wordpiece(lines, vocab_size=400)
    assert len(vocab) == 400 and len(set(vocab)) == 400
    for fast in (True, False):
        tok = Tokenizer({t: i for i, t in enumerate(vocab)}, fast=fast)
        pieces = [p for line in lines for p in tok.tokenize(line)]
        assert "[UNK]" not in pieces
        assert sum(p.startswith("##") for p in pieces) > 0 and len(pieces) < sum(map(len, lines))


@pytest.mark.parametrize("texts", [TOY, real_lines()[:200]], ids=["toy", "real"])
def test_frequency_score_makes_the_merges_of_the_rust_trainer(texts):
    """The Rust WordPieceTrainer is the BPE trainer: merge the most frequent pair, ties to smaller ids."""
    n_merges = 6 if texts is TOY else 120
    start = len(train_wordpiece(texts=texts, vocab_size=6, min_frequency=1))  # specials + characters only
    rust = train_wordpiece(texts=texts, vocab_size=start + n_merges, min_frequency=1)
    rust_merges = sorted(rust.vocab, key=rust.vocab.get)[start:]
    splits = initial_splits(word_counts(texts))
    own_start = len(SPECIALS) + len({p for pieces in splits.values() for p in pieces})
    mine = learn_wordpiece(texts, vocab_size=own_start + n_merges, score="frequency")[own_start:]
    assert mine == rust_merges and len(mine) == n_merges


def test_bad_input_is_refused_with_a_reason():
    with pytest.raises(TokenizerError, match="got one string; wrap it in a list"):
        word_counts("hug hug pug")
    with pytest.raises(TokenizerError, match=r"texts\[1\] is bytes, not str"):
        learn_wordpiece(["hug", b"pug"], vocab_size=20)
    with pytest.raises(TokenizerError, match=r"vocab_size=10 is smaller than the 5 special tokens plus the 7 "
                                             r"characters"):
        learn_wordpiece(TOY, vocab_size=10)
    with pytest.raises(TokenizerError, match="score='bpe'; use one of 'wordpiece', 'frequency'"):
        learn_wordpiece(TOY, vocab_size=20, score="bpe")
    with pytest.raises(TokenizerError, match=r"cannot merge \('h', 'u'\).*must start with '##'"):
        merge_pair(("h", "u"), initial_splits({"hug": 1}))
