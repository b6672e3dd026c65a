"""Pre-training instances on disk: a corpus in BERT's format -> shards of instances, written by a
pool of worker processes, read back through memory maps.

    write_shards("data/corpus/train.txt", "data/instances/train", vocab="vocab.txt", workers=2)
    dataset = ShardDataset("data/instances/train")     # dataset[i]: one instance, as tensors

A shard is `docs_per_shard` consecutive documents. Its instances depend only on those documents,
the seed and the shard's number, never on which worker made it or how many there were, so the
same seed gives the same instances with 1 worker or 16. NotNext segments are drawn from the other
documents of the same shard (Google's code draws from the whole corpus held in memory; a shard is
what lets memory stay flat however large the corpus).

Each shard is four files: `NNNNN.ids.npy` (every token id of every instance, end to end, uint16
when the vocabulary allows), `NNNNN.starts.npy` (where each instance starts; one more entry for
the end), `NNNNN.meta.npy` (per instance: length of [CLS] A [SEP], and the NSP label) and, written
last, `NNNNN.json`. A shard with its json is finished: a rerun skips it, so an interrupted run
resumes where it stopped. When every shard is written, `write_complete` adds `complete.json` (the
totals and the unigram entropy), which a run on the folder logs.
"""

from __future__ import annotations

import bisect
import json
import os
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

import numpy as np
import torch

from ..corpus.common import iter_documents
from ..pretraining_data import create_instances
from ..seeding import derive_seed
from ..tokenizer.vocab import SPECIAL_TOKENS, load_vocab


def _groups(documents: Iterator[list[str]], size: int) -> Iterator[list[list[str]]]:
    """Groups of `size` documents; a last group of one joins the group before it (NotNext needs two)."""
    group, previous = [], None
    for document in documents:
        group.append(document)
        if len(group) == size:
            if previous is not None:
                yield previous
            previous, group = group, []
    if previous is not None and len(group) < 2:
        yield previous + group
    else:
        if previous is not None:
            yield previous
        if group:
            yield group


def _documents(corpus: str | list[str], counts: dict) -> Iterator[list[str]]:
    """The documents of one file, or of several in order (never the last of one file and the first
    of the next joined, as `cat` would join them: a part does not end in a blank line)."""
    for path in [corpus] if isinstance(corpus, str) else corpus:
        yield from iter_documents(path, counts)


_tokenizer = None  # one per worker process, loaded once by _init_worker


def _init_worker(vocab: str, lowercase: bool) -> None:
    global _tokenizer
    from ..tokenizer import Tokenizer

    _tokenizer = Tokenizer.from_vocab(vocab, lowercase=lowercase)


def _write_shard(out: Path, number: int, documents: list[list[str]], settings: dict) -> dict:
    """Tokenize, cut into instances, write the four files of shard `number`; returns its json."""
    ids = _tokenizer([s for d in documents for s in d], add_special_tokens=False)["input_ids"]
    docs, at = [], 0
    for d in documents:
        docs.append(ids[at:at + len(d)])
        at += len(d)
    instances, skipped = create_instances(
        docs, cls_id=_tokenizer.cls_token_id, sep_id=_tokenizer.sep_token_id,
        seed=derive_seed(settings["seed"], number), max_seq_length=settings["max_seq_length"],
        short_seq_prob=settings["short_seq_prob"], nsp=settings["nsp"], dupe_factor=settings["dupe_factor"])
    dtype = np.uint16 if len(_tokenizer) <= 2 ** 16 else np.int32
    lengths = [len(inst.input_ids) for inst in instances]
    arrays = {
        "ids": np.fromiter((t for inst in instances for t in inst.input_ids), dtype=dtype, count=sum(lengths)),
        "starts": np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]),
        "meta": np.array([(inst.token_type_ids.index(1) if 1 in inst.token_type_ids else len(inst.input_ids),
                           inst.next_sentence_label) for inst in instances], dtype=np.int32).reshape(-1, 2),
    }
    stem = out / f"{number:05d}"
    for name, array in arrays.items():
        np.save(f"{stem}.{name}.tmp.npy", array)
        os.replace(f"{stem}.{name}.tmp.npy", f"{stem}.{name}.npy")
    info = {"shard": number, "documents": len(documents), "instances": len(instances),
            "tokens": int(sum(lengths)), "skipped": skipped}
    Path(f"{stem}.json.tmp").write_text(json.dumps(info) + "\n")
    os.replace(f"{stem}.json.tmp", f"{stem}.json")  # last: the shard is finished
    return info


def write_shards(corpus: str | Path | list[str | Path], out: str | Path, *, vocab: str | Path,
                 lowercase: bool = True, max_seq_length: int = 128, short_seq_prob: float = 0.1, nsp: bool = True,
                 dupe_factor: int = 1, seed: int = 0, docs_per_shard: int = 64, workers: int = 2) -> dict:
    """Write the instances of `corpus` into `out`, skipping finished shards. At most 2 shards per
    worker are in flight, so memory does not grow with the corpus. Returns totals. `corpus` may be
    several files (the parts of `python -m minibert.corpus stream`): their documents, in order, make
    the same shards as one file holding them all would."""
    # One file: named in settings.json as before (a folder made before resumes); several: the list.
    corpus = str(corpus) if isinstance(corpus, (str, Path)) else [str(path) for path in corpus]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    settings = dict(max_seq_length=max_seq_length, short_seq_prob=short_seq_prob, nsp=nsp,
                    dupe_factor=dupe_factor, seed=seed, vocab=str(vocab), lowercase=lowercase,
                    docs_per_shard=docs_per_shard, corpus=corpus)
    _check_settings(out, settings)
    totals = {"shards": 0, "written": 0, "documents": 0, "instances": 0, "tokens": 0, "skipped": {}}

    def add(info, written):
        totals["shards"] += 1
        totals["written"] += written
        for key in ("documents", "instances", "tokens"):
            totals[key] += info[key]
        for reason, n in info["skipped"].items():
            totals["skipped"][reason] = totals["skipped"].get(reason, 0) + n

    with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(str(vocab), lowercase)) as pool:
        running = set()
        for number, documents in enumerate(_groups(_documents(corpus, totals["skipped"]), docs_per_shard)):
            done_file = out / f"{number:05d}.json"
            if done_file.is_file():  # finished by an earlier run
                add(json.loads(done_file.read_text()), 0)
                continue
            running.add(pool.submit(_write_shard, out, number, documents, settings))
            if len(running) >= 2 * workers:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    add(future.result(), 1)
        for future in running:
            add(future.result(), 1)
    if totals["instances"] == 0:
        raise ValueError(f"{corpus} gave no instances: is it empty, or not in BERT's format (a sentence "
                         "per line, a blank line between documents)?")
    return totals


def _check_settings(out: Path, settings: dict) -> None:
    """Resuming with other settings would mix two kinds of instances in one folder: refuse."""
    path = out / "settings.json"
    if path.is_file():
        before = json.loads(path.read_text())
        if before != settings:
            changed = sorted(k for k in settings if before.get(k) != settings[k])
            raise ValueError(f"{out} holds shards made with other settings ({', '.join(changed)}); "
                             "use another folder or delete this one")
    else:
        path.write_text(json.dumps(settings, indent=2) + "\n")


class ShardDataset(torch.utils.data.Dataset):
    """The instances of a folder of finished shards, memory-mapped: opening it reads no token."""

    def __init__(self, folder: str | Path):
        folder = Path(folder)
        self.shards = []
        for info_file in sorted(folder.glob("[0-9]*.json")):
            stem = str(info_file)[:-len(".json")]
            self.shards.append({name: np.load(f"{stem}.{name}.npy", mmap_mode="r")
                                for name in ("ids", "starts", "meta")})
        if not self.shards:
            raise FileNotFoundError(f"no finished shards in {folder}; make them with write_shards")
        self.ends = np.cumsum([len(s["meta"]) for s in self.shards]).tolist()

    def __len__(self) -> int:
        return self.ends[-1]

    def __getitem__(self, i: int) -> dict:
        k = bisect.bisect_right(self.ends, i)
        shard = self.shards[k]
        j = i - (self.ends[k - 1] if k else 0)
        start, end = int(shard["starts"][j]), int(shard["starts"][j + 1])
        input_ids = torch.from_numpy(shard["ids"][start:end].astype(np.int64))
        len_a, label = (int(x) for x in shard["meta"][j])
        token_type_ids = (torch.arange(end - start) >= len_a).long()
        return {"input_ids": input_ids, "token_type_ids": token_type_ids,
                "next_sentence_label": torch.tensor(label), "index": i}


def unigram_entropy(dataset: ShardDataset, vocab: dict[str, int]) -> float:
    """Entropy (nats) of the token distribution, specials left out: the MLM loss of a model that
    ignores the context and predicts every masked token from its frequency alone."""
    counts = sum(np.bincount(shard["ids"], minlength=len(vocab)) for shard in dataset.shards)
    counts[[vocab[t] for t in SPECIAL_TOKENS.values()]] = 0
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum())


def write_complete(out: str | Path, vocab: str | Path, totals: dict, facts: dict | None = None) -> dict:
    """complete.json of a finished folder: `facts`, the totals and the unigram entropy, which a run
    on the folder logs (diagnose compares the MLM loss with it). Returns what it wrote."""
    complete = {**(facts or {}), **totals, "unigram_entropy": unigram_entropy(ShardDataset(out), load_vocab(vocab))}
    Path(out, "complete.json").write_text(json.dumps(complete, indent=2) + "\n")
    return complete


def main(argv=None) -> None:
    import argparse

    from ..hub import minilm_path

    p = argparse.ArgumentParser(prog="python -m minibert.pretrain.shards",
                                description="Write pre-training instances of a corpus in shards.")
    p.add_argument("--corpus", nargs="+", default=["data/corpus/train.txt"],
                   help="a file in BERT's format, or several (parts of one corpus, taken in the order given)")
    p.add_argument("--out", default="data/instances/train", help="folder of shards (resumes if it exists)")
    p.add_argument("--vocab", default=None, help="vocab.txt (default: the uncased BERT vocab of MiniLM)")
    p.add_argument("--cased", action="store_true", help="do not lowercase (for a cased vocab)")
    p.add_argument("--max-seq-length", type=int, default=128)
    p.add_argument("--short-seq-prob", type=float, default=0.1)
    p.add_argument("--dupe-factor", type=int, default=1)
    p.add_argument("--no-nsp", action="store_true", help="B always follows A (MLM only)")
    p.add_argument("--docs-per-shard", type=int, default=64)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    corpus = a.corpus[0] if len(a.corpus) == 1 else a.corpus  # one file: settings.json as before
    vocab = a.vocab or minilm_path() / "vocab.txt"
    totals = write_shards(corpus, a.out, vocab=vocab, lowercase=not a.cased,
                          max_seq_length=a.max_seq_length, short_seq_prob=a.short_seq_prob, nsp=not a.no_nsp,
                          dupe_factor=a.dupe_factor, seed=a.seed, docs_per_shard=a.docs_per_shard, workers=a.workers)
    print(json.dumps(write_complete(a.out, vocab, totals), indent=2))


if __name__ == "__main__":
    main()
