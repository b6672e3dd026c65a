"""`minibert.Tokenizer`: one face for the reference and the fast path.

    tok = Tokenizer.from_vocab("vocab.txt")              # fast=True by default
    tok.tokenize("UNwanted, running")                    # ['unwanted', ',', 'running']
    enc = tok("Call me Ishmael.", "Some years ago...")   # [CLS] A [SEP] B [SEP]
    enc["input_ids"], enc["token_type_ids"], enc["attention_mask"]
    batch = tok(lines, padding=True, truncation=True, max_length=128, return_tensors="pt")

How an encoding is made, for both paths:
1. the backend turns each text into [CLS] A [SEP] (B [SEP]), with token types and spans;
2. rows longer than the limit are cut the way BERT cuts them (`fit_rows`, packing.py);
3. rows are padded, and turned into tensors if asked (`pad_rows`, `as_tensors`, encoding.py).
Step 1 is Rust on the fast path; steps 2 and 3 are the Python below on both paths, so the two can
only differ where their step 1 does, which the tests rule out on real text.
"""

from __future__ import annotations

import contextlib
import gc
import json
import logging
from pathlib import Path

# PAD_VALUES is not used here; imported so that it stays importable from here, where it was.
from .encoding import FIELDS, PAD_VALUES, PADDING, Encoding, as_tensors, pad_rows  # noqa: F401
from .fast import build_fast_tokenizer
from .packing import extend_over_marks, fit_rows, length_limit, pack
from .reference import ReferenceTokenizer, join_pieces
from .text import check_text, check_texts, read_text
from .vocab import SPECIAL_TOKENS, TokenizerError, check_vocab, load_vocab, save_vocab

logger = logging.getLogger(__name__)


class Tokenizer:
    """BERT's WordPiece tokenizer. `fast=False` runs the pure-Python reference (`reference.py`)."""

    def __init__(self, vocab: dict[str, int], *, lowercase: bool = True, strip_accents: bool | None = None,
                 fast: bool = True, model_max_length: int = 512):
        self.ids_to_tokens = sorted(vocab, key=vocab.get)  # id -> token, the lines of vocab.txt
        if [vocab[t] for t in self.ids_to_tokens] != list(range(len(vocab))):
            raise TokenizerError("vocab ids must run 0, 1, ..., len(vocab) - 1, one token each")
        self.vocab = check_vocab(self.ids_to_tokens, source="the vocab")
        self.lowercase, self.strip_accents, self.fast = lowercase, strip_accents, fast
        self.model_max_length = model_max_length
        self.pad_token, self.unk_token, self.cls_token, self.sep_token, self.mask_token = (
            SPECIAL_TOKENS[k] for k in ("pad", "unk", "cls", "sep", "mask"))
        self.pad_token_id, self.unk_token_id, self.cls_token_id, self.sep_token_id, self.mask_token_id = (
            vocab[t] for t in (self.pad_token, self.unk_token, self.cls_token, self.sep_token, self.mask_token))
        self.all_special_tokens = list(SPECIAL_TOKENS.values())
        self.all_special_ids = [vocab[t] for t in self.all_special_tokens]
        self._reference = ReferenceTokenizer(vocab, self.all_special_tokens, lowercase, strip_accents,
                                             self.unk_token)
        self._fast = build_fast_tokenizer(vocab, SPECIAL_TOKENS, lowercase, strip_accents) if fast else None
        _warn_if_case_mismatch(vocab, lowercase)

    # ---- loading and saving ----------------------------------------------------------------------

    @classmethod
    def from_vocab(cls, path, lowercase: bool = True, fast: bool = True, **kwargs) -> "Tokenizer":
        """From a `vocab.txt` (or the folder that holds it). `lowercase=True` for uncased vocabs."""
        return cls(load_vocab(path), lowercase=lowercase, fast=fast, **kwargs)

    @classmethod
    def from_pretrained(cls, name_or_path, fast: bool = True, **overrides) -> "Tokenizer":
        """From a folder (or Hub id) with `vocab.txt`, reading `do_lower_case`, `strip_accents` and
        `model_max_length` from its `tokenizer_config.json` when there is one."""
        from ..hub import resolve

        folder = resolve(name_or_path, what="a tokenizer folder (one holding vocab.txt)")
        settings = {}
        config_file = folder / "tokenizer_config.json"
        if config_file.is_file():
            config = json.loads(read_text(config_file))
            settings = {k: config[hf] for k, hf in (("lowercase", "do_lower_case"),
                                                    ("strip_accents", "strip_accents"),
                                                    ("model_max_length", "model_max_length")) if hf in config}
            if settings.get("model_max_length", 0) > 1e9:  # transformers' "no limit" placeholder
                del settings["model_max_length"]
        return cls.from_vocab(folder, fast=fast, **{**settings, **overrides})

    def save(self, directory) -> Path:
        """Write `vocab.txt`, `tokenizer.json` and `tokenizer_config.json`: what `from_pretrained`,
        `transformers.BertTokenizer.from_pretrained` and `tokenizers.Tokenizer.from_file` read."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        save_vocab(self.vocab, directory / "vocab.txt")
        fast = self._fast or build_fast_tokenizer(self.vocab, SPECIAL_TOKENS, self.lowercase, self.strip_accents)
        fast.save(str(directory / "tokenizer.json"))
        config = {"tokenizer_class": "BertTokenizer", "do_lower_case": self.lowercase,
                  "strip_accents": self.strip_accents, "tokenize_chinese_chars": True,
                  "model_max_length": self.model_max_length,
                  **{f"{k}_token": t for k, t in SPECIAL_TOKENS.items()}}
        (directory / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        return directory

    # ---- tokens and ids --------------------------------------------------------------------------

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def __len__(self) -> int:
        return len(self.vocab)

    def tokenize(self, text: str) -> list[str]:
        """Text -> WordPiece tokens, no special tokens added: 'UNwanted' -> ['un', '##want', '##ed']."""
        check_text(text, "text")
        if self._fast is not None:
            return self._fast.encode(text, add_special_tokens=False).tokens
        return [piece for piece, _, _ in self._reference.tokenize(text)]

    def convert_tokens_to_ids(self, tokens):
        if isinstance(tokens, str):
            return self.vocab.get(tokens, self.unk_token_id)
        return [self.vocab.get(t, self.unk_token_id) for t in tokens]

    def convert_ids_to_tokens(self, ids):
        if isinstance(ids, int):
            return self.ids_to_tokens[self._check_ids([ids])[0]]
        return [self.ids_to_tokens[i] for i in self._check_ids(ids)]

    def decode(self, ids, skip_special_tokens: bool = False):
        """Ids -> text: "##" pieces joined to the piece before, spaces before punctuation removed,
        as transformers does. A batch (list of lists, 2-D tensor) gives a list of strings."""
        ids = ids.tolist() if hasattr(ids, "tolist") else ids
        if isinstance(ids, (list, tuple)) and ids and isinstance(ids[0], (list, tuple)):
            return [self.decode(row, skip_special_tokens) for row in ids]
        ids = self._check_ids(ids)
        if self._fast is not None:
            return self._fast.decode(ids, skip_special_tokens=skip_special_tokens)
        special = set(self.all_special_ids) if skip_special_tokens else set()
        return join_pieces([self.ids_to_tokens[i] for i in ids if i not in special])

    def _check_ids(self, ids) -> list[int]:
        ids = ids.tolist() if hasattr(ids, "tolist") else ids
        ids = [ids] if isinstance(ids, int) else list(ids)
        for i in ids:
            if not isinstance(i, int) or not 0 <= i < len(self.vocab):
                raise TokenizerError(f"id {i!r} is not a token id of this vocabulary (0 .. {len(self.vocab) - 1})")
        return ids

    # ---- encoding --------------------------------------------------------------------------------

    def __call__(self, text, text_pair=None, **kwargs) -> Encoding:
        """One text (str) -> `encode`; a list of texts -> `encode_batch`."""
        if isinstance(text, (list, tuple)):
            return self.encode_batch(text, text_pair, **kwargs)
        return self.encode(text, text_pair, **kwargs)

    def encode(self, text: str, text_pair: str | None = None, **kwargs) -> Encoding:
        """[CLS] text [SEP] (text_pair [SEP]) as ids, token types and attention mask: lists, or with
        return_tensors="pt" a batch of one, (1, T), ready for `model(**enc)`. Options as in
        `encode_batch`."""
        check_text(text, "text")
        if text_pair is not None:
            check_text(text_pair, "text_pair")
        batch = self.encode_batch([text], None if text_pair is None else [text_pair], **kwargs)
        if kwargs.get("return_tensors") is not None:
            return batch
        return Encoding({k: v[0] for k, v in batch.items()})

    def encode_batch(self, texts, text_pairs=None, *, add_special_tokens: bool = True, max_length: int | None = None,
                     truncation: bool = False, padding=False, return_offsets_mapping: bool = False,
                     return_special_tokens_mask: bool = False, return_tensors: str | None = None) -> Encoding:
        """Encode a list of texts (and a list of second texts for pairs).

        max_length   the limit in tokens, special tokens included; with truncation=False a longer
                     row is an error, so nothing is dropped without asking. Default: no limit, or
                     `model_max_length` when truncating or padding to "max_length".
        truncation   cut rows to the limit; a pair loses tokens from its longer side first (BERT).
        padding      False, True / "longest" (to the longest row) or "max_length".
        return_offsets_mapping      (start, end) of each token in its text; (0, 0) for added tokens.
        return_special_tokens_mask  1 at [CLS], [SEP] and padding, 0 at tokens of the text.
        return_tensors              None for lists, "pt" for torch tensors (rows must be padded).
        """
        texts = check_texts(texts, "texts")
        if text_pairs is not None:
            text_pairs = check_texts(text_pairs, "text_pairs")
            if len(text_pairs) != len(texts):
                raise TokenizerError(f"got {len(texts)} texts but {len(text_pairs)} text_pairs; "
                                     "each text needs its own pair")
        if padding not in PADDING:
            raise TokenizerError(f"padding={padding!r}; use False, True, 'longest' or 'max_length'")
        if return_tensors not in (None, "pt"):
            raise TokenizerError(f"return_tensors={return_tensors!r}; use None (lists) or 'pt' (torch tensors)")
        padding = PADDING[padding]
        pair = text_pairs is not None
        n_special = (3 if pair else 2) if add_special_tokens else 0
        limit = length_limit(max_length, truncation, padding, n_special, self.model_max_length)

        with _gc_paused():  # thousands of small lists, no cycles: see _gc_paused
            rows = self._encode_rows(texts, text_pairs, add_special_tokens, return_offsets_mapping,
                                     return_special_tokens_mask)
            if limit is not None:
                fit_rows(rows, limit, truncation, pair, n_special)
            if return_offsets_mapping and self._strips_accents():
                rows["offset_mapping"] = [
                    extend_over_marks(offsets, types, texts[i], None if text_pairs is None else text_pairs[i])
                    for i, (offsets, types) in enumerate(zip(rows["offset_mapping"], rows["token_type_ids"]))]
            rows = {field: column for field, column in rows.items() if column is not None}
            if padding is not None:
                rows = pad_rows(rows, padding, limit, self.pad_token_id)
            if return_tensors == "pt":
                return Encoding(as_tensors(rows))
            return Encoding(rows)

    def _encode_rows(self, texts, text_pairs, add_special_tokens, want_offsets, want_special) -> dict[str, list]:
        """Step 1: every row packed and untruncated, as lists in the columns of FIELDS (None for a
        column nobody asked for: every column read out of Rust costs time)."""
        if self._fast is not None:
            inputs = texts if text_pairs is None else list(zip(texts, text_pairs))
            encodings = self._fast.encode_batch(inputs, add_special_tokens=add_special_tokens)
            ids = [e.ids for e in encodings]
            # Nothing is padded yet, and a single text is all type 0: lists built here cost less
            # than reading them out of Rust.
            types = [e.type_ids for e in encodings] if text_pairs is not None else [[0] * len(r) for r in ids]
            return {"input_ids": ids, "token_type_ids": types, "attention_mask": [[1] * len(r) for r in ids],
                    "offset_mapping": [e.offsets for e in encodings] if want_offsets else None,
                    "special_tokens_mask": [e.special_tokens_mask for e in encodings] if want_special else None}
        rows = {field: [] for field in FIELDS}
        for i, text in enumerate(texts):
            a = self._reference.tokenize(text)
            b = None if text_pairs is None else self._reference.tokenize(text_pairs[i])
            row = pack(a, b, self.vocab, self.cls_token, self.sep_token, add_special_tokens)
            for field, values in row.items():
                rows[field].append(values)
        wanted = {"offset_mapping": want_offsets, "special_tokens_mask": want_special}
        return {field: column if wanted.get(field, True) else None for field, column in rows.items()}

    def _strips_accents(self) -> bool:
        return self.lowercase if self.strip_accents is None else self.strip_accents

    def __repr__(self):
        return (f"Tokenizer(vocab_size={len(self.vocab)}, lowercase={self.lowercase}, "
                f"fast={self.fast}, model_max_length={self.model_max_length})")


@contextlib.contextmanager
def _gc_paused():
    """A batch makes a few lists per text and no reference cycles, yet so many new objects set off
    Python's cyclic garbage collector again and again: on 28k lines of text it took a third of the
    whole call. Paused for the batch, it runs again afterwards when it must."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _warn_if_case_mismatch(vocab: dict[str, int], lowercase: bool) -> None:
    """An uncased vocab with lowercase=False turns every capitalised word into [UNK]; a cased one
    with lowercase=True never uses its capitalised entries. Both run without error, so say so."""
    words = [t for t in vocab if t.isalpha()]
    cased = sum(t != t.lower() for t in words)
    if not lowercase and words and cased == 0:
        logger.warning("lowercase=False, but this vocabulary has no capital letters (an uncased vocab): "
                       "capitalised words will become [UNK]; use lowercase=True")
    elif lowercase and cased > 0.05 * len(words):
        logger.warning(f"lowercase=True, but {cased} entries of this vocabulary have capital letters (a "
                       "cased vocab) and will never be used; use lowercase=False")
