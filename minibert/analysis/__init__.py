"""Measurements of trained models (chapter 06): what their heads attend to, what their layers know,
and which heads they need. Nothing here trains the encoder or changes `minibert.model`; every
measurement runs the model forward (under `torch.no_grad()`) and reads what it returns, or masks a
head through a forward hook.

- `words`: sentences given as words (with gold tags) encoded in padded batches; token-level attention
  turned into word-level attention (Clark et al. 2019, §4), word features for probes
- `attention_stats`: share of attention on [CLS], [SEP], punctuation and the word itself; previous-
  and next-word scores; attention entropy (Clark et al. 2019, §3)
- `norms`: attention weighted by the size of what each key sends, ‖α f(x)‖ (Kobayashi et al. 2020)
- `syntax`: heads scored on relations defined from part-of-speech tags, against the best fixed offset
- `probe`: linear probes of part of speech from each layer's hidden states (Tenney et al. 2019)
- `ablation`: one head masked at a time through forward hooks (Michel et al. 2019), and the losses it
  is measured with (the course model's MLM loss, MiniLM's sentence embeddings)
"""

from .ablation import (encoder_of, head_effects, masked_heads, mlm_batches, mlm_loss, sentence_embeddings,
                       embedding_change)
from .attention_stats import entropies, kind_shares, offset_scores, uniform_entropy
from .norms import value_norms
from .probe import majority_baseline, probe_accuracy, probe_by_layer
from .syntax import RELATIONS, best_offset, relation_accuracy, relation_pairs
from .words import Collected, WordBatch, collect, encode_words, word_attention

__all__ = ["Collected", "RELATIONS", "WordBatch", "best_offset", "collect", "embedding_change", "encode_words",
           "encoder_of", "entropies", "head_effects", "kind_shares", "majority_baseline", "masked_heads",
           "mlm_batches", "mlm_loss", "offset_scores", "probe_accuracy", "probe_by_layer", "relation_accuracy",
           "relation_pairs", "sentence_embeddings", "uniform_entropy", "value_norms", "word_attention"]
