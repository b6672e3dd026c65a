"""CPU benchmark: a fine-tuning step of minibert vs Hugging Face transformers, sequence classification.

Measures, per step, on CPU: zero_grad, forward of `BertForSequenceClassification` with labels,
backward, AdamW (lr 2e-5, weight decay 0.01), models in train mode (dropout on) -- the step the
course runs when it fine-tunes a classifier.

By default the model is the one the course fine-tunes: all-MiniLM-L6-v2 (L6/H384, 12 heads,
30,522-token vocab), its real weights loaded by `minibert.BertForSequenceClassification
.from_pretrained(minibert.minilm_path(), num_labels=2)` with a fresh 2-label head. `--preset`
times a minibert preset with a random init instead. Both models start from identical weights
(minibert's `save_pretrained` folder loaded by transformers' `BertForSequenceClassification`,
attn_implementation="sdpa"), and on the first batch (eval mode) both the losses and the logits
are checked to agree to 1e-4 before timing.

The batch: sentence pairs [CLS] A [SEP] B [SEP] with token types 0/1, padded as a real batch is:
three quarters of the rows fill the sequence, a quarter are shorter and padded ([PAD] = 0, token
type 0, attention_mask 0). tokens/s counts real (non-padding) tokens only. Steps are interleaved
(minibert, transformers, alternating which goes first each round); the speed-up is the median of
the per-round ratios (with its interquartile range).

Run:  python benchmarks/finetune_step.py          (or `make benchmark`)
      python benchmarks/finetune_step.py --preset tiny --steps 10
"""

from __future__ import annotations

import argparse
import tempfile

import torch
import transformers

import minibert
from timing import interleaved, ratio_cell, summarise, training_step, write_results

CLS, SEP, PAD = 101, 102, 0
TOL = 1e-4


def make_batch(gen: torch.Generator, batch: int, seq: int, vocab: int, num_labels: int) -> dict[str, torch.Tensor]:
    """[CLS] A [SEP] B [SEP] [PAD]... with random word ids; rows 0, 4, 8, ... (a quarter) are
    shorter than `seq` (lengths uniform in [seq/2, seq - 1]), the rest fill it; A and B split the
    row's words at a random point. Random class labels in [0, num_labels)."""
    ids = torch.full((batch, seq), PAD, dtype=torch.long)
    token_type_ids = torch.zeros_like(ids)
    attention_mask = torch.zeros_like(ids)
    for row in range(batch):
        n = seq
        if row % 4 == 0 and seq > 5:
            n = int(torch.randint(max(5, seq // 2), seq, (1,), generator=gen))
        words = n - 3  # besides [CLS], [SEP], [SEP]
        a = int(torch.randint(1, words, (1,), generator=gen)) if words > 1 else words
        ids[row, :n] = torch.randint(1000, vocab, (n,), generator=gen)
        ids[row, 0], ids[row, a + 1], ids[row, n - 1] = CLS, SEP, SEP
        token_type_ids[row, a + 2:n] = 1  # segment B (and its closing [SEP]) after the first [SEP]
        attention_mask[row, :n] = 1
    return dict(input_ids=ids, token_type_ids=token_type_ids, attention_mask=attention_mask,
                labels=torch.randint(0, num_labels, (batch,), generator=gen))


def build_models(args):
    """minibert's classifier (MiniLM's real weights, or a preset's random init) and transformers'
    loaded from its save_pretrained folder. Returns (minibert, transformers, description)."""
    if args.preset is None:
        # The architecture and weights the course fine-tunes; the 2-label head is freshly initialised.
        config = minibert.BertConfig.from_json_file(minibert.minilm_path() / "config.json")
        mb = minibert.BertForSequenceClassification.from_pretrained(minibert.minilm_path(),
                                                                    num_labels=args.num_labels)
        labels = ("num_labels", "id2label", "label2id")
        assert {k: v for k, v in mb.config.to_dict().items() if k not in labels} == \
            {k: v for k, v in config.to_dict().items() if k not in labels}, "not MiniLM's config"
        what = "all-MiniLM-L6-v2, real weights + fresh classifier head"
    else:
        config = minibert.BertConfig.from_preset(args.preset, num_labels=args.num_labels)
        mb = minibert.BertForSequenceClassification(config)
        what = f"preset {args.preset}, random init"
    transformers.utils.logging.disable_progress_bar()  # no "Loading weights" bar in the output
    with tempfile.TemporaryDirectory() as tmpdir:
        mb.save_pretrained(tmpdir)
        hf, info = transformers.BertForSequenceClassification.from_pretrained(
            tmpdir, attn_implementation="sdpa", output_loading_info=True)
    problems = {k: v for k, v in info.items() if v}
    if problems:
        raise SystemExit(f"transformers did not load minibert's checkpoint cleanly: {problems}")
    return mb, hf, what


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--preset", default=None, choices=list(minibert.PRESETS),
                   help="a minibert preset with a random init (default: all-MiniLM-L6-v2's config "
                        "and real weights)")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--steps", type=int, default=20, help="timed rounds (one step of each model per round)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps of each model first")
    p.add_argument("--num-labels", type=int, default=2)
    p.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="PATH", help="also write the results dict as JSON")
    args = p.parse_args()
    if args.seq_len < 5:
        p.error("--seq-len must be at least 5 ([CLS] A [SEP] B [SEP])")
    if args.num_labels < 2:
        p.error("--num-labels must be at least 2 (classification; 1 would be regression)")
    if args.steps < 1 or args.batch_size < 1 or args.warmup < 0:
        p.error("--steps and --batch-size must be positive, --warmup not negative")
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    mb, hf, what = build_models(args)
    config = mb.config
    if args.seq_len > config.max_position_embeddings:
        p.error(f"--seq-len must be at most max_position_embeddings={config.max_position_embeddings}")
    B, T = args.batch_size, args.seq_len
    batch = make_batch(torch.Generator().manual_seed(args.seed), B, T, config.vocab_size, args.num_labels)
    tokens = int(batch["attention_mask"].sum())
    lengths = batch["attention_mask"].sum(1)
    print(f"torch {torch.__version__}, transformers {transformers.__version__}, "
          f"threads {torch.get_num_threads()}")
    print(f"config ({what}): {config.to_dict()}")
    print(f"batch: {B} x {T} sentence pairs, {int((lengths < T).sum())} rows padded "
          f"(lengths {int(lengths.min())}-{T}); {tokens} real tokens of {B * T}; "
          f"{args.num_labels} labels; warm-up {args.warmup}, timed rounds {args.steps}")
    n_mb = sum(q.numel() for q in mb.parameters())
    n_hf = sum(q.numel() for q in hf.parameters())
    print(f"parameters: minibert {n_mb:,}, transformers {n_hf:,}")

    # Sanity check: same weights + same batch => same loss and logits (eval mode: no dropout).
    mb.eval(), hf.eval()
    with torch.no_grad():
        out_mb, out_hf = mb(**batch), hf(**batch)
    loss_mb, loss_hf = out_mb.loss.item(), out_hf.loss.item()
    loss_diff = abs(loss_mb - loss_hf)
    logits_diff = (out_mb.logits - out_hf.logits).abs().max().item()
    print(f"first-batch loss (eval): minibert {loss_mb:.6f}, transformers {loss_hf:.6f}, |diff| {loss_diff:.2e}; "
          f"logits max |diff| {logits_diff:.2e}")
    if loss_diff > TOL or logits_diff > TOL:
        raise SystemExit(f"losses or logits differ by more than {TOL:g}: the two models do not compute "
                         "the same thing")


    mb.train(), hf.train()
    training = summarise(interleaved({"minibert": training_step(mb, batch, lr=2e-5),
                                      "transformers": training_step(hf, batch, lr=2e-5)},
                                     args.warmup, args.steps), tokens)

    results = dict(torch=torch.__version__, transformers=transformers.__version__,
                   threads=torch.get_num_threads(), model=what, preset=args.preset, config=config.to_dict(),
                   batch_size=B, seq_len=T, real_tokens=tokens, num_labels=args.num_labels,
                   warmup=args.warmup, steps=args.steps,
                   sanity=dict(minibert_loss=loss_mb, transformers_loss=loss_hf, loss_abs_diff=loss_diff,
                               logits_max_abs_diff=logits_diff),
                   training=training)
    print()
    print("tokens/s counts real (non-padding) tokens only.")
    print("| fine-tuning step (fwd+bwd+AdamW) | minibert tokens/s | transformers tokens/s | speed-up (IQR) |")
    print("|---|---:|---:|---:|")
    print(f"| {what}, {B} x {T} | {training['minibert_tokens_per_s']:,.0f} "
          f"| {training['transformers_tokens_per_s']:,.0f} | {ratio_cell(training)} |")
    write_results(args.json, results)


if __name__ == "__main__":
    main()
