"""The vocabulary: `vocab.txt`, one token per line, the line number is the id.

BERT needs five special tokens in it. A vocab that lacks one, repeats a token or is empty is
refused here, with the line that is wrong, rather than failing later as a KeyError or as ids that
silently mean something else.
"""

from __future__ import annotations

from pathlib import Path

# The order BERT's own vocabularies use for the ids is irrelevant here: ids are looked up by name.
SPECIAL_TOKENS = {"pad": "[PAD]", "unk": "[UNK]", "cls": "[CLS]", "sep": "[SEP]", "mask": "[MASK]"}


class TokenizerError(ValueError):
    """A vocabulary, text or option the tokenizer cannot use."""


def load_vocab(path: str | Path) -> dict[str, int]:
    """Read `vocab.txt` (a file, or a folder holding one) into {token: id}."""
    path = Path(path)
    if path.is_dir():
        path = path / "vocab.txt"
    if not path.is_file():
        raise TokenizerError(f"no vocabulary file at {path}; pass the path of a BERT vocab.txt "
                             "(one token per line) or of the folder that holds it")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise TokenizerError(f"{path} is not UTF-8 text ({e}); is it really a vocab.txt?") from None
    # splitlines() would also split on \x0b, \x1c, \u2028 ...; a vocab file is split on \n only,
    # and a \r before it (a file saved on Windows) is not part of the token.
    tokens = text.split("\n")
    if tokens and tokens[-1] == "":
        tokens.pop()  # the newline that ends the last line
    tokens = [t[:-1] if t.endswith("\r") else t for t in tokens]
    return check_vocab(tokens, source=str(path))


def check_vocab(tokens: list[str], source: str = "the vocabulary") -> dict[str, int]:
    """{token: id} from tokens in id order, after checking what BERT relies on."""
    if not tokens:
        raise TokenizerError(f"{source} is empty; a BERT vocab.txt has one token per line")
    vocab: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token == "" or token != token.strip():
            raise TokenizerError(f"{source}, line {i + 1}: token {token!r} is empty or has surrounding "
                                 "whitespace, which no tokenizer can produce; remove or fix the line")
        if token in vocab:
            raise TokenizerError(f"{source}, line {i + 1}: {token!r} already appears on line "
                                 f"{vocab[token] + 1}; ids would be ambiguous")
        vocab[token] = i
    missing = [t for t in SPECIAL_TOKENS.values() if t not in vocab]
    if missing:
        raise TokenizerError(f"{source} lacks the special token(s) {', '.join(missing)}; BERT needs all of "
                             f"{', '.join(SPECIAL_TOKENS.values())} (train_wordpiece adds them)")
    return vocab


def save_vocab(vocab: dict[str, int], path: Path) -> None:
    tokens = sorted(vocab, key=vocab.get)
    path.write_text("".join(t + "\n" for t in tokens), encoding="utf-8")
