"""The fast path: the same pipeline assembled from Hugging Face `tokenizers` (Rust) parts.

Each stage of `reference.py` has its counterpart here, and the tests hold the two to the same ids
and the same character spans:

    reference.normalize      -> normalizers.BertNormalizer (clean, CJK spaces, lowercase, accents)
    reference.split_words    -> pre_tokenizers.BertPreTokenizer (whitespace, punctuation)
    reference.wordpiece      -> models.WordPiece (greedy longest-match-first, "##", [UNK])
    special tokens in text   -> added special tokens, matched in the raw text
    [CLS] A [SEP] B [SEP]    -> processors.TemplateProcessing (token types 0 for A, 1 for B)
    decode                   -> decoders.WordPiece (joins "##" pieces, tidies spaces)
"""

from __future__ import annotations

from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from .reference import MAX_CHARS_PER_WORD


def build_fast_tokenizer(vocab: dict[str, int], special: dict[str, str], lowercase: bool = True,
                         strip_accents: bool | None = None) -> Tokenizer:
    """A `tokenizers.Tokenizer` for BERT; `special` maps pad/unk/cls/sep/mask to their tokens."""
    tok = Tokenizer(models.WordPiece(vocab, unk_token=special["unk"], continuing_subword_prefix="##",
                                     max_input_chars_per_word=MAX_CHARS_PER_WORD))
    tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                strip_accents=strip_accents, lowercase=lowercase)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    cls, sep = special["cls"], special["sep"]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{cls}:0 $A:0 {sep}:0",
        pair=f"{cls}:0 $A:0 {sep}:0 $B:1 {sep}:1",
        special_tokens=[(cls, vocab[cls]), (sep, vocab[sep])],
    )
    tok.decoder = decoders.WordPiece(prefix="##", cleanup=True)
    # normalized=False: matched in the text as written, before lowercasing, like the reference.
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in special.values()])
    return tok
