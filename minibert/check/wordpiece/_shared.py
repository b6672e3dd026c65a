"""What the WordPiece checkers share: minibert's reference split into words, and how a text is shown
in a case name (the corpus lines are `common.valid_lines`)."""

from __future__ import annotations

from ...tokenizer import reference


def _reference_words(text: str) -> list[str]:
    normalized, origin = reference.normalize(text)
    return [word for word, _ in reference.split_words(normalized, origin)]


def _named(text: str, limit: int = 70) -> str:
    """A text as it appears in a case name: repr, so invisible characters show; cut when long."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[:limit] + "...'"
