"""How much each key actually sends: attention weighted by the norm of the transformed value.

A head's output at query i is Σ_j α_ij f(x_j), with f(x) = (x W_V + b_V) W_O restricted to the head's
slice of W_O (the output projection, applied per head before the heads are summed). A weight α_ij is
large or small, but what reaches the query is the vector α_ij f(x_j), whose size is α_ij ‖f(x_j)‖.
Kobayashi et al. (2020, "Attention is not only a weight") found that in BERT the tokens with large
weights ([SEP], punctuation) send small vectors. `value_norms` gives ‖f(x_j)‖ per head and key.
(The output bias b_O is added once to the sum of the heads and belongs to no key.)
"""

from __future__ import annotations

import torch


def value_norms(attention, x: torch.Tensor) -> torch.Tensor:
    """‖f_h(x_j)‖ for every head h and position j of the layer input x (B, T, H): (B, nh, T).
    `attention` is a minibert SelfAttention (its `value`, `output`, `nh`, `hs`)."""
    v = attention.split_heads(attention.value(x))  # (B, nh, T, hs)
    W_O = attention.output.weight  # (H_out, H_in): input column block h is head h's slice
    per_head = W_O.view(W_O.shape[0], attention.nh, attention.hs).permute(1, 2, 0)  # (nh, hs, H_out)
    f = torch.einsum("bnts,nsh->bnth", v, per_head)  # (B, nh, T, H_out)
    return f.norm(dim=-1)
