"""The checker of exercise 3.4: one encoder layer's real weights, loaded by checkpoint name."""

from __future__ import annotations

import torch

from ...checkpoint import hf_name
from ...config import BertConfig
from ...model import EncoderLayer
from ..common import ExerciseError, call, expect_close, passed
from ._shared import _minilm, _with_hint

# --- 3.4 loading one layer's real weights ------------------------------------------------------

def _load_diagnosis(name: str, got: torch.Tensor, fresh: torch.Tensor, expected: torch.Tensor, i: int,
                    state: dict) -> str:
    key = hf_name(f"encoder.layers.{i}.{name}")
    where = f"layer.{name} (layer {i}) should hold the checkpoint's {key}"
    if got.shape != expected.shape:
        return f"{where}, shape {tuple(expected.shape)}; it has shape {tuple(got.shape)}"
    if torch.equal(got, fresh):
        return (f"{where}, but it still holds its random initialisation\n  hint: change the layer you receive in "
                "place: param.copy_(tensor) under torch.no_grad(), or layer.load_state_dict({...}). Copying into "
                "a copy (param.data.clone().copy_(t), a deepcopy of the layer, a new layer) leaves this one as it "
                "was, and load_state_dict(..., strict=False) skips every name it does not know without a word "
                "(print what it returns: missing_keys, unexpected_keys)")
    if got.dim() == 2 and got.shape[0] == got.shape[1] and torch.equal(got, expected.T):
        return (f"{where}, but it holds that tensor transposed\n  hint: the checkpoint stores a linear map's "
                "weight as nn.Linear does, (out_features, in_features): copy it as it is")
    same = [k for k, v in state.items() if v.shape == got.shape and v.dtype == got.dtype and torch.equal(v, got)]
    if not same:
        diff = (got - expected).abs().max().item()
        if got.dtype == torch.float64 and torch.equal(got, expected.float().double()):  # the float32 values exactly
            return (f"{where}; its values are that tensor's rounded to float32 (off by up to {diff:.3g})\n  hint: "
                    "copy the tensor as it is stored: param.copy_(tensor) converts to the parameter's dtype "
                    "itself; a .float() on the way rounds a float64 checkpoint")
        return f"{where}; its values differ from that tensor by up to {diff:.3g}"
    other = same[0]
    hint = ""
    if other.startswith("encoder.layer.") and not other.startswith(f"encoder.layer.{i}."):
        j = int(other.split(".")[2])
        hint = f"that is layer {j}'s tensor, not layer {i}'s"
        if str(j).startswith(str(i)) and j != i:  # encoder.layer.1 is the start of encoder.layer.10 too
            hint += (f": f\"encoder.layer.{{i}}\" is also the start of encoder.layer.{j}'s names; match "
                     f"f\"encoder.layer.{{i}}.\", with its dot (or compare the layer number as a whole)")
        elif j == 0:  # layer 0 passed, so the name holds a 0 where the layer's number goes
            hint += " (layer 0 passed): write the layer's number i into the name, f\"encoder.layer.{i}.\", not 0"
        elif abs(j - i) == 1:
            hint += ": the checkpoint numbers its layers from 0, as minibert's encoder.layers does"
    elif other.rsplit(".", 1)[0] == key.rsplit(".", 1)[0]:
        hint = ("weight and bias swapped: a LayerNorm's weight is its scale γ (gamma), its bias the shift β "
                "(beta); a linear map's weight is the matrix, its bias the vector")
    elif "LayerNorm" in other:
        hint = ("attention.output.LayerNorm is the norm after the attention sub-layer (layer.attention_norm); "
                "output.LayerNorm is the norm after the feed-forward block (layer.ffn_norm)")
    elif "attention.self." in other:
        hint = "attention.self.query goes to layer.attention.query, .key to .key, .value to .value"
    elif "dense" in other:
        hint = ("attention.output.dense is attention's output projection (layer.attention.output); "
                "intermediate.dense is the first feed-forward map (layer.ffn.intermediate), output.dense "
                "the second (layer.ffn.output)")
    return f"{where}, but it holds {other}" + (f"\n  hint: {hint}" if hint else "")


def _check_the_layer(name: str, layer, given: dict, state: dict, fresh: dict, i: int, originals: dict) -> None:
    """What must hold before values are compared: the checkpoint untouched, every parameter still the
    registered parameter the layer was built with, that trains, in memory of its own."""
    if missing := sorted(set(state) - set(given)):
        raise ExerciseError(f"{name}: your function removed {len(missing)} key(s) from the caller's checkpoint, "
                            f"e.g. {missing[0]}\n  hint: read state_dict[key], never state_dict.pop(key) or del: "
                            "the checkpoint is the caller's, and the next layer (or another model) reads it too")
    if added := sorted(set(given) - set(state)):
        raise ExerciseError(f"{name}: your function wrote {len(added)} new key(s) into the caller's checkpoint, "
                            f"e.g. {added[0]!r}\n  hint: read state_dict, never write into it: gather the renamed "
                            "tensors in a dict of your own (or copy each one straight into its parameter)")
    for key, tensor in given.items():
        if key.startswith(f"encoder.layer.{i}.") and tensor.dtype != state[key].dtype:
            raise ExerciseError(f"{name}: after your function the caller's checkpoint holds {key} as "
                                f"{tensor.dtype}; it was {state[key].dtype}\n  hint: state_dict[key] = ... replaces "
                                "the caller's tensor: convert a copy, or none at all (param.copy_(tensor) converts "
                                "to the parameter's dtype for you)")
        if key.startswith(f"encoder.layer.{i}.") and not torch.equal(tensor, state[key]):
            raise ExerciseError(f"{name}: your function changed the checkpoint's tensor {key} in place"
                                "\n  hint: read state_dict, never write it (t.t_(), t.mul_(...) change the "
                                "caller's tensor); copy into the layer's parameters instead")
    params = dict(layer.named_parameters())
    for pname in fresh:
        if pname not in params:
            found = type(layer.get_submodule(pname.rsplit(".", 1)[0]).__dict__.get(pname.rsplit(".", 1)[1]))
            raise ExerciseError(f"{name}: layer.{pname} is no longer a parameter of the layer (it is now "
                                f"{'a plain ' + found.__name__ if found is not type(None) else 'missing'}), so "
                                "layer.parameters() and state_dict() lack it and an optimizer would never train "
                                "it\n  hint: copy into the existing parameter, param.copy_(tensor) under "
                                "torch.no_grad(), rather than assigning a tensor to the attribute")
        if params[pname] is not originals[pname]:
            raise ExerciseError(f"{name}: layer.{pname} is a new nn.Parameter, not the one the layer was built "
                                "with: an optimizer made before loading (or anything else holding "
                                "layer.parameters()) still holds the old, untrained one\n  hint: copy into the "
                                "existing parameter, param.copy_(tensor) under torch.no_grad(), rather than "
                                "assigning a new one")
        if not params[pname].requires_grad:
            raise ExerciseError(f"{name}: layer.{pname} has requires_grad=False: the layer would not train"
                                "\n  hint: to copy into a parameter, switch autograd off for the copy only "
                                "(with torch.no_grad(): param.copy_(tensor)); leave requires_grad as it was")
    storage = {t.untyped_storage().data_ptr(): key for key, t in given.items() if key.startswith(f"encoder.layer.{i}.")}
    for pname, param in params.items():
        if (key := storage.get(param.untyped_storage().data_ptr())) is not None:
            raise ExerciseError(f"{name}: layer.{pname} shares its memory with the checkpoint's tensor {key}: "
                                "training the layer would change state_dict too, and the layer takes the "
                                "checkpoint's dtype\n  hint: copy the values, param.copy_(tensor) under "
                                "torch.no_grad(), rather than pointing the parameter at the tensor "
                                "(param.data = tensor)")


def _call_loader(fn, name: str, given: dict, i: int, layer) -> None:
    """The learner's loader, called with autograd on (the session's state); it must leave it on."""
    with torch.enable_grad():
        call(fn, name, given, i, layer)
        if not torch.is_grad_enabled():
            raise ExerciseError(f"{name}: after your function autograd is off for the whole session "
                                "(torch.is_grad_enabled() is False), so nothing trains afterwards\n  hint: switch it "
                                "off for the copies only, `with torch.no_grad():`, not torch.set_grad_enabled(False)")


def load_layer(fn) -> None:
    """fn(state_dict, i, layer) copies encoder layer i of a Hugging Face checkpoint into `layer`, in place."""
    model, state, hidden, key_mask = _minilm()
    config = model.config
    torch.manual_seed(3_4)  # the fresh layers' initialisation (nn.Linear draws from the global generator)
    n_params = 0
    for i, reference_layer in enumerate(model.encoder.layers):
        layer = EncoderLayer(config)
        originals = dict(layer.named_parameters())
        fresh = {k: v.detach().clone() for k, v in originals.items()}
        name = f"my_load_layer(state_dict, {i}, layer), state_dict read from all-MiniLM-L6-v2's model.safetensors"
        given = {k: v.clone() if k.startswith(f"encoder.layer.{i}.") else v for k, v in state.items()}
        try:
            _call_loader(fn, name, given, i, layer)
        except ExerciseError as e:
            if "in-place" in str(e.__cause__) and "requires grad" in str(e.__cause__):
                raise _with_hint(e, "copy into parameters under `with torch.no_grad():` (autograd forbids "
                                    "writing into a parameter in place otherwise)") from None
            if isinstance(e.__cause__, RuntimeError) and "size" in str(e.__cause__):
                raise _with_hint(e, "a tensor went to a parameter of another shape: give each parameter the "
                                    "checkpoint tensor of the same role, as it is (the checkpoint stores a linear "
                                    "map's weight as nn.Linear does, (out_features, in_features): no transposing)"
                                 ) from None
            if isinstance(e.__cause__, KeyError):
                raise _with_hint(e, f"the checkpoint has no such key: layer i's tensors are named "
                                    f"encoder.layer.{{i}}.<module>.weight and .bias, with i from 0 to "
                                    f"{len(model.encoder.layers) - 1}, as in minibert's encoder.layers "
                                    "(print [k for k in state_dict if k.startswith('encoder.layer.0.')])") from None
            raise
        _check_the_layer(name, layer, given, state, fresh, i, originals)
        n_params += _expect_loaded(name, layer, {k: v.detach() for k, v in reference_layer.named_parameters()},
                                   fresh, i, state)
        with torch.no_grad():
            got = layer.eval()(hidden[i], key_mask)[0]
            expect_close(f"{name}, then layer(x, key_mask) on the real hidden states {tuple(hidden[i].shape)} of "
                         "a padded batch", got, reference_layer(hidden[i], key_mask)[0])
    _deep_checkpoint(fn, state)
    _dtype_checkpoints(fn, config, state)
    passed("load_layer", f"{n_params} tensors of {len(model.encoder.layers)} layers equal BertModel.from_pretrained's, "
                         "and so do the layers' outputs on a real padded batch; layers 1, 10 and 11 of a 12-layer "
                         "checkpoint whose three dense maps share one shape load as theirs; float16 and bfloat16 "
                         "checkpoints load into a float32 layer and a float64 one into a float64 layer, as "
                         "stored, and each checkpoint stays as it was")


def _dtype_checkpoints(fn, config, state: dict) -> None:
    """MiniLM's checkpoint in other dtypes: float16 and bfloat16 (as many on the Hub are; numpy has no bfloat16)
    into a float32 layer, and float64 into a float64 layer, its layer-1 tensors moved off float32's grid by 1e-9
    so that a detour through float32 shows. The values must arrive as stored, and the caller's checkpoint keep
    its tensors and their dtype."""
    i = 1
    g = torch.Generator().manual_seed(3_4_64)
    wide = {k: v.double() + (1e-9 * torch.randn(v.shape, generator=g, dtype=torch.float64)
                            if k.startswith(f"encoder.layer.{i}.") else 0) for k, v in state.items()}
    for dtype, checkpoint, layer_dtype, how in (
            (torch.float16, {k: v.half() for k, v in state.items()}, torch.float32, "{k: v.half()}"),
            (torch.bfloat16, {k: v.bfloat16() for k, v in state.items()}, torch.float32, "{k: v.bfloat16()}"),
            (torch.float64, wide, torch.float64, "{k: v.double()}, layer 1's tensors plus 1e-9 * randn")):
        layer = EncoderLayer(config).to(layer_dtype)
        originals = dict(layer.named_parameters())
        fresh = {k: v.detach().clone() for k, v in originals.items()}
        given = dict(checkpoint)
        name = (f"my_load_layer(state_dict, {i}, layer), state_dict all-MiniLM-L6-v2's checkpoint in "
                f"{str(dtype).removeprefix('torch.')} ({how}), layer a {str(layer_dtype).removeprefix('torch.')} "
                "EncoderLayer")
        _call_loader(fn, name, given, i, layer)
        _check_the_layer(name, layer, given, checkpoint, fresh, i, originals)
        # The layer's dtype is left to the learner (param.data = tensor.clone() takes the checkpoint's): compare
        # values, in the wider of the two dtypes (exact for each).
        wider = torch.float64 if torch.float64 in (dtype, layer_dtype) else torch.float32
        expected = {k: checkpoint[hf_name(f"encoder.layers.{i}.{k}")].to(wider) for k in fresh}
        _expect_loaded(name, layer, expected, fresh, i, checkpoint, as_dtype=wider)


def _expect_loaded(name: str, layer, expected: dict, fresh: dict, i: int, state: dict, as_dtype=None) -> int:
    """Each parameter of `layer` equal to `expected[name]` (both in `as_dtype` if given), else the
    diagnosis; the count compared."""
    ours = dict(layer.named_parameters())
    for pname, want in expected.items():
        got = ours[pname].detach() if as_dtype is None else ours[pname].detach().to(as_dtype)
        if got.shape != want.shape or not torch.equal(got, want):
            raise ExerciseError(f"{name}:\n  " + _load_diagnosis(pname, got, fresh[pname], want, i, state))
    return len(expected)


def _deep_checkpoint(fn, state: dict) -> None:
    """MiniLM has 6 layers; BERT-BASE has 12, and there "encoder.layer.1" starts the names of layers
    10 and 11 too. A 12-layer checkpoint of distinct random tensors (MiniLM's other names kept), its
    keys in two orders (numbered, and sorted as text as safetensors stores them), for layers 1, 10, 11.
    Its feed-forward is as wide as its hidden size (H = I = 32): the three dense weights then share one
    shape, so only their names tell them apart."""
    config = BertConfig(hidden_size=32, num_attention_heads=4, intermediate_size=32, num_hidden_layers=12)
    shapes = {hf_name(f"encoder.layers.0.{k}"): v.shape for k, v in EncoderLayer(config).named_parameters()}
    g = torch.Generator().manual_seed(3_4_12)
    layer0 = [k for k in state if k.startswith("encoder.layer.0.")]  # MiniLM's order of the names
    deep = {k: v for k, v in state.items() if not k.startswith("encoder.layer.")}
    for j in range(12):
        deep |= {key.replace(".0.", f".{j}.", 1): torch.randn(shapes[key], generator=g) for key in layer0}
    for keys, order in (("numbered", list(deep)), ("sorted as text", sorted(deep))):
        for i in (1, 10, 11):
            layer = EncoderLayer(config)
            originals = dict(layer.named_parameters())
            fresh = {k: v.detach().clone() for k, v in originals.items()}
            given = {k: deep[k].clone() if k.startswith(f"encoder.layer.{i}.") else deep[k] for k in order}
            name = (f"my_load_layer(state_dict, {i}, layer), state_dict a 12-layer checkpoint (BERT-BASE's depth) "
                    f"of random tensors, H = I = 32, its keys {keys}")
            _call_loader(fn, name, given, i, layer)
            _check_the_layer(name, layer, given, deep, fresh, i, originals)
            _expect_loaded(name, layer, {k: deep[hf_name(f"encoder.layers.{i}.{k}")] for k in fresh}, fresh, i, deep)
