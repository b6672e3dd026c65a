"""A saved model scored on the held-out split under settings of your choosing, not those it trained
with. Table 8's variants each train under their own masking mix, and a model that trained with 20%
of its selected tokens left as they are is scored, in its own run, on a split where a fifth of the
answers are in plain sight: its perplexity looks better for no merit. Scored here under BERT's
80/10/10, every variant faces the same corrupted split (the same masks, drawn from the run's seed),
so their numbers compare.
"""

from __future__ import annotations

from ..heads import BertForPreTraining
from ..hub import resolve
from ..tokenizer import load_vocab
from ..training.accelerator import make_accelerator
from .data import eval_loader, prepare_shards, prepare_vocab
from .metrics import evaluate
from .recipes import PretrainConfig


def heldout_metrics(cfg: PretrainConfig, model_folder: str) -> dict:
    """MLM (or, for objective="ltr", next-token) loss, accuracy and perplexity of the model in
    `model_folder` on `cfg`'s held-out split, corrupted as `cfg` says; NSP too when cfg.nsp."""
    accelerator = make_accelerator(mixed_precision="no")
    vocab_path = prepare_vocab(cfg)
    vocab = load_vocab(vocab_path)
    model = BertForPreTraining.from_pretrained(resolve(model_folder))
    if model.config.vocab_size != len(vocab):
        raise ValueError(f"{model_folder} has vocab_size {model.config.vocab_size}, cfg's vocabulary {len(vocab)}")
    loader = eval_loader(cfg, prepare_shards(cfg, vocab_path, "valid"), vocab, cfg.batch_size, 0, 1)
    return evaluate(model, loader, accelerator, nsp=cfg.nsp)
