"""Text that matplotlib can draw: the glyphs its fonts have.

A token from a 30,522-entry vocabulary can be in any script; the default fonts draw Latin, Greek and
Cyrillic but not, say, Japanese, and a missing glyph is drawn as an empty box with a warning. Two ways
out: `drawable` writes such characters as U+XXXX (for a view that must show every token, such as a
random replacement), and `missing_glyphs` finds them so that a figure can refuse them and its caller
can choose an example the font can draw.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence


@functools.cache
def _font(family: str):
    from matplotlib.font_manager import FontProperties, findfont
    from matplotlib.ft2font import FT2Font

    return FT2Font(findfont(FontProperties(family=[family])))  # a list: "sans-serif" is not a pattern


def _monospace_font():
    return _font("monospace")


def missing_glyphs(tokens: Sequence[str], family: str = "sans-serif") -> list[str]:
    """The characters of `tokens` that the `family` font has no glyph for, each once, in order of
    appearance (empty when everything can be drawn)."""
    font, seen = _font(family), []
    for c in "".join(tokens):
        if c not in seen and not c.isspace() and not font.get_char_index(ord(c)):
            seen.append(c)
    return seen


def drawable(tokens: Sequence[str]) -> list[str]:
    """Characters the monospace font has no glyph for (a random replacement may be any of the vocab's
    scripts) written as U+XXXX, instead of an empty box and a warning at draw time."""
    font = _monospace_font()
    return ["".join(c if font.get_char_index(ord(c)) else f"U+{ord(c):04X}" for c in t) for t in tokens]
