"""The model card written beside a run's final weights: what made them and how they score."""

from __future__ import annotations

from pathlib import Path

from ..paper import PRETRAINING
from ..training.log import read_log
from .recipes import PretrainConfig


def write_card(folder: Path, cfg: PretrainConfig, facts: dict, progress, metrics: dict, command: str | None) -> Path:
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
    objectives = "masked LM + next sentence prediction" if cfg.nsp else "masked LM only (no next sentence prediction)"
    origin = "from scratch" if not cfg.init_from else f"from the weights of `{cfg.init_from}` (phase 1, below)"
    text = f"""# minibert pre-trained with `{cfg.model}` sizes

A BERT (Devlin et al. 2018) pre-trained {origin} by `minibert.pretrain`: {objectives}.
Loads with `minibert.BertForPreTraining.from_pretrained(folder)`,
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
""" + "".join(f"| {k} | {v} |\n" for k, v in rows) + phase1_section(cfg) + departures_section(cfg, m) + """
`log.jsonl` beside this card holds the whole training curve (`minibert.pretrain.read_log`)""" + (
        "; `log-phase1.jsonl`, phase 1's.\n" if cfg.init_from else ".\n")
    path = Path(folder) / "README.md"
    path.write_text(text, encoding="utf-8")
    return path


def phase1_section(cfg: PretrainConfig) -> str:
    """Phase 1 of a two-phase run (init_from): its command and numbers, from its own log."""
    log = Path(cfg.init_from or "") / "log.jsonl"
    if not cfg.init_from or not log.is_file():
        return ""
    records = read_log(log)
    header, end = records[0], records[-1]
    first = header["config"]
    at_mask = f", accuracy at [MASK] {end['mlm_accuracy_at_mask']:.1%}" if "mlm_accuracy_at_mask" in end else ""
    return f"""
## Phase 1

    {header['command']}

{end['step']:,} steps of {first['batch_size']} sequences of up to {first['max_seq_length']} tokens \
({end['tokens']:,} tokens, {end['seconds'] / 60:.1f} min, peak learning rate {first['lr']}); held out at \
{first['max_seq_length']} tokens: MLM loss {end['mlm_loss']:.3f}{at_mask}.
"""


def departures_section(cfg: PretrainConfig, m: dict) -> str:
    """Where this recipe departs from the paper's (Appendix A.2), one line each; for a phase 2,
    phase 1's departures too (from its log)."""
    lines = departures(cfg.to_dict(), m)
    if cfg.init_from and cfg.max_seq_length < 512:
        lines.append(f"phase 2 at {cfg.max_seq_length} tokens (the paper's phase 2: 512)")
    log = Path(cfg.init_from or "") / "log.jsonl"
    if cfg.init_from and log.is_file():
        header = read_log(log, "run")[0]
        lines += [f"phase 1: {line}" for line in departures(header["config"], header["model_config"]) if line not in lines]
    return "\n## Departures from the paper's recipe\n\n" + "".join(f"- {line}\n" for line in lines) if lines else ""


def departures(c: dict, m: dict) -> list[str]:
    """A run's settings (`c`, PretrainConfig as a dict) and model (`m`) against Appendix A.2."""
    p, lines = PRETRAINING, []
    if not c["nsp"]:
        lines.append("no next sentence prediction: the masked LM alone (RoBERTa; the paper's 'No NSP' row)")
    dropout = {float(m.get(k, p["dropout"])) for k in ("hidden_dropout_prob", "attention_probs_dropout_prob")}
    if dropout != {p["dropout"]}:
        lines.append(f"dropout {', '.join(map(str, sorted(dropout)))} (the paper: {p['dropout']} on all layers)")
    if c["max_seq_length"] < 128:
        lines.append(f"sequences of up to {c['max_seq_length']} tokens, {c['batch_size']} a step (the paper: 128 "
                     "for 90% of the steps, then 512; 256 a step)")
    if c["lr"] != p["learning_rate"]:
        lines.append(f"peak learning rate {c['lr']} (the paper: {p['learning_rate']}, for BERT-BASE at batch 256)")
    if c["warmup_steps"] != p["warmup_steps"] or c["max_steps"] != p["steps"]:
        lines.append(f"{c['max_steps']:,} steps, {c['warmup_steps']:,} of warm-up (the paper: {p['steps']:,} and "
                     f"{p['warmup_steps']:,})")
    if c["vocab"] == "train":
        lines.append(f"its own WordPiece vocabulary, trained on `{c['train_corpus']}` (the paper: 30,522 entries)")
    return lines
