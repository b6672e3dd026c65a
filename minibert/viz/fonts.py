"""Text that matplotlib can draw: the glyphs its monospace font has."""

from __future__ import annotations

import functools
from collections.abc import Sequence


@functools.cache
def _monospace_font():
    from matplotlib.font_manager import FontProperties, findfont
    from matplotlib.ft2font import FT2Font

    return FT2Font(findfont(FontProperties(family="monospace")))


def drawable(tokens: Sequence[str]) -> list[str]:
    """Characters the monospace font has no glyph for (a random replacement may be any of the vocab's
    scripts) written as U+XXXX, instead of an empty box and a warning at draw time."""
    font = _monospace_font()
    return ["".join(c if font.get_char_index(ord(c)) else f"U+{ord(c):04X}" for c in t) for t in tokens]
