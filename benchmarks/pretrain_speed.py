"""The pre-training step, switch by switch: real tokens/s and MFU, on a GPU or a CPU.

Each row is one way to run the same training step (forward with MLM + NSP labels, backward,
gradient clipping, AdamW) of minibert's BertForPreTraining on the same real batches: the course
corpus cut into pre-training instances (BERT's uncased vocabulary, NSP pairs, 15% masked), padded
as the loop pads them. Rows:

    plain          float32, every padded position computed, AdamW (for-each), eager
    bf16           + bf16 autocast
    fused AdamW    + torch's fused AdamW
    unpad          + the encoder on real tokens only (MosaicBERT's unpadding)
    compile        + torch.compile of the encoder over static shapes (batches padded to --seq-len)
    all, compiled  bf16 + fused AdamW + compile        (the switches that compose with static shapes)
    all, unpadded  bf16 + fused AdamW + unpad
    transformers   Hugging Face's BertForPreTraining (SDPA), same weights, bf16 on a GPU

Steps are interleaved (one of each row per round) after warm-up; the speed-up is the median of
per-round ratios against `plain`. tokens/s counts real tokens ([PAD] excluded); MFU = the model's
FLOPs (`minibert.pretrain.flops_per_token`, real tokens only) per second over the device's peak
(bf16 tensor-core peak from PEAK_TFLOPS, or --peak-tflops). On a CPU there is no peak to divide by:
compare the ratios.

Run:  python benchmarks/pretrain_speed.py                          # CPU: the mini preset, 16 x 128
      python benchmarks/pretrain_speed.py --preset base --batch-size 256 --steps 30   # a GPU: BERT-BASE phase 1
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import statistics
import tempfile
from pathlib import Path

import torch

import minibert
from minibert.pretrain import flops_per_token, peak_tflops, recipe
from minibert.pretrain.data import prepare_shards, prepare_vocab, train_loader
from minibert.tokenizer import load_vocab
from minibert.training import build_optimizer
from timing import interleaved, paired_ratio, write_results

ROWS = {  # name: (bf16, fused AdamW, unpad, compile)
    "plain": (False, False, False, False),
    "bf16": (True, False, False, False),
    "fused AdamW": (False, True, False, False),
    "unpad": (False, False, True, False),
    "compile": (False, False, False, True),
    "all, compiled": (True, True, False, True),
    "all, unpadded": (True, True, True, False),
}


def real_batches(n: int, batch_size: int, seq_len: int, pad_to: int | None = None) -> list[dict]:
    """`n` batches of the course corpus's instances, made by the engine's own data path."""
    cfg = recipe("tiny", vocab="bert-uncased", max_seq_length=seq_len, max_predictions=max(20, round(0.15 * seq_len)),
                 compile=pad_to is not None)
    vocab_path = prepare_vocab(cfg)
    folder = prepare_shards(cfg, vocab_path, "train")
    loader = train_loader(cfg, folder, load_vocab(vocab_path), batch_size, 0, 1, 0)
    return list(itertools.islice(iter(loader), n))


def build(config, switches, state, device, lr=1e-4):
    bf16, fused, unpad, compiled = switches
    model = minibert.BertForPreTraining(config)
    model.load_state_dict(state)
    model.to(device).train()
    if compiled:
        model.bert.encoder.compile(dynamic=False)
    optimizer, _ = build_optimizer(model, lr=lr, warmup_steps=0, total_steps=10**9, fused=fused)
    autocast = (lambda: torch.autocast(device.type, dtype=torch.bfloat16)) if bf16 else contextlib.nullcontext
    return model, optimizer, autocast, unpad


def minibert_step(model, optimizer, autocast, unpad, batches, device):
    cycle = itertools.cycle(batches)

    def step():
        batch = next(cycle)
        with autocast():
            loss = model(**batch, unpad=unpad).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if device.type == "cuda":
            torch.cuda.synchronize()
    return step


def transformers_step(config, state, batches, device, bf16: bool):
    import transformers

    transformers.utils.logging.disable_progress_bar()
    with tempfile.TemporaryDirectory() as tmp:
        mb = minibert.BertForPreTraining(config)
        mb.load_state_dict(state)
        mb.save_pretrained(tmp)
        hf = transformers.BertForPreTraining.from_pretrained(tmp, attn_implementation="sdpa").to(device).train()
    optimizer = torch.optim.AdamW(hf.parameters(), lr=1e-4, weight_decay=0.01, eps=1e-6)
    autocast = (lambda: torch.autocast(device.type, dtype=torch.bfloat16)) if bf16 else contextlib.nullcontext
    return minibert_step(hf, optimizer, autocast, False, batches, device)  # transformers takes the same keys


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    on_gpu = torch.cuda.is_available()
    p.add_argument("--preset", default="base" if on_gpu else "mini", choices=list(minibert.PRESETS))
    p.add_argument("--batch-size", type=int, default=256 if on_gpu else 16)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--steps", type=int, default=20, help="timed rounds (one step of every row per round)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps of every row first (compilation happens here)")
    p.add_argument("--batches", type=int, default=8, help="distinct real batches, cycled")
    p.add_argument("--rows", nargs="+", default=[*ROWS, "transformers"], choices=[*ROWS, "transformers"])
    p.add_argument("--peak-tflops", type=float, default=None, help="the device's peak, for MFU (default: a GPU's from the table)")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device("cuda" if on_gpu else "cpu")
    name = torch.cuda.get_device_name() if on_gpu else f"cpu ({torch.get_num_threads()} threads)"
    peak = args.peak_tflops or (peak_tflops(name) if on_gpu else None)
    torch.manual_seed(0)

    config = minibert.BertConfig.from_preset(args.preset, vocab_size=30_522)
    state = minibert.BertForPreTraining(config).state_dict()
    padded = real_batches(args.batches, args.batch_size, args.seq_len)
    static = real_batches(args.batches, args.batch_size, args.seq_len, pad_to=args.seq_len)
    to = lambda bs: [{k: v.to(device) for k, v in b.items()} for b in bs]  # noqa: E731
    padded, static = to(padded), to(static)
    real = sum(int(b["attention_mask"].sum()) for b in padded) / len(padded)  # real tokens per batch
    positions = sum(b["attention_mask"].numel() for b in padded) / len(padded)
    predicted = sum(int((b["labels"] != -100).sum()) for b in padded) / len(padded)
    print(f"torch {torch.__version__} on {name}; peak {peak or '-'} TFLOP/s")
    print(f"{args.preset}: {sum(v.numel() for v in state.values()):,} parameters; batch {args.batch_size} x "
          f"{args.seq_len}: {real:,.0f} real tokens of {positions:,.0f} positions ({1 - real / positions:.1%} "
          f"padding), {predicted:,.0f} predicted; {args.warmup} warm-up + {args.steps} timed rounds")

    steps = {}
    for row in args.rows:
        if row == "transformers":
            steps[row] = transformers_step(config, state, padded, device, bf16=on_gpu)
            continue
        model, optimizer, autocast, unpad = build(config, ROWS[row], state, device)
        steps[row] = minibert_step(model, optimizer, autocast, unpad, static if ROWS[row][3] else padded, device)
    times = interleaved(steps, args.warmup, args.steps)

    per_token = flops_per_token(config, args.seq_len, predicted / real)
    results = dict(torch=torch.__version__, device=name, peak_tflops=peak, preset=args.preset,
                   batch_size=args.batch_size, seq_len=args.seq_len, real_tokens=real, positions=positions,
                   flops_per_token=per_token, rows={})
    print("\n| row | real tokens/s | MFU | speed-up over plain (IQR) |\n|---|---:|---:|---:|")
    for row, t in times.items():
        tokens_per_s = real / statistics.median(t)
        mfu = per_token * tokens_per_s / (peak * 1e12) if peak else None
        ratio, iqr = paired_ratio(t, times["plain"]) if "plain" in times else (None, None)
        results["rows"][row] = dict(seconds=t, tokens_per_s=tokens_per_s, mfu=mfu, ratio=ratio, ratio_iqr=iqr)
        mfu_cell = f"{mfu:.1%}" if mfu is not None else "-"
        ratio_cell = f"{ratio:.2f}x ({iqr[0]:.2f}-{iqr[1]:.2f})" if ratio else "-"
        print(f"| {row} | {tokens_per_s:,.0f} | {mfu_cell} | {ratio_cell} |")
    write_results(args.json, results)


if __name__ == "__main__":
    main()
