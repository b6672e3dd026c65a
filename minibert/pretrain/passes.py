"""How many times a run reads its corpus, said before it starts (`--plan`, and the run's first lines).

    corpus_passes(recipe("base"))   # BERT-BASE on the course corpus: thousands of passes, a warning

The paper counts its own this way (A.2): 1,000,000 steps of 128,000 tokens "is approximately 40
epochs over the 3.3 billion word corpus", tokens read over words in the corpus. A corpus file is
measured in words (counted; estimated from its first 64 MB when it is larger than 1 GB), a folder
of shards in tokens (its complete.json). BERT-BASE's recipe run on the course corpus reads it
thousands of times: the model memorises the text instead of learning the language, which is
what the warning is for.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import paper
from .recipes import PretrainConfig

PAPER_PASSES = paper.PRETRAINING["epochs"]  # about 40, by the paper's count
TOO_MANY = 100       # passes beyond which a run is warned: 2.5 times the paper's
COUNT_UP_TO = 2 ** 30  # bytes: a larger file is estimated from its first SAMPLE bytes
SAMPLE = 2 ** 26


def _words(path: Path) -> tuple[int, bool]:
    """The words of a text file (whitespace-separated) and whether that is an estimate."""
    size = path.stat().st_size
    words, read, tail = 0, 0, b""
    with open(path, "rb") as f:
        while chunk := f.read(min(1 << 24, SAMPLE)):
            read += len(chunk)
            pieces = (tail + chunk).split()
            # the last word may go on in the next block: held back, and counted once
            tail = pieces.pop() if pieces and not chunk[-1:].isspace() else b""
            words += len(pieces)
            if size > COUNT_UP_TO and read >= SAMPLE:
                return round(words * size / read), True
    return words + bool(tail), False


def corpus_size(path: str | Path) -> dict:
    """What a run's corpus holds: {"path", "unit": "words" or "tokens", "size" (None when not
    there), "how"}. `how` says where the number comes from, for the line that shows it."""
    path = Path(path)
    if path.is_dir():
        complete = path / "complete.json"
        if complete.is_file():
            return dict(path=str(path), unit="tokens", size=json.loads(complete.read_text())["tokens"],
                        how="instances' tokens, from its complete.json")
        shards = [json.loads(p.read_text()) for p in sorted(path.glob("[0-9]*.json"))]
        return dict(path=str(path), unit="tokens", size=sum(s["tokens"] for s in shards) or None,
                    how=f"{len(shards)} finished shard(s), no complete.json: still being written?")
    if path.is_file():
        words, estimated = _words(path)
        return dict(path=str(path), unit="words", size=words,
                    how=f"estimated from its first {SAMPLE:,} bytes" if estimated else "counted")
    return dict(path=str(path), unit="words", size=None, how="not there yet")


def how_to_make(path: str | Path) -> str:
    """What writes a corpus that is not there yet: a task's training text, or the course corpus."""
    path = Path(path)
    if path.name == "train.txt" and path.parent.parent.name == "tasks":
        return (f"`python -m minibert.tasks text {path.parent.name}` writes it (the task's training text, "
                "labels left out)")
    return ("`make setup` (or `python -m minibert.corpus prepare`) prepares the course corpus, and chapter 10 "
            "a large one (python -m minibert.corpus stream, then python -m minibert.pretrain.shards)")


def corpus_passes(cfg: PretrainConfig) -> dict:
    """The run's tokens over its corpus's size: {"tokens", "corpus" (corpus_size), "passes" (None
    when the corpus is not there)}."""
    tokens = cfg.max_steps * cfg.batch_size * cfg.max_seq_length
    corpus = corpus_size(cfg.train_corpus)
    return dict(tokens=tokens, corpus=corpus, passes=tokens / corpus["size"] if corpus["size"] else None)


def corpus_lines(cfg: PretrainConfig) -> list[str]:
    """The lines `--plan` and a starting run print about the data: the corpora, the passes, and a
    warning when the run would read its corpus more than TOO_MANY times."""
    p = corpus_passes(cfg)
    c = p["corpus"]
    size = f"{c['size']:,} {c['unit']} ({c['how']})" if c["size"] else c["how"]
    lines = [f"train corpus {c['path']}: {size}", f"held-out corpus {cfg.valid_corpus}"]
    if p["passes"] is None:
        lines[0] += f"; {how_to_make(c['path'])}"
        return lines
    passes = f"{p['passes']:,.1f}" if p["passes"] < TOO_MANY else f"{p['passes']:,.0f}"
    how = "tokens over words, as the paper counts" if c["unit"] == "words" else "the run's tokens over the corpus's"
    lines.append(f"the run reads {p['tokens']:.3g} tokens: {passes} passes over the corpus "
                 f"({how}; the paper's BERT read its 3.3 billion words about {PAPER_PASSES} times)")
    if p["passes"] > TOO_MANY:
        lines.append(f"warning: {passes} passes over {c['size']:,} {c['unit']}: a run that reads its corpus so many times "
                     "memorises it instead of learning the language. Pass a larger one with --train-corpus "
                     "(chapter 10: python -m minibert.corpus stream, then python -m minibert.pretrain.shards), "
                     "or fewer --max-steps")
    return lines
