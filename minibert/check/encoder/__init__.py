"""Checkers for the exercises of chapter 03, the encoder and real weights.

    check.feed_forward(my_feed_forward)          # GELU(x W1ᵀ + b1) W2ᵀ + b2, nn.Linear layout
    check.encoder_layer(my_encoder_layer)        # one post-LN layer wired from its sub-modules
    check.count_parameters(my_count_parameters)  # BertModel's parameters, from the config alone
    check.load_layer(my_load_layer)              # one layer's real weights, by checkpoint name
    check.forward_flops(my_forward_flops)        # FLOPs of one forward pass, from the config
    check.tf_to_pytorch(my_tf_to_pytorch)        # Google's TF variable -> transformers' key and layout

Expected values are hand-computed literals or minibert's own modules: `FeedForward`, `EncoderLayer`,
`BertModel` (on the meta device for counting) and `BertModel.from_pretrained` on all-MiniLM-L6-v2.
When a result is wrong, the checker also runs the usual mistakes through minibert's modules (the
tanh GELU, pre-LN wiring, a forgotten pooler, a swapped pair of weights...) and names the one that
matches what it received.

One module per exercise: `ffn.py` (3.1), `post_ln.py` (3.2), `parameter_count.py` (3.3),
`weight_loading.py` (3.4), `flops.py` (3.5), `tf_names.py` (3.6); `_shared.py` holds what they share
(all-MiniLM-L6-v2 and its hidden states).
"""

from .ffn import feed_forward
from .flops import forward_flops
from .parameter_count import count_parameters
from .post_ln import encoder_layer
from .tf_names import tf_to_pytorch
from .weight_loading import load_layer

__all__ = ["feed_forward", "encoder_layer", "count_parameters", "load_layer", "forward_flops", "tf_to_pytorch"]
