"""The count floors of minibert.pretrain.baselines (hand cases, then the real split against a plain
Python recount), and the evaluation's accuracy at [MASK] apart from pieces a model can copy."""

from collections import Counter, defaultdict
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from minibert.pretrain import recipe
from minibert.pretrain.baselines import NeighbourCounts, Table, mask_guesses, neighbour_floors, score
from minibert.pretrain.data import eval_loader, prepare_shards, prepare_vocab
from minibert.pretrain.metrics import evaluate
from minibert.pretrain.shards import ShardDataset
from minibert.tokenizer import load_vocab
from minibert.tokenizer.vocab import SPECIAL_TOKENS
from minibert.training.accelerator import make_accelerator


def test_a_table_keeps_the_most_frequent_piece_per_key():
    table = Table.count(np.array([1, 1, 1, 2, 3, 3]), np.array([5, 5, 6, 7, 9, 8]), V=10)
    # key 1: piece 5 twice; key 2: 7; key 3: a tie between 8 and 9, the smaller id wins
    assert table.keys.tolist() == [1, 2, 3] and table.best.tolist() == [5, 7, 8]
    assert table.lookup(np.array([2, 4, 0, 1]), default=np.array([0, -1, -2, -3])).tolist() == [7, -1, -2, 5]


def test_both_neighbours_back_off_to_left_then_right_then_unigram():
    V = 10
    counts = NeighbourCounts(V, unigram=4, left=Table(np.array([1]), np.array([5])),
                             right=Table(np.array([2]), np.array([6])), both=Table(np.array([1 * V + 3]), np.array([7])))
    left, right = np.array([1, 1, 8, 8]), np.array([3, 2, 2, 9])
    guesses = counts.predict(left, right)
    assert guesses["both"].tolist() == [7, 5, 6, 4]  # pair seen; left seen; right seen; nothing seen
    assert guesses["left"].tolist() == [5, 5, 4, 4] and guesses["unigram"].tolist() == [4] * 4


def test_scores_are_split_by_what_the_model_sees():
    MASK, V = 4, 10
    counts = NeighbourCounts(V, unigram=5, left=Table(np.array([], dtype=np.int64), np.array([], dtype=np.int64)),
                             right=Table(np.array([], dtype=np.int64), np.array([], dtype=np.int64)),
                             both=Table(np.array([], dtype=np.int64), np.array([], dtype=np.int64)))
    # [CLS] a b c d [SEP], with b masked (target 5), c replaced at random (target 6), d kept (5)
    batch = {"input_ids": torch.tensor([[2, 7, MASK, 8, 5, 3]]),
             "labels": torch.tensor([[-100, -100, 5, 6, 5, -100]])}
    got = score(counts, [batch], MASK)["unigram"]  # always 5
    assert got == {"mask": 1.0, "random": 0.0, "kept": 1.0, "all": pytest.approx(2 / 3)}


class Always(torch.nn.Module):
    """A masked LM that answers `piece` everywhere, whatever it reads (the plateau, exaggerated)."""

    def __init__(self, piece: int, V: int):
        super().__init__()
        self.piece, self.V = piece, V

    def forward(self, input_ids, token_type_ids=None, attention_mask=None):
        logits = torch.zeros(*input_ids.shape, self.V)  # (B, T, V)
        logits[..., self.piece] = 1.0
        return SimpleNamespace(mlm_logits=logits)


def test_mask_guesses_counts_first_guesses_at_mask_positions_only():
    MASK = 4
    batch = {"input_ids": torch.tensor([[2, 7, MASK, 8, 5, 3], [2, MASK, MASK, 9, 3, 0]]),
             "labels": torch.tensor([[-100, -100, 5, 6, 5, -100], [-100, 6, 7, 9, -100, -100]])}
    model = Always(piece=8, V=10).train()
    assert mask_guesses(model, [batch], MASK) == Counter({8: 3})  # three [MASK]s; random and kept not counted
    assert model.training  # left as it was found


@pytest.fixture(scope="module")
def floors_and_data(small):
    cfg = recipe("tiny", **small, max_seq_length=64, batch_size=32, eval_batches=None)
    vocab_path = prepare_vocab(cfg)
    vocab = load_vocab(vocab_path)
    train = ShardDataset(prepare_shards(cfg, vocab_path, "train"))
    batches = list(eval_loader(cfg, prepare_shards(cfg, vocab_path, "valid"), vocab, cfg.batch_size, 0, 1))
    return neighbour_floors(cfg), vocab, train, batches, cfg


def test_on_real_text_the_both_neighbour_table_is_a_recount(floors_and_data, report):
    floors, vocab, train, batches, _ = floors_and_data
    special = {vocab[t] for t in SPECIAL_TOKENS.values()}
    pairs, lefts, rights = defaultdict(Counter), defaultdict(Counter), defaultdict(Counter)
    unigrams = Counter()
    for i in range(len(train)):  # plain Python, instance by instance
        ids = train[i]["input_ids"].tolist()
        for left, piece, right in zip(ids, ids[1:], ids[2:]):
            if piece not in special:
                pairs[(left, right)][piece] += 1
                lefts[left][piece] += 1
                rights[right][piece] += 1
                unigrams[piece] += 1

    def best(counter):  # the most frequent piece, the smallest id on a tie
        return min((-n, piece) for piece, n in counter.items())[1] if counter else None

    unigram = best(unigrams)
    mask = vocab["[MASK]"]
    right, total = 0, 0
    for batch in batches:
        ids, labels = batch["input_ids"], batch["labels"]
        for b, t in (labels != -100).nonzero().tolist():
            if ids[b, t] != mask:
                continue
            left_, right_ = int(ids[b, t - 1]), int(ids[b, t + 1])
            guess = next(g for g in (best(pairs.get((left_, right_))), best(lefts.get(left_)),
                                     best(rights.get(right_)), unigram) if g is not None)
            right += guess == int(labels[b, t])
            total += 1
    counts = NeighbourCounts.fit(train, vocab)
    assert score(counts, batches, mask)["both"]["mask"] == pytest.approx(right / total)
    report(f"count floors on the CI split at [MASK]: unigram {floors['unigram']['mask']:.1%}, "
           f"left {floors['left']['mask']:.1%}, both {floors['both']['mask']:.1%}")


def test_more_context_predicts_more(floors_and_data):
    floors = floors_and_data[0]
    for kind in ("mask", "all"):
        assert floors["unigram"][kind] < floors["left"][kind] < floors["both"][kind], floors
    assert 0.03 < floors["unigram"]["mask"] < 0.15  # "the" or "," is about one piece in fifteen


class Copier(torch.nn.Module):
    """A "model" that predicts, at each labelled position, the piece it is shown there."""

    def __init__(self, V):
        super().__init__()
        self.V = V

    def forward(self, input_ids, labels, **_):
        shown = input_ids[labels != -100]  # (N,)
        logits = torch.nn.functional.one_hot(shown, self.V).double()  # (N, V)
        return SimpleNamespace(mlm_logits=logits, mlm_loss=torch.tensor(0.0))


def test_the_evaluation_reports_accuracy_at_mask_apart_from_copied_pieces(floors_and_data):
    _, vocab, _, _, cfg = floors_and_data
    loader = eval_loader(cfg, prepare_shards(cfg, prepare_vocab(cfg), "valid"), vocab, 32, 0, 1)
    metrics = evaluate(Copier(len(vocab)), loader, make_accelerator(mixed_precision="no"), nsp=False)
    # Copying is right exactly at the kept pieces: never at [MASK], never at a random piece.
    assert (metrics["mlm_accuracy_at_mask"], metrics["mlm_accuracy_at_random"], metrics["mlm_accuracy_at_kept"]) == (0, 0, 1)
    assert 0.08 < metrics["mlm_accuracy"] < 0.12  # BERT keeps 10% of the selected pieces

