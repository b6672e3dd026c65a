"""Processes and devices: one Accelerator for every loop, and how a batch is shared out.

One optimizer step = `batch_size` sequences: each of the P processes runs `grad_accum`
micro-batches of batch_size / (P · grad_accum) sequences, and gradients are averaged over all of
them. A longer sequence needs more memory, so the micro-batch can be sized in tokens instead
(`accumulation_steps`): phase 2 at 512 tokens then runs a quarter of phase 1's sequences per
forward pass, and accumulates four times as many. Scale concerns (devices, precision,
compilation, processes) live here and in the loops, never in the model.
"""

from __future__ import annotations

import os

import torch
from accelerate import Accelerator
from accelerate.utils import is_torch_xla_available

MIXED_PRECISION = ("auto", "no", "bf16", "fp16")


def make_accelerator(*, mixed_precision: str = "auto", grad_accum: int = 1) -> Accelerator:
    """An Accelerator that really spans every launched process. On a machine without a GPU,
    `torchrun --nproc_per_node 2` gives two processes but a default Accelerator in each sees a
    world of one: two unsynchronised copies would train, each thinking it is alone. CPU runs
    therefore need `cpu=True` (or ACCELERATE_USE_CPU=1), set here, and the count is checked.
    mixed_precision "auto": bf16 on a GPU that has it, else none."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if mixed_precision == "auto":
        mixed_precision = os.environ.get("ACCELERATE_MIXED_PRECISION") or (
            "bf16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "no")
    cpu_only = not torch.cuda.is_available() and not is_torch_xla_available()
    accelerator = Accelerator(cpu=world > 1 and cpu_only, mixed_precision=mixed_precision,
                              gradient_accumulation_steps=grad_accum)
    # Launchers built on torchrun set WORLD_SIZE; where it is unset (one process, or TPU spawning)
    # there is nothing to compare.
    if "WORLD_SIZE" in os.environ and accelerator.num_processes != world:
        raise RuntimeError(f"launched as {world} processes, but accelerate sees {accelerator.num_processes}: "
                           "they would train unsynchronised copies. On CPU, launch with ACCELERATE_USE_CPU=1 "
                           "torchrun --nproc_per_node N -m minibert.pretrain ...")
    return accelerator


def micro_batch_size(batch_size: int, grad_accum: int, processes: int) -> int:
    """Sequences per forward pass on one process, for `batch_size` sequences per optimizer step."""
    share = processes * grad_accum
    if batch_size % share:
        raise ValueError(f"batch_size={batch_size} sequences cannot be split evenly over {processes} "
                         f"process(es) x grad_accum={grad_accum}; make it a multiple of {share}")
    return batch_size // share


def accumulation_steps(batch_size: int, seq_len: int, processes: int, micro_batch_tokens: int) -> int:
    """The fewest accumulation steps that keep each micro-batch within `micro_batch_tokens` tokens
    (micro-batch × seq_len), for `batch_size` sequences per step over `processes` processes.
    E.g. 256 sequences of 512 tokens on one GPU holding 32,768 tokens: 4 steps of 64."""
    if batch_size % processes:
        raise ValueError(f"batch_size={batch_size} sequences cannot be split evenly over {processes} process(es)")
    per_process, fits = batch_size // processes, micro_batch_tokens // seq_len  # sequences
    if fits < 1:
        raise ValueError(f"micro_batch_tokens={micro_batch_tokens} cannot hold one sequence of {seq_len} tokens; "
                         f"give at least {seq_len}")
    # The micro-batch must divide the process's share evenly: the smallest divisor count that fits.
    return next(g for g in range(1, per_process + 1) if per_process % g == 0 and per_process // g <= fits)


def prepare(accelerator: Accelerator, model, optimizer, scheduler, *, micro: int, grad_accum: int, deepspeed: bool):
    """accelerate's `prepare` for a loop whose batches are not a prepared DataLoader and whose
    scheduler counts optimizer steps (training/optim.py)."""
    if deepspeed:  # DeepSpeed steps its own scheduler
        # accelerate reads the micro-batch size from a prepared DataLoader; ours is not prepared
        # (its batches are a function of the step, see pretrain/data.py), so it is told, with the
        # accumulation steps (which DeepSpeed's config may have filled in before they were derived).
        ds_config = accelerator.state.deepspeed_plugin.deepspeed_config
        ds_config["train_micro_batch_size_per_gpu"], ds_config["gradient_accumulation_steps"] = micro, grad_accum
        return accelerator.prepare(model, optimizer, scheduler)
    # Our scheduler counts optimizer steps. Prepared, accelerate would step it once per process
    # per step (it assumes a schedule written for one process); so it stays ours, checkpointed.
    model, optimizer = accelerator.prepare(model, optimizer)
    accelerator.register_for_checkpointing(scheduler)
    return model, optimizer, scheduler


def device_name(accelerator: Accelerator) -> str:
    """"NVIDIA H100 80GB HBM3", or "cpu (2 threads)": for the log, and to look up the peak FLOP/s."""
    if accelerator.device.type == "cuda":
        return torch.cuda.get_device_name(accelerator.device)
    return f"{accelerator.device.type} ({torch.get_num_threads()} threads)"
