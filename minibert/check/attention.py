"""Checkers for the exercises of chapter NN (being written)."""

__all__: list[str] = []
