"""Sentence splitting for text that has no sentences marked: pysbd, a rule-based splitter that
needs no download (NLTK's punkt does, and the course runs offline).

pysbd keeps a quotation whole however many sentences it holds ('"Look ye, lad; never say that on
board the Pequod. Never say it anywhere. ..." was one "sentence" of 289 words), so its sentences
are cut again at the unmistakable sentence ends inside them, as most splitters would.

pysbd's abbreviation pass runs a regex over the whole text once per abbreviation it meets, so its
time grows with the square of the text's length (a 70 kB speech took 2.2 s, its first 10 kB
0.07 s). So a long text is first cut into chunks of about 2,000 characters at unmistakable ends,
and pysbd splits each chunk. That changes no sentence: the text is cut at those ends anyway.
"""

from __future__ import annotations

import functools
import re

import pysbd
from pysbd.lang.english import English

from .common import CorpusError

CHUNK_CHARS = 2000
SPLIT_NOTE = ("Sentences are found by pysbd, then cut again at the unmistakable sentence ends inside "
              "quotations, which pysbd keeps whole (`minibert/corpus/sentences.py`).")

# An unmistakable sentence end: a word of 3+ letters (lower case but perhaps the first), then
# . ! or ?, perhaps a closing quote or bracket, then space and a capital (perhaps after an opening
# quote). "said. The" and "Pequod. Never" are; "Mr. Smith", "U.S. Congress", "3 p.m. Monday",
# "Vol. II" and "etc. The" are not.
_SAFE_END = re.compile(r"\b([A-Z]?[a-z]{2,})[.!?][\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z])")
# pysbd's own list, so that an abbreviation it knows ("Gen.", "dept.") is never cut after, and a
# few it does not know.
_ABBREVIATIONS = frozenset(a.lower() for a in English.Abbreviation.ABBREVIATIONS) | {
    "vol", "vols", "ibid", "approx", "chap", "inst", "ult", "cit", "seq", "sect"}


@functools.cache
def _segmenter() -> pysbd.Segmenter:
    # clean=False: pysbd must not rewrite the text (its cleaner drops and joins characters).
    return pysbd.Segmenter(language="en", clean=False)


def safe_ends(text: str) -> list[int]:
    """Where unmistakable sentence ends are: the positions just after them."""
    return [m.end() for m in _SAFE_END.finditer(text) if m.group(1).lower() not in _ABBREVIATIONS]


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """`text` cut at unmistakable sentence ends into pieces of about `size` characters or fewer
    (a single sentence longer than `size` stays whole; size=0 cuts at every such end)."""
    pieces, start, last = [], 0, 0
    for cut in safe_ends(text) + [len(text)]:
        if cut - start > size and last > start:
            pieces.append(text[start:last])
            start = last
        last = cut
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p.strip()]


def split_sentences(text: str) -> list[str]:
    """The sentences of one paragraph or one long text (whitespace already squeezed): pysbd's,
    each cut again at the unmistakable ends inside it."""
    sentences = []
    for chunk in chunks(text):
        found = [s.strip() for s in _segmenter().segment(chunk)]
        # pysbd must only cut, never change the text; a version that did would corrupt the corpus.
        if "".join(found).replace(" ", "") != chunk.replace(" ", ""):
            raise CorpusError(f"pysbd {pysbd.__version__} changed the text of {chunk[:80]!r}...; the "
                              "corpus is prepared with the pysbd version pinned in pyproject.toml")
        sentences += [piece for s in found for piece in chunks(s, size=0)]
    return sentences
