"""CPU benchmark: minibert vs Hugging Face transformers, same config, same weights, same batch.

Measures, per step, on CPU:
  * training step: zero_grad, forward with MLM + NSP labels, backward, AdamW (lr 1e-4, wd 0.01),
    models in train mode (dropout on). minibert runs the MLM decoder (H x V) only at the ~15%
    labelled positions; transformers' BertForPreTraining runs it at every position.
  * inference: encoder forward only (BertModel, `.bert` of each), eval mode, torch.inference_mode().

Both models start from identical weights (minibert's save_pretrained folder loaded by
transformers, attn_implementation="sdpa"); the two losses on the first batch are checked to agree
(eval mode) before timing. Steps are interleaved (minibert, transformers, alternating which goes
first each round); the median per-step time gives tokens/s = batch * seq_len / median, and the
speed-up is the median of the per-round ratios (with its interquartile range).

Run:  python benchmarks/train_step.py          (or `make benchmark`)
      python benchmarks/train_step.py --preset tiny --batch-size 4 --seq-len 32 --steps 2 --warmup 1
      python benchmarks/train_step.py --preset tiny --vocab-size 8192 --inference-steps 0   (the course model)
"""

from __future__ import annotations

import argparse
import tempfile

import torch
import transformers

import minibert
from timing import interleaved, ratio_cell, summarise, training_step, write_results

CLS, SEP = 101, 102
IGNORE_INDEX = -100


def make_batch(gen: torch.Generator, batch: int, seq: int, vocab: int) -> dict[str, torch.Tensor]:
    """[CLS] A [SEP] B [SEP] with random ids, MLM labels at 15% of non-special positions, random NSP."""
    ids = torch.randint(1000, vocab, (batch, seq), generator=gen)
    mid = seq // 2
    ids[:, 0], ids[:, mid], ids[:, -1] = CLS, SEP, SEP
    token_type_ids = torch.zeros_like(ids)
    token_type_ids[:, mid + 1:] = 1  # segment B starts after the first [SEP]
    special = torch.zeros(batch, seq, dtype=torch.bool)
    special[:, [0, mid, seq - 1]] = True
    # Exactly round(15%) labelled positions per sequence, so every step does the same work.
    k = max(1, round(0.15 * (seq - 3)))
    scores = torch.rand(batch, seq, generator=gen).masked_fill(special, -1.0)
    picked = torch.zeros_like(special).scatter_(1, scores.topk(k, dim=1).indices, True)
    return dict(input_ids=ids, token_type_ids=token_type_ids, attention_mask=torch.ones_like(ids),
                labels=torch.where(picked, ids, IGNORE_INDEX),
                next_sentence_label=torch.randint(0, 2, (batch,), generator=gen))


def build_models(config: minibert.BertConfig):
    """A fresh minibert BertForPreTraining, and transformers' loaded from its saved weights."""
    mb = minibert.BertForPreTraining(config)
    hf_config = transformers.BertConfig(**config.to_dict())
    transformers.utils.logging.disable_progress_bar()  # no "Loading weights" bar in the output
    with tempfile.TemporaryDirectory() as tmpdir:
        mb.save_pretrained(tmpdir)
        hf = transformers.BertForPreTraining.from_pretrained(
            tmpdir, config=hf_config, attn_implementation="sdpa")
    return mb, hf


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--preset", default="mini", choices=list(minibert.PRESETS))
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--steps", type=int, default=20, help="timed rounds (one step of each model per round)")
    p.add_argument("--inference-steps", type=int, default=60,
                   help="timed inference rounds (cheap, and noisier per call than training steps)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps of each model first")
    p.add_argument("--vocab-size", type=int, default=30522)
    p.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="PATH", help="also write the results dict as JSON")
    args = p.parse_args()
    if args.seq_len < 4:
        p.error("--seq-len must be at least 4 ([CLS] A [SEP] B [SEP])")
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    config = minibert.BertConfig.from_preset(args.preset, vocab_size=args.vocab_size)
    B, T = args.batch_size, args.seq_len
    tokens = B * T
    print(f"torch {torch.__version__}, transformers {transformers.__version__}, "
          f"threads {torch.get_num_threads()}")
    print(f"config ({args.preset}): {config.to_dict()}")
    print(f"batch: {B} x {T} = {tokens} tokens; warm-up {args.warmup}, timed rounds {args.steps} "
          f"(training), {args.inference_steps} (inference)")

    mb, hf = build_models(config)
    batch = make_batch(torch.Generator().manual_seed(args.seed), B, T, config.vocab_size)
    n_mb = sum(q.numel() for q in mb.parameters())
    n_hf = sum(q.numel() for q in hf.parameters())
    print(f"parameters: minibert {n_mb:,}, transformers {n_hf:,}; "
          f"labelled MLM positions: {int((batch['labels'] != IGNORE_INDEX).sum())}")

    # Sanity check: same weights + same batch => same loss (eval mode: no dropout).
    mb.eval(), hf.eval()
    with torch.no_grad():
        loss_mb, loss_hf = mb(**batch).loss.item(), hf(**batch).loss.item()
    diff = abs(loss_mb - loss_hf)
    print(f"first-step loss (eval): minibert {loss_mb:.6f}, transformers {loss_hf:.6f}, |diff| {diff:.2e}")
    if diff > 1e-4:
        raise SystemExit("losses differ by more than 1e-4: the two models do not compute the same thing")

    # Inference first, while both encoders still hold the identical initial weights.
    enc_inputs = {k: batch[k] for k in ("input_ids", "token_type_ids", "attention_mask")}

    def infer(encoder):
        def step():
            with torch.inference_mode():
                encoder(**enc_inputs).last_hidden_state
        return step

    inference = None  # --inference-steps 0: training steps only
    if args.inference_steps:
        inference = summarise(interleaved({"minibert": infer(mb.bert), "transformers": infer(hf.bert)},
                                    args.warmup, args.inference_steps), tokens)


    mb.train(), hf.train()
    training = summarise(interleaved({"minibert": training_step(mb, batch, lr=1e-4),
                                      "transformers": training_step(hf, batch, lr=1e-4)},
                               args.warmup, args.steps), tokens)

    results = dict(torch=torch.__version__, transformers=transformers.__version__,
                   threads=torch.get_num_threads(), preset=args.preset, config=config.to_dict(),
                   batch_size=B, seq_len=T, warmup=args.warmup, steps=args.steps,
                   inference_steps=args.inference_steps,
                   sanity=dict(minibert_loss=loss_mb, transformers_loss=loss_hf, abs_diff=diff),
                   training=training, inference=inference)
    print()
    print("| measurement | minibert tokens/s | transformers tokens/s | speed-up (IQR) |")
    print("|---|---:|---:|---:|")
    for name, r in (("training step (fwd+bwd+AdamW)", training), ("inference (encoder forward)", inference)):
        if r is None:
            continue
        print(f"| {name} | {r['minibert_tokens_per_s']:,.0f} | {r['transformers_tokens_per_s']:,.0f} "
              f"| {ratio_cell(r)} |")
    write_results(args.json, results)


if __name__ == "__main__":
    main()
