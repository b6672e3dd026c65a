"""Checkpoints in the Hugging Face layout: a folder with `config.json` and `model.safetensors`.

minibert names its modules for readability (`attention.query`, `ffn_norm`); checkpoints use the
names of Google's TF code as Hugging Face kept them (`attention.self.query`, `output.LayerNorm`).
`hf_name` / `minibert_name` translate one key; the table below is the whole difference.

Weights are read only from safetensors or with `torch.load(weights_only=True)`: loading a
checkpoint never executes pickled code.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from .config import BertConfig
from .hub import resolve

logger = logging.getLogger(__name__)

# minibert name -> Hugging Face name, for the part of a key inside `encoder.layer(s).{i}.`
_LAYER_NAMES = {
    "attention.query": "attention.self.query",
    "attention.key": "attention.self.key",
    "attention.value": "attention.self.value",
    "attention.output": "attention.output.dense",
    "attention_norm": "attention.output.LayerNorm",
    "ffn.intermediate": "intermediate.dense",
    "ffn.output": "output.dense",
    "ffn_norm": "output.LayerNorm",
}
# ... and for module paths outside the layers (anything not listed keeps its name).
_OTHER_NAMES = {
    "embeddings.layer_norm": "embeddings.LayerNorm",
    "mlm.transform.dense": "cls.predictions.transform.dense",
    "mlm.transform.layer_norm": "cls.predictions.transform.LayerNorm",
    "mlm": "cls.predictions",  # mlm.bias -> cls.predictions.bias
    "nsp": "cls.seq_relationship",
}
_LAYER_NAMES_INV = {hf: ours for ours, hf in _LAYER_NAMES.items()}
_OTHER_NAMES_INV = {hf: ours for ours, hf in _OTHER_NAMES.items()}
# Keys found in real checkpoints that hold nothing to load: a constant buffer, and the decoder,
# which BERT ties to the word embeddings (older transformers wrote it out, newer ones do not).
# A key whose first name is one of these belongs to the encoder; in a model with a head the encoder
# sits under `bert.`, and the heads keep their own names (`cls`, `classifier`, `qa_outputs`).
ENCODER_ROOTS = ("embeddings", "encoder", "pooler")
# The task heads whose size is the label count (Figure 4): a checkpoint fine-tuned for K labels
# fits only a model with K, and `ignore_mismatched_heads` swaps it for a fresh one.
_HEAD_KEYS = ("classifier.weight", "classifier.bias")
_IGNORED = re.compile(r"(^|\.)embeddings\.position_ids$|^cls\.predictions\.decoder\.(weight|bias)$")


class CheckpointError(ValueError):
    """A checkpoint that does not fit the model it is loaded into."""


def _translate(key: str, layer_names: dict, other_names: dict, src: str, dst: str) -> str:
    prefix = "bert." if key.startswith("bert.") else ""
    key = key[len(prefix):]
    if m := re.fullmatch(rf"encoder\.{src}\.(\d+)\.(.+)\.(weight|bias)", key):
        i, module, param = m.groups()
        return f"{prefix}encoder.{dst}.{i}.{layer_names.get(module, module)}.{param}"
    module, _, param = key.rpartition(".")
    return prefix + f"{other_names.get(module, module)}.{param}"


def hf_name(key: str) -> str:
    """minibert state-dict key -> Hugging Face key, e.g. `encoder.layers.0.ffn_norm.weight` ->
    `encoder.layer.0.output.LayerNorm.weight`."""
    return _translate(key, _LAYER_NAMES, _OTHER_NAMES, "layers", "layer")


def minibert_name(key: str) -> str:
    """Hugging Face key -> minibert key (the inverse of `hf_name`)."""
    return _translate(key, _LAYER_NAMES_INV, _OTHER_NAMES_INV, "layer", "layers")


def to_hf_state_dict(model: torch.nn.Module, state_dict: dict | None = None) -> dict[str, torch.Tensor]:
    state = model.state_dict() if state_dict is None else state_dict
    return {hf_name(k): v.detach().cpu().contiguous() for k, v in state.items()}


def from_hf_state_dict(model: torch.nn.Module, hf_state: dict[str, torch.Tensor], strict: bool = False,
                       ignore_mismatched_heads: bool = False):
    """Load Hugging Face-named tensors into `model`, with or without the `bert.` prefix.

    Shape mismatches always raise, naming every key. Missing and unexpected keys raise when
    `strict`, else they are logged (e.g. pre-training heads absent from an encoder-only checkpoint
    stay at their fresh initialisation). A classifier trained for another number of labels raises
    too, unless `ignore_mismatched_heads`: then it is dropped, logged, and the model's head stays
    freshly initialised. Returns (missing, unexpected) in minibert names.
    """
    wants_prefix = any(k.startswith("bert.") for k in model.state_dict())
    decoder, embedding = (hf_state.get(k) for k in ("cls.predictions.decoder.weight",
                                                     "bert.embeddings.word_embeddings.weight"))
    if decoder is not None and embedding is not None and not torch.equal(decoder, embedding):
        logger.warning("the checkpoint's MLM decoder is not tied to its word embeddings; minibert "
                       "ties them (as BERT does) and uses the word embeddings")
    state = {}
    for key, tensor in hf_state.items():
        if _IGNORED.search(key):
            continue
        key = re.sub(r"LayerNorm\.gamma$", "LayerNorm.weight", re.sub(r"LayerNorm\.beta$", "LayerNorm.bias", key))
        if wants_prefix and key.split(".", 1)[0] in ENCODER_ROOTS:
            key = "bert." + key  # an encoder-only checkpoint (e.g. MiniLM) into a model with a head
        elif not wants_prefix and key.startswith("bert."):
            key = key[len("bert."):]  # a BertForPreTraining checkpoint into BertModel
        state[minibert_name(key)] = tensor
    own = model.state_dict()
    heads = sorted(k for k in _HEAD_KEYS if k in state and k in own and state[k].shape != own[k].shape)
    if heads and ignore_mismatched_heads:
        logger.warning("dropped (trained for %d labels, the model has %d): %s", state[heads[0]].shape[0],
                       own[heads[0]].shape[0], ", ".join(heads))
        state = {k: v for k, v in state.items() if k not in heads}
    mismatched = [f"{k}: checkpoint {tuple(v.shape)} vs model {tuple(own[k].shape)}"
                  for k, v in state.items() if k in own and v.shape != own[k].shape]
    if heads and len(mismatched) == len(heads):  # only the label count differs: say how to start afresh
        n_ckpt, n_model = state[heads[0]].shape[0], own[heads[0]].shape[0]
        raise CheckpointError(
            f"the checkpoint's classifier was trained for num_labels={n_ckpt}, but the model has "
            f"num_labels={n_model}. To fine-tune a fresh {n_model}-label head on this encoder, load with "
            f"{type(model).__name__}.from_pretrained(path, num_labels={n_model}, ignore_mismatched_heads=True)")
    if mismatched:
        raise CheckpointError("checkpoint does not fit the model's config (wrong size or vocabulary?); "
                              "mismatched shapes:\n  " + "\n  ".join(mismatched))
    missing = sorted(set(own) - set(state))
    unexpected = sorted(set(state) - set(own))
    if strict and (missing or unexpected):
        raise CheckpointError(f"strict load failed: missing keys {missing}, unexpected keys {unexpected}")
    if missing:
        logger.warning("newly initialised (not in the checkpoint): %s", ", ".join(missing))
    if unexpected:
        logger.warning("ignored (not used by %s): %s", type(model).__name__, ", ".join(unexpected))
    model.load_state_dict({k: v for k, v in state.items() if k in own}, strict=False)
    return missing, unexpected


def load_weights(folder: Path) -> dict[str, torch.Tensor]:
    """Read the tensors of a Hugging Face folder: one safetensors file, a sharded one, or a
    PyTorch `.bin` read with weights_only=True (tensors only, no code)."""
    folder = Path(folder)
    if (folder / "model.safetensors").is_file():
        return read_tensors(folder / "model.safetensors")
    if (index := folder / "model.safetensors.index.json").is_file():
        try:
            shards = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise CheckpointError(f"{index} is damaged or incomplete ({type(e).__name__}: {e}); {REFETCH}") from None
        if missing := [shard for shard in shards if not (folder / shard).is_file()]:
            raise CheckpointError(f"{index} lists {', '.join(missing)}, missing from {folder}; {REFETCH}")
        return {k: v for shard in shards for k, v in read_tensors(folder / shard).items()}
    if (folder / "pytorch_model.bin").is_file():
        return read_tensors(folder / "pytorch_model.bin")
    raise FileNotFoundError(f"{folder} has no model.safetensors, model.safetensors.index.json "
                            "or pytorch_model.bin")


REFETCH = "download it again, or export it again from the model that made it (save_pretrained)"


def read_tensors(path: Path) -> dict[str, torch.Tensor]:
    """One weights file's tensors; a file cut short (an interrupted download or copy) or otherwise
    unreadable is a CheckpointError naming it, not a traceback from deep inside the reader."""
    try:
        if path.suffix == ".bin":
            return torch.load(path, map_location="cpu", weights_only=True)
        return load_file(path)
    except Exception as e:  # safetensors' SafetensorError; torch.load's RuntimeError, EOFError, UnpicklingError
        raise CheckpointError(f"{path} is damaged or incomplete ({path.stat().st_size:,} bytes; "
                              f"{type(e).__name__}: {str(e)[:200]}); {REFETCH}") from None


def with_overrides(config: BertConfig, overrides: dict) -> BertConfig:
    """A copy of `config` with `overrides`. A new label count or new label names replaces the old
    names (as transformers' `num_labels` setter does), so `num_labels=3` on a 2-label config works."""
    if not overrides:
        return config
    base = config.to_dict()
    if "num_labels" in overrides or "id2label" in overrides:
        base.update(num_labels=None, id2label=None, label2id=None)
    return BertConfig.from_dict({**base, **overrides}, require_all=False)


class PretrainedMixin:
    """`from_pretrained` / `save_pretrained` for minibert models (each sets `hf_architecture`)."""

    hf_architecture: str

    @classmethod
    def from_pretrained(cls, name_or_path, *, strict: bool = False, config: BertConfig | None = None,
                        ignore_mismatched_heads: bool = False, **config_overrides):
        """`config_overrides` change the loaded config, as in transformers: `num_labels=3`,
        `id2label={...}`, `problem_type="regression"`, `classifier_dropout=0.2`."""
        folder = resolve(name_or_path)
        config = with_overrides(config or BertConfig.from_json_file(folder / "config.json"), config_overrides)
        model = cls(config)
        from_hf_state_dict(model, load_weights(folder), strict=strict,
                           ignore_mismatched_heads=ignore_mismatched_heads)
        return model.eval()  # as transformers: loaded models start in eval mode (no dropout)

    def save_pretrained(self, folder, state_dict: dict | None = None) -> Path:
        """Write config.json and model.safetensors. `state_dict`: the weights to write instead of
        the module's own (a training loop passes them gathered from every process)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.config.to_json_file(folder / "config.json", architectures=[self.hf_architecture])
        save_file(to_hf_state_dict(self, state_dict), folder / "model.safetensors", metadata={"format": "pt"})
        usual_mode(folder / "model.safetensors")
        return folder


def usual_mode(path: Path) -> None:
    """Give a file the permissions a new file gets (0644 under the usual umask 022). safetensors
    writes through a private temporary file, so its files come out readable by their owner only."""
    mask = os.umask(0o077)  # read the umask (briefly a strict one: a file made meanwhile stays private)
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)
