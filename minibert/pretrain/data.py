"""The data of a run: a vocabulary, shards of instances, and batches that resume exactly.

Preparation is cached under `cache_dir`, keyed by what went in (the corpus's and vocabulary's
bytes and every setting that changes an instance), so a second run starts at once and a changed
setting never reuses stale shards.

Exact resume needs the batch of step k to be a function of k alone. So there is no stateful
shuffling iterator: draw number d is instance `perm_e[d % N]` of epoch `e = d // N`, where
`perm_e` is a permutation seeded by (seed, e); micro-batch m of the run holds draws
[m·G, (m+1)·G) for a global micro-batch of G sequences, and process r takes its r-th slice.
Masks are seeded per draw (dynamic masking: new masks each epoch) or per instance (static), never
by a generator that advances, so they too depend only on the position in the run, and the same
instance is masked the same way whether 1 process or 8 train on it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from pathlib import Path

import torch

from .. import seeding
from ..config import ConfigError
from ..hub import minilm_path, sha256_of
from ..masking import MaskingCollator
from ..tokenizer import load_vocab, train_wordpiece
from ..tokenizer.vocab import SPECIAL_TOKENS
from .passes import how_to_make
from .recipes import PretrainConfig
from .shards import ShardDataset, write_complete, write_shards


class DataError(FileNotFoundError):
    """A corpus, shard folder or vocabulary that a run cannot use."""


def digest(path: Path) -> str:
    """The first 16 hex digits of a file's sha256: names cache entries after their content."""
    return sha256_of(path)[:16]


def _corpus(path: str, what: str) -> Path:
    p = Path(path)
    if not p.exists():
        raise DataError(f"{what} {path} does not exist: {how_to_make(path)}; or pass a corpus file in BERT's format "
                        "(a sentence per line, a blank line between documents) or a folder of shards "
                        "written by `python -m minibert.pretrain.shards`")
    if p.is_dir() and not any(p.glob("[0-9]*.json")):
        raise DataError(f"{what} {path} is a folder with no finished shards in it; write them with "
                        "`python -m minibert.pretrain.shards --out {path}` or pass a corpus file")
    if p.is_file() and p.stat().st_size == 0:
        raise DataError(f"{what} {path} is empty; it should hold text in BERT's format")
    return p


def prepare_vocab(cfg: PretrainConfig) -> Path:
    """The run's vocab.txt: BERT's uncased one, a given file, or one trained on the corpus (cached)."""
    if cfg.vocab == "bert-uncased":  # the 30,522 entries of bert-base-uncased, shipped with MiniLM
        return minilm_path() / "vocab.txt"
    if cfg.vocab != "train":
        path = Path(cfg.vocab)
        path = path / "vocab.txt" if path.is_dir() else path
        if not path.is_file():
            raise DataError(f"vocab={cfg.vocab!r}: no such vocab.txt; use 'train', 'bert-uncased' or a path")
        load_vocab(path)  # refuses a broken vocabulary now, with the line that is wrong
        return path
    corpus = _corpus(cfg.train_corpus, "train_corpus")
    if corpus.is_dir():
        raise ConfigError("vocab='train' needs a corpus file, not a folder of shards: shards hold ids "
                          "of the vocabulary they were written with; pass that one as vocab=")
    case = "uncased" if cfg.lowercase else "cased"
    folder = Path(cfg.cache_dir) / f"vocab-{cfg.vocab_size}-{case}-{digest(corpus)}"
    if not (folder / "vocab.txt").is_file():
        tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
        train_wordpiece([corpus], vocab_size=cfg.vocab_size, lowercase=cfg.lowercase, out_dir=tmp)
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(tmp, folder)  # all or nothing: a killed run leaves no half-written vocabulary
    return folder / "vocab.txt"


def prepare_shards(cfg: PretrainConfig, vocab: Path, split: str) -> Path:
    """Write (once) and return the folder of `split`'s instances; a folder of shards is used as is."""
    corpus = _corpus(cfg.train_corpus if split == "train" else cfg.valid_corpus, f"{split}_corpus")
    if corpus.is_dir():
        return corpus
    settings = dict(corpus=digest(corpus), vocab=digest(vocab), lowercase=cfg.lowercase,
                    max_seq_length=cfg.max_seq_length, short_seq_prob=cfg.short_seq_prob,
                    nsp=cfg.nsp, dupe_factor=cfg.dupe_factor, seed=cfg.seed)
    key = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]
    folder = Path(cfg.cache_dir) / f"shards-{key}" / split
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{split}.lock", "w") as lock:  # two runs sharing a cache: one writes, the other waits
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "complete.json").is_file():
            _write(cfg, corpus, vocab, folder, settings)
    return folder


def _write(cfg: PretrainConfig, corpus: Path, vocab: Path, folder: Path, settings: dict) -> None:
    totals = write_shards(corpus.resolve(), folder, vocab=vocab.resolve(), lowercase=cfg.lowercase,
                          max_seq_length=cfg.max_seq_length, short_seq_prob=cfg.short_seq_prob,
                          nsp=cfg.nsp, dupe_factor=cfg.dupe_factor, seed=cfg.seed,
                          workers=min(4, os.cpu_count() or 1))
    write_complete(folder, vocab, totals, settings)


class Draws(torch.utils.data.Dataset):
    """Draw number d -> an instance of epoch d // N, in that epoch's seeded order (see the top)."""

    def __init__(self, dataset: ShardDataset, seed: int, static: bool):
        self.dataset, self.seed, self.static = dataset, seed, static
        self._epoch, self._order = None, None

    def __getitem__(self, d: int) -> dict:
        epoch, position = divmod(d, len(self.dataset))
        if epoch != self._epoch:
            order = torch.randperm(len(self.dataset), generator=seeding.generator(self.seed, epoch))
            self._epoch, self._order = epoch, order
        i = int(self._order[position])
        # The collator seeds each row's masks with "index": per draw (new masks every epoch) or
        # per instance (the same masks every epoch, as BERT's pre-computed instances).
        return {**self.dataset[i], "index": i if self.static else d}


class MicroBatches(torch.utils.data.Sampler):
    """This process's micro-batches of draw numbers, from the run's micro-batch `start` on, forever."""

    def __init__(self, micro_batch: int, rank: int, world: int, start: int = 0):
        self.micro_batch, self.rank, self.world, self.start = micro_batch, rank, world, start

    def __iter__(self):
        m, b = self.start, self.micro_batch
        while True:
            first = (m * self.world + self.rank) * b
            yield list(range(first, first + b))
            m += 1


def collator(cfg: PretrainConfig, vocab: dict[str, int], seed: int, static: bool) -> MaskingCollator:
    tokens = sorted(vocab, key=vocab.get)
    return MaskingCollator(
        pad_token_id=vocab["[PAD]"], cls_token_id=vocab["[CLS]"], sep_token_id=vocab["[SEP]"],
        mask_token_id=vocab["[MASK]"], vocab_size=len(vocab),
        special_token_ids=[vocab[t] for t in SPECIAL_TOKENS.values()], seed=seed, static=static,
        objective=cfg.objective, proportions=cfg.mask_proportions,
        # Static shapes for a compiled encoder: every batch max_seq_length wide, so it compiles once
        # (rows are masked at their own length: the masks are the same either way).
        pad_to=cfg.max_seq_length if cfg.compile else None,
        mlm_probability=cfg.mlm_probability, max_predictions=cfg.max_predictions,
        word_start_tokens=tokens if cfg.whole_word else None)


def train_loader(cfg: PretrainConfig, folder: Path, vocab: dict, micro_batch: int, rank: int, world: int, start: int):
    draws = Draws(ShardDataset(folder), cfg.seed, static=cfg.masking == "static")
    return torch.utils.data.DataLoader(
        draws, batch_sampler=MicroBatches(micro_batch, rank, world, start),
        collate_fn=collator(cfg, vocab, cfg.seed, static=True), num_workers=cfg.num_workers,
        generator=torch.Generator(),  # else creating the iterator draws from the global RNG (dropout's)
        persistent_workers=cfg.num_workers > 0)


def eval_loader(cfg: PretrainConfig, folder: Path, vocab: dict, micro_batch: int, rank: int, world: int):
    """The held-out instances in order, masked the same way at every evaluation; each process takes
    every world-th micro-batch, and the sums are reduced across processes."""
    dataset = ShardDataset(folder)
    batches = [list(range(i, min(i + micro_batch, len(dataset)))) for i in range(0, len(dataset), micro_batch)]
    if cfg.eval_batches is not None:
        batches = batches[:cfg.eval_batches * world]
    if world > 1:  # the same number on every process, so none waits on a collective the others skip
        batches = batches[:len(batches) - len(batches) % world]
    return torch.utils.data.DataLoader(
        dataset, batch_sampler=batches[rank::world], generator=torch.Generator(),
        collate_fn=collator(cfg, vocab, cfg.seed + 1, static=True))
