"""BERT's WordPiece tokenizer: a pure-Python reference (`reference.py`), the same pipeline on the
Rust `tokenizers` library (`fast.py`), one face for both (`Tokenizer`), and vocabulary training."""

from .packing import truncate_pair
from .reference import ReferenceTokenizer
from .tokenizer import Encoding, Tokenizer
from .training import train_wordpiece
from .vocab import SPECIAL_TOKENS, TokenizerError, load_vocab

__all__ = ["Tokenizer", "Encoding", "ReferenceTokenizer", "TokenizerError", "SPECIAL_TOKENS",
           "load_vocab", "train_wordpiece", "truncate_pair"]
