"""Checkers for the exercises of chapter 02, embeddings and attention.

    check.embeddings(my_embed)                 Exercise 2.1, the input representation
    check.scaled_attention(my_attention)       Exercise 2.2, softmax(QKᵀ/√d)V with a key mask
    check.padding_mask(my_padding_mask)        Exercise 2.3, the additive (B, 1, 1, T) mask
    check.split_heads(my_split_heads)          Exercise 2.4, (B, T, H) -> (B, nh, T, hs)
    check.merge_heads(my_merge_heads)          Exercise 2.5, (B, nh, T, hs) -> (B, T, H)

(The attention checker is `scaled_attention`, not `attention`: this package is already called
`attention`.)

Hand-computed cases come first; each names its input and, where the received value is the one a
classic mistake gives, says which mistake. The expected values are worked out in the comments. The
random cases then compare with minibert (`Embeddings`, `SelfAttention`) and with PyTorch's
`F.scaled_dot_product_attention`.

One module per exercise or pair of exercises: `input_embeddings.py` (2.1), `masked_attention.py`
(2.2, 2.3), `multi_head.py` (2.4, 2.5); `_shared.py` holds the comparisons and seeded modules they share.
"""

from .multi_head import merge_heads, split_heads
from .input_embeddings import embeddings
from .masked_attention import padding_mask, scaled_attention

__all__ = ["embeddings", "scaled_attention", "padding_mask", "split_heads", "merge_heads"]
