"""The text the tokenizer is given: checks that it is `str`, and text files read as UTF-8.

`Tokenizer`, `learn_wordpiece` and `train_wordpiece` all take text, and all refuse what is not
text in the same words, here, before it fails deeper down as an AttributeError or a Rust panic:

    check_text(b"bytes", "text")       # TokenizerError: text must be a str, got bytes
    check_texts("one", "texts")        # ["one"]: the tokenizer takes one text as a batch of one
    list(checked_texts(["a", None]))   # TokenizerError: texts[1] is NoneType, not str

Files are read as UTF-8. A file in another encoding (Latin-1, Windows-1252, UTF-16) is refused
with the place of its first bad byte, the file, line and byte offset, instead of a bare
UnicodeDecodeError that says a "position" in some buffer and names no file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from .vocab import TokenizerError

PAIRS_HINT = "; pass pairs as two lists: tok(firsts, seconds)"  # [("a", "b")] is a likely slip


def check_text(text, name: str) -> None:
    """Refuse anything but a str; a list gets told that batches go in as lists."""
    if not isinstance(text, str):
        hint = " (a batch goes in as a list of str)" if isinstance(text, (list, tuple)) else ""
        raise TokenizerError(f"{name} must be a str, got {type(text).__name__}{hint}")


def check_texts(texts, name: str) -> list[str]:
    """A batch for the tokenizer: a list or tuple of str, or one str as a batch of one."""
    if isinstance(texts, str):
        return [texts]
    if not isinstance(texts, (list, tuple)):
        raise TokenizerError(f"{name} must be a str or a list of str, got {type(texts).__name__}")
    return list(checked_texts(texts, name, pairs_hint=True))


def checked_texts(texts: Iterable[str], name: str = "texts", *, pairs_hint: bool = False) -> Iterator[str]:
    """The texts of any iterable (a generator too), each checked as it passes. One str is refused:
    iterating over it would train on its characters, one "text" each."""
    if isinstance(texts, str):
        raise TokenizerError(f"{name} must be an iterable of strings, got one string; wrap it in a list")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            hint = PAIRS_HINT if pairs_hint and isinstance(text, (list, tuple)) else ""
            raise TokenizerError(f"{name}[{i}] is {type(text).__name__}, not str{hint}")
        yield text


def read_lines(paths: Iterable[Path]) -> Iterator[str]:
    """The lines of each file in turn, decoded as UTF-8 (a bad byte: `not_utf8`)."""
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                yield from f
        except UnicodeDecodeError as e:
            raise not_utf8(path, e) from None


def read_text(path: Path) -> str:
    """A whole (small) file decoded as UTF-8, such as a `tokenizer_config.json`."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise not_utf8(path, e) from None


def not_utf8(path: Path, error: UnicodeDecodeError) -> TokenizerError:
    """The error for a file that is not UTF-8: where its first bad byte is, and how to fix it.

    The decoder's own `error.start` counts from the start of whatever chunk it was decoding, not
    from the start of the file, so the file is read again, as bytes, line by line, to find the
    place. A line can be decoded on its own: in UTF-8 the byte b"\\n" is never part of a longer
    character. Lines are counted as `grep -n` counts them, at each b"\\n"."""
    offset = 0
    with open(path, "rb") as f:
        for number, line in enumerate(f, 1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as e:
                where = f"line {number}, byte offset {offset + e.start} ({line[e.start:e.end]!r}: {e.reason})"
                break
            offset += len(line)
        else:  # not found again (the file changed under us): say what the decoder said
            where = str(error)
    return TokenizerError(
        f"{path} is not UTF-8 text: {where}. Re-encode it as UTF-8, e.g. "
        f"`iconv -f latin1 -t utf-8 {path} > fixed.txt` for Latin-1 (`-f cp1252` for Windows, "
        f"`-f utf-16` for UTF-16), or list the lines that are not UTF-8 with `grep -naxv '.*' {path}`")
