"""The floors a masked LM must clear: what counting pieces in the training text predicts.

A model whose masked-token accuracy is under these has learnt frequencies, not language, however
its loss curve looks. Three predictors, counted on the run's training shards (the same vocabulary
and the same pieces the model trains on):

- unigram: always the most frequent piece;
- left neighbour: the most frequent piece after the piece on the left;
- both neighbours: the most frequent piece between the pieces on the left and on the right,
  backing off to the left neighbour, then the right one, then the unigram when a pair was never
  seen.

Each is scored on exactly the positions the model's evaluation scores (`eval_loader`: the held-out
split, corrupted once with the run's seed + 1), reading the input as the model reads it: a
neighbour that is itself [MASK] or a random piece is what the predictor sees. Accuracy is reported
apart for the three kinds of position BERT's 80/10/10 makes: [MASK] (the model must infer the
piece), random (a wrong piece in its place) and kept (the right piece in plain sight, which a model
can copy and a count table cannot see).

    floors = neighbour_floors(cfg)   # {"unigram": {"mask": 0.065, ...}, "left": ..., "both": ...}
    python -m minibert.pretrain.baselines --config course [any flag of minibert.pretrain]
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import torch

from ..inputs import IGNORE_INDEX
from ..masking import selected_kinds
from ..tokenizer import load_vocab
from ..tokenizer.vocab import SPECIAL_TOKENS
from .data import eval_loader, prepare_shards, prepare_vocab
from .recipes import PretrainConfig
from .shards import ShardDataset

PREDICTORS = ("unigram", "left", "both")
KINDS = ("mask", "random", "kept")


@dataclass
class Table:
    """The most frequent piece for each key seen in training: keys sorted, for a binary search."""
    keys: np.ndarray  # (K,) int64
    best: np.ndarray  # (K,) int64

    @classmethod
    def count(cls, keys: np.ndarray, pieces: np.ndarray, V: int) -> Table:
        joint, counts = np.unique(keys * V + pieces, return_counts=True)  # sorted by key, then piece
        key, piece = joint // V, joint % V
        order = np.lexsort((-counts, key))  # by key, the most frequent piece first (ties: smallest id)
        key, piece = key[order], piece[order]
        first = np.r_[True, key[1:] != key[:-1]]
        return cls(key[first], piece[first])

    def lookup(self, keys: np.ndarray, default: np.ndarray) -> np.ndarray:
        """The table's piece for each key; `default`'s where the key was never seen."""
        if not len(self.keys):
            return default
        at = np.searchsorted(self.keys, keys).clip(max=len(self.keys) - 1)
        found = self.keys[at] == keys
        return np.where(found, self.best[at], default)


@dataclass
class NeighbourCounts:
    """Count tables of a training split: unigram, left neighbour -> piece, right -> piece, both -> piece."""
    V: int
    unigram: int
    left: Table
    right: Table
    both: Table

    @classmethod
    def fit(cls, dataset: ShardDataset, vocab: dict[str, int]) -> NeighbourCounts:
        V = len(vocab)
        special = np.zeros(V, dtype=bool)
        special[[vocab[t] for t in SPECIAL_TOKENS.values()]] = True
        lefts, pieces, rights = [], [], []
        for shard in dataset.shards:
            # Instances lie end to end, each [CLS] ... [SEP]: a real piece's neighbours are in its instance.
            ids = np.asarray(shard["ids"], dtype=np.int64)
            centre = ~special[ids[1:-1]]
            lefts.append(ids[:-2][centre])
            pieces.append(ids[1:-1][centre])
            rights.append(ids[2:][centre])
        left, piece, right = np.concatenate(lefts), np.concatenate(pieces), np.concatenate(rights)
        unigram = int(np.bincount(piece, minlength=V).argmax())
        return cls(V, unigram, Table.count(left, piece, V), Table.count(right, piece, V),
                   Table.count(left * V + right, piece, V))

    def predict(self, left: np.ndarray, right: np.ndarray) -> dict[str, np.ndarray]:
        """Each predictor's piece for positions whose neighbours (as the model sees them) are given."""
        unigram = np.full_like(left, self.unigram)
        after_left = self.left.lookup(left, unigram)
        backoff = self.left.lookup(left, self.right.lookup(right, unigram))
        return {"unigram": unigram, "left": after_left, "both": self.both.lookup(left * self.V + right, backoff)}


def score(counts: NeighbourCounts, batches, mask_token_id: int) -> dict[str, dict[str, float]]:
    """Accuracy of each predictor at each kind of labelled position, and over all of them ("all")."""
    correct = {p: dict.fromkeys((*KINDS, "all"), 0) for p in PREDICTORS}
    seen = dict.fromkeys((*KINDS, "all"), 0)
    for batch in batches:
        ids, labels = batch["input_ids"], batch["labels"]  # (B, T) each
        b, t = torch.nonzero(labels != IGNORE_INDEX, as_tuple=True)  # (N,), (N,): [CLS] and [SEP] frame them
        left, right = ids[b, t - 1].numpy(), ids[b, t + 1].numpy()
        target = labels[b, t].numpy()
        kind = {k: where[b, t].numpy() for k, where in selected_kinds(ids, labels, mask_token_id).items()}
        kind["all"] = np.ones_like(target, dtype=bool)
        for name, guess in counts.predict(left, right).items():
            hit = guess == target
            for k, where in kind.items():
                correct[name][k] += int(hit[where].sum())
        for k, where in kind.items():
            seen[k] += int(where.sum())
    return {p: {k: correct[p][k] / seen[k] if seen[k] else float("nan") for k in seen} for p in PREDICTORS}


@torch.no_grad()
def mask_guesses(model, batches, mask_token_id: int) -> Counter:
    """How often a model's first guess at a [MASK] position is each piece (by id). A model on the
    unigram plateau answers with a handful of frequent pieces ("the", ",", "."), whatever the context."""
    was_training = model.training
    model.eval()
    guesses = Counter()
    for batch in batches:
        at_mask = selected_kinds(batch["input_ids"], batch["labels"], mask_token_id)["mask"]  # (B, T)
        logits = model(input_ids=batch["input_ids"], token_type_ids=batch.get("token_type_ids"),
                       attention_mask=batch.get("attention_mask")).mlm_logits  # (B, T, V): no labels given
        guesses.update(logits.argmax(-1)[at_mask].tolist())
    model.train(was_training)
    return guesses


def neighbour_floors(cfg: PretrainConfig) -> dict[str, dict[str, float]]:
    """The three count predictors fitted on `cfg`'s training split and scored on its held-out
    positions, masked exactly as the run's evaluation masks them."""
    if cfg.objective != "mlm":
        raise ValueError(f"objective={cfg.objective!r}: the count floors are a masked LM's (objective='mlm'); "
                         "a left-to-right LM sees no right neighbour")
    vocab_path = prepare_vocab(cfg)
    vocab = load_vocab(vocab_path)
    counts = NeighbourCounts.fit(ShardDataset(prepare_shards(cfg, vocab_path, "train")), vocab)
    batches = eval_loader(cfg, prepare_shards(cfg, vocab_path, "valid"), vocab, cfg.batch_size, 0, 1)
    return score(counts, batches, vocab["[MASK]"])


def main(argv: list[str] | None = None) -> None:
    import sys

    from .__main__ import parse  # the run's own flags: its data, vocabulary, length and masking

    cfg, _ = parse(sys.argv[1:] if argv is None else argv)
    print(f"held-out {cfg.valid_corpus}, {cfg.max_seq_length} tokens, masked with seed {cfg.seed + 1}: "
          "accuracy at [MASK] / random / kept pieces / all")
    for name, accuracy in neighbour_floors(cfg).items():
        print(f"  {name:8} " + " / ".join(f"{accuracy[k]:.1%}" for k in (*KINDS, "all")))


if __name__ == "__main__":
    main()
