"""Training a WordPiece vocabulary on text, with the Rust `tokenizers` trainer.

The trainer starts from single characters (the alphabet, and each again as a "##" continuation)
and merges the most frequent adjacent pairs until the vocabulary has `vocab_size` entries. BERT's
special tokens come first, then `[unusedN]` slots: spare ids that a later task can give a meaning
without resizing the embeddings (Google's vocabularies keep 994 of them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from tokenizers import Tokenizer as RustTokenizer
from tokenizers import models, normalizers, pre_tokenizers, trainers

from .reference import is_punctuation
from .text import checked_texts, read_lines
from .tokenizer import Tokenizer
from .vocab import SPECIAL_TOKENS, TokenizerError


def train_wordpiece(files: Iterable[str | Path] | None = None, *, texts: Iterable[str] | None = None,
                    vocab_size: int = 30522, lowercase: bool = True, strip_accents: bool | None = None,
                    min_frequency: int = 2, num_unused: int = 0, limit_alphabet: int = 1000,
                    out_dir: str | Path | None = None, show_progress: bool = False) -> Tokenizer:
    """Train on text `files` (read line by line) or on an iterable of `texts`; returns a
    `Tokenizer` and, with `out_dir`, saves it there (`vocab.txt` loads in transformers.BertTokenizer).

    limit_alphabet  keep only the most frequent characters; rarer ones become [UNK].
    min_frequency   a merge must be seen this often to enter the vocabulary.
    """
    if (files is None) == (texts is None):
        raise TokenizerError("pass either files=[paths of text files] or texts=[strings], not both or neither")
    specials = list(SPECIAL_TOKENS.values()) + [f"[unused{i}]" for i in range(num_unused)]
    if not isinstance(vocab_size, int) or vocab_size <= len(specials):
        raise TokenizerError(f"vocab_size={vocab_size!r} leaves no room for pieces after the "
                             f"{len(specials)} special and unused tokens")

    if files is not None:
        paths = [Path(f) for f in ([files] if isinstance(files, (str, Path)) else files)]
        missing = [str(p) for p in paths if not p.is_file()]
        if not paths or missing:
            raise TokenizerError(f"no text file at {', '.join(missing)}" if missing else "files is empty")
    else:
        texts = list(checked_texts(texts))

    rust = RustTokenizer(models.WordPiece(unk_token=SPECIAL_TOKENS["unk"], continuing_subword_prefix="##"))
    rust.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                 strip_accents=strip_accents, lowercase=lowercase)
    rust.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    # Read here in Python first, for the "##" pieces: a file that is not UTF-8 stops here, with
    # its line and byte, before Rust reads it.
    lines = read_lines(paths) if files is not None else texts
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, min_frequency=min_frequency, limit_alphabet=limit_alphabet,
        special_tokens=specials + _continuations(lines, rust.normalizer, limit_alphabet),
        continuing_subword_prefix="##", show_progress=show_progress)
    if files is not None:
        rust.train([str(p) for p in paths], trainer)
    else:
        rust.train_from_iterator(texts, trainer)

    vocab = rust.get_vocab()
    tokenizer = Tokenizer(vocab, lowercase=lowercase, strip_accents=strip_accents)
    if out_dir is not None:
        tokenizer.save(out_dir)
    return tokenizer


def _continuations(lines: Iterable[str], normalizer, limit_alphabet: int) -> list[str]:
    """"##" + each of the `limit_alphabet` most frequent characters (after normalisation) that can
    continue a word, in a fixed order.

    The Rust trainer creates these pieces as it walks a hash map of words, so their ids, and with
    them the tie-breaks between equally frequent merges, change from run to run: the same text gave
    different vocabularies (tokenizers issue #1794). Handed over up front, in a fixed order, they
    make training deterministic. Passed as "special tokens" only for that; the vocab keeps them as
    ordinary entries."""
    counts = Counter()
    for line in lines:
        counts.update(normalizer.normalize_str(line))
    chars = [c for c in counts if not c.isspace() and not is_punctuation(c)]
    chars = sorted(chars, key=lambda c: (-counts[c], c))[:limit_alphabet]
    return ["##" + c for c in sorted(chars)]
