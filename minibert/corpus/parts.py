"""A process's part of a streamed corpus, written in BERT's format as the documents arrive, and the
held-out split carved from it: `write_part` (stream.py says where the documents come from).

A part is written through a .tmp file and renamed when whole, so it is never half there; its counts
(documents, sentences, words, bytes, sha256) go to the .json beside it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

from .build import bert_format
from .common import CorpusError, Document

# One document in 2,000: of the Hub's 6.4M Wikipedia articles and 74M BookCorpus sentences (578k runs
# of 128), about 3,200 articles and 290 runs, some 1.6M words (the paper names no held-out split).
HELD_OUT = 0.0005


def check_share(share: float, given: str) -> None:
    """Refuse a held-out share outside [0, 1); `given` is how the caller's user wrote it."""
    if not 0 <= share < 1:
        raise CorpusError(f"{given}: the share of documents held out, at least 0 and below 1 ({HELD_OUT} holds "
                          f"out one document in {round(1 / HELD_OUT):,}; 0 none)")


def held_out(text: bytes, share: float) -> bool:
    """Whether a document (its text in BERT's format) belongs to the held-out split: the first 8
    bytes of its sha256, read as a fraction of 2**64, fall below `share`. The text alone decides, so
    the split is the same whatever the number of processes and the order of the stream, a document
    is never in both, and exact duplicates fall on the same side."""
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") < share * 2 ** 64


class _Part:
    """One file of a part, written through a .tmp (a part is whole or absent), with its counts."""

    def __init__(self, out: Path, name: str, rank: int, world: int):
        out.mkdir(parents=True, exist_ok=True)
        self.text, self.tmp = out / f"{name}.txt", out / f"{name}.txt.tmp"
        self.counts = dict(part=self.text.name, rank=rank, world=world, documents=0, sentences=0, words=0, bytes=0)
        self.sha256, self.file = hashlib.sha256(), open(self.tmp, "wb")

    def add(self, doc: Document, data: bytes) -> None:
        data = (b"\n" if self.counts["documents"] else b"") + data  # a blank line between documents
        self.file.write(data)
        self.sha256.update(data)
        self.counts["documents"] += 1
        self.counts["sentences"] += len(doc.sentences)
        self.counts["words"] += doc.words
        self.counts["bytes"] += len(data)

    def abandon(self) -> None:
        self.file.close()
        self.tmp.unlink(missing_ok=True)

    def finish(self, meta: dict) -> dict:
        self.file.close()
        os.replace(self.tmp, self.text)  # atomic
        counts = {**self.counts, "sha256": self.sha256.hexdigest(), **meta}
        write_text(self.text.with_suffix(".json"), json.dumps(counts, indent=1, ensure_ascii=False) + "\n")
        return counts


def write_part(documents: Iterable[Document | list[str]], out_dir: str | Path, rank: int, world: int,
               *, meta: dict | None = None, held_out_share: float = 0.0) -> dict:
    """Write `documents` to `out_dir/part-RRRRR-of-WWWWW.txt` in BERT's format (a sentence per line,
    a blank line between documents), one document at a time, and its counts (documents,
    sentences, words, bytes, sha256 of the text, and `meta`, read once the part is written, so a
    tally filled while streaming is complete) to the `.json` beside it. Returns the counts.

    With `held_out_share` > 0, the documents that `held_out` picks go instead to the same name in
    `out_dir/held-out/` (counts beside it, and under "held_out" in the returned counts): the split a
    run at scale is evaluated on, carved as the corpus streams, the same for any number of processes."""
    check_share(held_out_share, f"held_out_share={held_out_share}")
    out, name = Path(out_dir), f"part-{rank:05d}-of-{world:05d}"
    train = _Part(out, name, rank, world)
    valid = _Part(out / "held-out", name, rank, world) if held_out_share else None
    try:
        for n, doc in enumerate(documents):
            if not isinstance(doc, Document):
                doc = Document("", str(n), "", list(doc))
            data = bert_format([doc])  # checks each sentence
            (valid if valid and held_out(data, held_out_share) else train).add(doc, data)
    except BaseException:
        for part in (train, valid):
            if part:
                part.abandon()
        raise
    counts = train.finish(meta or {})
    if valid:
        counts["held_out"] = valid.finish({"held_out_share": held_out_share, **(meta or {})})
    return counts


def write_text(path: Path, text: str) -> None:
    path.with_name(path.name + ".tmp").write_text(text, encoding="utf-8")
    os.replace(path.with_name(path.name + ".tmp"), path)
