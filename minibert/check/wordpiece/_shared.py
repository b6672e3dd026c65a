"""What the WordPiece checkers share: the lines of the course corpus, minibert's reference split into
words, and how a text is shown in a case name."""

from __future__ import annotations

import functools
from pathlib import Path

from ...tokenizer import reference

CORPUS = Path(__file__).resolve().parents[3] / "data" / "corpus"


@functools.lru_cache(maxsize=1)
def _valid_lines() -> tuple[str, ...]:
    path = CORPUS / "valid.txt"
    if not path.is_file():
        raise FileNotFoundError(f"the course corpus is missing ({path}); run `make setup` once to prepare it")
    return tuple(line for line in path.read_text(encoding="utf-8").split("\n") if line)


def _reference_words(text: str) -> list[str]:
    normalized, origin = reference.normalize(text)
    return [word for word, _ in reference.split_words(normalized, origin)]


def _named(text: str, limit: int = 70) -> str:
    """A text as it appears in a case name: repr, so invisible characters show; cut when long."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[:limit] + "...'"
