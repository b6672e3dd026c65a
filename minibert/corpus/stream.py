"""Pre-training data at scale: a corpus on the Hugging Face Hub, streamed record by record into
BERT's format, each process (or machine) writing its own share of it.

    dataset = open_stream("wikipedia")                    # online: wikimedia/wikipedia, 20231101.en
    dataset = open_stream(local_sample("sample/wiki"))    # offline: the same code on local jsonl files
    write_part(stream_documents(dataset, rank=0, world=2), "parts", rank=0, world=2)   # parts.py

One command on every process, `python -m minibert.corpus stream --source wikipedia --out parts`
(rank and world from RANK and WORLD_SIZE, as torchrun and accelerate set them), writes
`parts/part-0000r-of-0000W.txt` (and its held-out documents to `parts/held-out/`, the same name);
`python -m minibert.pretrain.shards --corpus parts/part-*.txt`
turns the parts, in order, into shards. Memory stays flat at any size: `datasets` reads a file in
blocks (10 MB of JSON lines, a Parquet row group), and each record becomes one document that is
written and let go. Nothing here holds more than one document.

The paper (§3.1) pre-trains on BooksCorpus (800M words) and English Wikipedia (2,500M words; "we
extract only the text passages and ignore lists, tables, and headers"). Departures: the Hub's
BookCorpus has no book boundaries (see HUB_SOURCES), and documents keep the stream's order where
Google's `create_pretraining_data.py` shuffles the documents of its input, so NotNext segments,
drawn from the same shard of 64 consecutive documents, come from nearby text.
"""

from __future__ import annotations

import bz2
import difflib
import json
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from ..hub import fetch, hub_offline, hub_unreachable
from . import moby_dick, wikipedia
from .common import CorpusError, Document, Tally, squeeze, tidy_sentences
from .parts import write_text
from .records import check_text, missing_field, open_local, parsed
from .sentences import split_sentences
from .wikitext import to_paragraphs

DATASETS_PIN = "datasets==5.2.0"
# Local files `open_stream` reads, by suffix (`.jsonl.gz` and other compressed ones too): the
# builder of `datasets` that reads them. A .txt file is read a line per record, as BookCorpus is.
LOCAL_FORMATS = {".jsonl": "json", ".json": "json", ".parquet": "parquet", ".txt": "text"}
PARAGRAPH_END = ".!?:;"   # a Wikipedia line that ends otherwise is a heading or a list item
CLOSERS = "\"'”’)]"       # ...after which a closing quote or bracket may stand


@dataclass(frozen=True)
class HubCorpus:
    """A corpus on the Hub and how its records become documents of sentences."""
    path: str                  # the Hub repository
    name: str | None           # its configuration
    text_field: str
    records: str               # "articles": a record is a document; "sentences": a record is a sentence
    licence: str               # one line: licence and caveat
    revision: str | None = None
    sentences_per_document: int = 0  # records="sentences": a document is a run of this many records


HUB_SOURCES = {
    "wikipedia": HubCorpus(
        "wikimedia/wikipedia", "20231101.en", "text", "articles",
        licence="Wikipedia's contributors, CC BY-SA and GFDL: attribute (each record's url) and share alike; "
                "a record is an article, paragraphs split on newlines; headings and list items are dropped "
                "as the paper does; sentences by pysbd."),
    # The Hub's BookCorpus (Zhu et al. 2015, as Hugging Face re-collected it): 74,004,228 records of
    # one lower-cased, tokenized sentence each ("usually , he would be ..."), books one after another
    # with no boundary marked. Its repository held a loading script, which `datasets` 4 and later no
    # longer run, so the Hub's own Parquet export (refs/convert/parquet) is read (not tried from our
    # offline machines; if it fails, pass another revision=).
    "bookcorpus": HubCorpus(
        "bookcorpus/bookcorpus", None, "text", "sentences", revision="refs/convert/parquet",
        # 74M records / 128 = 578k documents; with ~11k books, at most 2% of documents straddle two.
        sentences_per_document=128,
        licence="licence unknown (its card says so): ~11k self-published books scraped from smashwords.com, "
                "copyright with their authors, no longer distributed by its makers. No book boundaries: a "
                "document is a run of 128 consecutive records, not the paper's whole book."),
}


def _datasets():
    try:
        import datasets
    except ImportError:
        raise CorpusError(f"streaming a corpus needs `datasets`, not installed: `pip install {DATASETS_PIN}`") from None
    return datasets


def hub_source(name: str) -> HubCorpus:
    if name in HUB_SOURCES:
        return HUB_SOURCES[name]
    close = difflib.get_close_matches(str(name), HUB_SOURCES, n=1)
    raise CorpusError(f"unknown source {name!r}: {f'did you mean {close[0]!r}? ' if close else ''}the sources "
                      f"are {sorted(HUB_SOURCES)}, or local files or folders ({', '.join(LOCAL_FORMATS)})")


def local_files(paths: str | Path | Iterable[str | Path]) -> tuple[str, list[Path]]:
    """The builder of `datasets` and the files, in order, of a file, a folder or a list of them."""
    files = []
    for path in [paths] if isinstance(paths, (str, Path)) else paths:
        path = Path(path)
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if _builder(p))
        elif path.is_file():
            files.append(path)
        elif len(path.parts) == 1 and not _builder(path):
            hub_source(str(path))  # a name, not a path: say which source was meant
        else:
            raise CorpusError(f"{path}: no such file or folder")
    if len(builders := {_builder(f) for f in files}) != 1 or None in builders:
        raise CorpusError(f"{paths}: give files of one format ({', '.join(LOCAL_FORMATS)}), or a folder of them; "
                          f"got {[f.name for f in files][:5] or 'no such files'}")
    return builders.pop(), files


def _builder(path: Path) -> str | None:
    known = [LOCAL_FORMATS[s] for s in path.suffixes if s.lower() in LOCAL_FORMATS]
    return known[-1] if known else None


def open_stream(source_or_path, *, data_files=None, revision: str | None = None):
    """A `datasets.IterableDataset` (streaming=True, nothing downloaded ahead): a name of HUB_SOURCES
    (online), local files or folders (json/jsonl/parquet/text), or a builder of `datasets` ("json",
    "parquet", "text") with its `data_files`."""
    if data_files is None and isinstance(source_or_path, str) and source_or_path in HUB_SOURCES:
        s, datasets = HUB_SOURCES[source_or_path], _datasets()
        if not hub_offline() and (why := hub_unreachable()):  # else `datasets` retries for ~25 s first
            raise CorpusError(f"{source_or_path}: the Hugging Face Hub cannot be reached ({why}), so `datasets` "
                              f"cannot open {s.path}. Offline, pass local files (`... corpus sample` makes some)")
        try:
            return datasets.load_dataset(s.path, s.name, split="train", streaming=True, revision=revision or s.revision)
        except Exception as e:  # offline, or the Hub moved: say what was tried
            raise CorpusError(f"{source_or_path}: `datasets` could not open {s.path} ({s.name}, revision "
                              f"{revision or s.revision}): {type(e).__name__}: {e}. Offline, pass local files "
                              "(`local_sample` writes a sample in the Hub's schema).") from e
    if data_files is not None:
        builder, files = str(source_or_path), [data_files] if isinstance(data_files, (str, Path)) else data_files
    else:
        builder, files = local_files(source_or_path)  # a mistaken name or path is named before the import
    return open_local(_datasets().load_dataset, builder, [Path(f) for f in files])


def stream_documents(dataset, *, source: str = "wikipedia", text_field: str | None = None, rank: int = 0,
                     world: int = 1, tally: Tally | None = None) -> Iterator[Document]:
    """This process's share of `dataset`'s documents, made the way HUB_SOURCES[source] says; what
    is dropped (empty documents, headings, lines without a letter) is counted in `tally`."""
    if not (isinstance(world, int) and isinstance(rank, int) and world >= 1 and 0 <= rank < world):
        raise CorpusError(f"rank={rank}, world={world}: the rank is a process's number, 0 to world - 1 "
                          "(torchrun and accelerate set RANK and WORLD_SIZE)")
    recipe = hub_source(source)
    field = text_field or recipe.text_field
    if dataset.column_names is not None and field not in dataset.column_names:
        raise missing_field(field, dataset.column_names)  # known up front for json and parquet
    tally = Tally() if tally is None else tally
    _datasets()  # installed, or say how to install it
    from datasets.distributed import split_dataset_by_node

    if recipe.records == "sentences":
        # Records are sentences of a book: a process must get whole runs of consecutive records, so
        # the records are batched into runs first and the runs dealt out, every world-th to each
        # process (strategy="examples"), whatever the number of files. Every process reads the
        # whole stream and keeps its runs: the parts do not depend on how the files fall.
        n = recipe.sentences_per_document
        runs = split_dataset_by_node(dataset.batch(n), rank=rank, world_size=world, strategy="examples")
        return _runs(parsed(runs, dataset), source, field, n, rank, world, tally)
    # A record is a document. When the number of files (dataset.num_shards) is a multiple of world,
    # split_dataset_by_node gives each process whole files (file i to rank i % world), and each
    # reads only its own; otherwise every process reads every file and keeps every world-th record.
    # Either way the parts together hold each document once. Choose a world that divides the
    # number of files to spare the reading (wikimedia/wikipedia: see dataset.num_shards).
    return _articles(parsed(split_dataset_by_node(dataset, rank=rank, world_size=world), dataset), source, field,
                     rank, tally)


def _articles(records, source: str, field: str, rank: int, tally: Tally) -> Iterator[Document]:
    for n, record in enumerate(records):
        if field not in record:
            raise missing_field(field, record)
        doc_id, title = str(record.get("id", f"{rank}-{n}")), str(record.get("title") or "")
        where = f"{doc_id} {title}".strip()
        check_text(field, [record[field]], f"record {where!r}")
        sentences = article_sentences(record[field] or "", where, tally)
        if sentences:
            yield Document(source, doc_id, title, sentences, link=str(record.get("url") or ""))
        else:
            tally.drop("documents: empty once cleaned", where)


def article_sentences(text: str, where: str, tally: Tally) -> list[str]:
    """An article's text (paragraphs on lines of their own) -> its sentences. A line that does not
    end a sentence is a heading or a list item: the paper keeps "only the text passages"."""
    sentences = []
    for line in text.split("\n"):
        if not (paragraph := squeeze(line)):
            continue
        if paragraph.rstrip(CLOSERS)[-1:] not in PARAGRAPH_END:
            tally.drop("lines: headings and list items (no sentence end)", f"{where}: {paragraph[:40]!r}")
            continue
        sentences += split_sentences(paragraph)
    return tidy_sentences(sentences, where, tally)


def _runs(runs, source: str, field: str, n: int, rank: int, world: int, tally: Tally) -> Iterator[Document]:
    for k, run in enumerate(runs):
        if field not in run:
            raise missing_field(field, run)
        first = (k * world + rank) * n  # run k of this process is run k·world + rank of the stream
        where = f"records {first}-{first + len(run[field]) - 1}"
        check_text(field, run[field], where)
        lines = [squeeze(text or "") for text in run[field]]
        if empty := lines.count(""):
            tally.drop("records: empty", where, n=empty)
        sentences = tidy_sentences([line for line in lines if line], where, tally)
        if sentences:
            yield Document(source, str(first), where, sentences)
        else:
            tally.drop("documents: empty once cleaned", where)


def local_sample(out_dir: str | Path, source: str = "wikipedia", files: int = 4, *,
                 cache: str | Path = "data/cache", limit: int | None = None) -> list[Path]:
    """SAMPLES, in the Hub datasets' own schemas, for trying the pipeline offline; not the corpora.

    "wikipedia": the course's Wikipedia sample (the April 2016 articles inside the gensim wheel,
    which `wikipedia.py` reads), as wikimedia/wikipedia records {"id", "url", "title", "text"},
    markup stripped, paragraphs joined by "\\n". "bookcorpus": Moby-Dick (the npm package), one
    sentence per record {"text"}, as the Hub's BookCorpus; unlike it, cased and untokenized. The
    records are split in order across `files` jsonl files (`train-0000k-of-0000F.jsonl`), so that
    sharding by file can be shown; `limit`: only the first articles, or chapters. Returns the files."""
    hub_source(source)
    if source == "wikipedia":
        records = _wikipedia_records(fetch(wikipedia.SOURCE.package, Path(cache)), limit)
    else:
        chapters = islice(moby_dick.read(fetch(moby_dick.SOURCE.package, Path(cache)), Tally()), limit)
        records = [{"text": s} for chapter in chapters for s in chapter.sentences]
    if not 1 <= files <= len(records):
        raise CorpusError(f"files={files}: the {source} sample has {len(records)} records; ask for 1 to that many")
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    paths = [Path(out_dir) / f"train-{k:05d}-of-{files:05d}.jsonl" for k in range(files)]
    for k, path in enumerate(paths):
        piece = records[k * len(records) // files:(k + 1) * len(records) // files]
        write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in piece))
    return paths


def _wikipedia_records(archive: Path, limit: int | None) -> list[dict]:
    records = []
    with zipfile.ZipFile(archive) as wheel, wheel.open(wikipedia.MEMBER) as compressed, bz2.open(compressed) as xml:
        for page in wikipedia.pages(xml):
            if limit is not None and len(records) >= limit:
                break
            if page.get("ns", "0") != "0" or page["redirect"]:  # the Hub's dumps hold articles only
                continue
            paragraphs = [squeeze(p) for p in to_paragraphs(page.get("text", ""))]
            if paragraphs:
                title = page.get("title", "")
                records.append({"id": page["id"], "url": f"https://en.wikipedia.org/wiki/{title.replace(' ', '_')}",
                                "title": title, "text": "\n".join(p for p in paragraphs if p)})
    return records
