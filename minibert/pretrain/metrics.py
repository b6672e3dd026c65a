"""What a pre-training run measures: held-out MLM and NSP metrics, throughput, and model FLOPs
utilisation (MFU: the FLOPs the model needs, per second, as a fraction of the hardware's peak).

Shape legend: B batch, T tokens, N labelled (masked) positions, V vocab_size.
"""

from __future__ import annotations

import math

import torch

from ..config import BertConfig
from ..inputs import IGNORE_INDEX
from ..masking import selected_kinds

# Dense bf16/fp16 tensor-core peaks in TFLOP/s (no sparsity), from NVIDIA's data sheets.
# Matched against torch.cuda.get_device_name() in order: the more specific names first.
PEAK_TFLOPS = (
    ("H100 PCIe", 756.0),
    ("H100 NVL", 835.0),
    ("H100", 989.4),  # SXM
    ("H200", 989.4),
    ("GH200", 989.4),
    ("A100", 312.0),
    ("L40S", 362.1),
    ("L4", 121.0),
    ("A10G", 70.0),
    ("V100", 125.0),  # fp16; V100 has no bf16
    ("T4", 65.0),  # fp16
    # Per chip, bf16, from Google's Cloud TPU documentation (for costing, not for the loop's MFU).
    ("TPU v2", 45.0),
    ("TPU v3", 123.0),
)


def peak_tflops(device_name: str) -> float | None:
    """The table's peak for a GPU name such as "NVIDIA H100 80GB HBM3"; None if unknown."""
    for key, tflops in PEAK_TFLOPS:
        if key in device_name:
            return tflops
    return None


def flops_parts(config: BertConfig, seq_len: int, predicted_fraction: float) -> dict[str, float]:
    """Training FLOPs per input token, by where they go: 3x the forward (the backward costs twice
    the forward).

    Only matrix multiplies count (2 FLOPs per multiply-add); embeddings are lookups. Per layer and
    token: Q, K, V and output projections 4·2H², the feed-forward 2·2HF (F = intermediate_size),
    and attention itself 2·2TH (scores QKᵀ and the weighted sum over T positions). The MLM head
    (2H² + 2HV) runs only at the `predicted_fraction` of positions that are labelled, as minibert
    computes it; the pooler once per sequence.
    """
    H, F, L, V = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.vocab_size
    forward = {
        "Q, K, V, output projections": L * 8 * H * H,
        "feed-forward": L * 4 * H * F,
        "attention (grows with T)": L * 4 * seq_len * H,
        "MLM head (predicted positions)": predicted_fraction * (2 * H * H + 2 * H * V),
        "pooler ([CLS] once)": 2 * H * H / seq_len,
    }
    return {part: 3 * flops for part, flops in forward.items()}


def flops_per_token(config: BertConfig, seq_len: int, predicted_fraction: float) -> float:
    """Training FLOPs per input token (`flops_parts` summed): what the loop's MFU and `--plan` use."""
    return sum(flops_parts(config, seq_len, predicted_fraction).values())


@torch.no_grad()
def evaluate(model, loader, accelerator, nsp: bool = True, unpad: bool = False) -> dict:
    """Held-out MLM loss, masked-token accuracy, NSP loss and accuracy, summed over every process.

    Masked-token accuracy is also reported apart for the positions shown as [MASK]
    (`mlm_accuracy_at_mask`, the headline: there the piece must be inferred from its context), shown
    as a random piece, and kept as they are (`..._at_random`, `..._at_kept`: a model can copy a kept
    piece, so `mlm_accuracy` over all three flatters it). Not for objective="ltr", which masks nothing.
    """
    was_training = model.training
    model.eval()
    mask_id = loader.collate_fn.mask if loader.collate_fn.objective == "mlm" else None  # the corrupting collator's
    # mlm loss sum, correct, count; nsp loss sum, correct, count; correct and count at [MASK], random, kept
    sums = torch.zeros(12, dtype=torch.float64, device=accelerator.device)
    for batch in loader:
        batch = {k: v.to(accelerator.device) for k, v in batch.items()}
        if not nsp:
            batch.pop("next_sentence_label")
        out = model(**batch, unpad=unpad)
        labelled = batch["labels"] != IGNORE_INDEX  # (B, T)
        targets = batch["labels"][labelled]  # (N,)
        hit = (out.mlm_logits.argmax(-1) == targets).double()  # (N,)
        n, b = targets.numel(), batch["input_ids"].shape[0]
        by_kind = []
        if mask_id is not None:
            for where in selected_kinds(batch["input_ids"], batch["labels"], mask_id).values():
                by_kind += [hit[where[labelled]].sum(), where.sum().double()]
        sums += torch.stack([
            out.mlm_loss.double() * n, hit.sum(), torch.tensor(n, dtype=torch.float64, device=sums.device),
            out.nsp_loss.double() * b if nsp else sums.new_zeros(()),
            (out.nsp_logits.argmax(-1) == batch["next_sentence_label"]).sum().double() if nsp else sums.new_zeros(()),
            torch.tensor(b if nsp else 0, dtype=torch.float64, device=sums.device),
            *(by_kind or [sums.new_zeros(())] * 6)])
    sums = accelerator.reduce(sums, reduction="sum").tolist()
    model.train(was_training)
    if sums[2] == 0:
        raise ValueError("the held-out split gave no masked positions to evaluate; is it empty?")
    metrics = {"mlm_loss": sums[0] / sums[2], "mlm_accuracy": sums[1] / sums[2]}
    metrics["perplexity"] = math.exp(min(metrics["mlm_loss"], 50.0))
    for kind, (right, count) in zip(("mask", "random", "kept"), (sums[6:8], sums[8:10], sums[10:12]), strict=True):
        if count:
            metrics[f"mlm_accuracy_at_{kind}"] = right / count
    if nsp:
        metrics.update(nsp_loss=sums[3] / sums[5], nsp_accuracy=sums[4] / sums[5])
    return metrics
