"""Checkers for the exercises of chapter 02, embeddings and attention.

    check.embeddings(my_embed)                 Exercise 2.1, the input representation
    check.scaled_attention(my_attention)       Exercise 2.2, softmax(QKᵀ/√d)V with a key mask, any T_q, T_k
    check.padding_mask(my_padding_mask)        Exercise 2.3, the additive (B, 1, 1, T) mask in a given dtype
    check.causal_mask(my_causal_mask)          Exercise 2.4, the causal (GPT-style) mask with padding
    check.packed_attention(my_packed_attention)  Exercise 2.5, multi-head attention over packed sequences
    check.one_head(my_one_head)                Exercise 2.6, one head's output for one query, by hand

(The attention checker is `scaled_attention`, not `attention`: this package is already called
`attention`.)

Hand-computed cases come first; each names its input and, where the received value is the one a
classic mistake gives, says which mistake. The expected values are worked out in the comments. The
random cases then compare with minibert (`Embeddings`, `SelfAttention`) and with PyTorch's
`F.scaled_dot_product_attention`; when they disagree, the known mistakes are recomputed on the same
input and the one your result equals is named. Every checker also makes sure your function left its
arguments as they were.

One module per exercise or pair of exercises: `input_embeddings.py` (2.1), `scaled.py` (2.2, with
the mistakes it recognises in `scaled_mistakes.py`), `masks.py` (2.3, 2.4), `multi_head.py` (2.5,
2.6); `_shared.py` holds the comparisons and seeded modules they share.
"""

from .input_embeddings import embeddings
from .masks import causal_mask, padding_mask
from .multi_head import one_head, packed_attention
from .scaled import scaled_attention

__all__ = ["embeddings", "scaled_attention", "padding_mask", "causal_mask", "packed_attention", "one_head"]
