"""The model card written beside a run's final weights: what made them and how they score."""

from __future__ import annotations

from pathlib import Path


def write_card(folder: Path, cfg, facts: dict, progress, metrics: dict, command: str | None) -> Path:
    m = facts["model_config"]
    loss = f"{metrics['mlm_loss']:.3f}  (ln V = {facts['ln_vocab']:.3f}"
    if facts.get("unigram_entropy"):
        loss += f", unigram entropy = {facts['unigram_entropy']:.3f}"
    rows = [("MLM loss (held out)", loss + ")")]
    if "mlm_accuracy_at_mask" in metrics:  # the headline: where the piece must be read from its context
        rows += [("masked-token accuracy at [MASK]", f"{metrics['mlm_accuracy_at_mask']:.1%}")]
        rows += [(f"... at {kind} pieces", f"{metrics[f'mlm_accuracy_at_{kind}']:.1%}")
                 for kind in ("random", "kept") if f"mlm_accuracy_at_{kind}" in metrics]
    rows += [("masked-token accuracy, all selected positions", f"{metrics['mlm_accuracy']:.1%}")]
    if "nsp_accuracy" in metrics:
        rows += [("NSP loss", f"{metrics['nsp_loss']:.3f}"), ("NSP accuracy", f"{metrics['nsp_accuracy']:.1%}")]
    vocab = "trained on the corpus" if cfg.vocab == "train" else cfg.vocab
    corpus = (f"`{cfg.train_corpus}`, sha256 {facts.get('corpus_sha256')}..., "
              f"{facts.get('train_instances') or 0:,} instances")
    text = f"""# minibert pre-trained with `{cfg.model}` sizes

A BERT (Devlin et al. 2018) pre-trained from scratch by `minibert.pretrain`: masked LM + next
sentence prediction. Loads with `minibert.BertForPreTraining.from_pretrained(folder)`,
`minibert.Tokenizer.from_pretrained(folder)` and `transformers.BertForPreTraining`.

## Made by

    {command or facts['command']}

| | |
|---|---|
| layers L / hidden H / heads A | {m['num_hidden_layers']} / {m['hidden_size']} / {m['num_attention_heads']} |
| parameters | {facts['parameters']:,} |
| vocabulary | {facts['vocab_size']:,} WordPiece entries ({vocab}) |
| corpus | {corpus} |
| seed | {cfg.seed} |
| steps | {progress.step:,} of {cfg.batch_size} sequences of up to {cfg.max_seq_length} tokens |
| tokens seen | {progress.tokens:,} |
| training time | {progress.seconds / 60:.1f} min on {facts['device']} x {facts['processes']} |
| peak learning rate / warm-up | {cfg.lr} / {cfg.warmup_steps} steps |

## Held-out metrics (`{cfg.valid_corpus}`)

| metric | value |
|---|---|
""" + "".join(f"| {k} | {v} |\n" for k, v in rows) + """
`log.jsonl` beside this card holds the whole training curve (`minibert.pretrain.read_log`).
"""
    path = Path(folder) / "README.md"
    path.write_text(text, encoding="utf-8")
    return path
