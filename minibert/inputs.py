"""Checks on a batch before it enters the model, so a mistake is named here and not as an
index error deep inside an embedding lookup or a shape error inside attention.

The value checks (id ranges, mask values) read the data: on a GPU that is one host-device sync per
forward. Under torch.compile they are skipped, so compiled training runs pay nothing for them.
"""

from __future__ import annotations

import torch

from .config import BertConfig


class InputError(ValueError):
    """A batch that does not fit the model's config."""


# The label of a position that is not predicted: PyTorch's cross_entropy skips it, as Hugging Face
# does. Masking, every head, the loops and the pictures use this one constant.
IGNORE_INDEX = -100


VOCAB_HINT = "was the batch made with another tokenizer or vocabulary?"


def check_ids(name: str, ids: torch.Tensor, limit: int, source: str, hint: str = VOCAB_HINT) -> None:
    """Integer ids in [0, limit); `source` says where the limit comes from."""
    if ids.dtype.is_floating_point or ids.dtype == torch.bool or ids.is_complex():
        raise InputError(f"{name} must hold integer ids (torch.long), got dtype {ids.dtype}")
    if ids.numel() == 0:
        return
    lo, hi = int(ids.min()), int(ids.max())
    if lo < 0 or hi >= limit:
        bad = lo if lo < 0 else hi
        raise InputError(f"{name} holds id {bad}, outside [0, {limit}) set by {source}; {hint}")


def check_labels(name: str, labels, *, shape: tuple, num_classes: int, source: str, hint: str = "",
                 ignore_index: bool = False):
    """Class labels of `shape`, each in [0, num_classes) (`source` says where that number comes
    from), or IGNORE_INDEX where `ignore_index` allows it, in which case at least one label must be
    real (a loss over no position is NaN). Skipped under torch.compile, as every data check."""
    if torch.compiler.is_compiling():
        return labels
    if not isinstance(labels, torch.Tensor):
        raise InputError(f"{name} must be a torch.Tensor of shape {tuple(shape)}, got {type(labels).__name__}")
    if tuple(labels.shape) != tuple(shape):
        raise InputError(f"{name} has shape {tuple(labels.shape)}, expected {tuple(shape)}"
                         + (f"; {hint}" if hint else ""))
    real = labels[labels != IGNORE_INDEX] if ignore_index else labels
    if ignore_index and labels.numel() and not real.numel():
        raise InputError(f"{name} are all {IGNORE_INDEX}: no position to predict, so the loss would be "
                         f"NaN; pass {name}=None to skip the loss")
    ignore = f", or {IGNORE_INDEX} to ignore a position" if ignore_index else ""
    check_ids(name, real, num_classes, source, hint or f"use 0 ... {num_classes - 1}{ignore}")
    return labels


def check_targets(name: str, targets, *, shape: tuple) -> None:
    """Real-valued regression targets (STS-B's similarity): floats of `shape`, all finite."""
    if torch.compiler.is_compiling():
        return
    if not isinstance(targets, torch.Tensor) or not targets.dtype.is_floating_point:
        got = getattr(targets, "dtype", type(targets).__name__)
        raise InputError(f"{name} must be a float tensor of real-valued targets (regression), got {got}; "
                         "use torch.tensor([...], dtype=torch.float)")
    if tuple(targets.shape) != tuple(shape):
        raise InputError(f"{name} has shape {tuple(targets.shape)}, expected {tuple(shape)}")
    if not torch.isfinite(targets).all():
        raise InputError(f"{name} holds a value that is not finite (NaN or inf)")


def check_inputs(config: BertConfig, input_ids, token_type_ids=None, attention_mask=None):
    """Validate a batch and fill in the default of all-zero token types.

    Returns (token_type_ids, attention_mask) on input_ids' device; attention_mask is None when it
    was not given or every token is real (then no mask needs applying).
    """
    if not isinstance(input_ids, torch.Tensor):
        raise InputError(f"input_ids must be a torch.Tensor of shape (batch, seq_len), got "
                         f"{type(input_ids).__name__}; wrap it with torch.tensor([...])")
    if input_ids.dim() != 2:
        hint = " (for one sequence use input_ids[None])" if input_ids.dim() == 1 else ""
        raise InputError(f"input_ids must have shape (batch, seq_len), got {tuple(input_ids.shape)}{hint}")
    B, T = input_ids.shape
    if B == 0:
        raise InputError("input_ids has no rows (batch size 0): there is nothing to run; pass at least one "
                         "sequence")
    if T == 0:
        raise InputError("input_ids has sequence length 0; every sequence needs at least [CLS]")
    if T > config.max_position_embeddings:
        raise InputError(f"sequence length {T} exceeds config.max_position_embeddings="
                         f"{config.max_position_embeddings}; truncate the inputs (BERT learned only "
                         f"{config.max_position_embeddings} position embeddings)")
    if torch.compiler.is_compiling():  # data-dependent checks would break the graph; done eagerly
        return _defaults(input_ids, token_type_ids, attention_mask)
    check_ids("input_ids", input_ids, config.vocab_size, f"config.vocab_size={config.vocab_size}")
    for name, t in (("token_type_ids", token_type_ids), ("attention_mask", attention_mask)):
        if t is None:
            continue
        if not isinstance(t, torch.Tensor):
            raise InputError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.shape != input_ids.shape:
            raise InputError(f"{name} has shape {tuple(t.shape)} but input_ids has {tuple(input_ids.shape)}; "
                             "they must match (one entry per token)")
    if token_type_ids is not None:
        check_ids("token_type_ids", token_type_ids, config.type_vocab_size,
                  f"config.type_vocab_size={config.type_vocab_size}", "use 0 for segment A, 1 for B")
    if attention_mask is not None:
        if not ((attention_mask == 0) | (attention_mask == 1)).all():
            raise InputError("attention_mask must hold only 0 (padding) and 1 (real token)")
        if not attention_mask.any(dim=-1).all():
            raise InputError("a sequence has an attention_mask of all zeros: it has no real token to attend to")
        if attention_mask.all():
            attention_mask = None
    return _defaults(input_ids, token_type_ids, attention_mask)


def _defaults(input_ids, token_type_ids, attention_mask):
    if token_type_ids is None:
        token_type_ids = torch.zeros_like(input_ids)
    if attention_mask is not None:
        attention_mask = attention_mask.to(input_ids.device)
    return token_type_ids.to(input_ids.device), attention_mask
