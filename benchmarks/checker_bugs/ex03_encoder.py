"""Exercises 3.2 (my_encoder_layer) and 3.4 (my_load_layer): learners' code with one mistake each, and
correct code in other styles.

Split rule (fixed before any checker changed): within each exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import torch

from . import Exercise
import math
import numpy as np
import re
from pathlib import PurePosixPath
import torch.nn.functional as F
import functools

EX32 = Exercise("3.2", "encoder_layer")


@EX32.bug
def pre_ln(x, key_mask, layer):
    """I normalised before each sub-layer (pre-LN, like GPT-2), not after the residual sum."""
    a, _ = layer.attention(layer.attention_norm(x), key_mask)
    x = x + a
    return x + layer.ffn(layer.ffn_norm(x))


@EX32.bug
def ffn_residual_from_the_input(x, key_mask, layer):
    """In the feed-forward residual I added the layer's input x, not the attention sub-layer's output."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(x + layer.ffn(h))


@EX32.bug
def ffn_on_the_input(x, key_mask, layer):
    """I fed the layer's input x to the feed-forward block instead of the normalised attention output."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(x))


@EX32.bug
def no_ffn_residual(x, key_mask, layer):
    """I forgot the residual around the feed-forward block: ffn_norm(ffn(h))."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(layer.ffn(h))


@EX32.bug
def norms_swapped(x, key_mask, layer):
    """I used ffn_norm after attention and attention_norm after the feed-forward block (they look alike)."""
    a, _ = layer.attention(x, key_mask)
    h = layer.ffn_norm(x + a)
    return layer.attention_norm(h + layer.ffn(h))


@EX32.bug
def mask_not_passed(x, key_mask, layer):
    """I called layer.attention(x, None): I thought the mask was only for training."""
    a, _ = layer.attention(x, None)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def residual_added_in_place(x, key_mask, layer):
    """I wrote x += a to save memory, which changes the caller's tensor."""
    a, _ = layer.attention(x, key_mask)
    x += a
    h = layer.attention_norm(x)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def padded_positions_zeroed(x, key_mask, layer):
    """I set the output at the padded positions to zero, since nobody should read them."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    out = layer.ffn_norm(h + layer.ffn(h))
    if key_mask is not None:
        out = out * key_mask.reshape(out.shape[0], out.shape[1], 1).to(out.dtype)
    return out


@EX32.bug
def norm_applied_twice(x, key_mask, layer):
    """I normalised the attention output before the residual as well as after it."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + layer.attention_norm(a))
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def returns_the_pair(x, key_mask, layer):
    """I returned (output, probabilities) like the attention does."""
    a, probs = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h)), probs


@EX32.correct
def one_line_per_sublayer(x, key_mask, layer):
    """Two sub-layers written as a loop over (sub-layer, norm) pairs."""
    attention = lambda h: layer.attention(h, key_mask)[0]
    for sublayer, norm in ((attention, layer.attention_norm), (layer.ffn, layer.ffn_norm)):
        x = norm(x + sublayer(x))
    return x


EX34 = Exercise("3.4", "load_layer")

_NAMES = {"attention.query": "attention.self.query", "attention.key": "attention.self.key",
          "attention.value": "attention.self.value", "attention.output": "attention.output.dense",
          "attention_norm": "attention.output.LayerNorm", "ffn.intermediate": "intermediate.dense",
          "ffn.output": "output.dense", "ffn_norm": "output.LayerNorm"}


@EX34.bug
def layer_zero_hard_coded(state_dict, i, layer):
    """I wrote the names with "encoder.layer.0." in them, copied from the list in the exercise."""
    with torch.no_grad():
        for ours, theirs in _NAMES.items():
            module = layer.get_submodule(ours)
            module.weight.copy_(state_dict[f"encoder.layer.0.{theirs}.weight"])
            module.bias.copy_(state_dict[f"encoder.layer.0.{theirs}.bias"])


@EX34.bug
def layer_norms_swapped(state_dict, i, layer):
    """I mapped attention_norm to output.LayerNorm and ffn_norm to attention.output.LayerNorm."""
    names = dict(_NAMES, attention_norm="output.LayerNorm", ffn_norm="attention.output.LayerNorm")
    with torch.no_grad():
        for ours, theirs in names.items():
            for p in ("weight", "bias"):
                getattr(layer.get_submodule(ours), p).copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"])


@EX34.bug
def biases_forgotten(state_dict, i, layer):
    """I copied the weights only; I thought .weight held everything."""
    with torch.no_grad():
        for ours, theirs in _NAMES.items():
            layer.get_submodule(ours).weight.copy_(state_dict[f"encoder.layer.{i}.{theirs}.weight"])


@EX34.bug
def layer_norms_forgotten(state_dict, i, layer):
    """I loaded the six Linear layers and forgot the two LayerNorms."""
    names = {k: v for k, v in _NAMES.items() if "norm" not in k}
    with torch.no_grad():
        for ours, theirs in names.items():
            for p in ("weight", "bias"):
                getattr(layer.get_submodule(ours), p).copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"])


@EX34.bug
def query_key_swapped(state_dict, i, layer):
    """I typed the table by hand and paired attention.query with self.key and attention.key with self.query."""
    names = dict(_NAMES, **{"attention.query": "attention.self.key", "attention.key": "attention.self.query"})
    with torch.no_grad():
        for ours, theirs in names.items():
            for p in ("weight", "bias"):
                getattr(layer.get_submodule(ours), p).copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"])


@EX34.bug
def load_state_dict_not_strict(state_dict, i, layer):
    """I renamed the keys by stripping the prefix and called load_state_dict(strict=False) (it loaded nothing)."""
    prefix = f"encoder.layer.{i}."
    mine = {k[len(prefix):]: v for k, v in state_dict.items() if k.startswith(prefix)}
    layer.load_state_dict(mine, strict=False)


@EX34.bug
def layers_counted_from_one(state_dict, i, layer):
    """I read layer i + 1: I thought the checkpoint numbered its layers from 1."""
    with torch.no_grad():
        for ours, theirs in _NAMES.items():
            for p in ("weight", "bias"):
                key = f"encoder.layer.{i + 1}.{theirs}.{p}"
                if key not in state_dict:
                    key = f"encoder.layer.{i}.{theirs}.{p}"
                getattr(layer.get_submodule(ours), p).copy_(state_dict[key])


@EX34.bug
def value_and_output_swapped(state_dict, i, layer):
    """I thought attention.output.dense was the value projection and self.value the output one."""
    names = dict(_NAMES, **{"attention.value": "attention.output.dense", "attention.output": "attention.self.value"})
    with torch.no_grad():
        for ours, theirs in names.items():
            for p in ("weight", "bias"):
                getattr(layer.get_submodule(ours), p).copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"])


@EX34.bug
def square_weights_transposed(state_dict, i, layer):
    """I transposed every weight that had the right shape both ways (TF habit: y = x W)."""
    with torch.no_grad():
        for ours, theirs in _NAMES.items():
            module = layer.get_submodule(ours)
            w = state_dict[f"encoder.layer.{i}.{theirs}.weight"]
            module.weight.copy_(w.T if w.ndim == 2 and w.shape[0] == w.shape[1] else w)
            module.bias.copy_(state_dict[f"encoder.layer.{i}.{theirs}.bias"])


@EX34.bug
def ffn_dense_layers_swapped(state_dict, i, layer):
    """I mapped ffn.output to attention.output.dense (its name says output), and attention.output to output.dense."""
    names = dict(_NAMES, **{"ffn.output": "attention.output.dense", "attention.output": "output.dense"})
    with torch.no_grad():
        for ours, theirs in names.items():
            for p in ("weight", "bias"):
                getattr(layer.get_submodule(ours), p).copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"])


@EX34.correct
def renamed_state_dict(state_dict, i, layer):
    """Build minibert's names for the layer and call load_state_dict (strict), which copies in place."""
    prefix = f"encoder.layer.{i}."
    mine = {}
    for ours, theirs in _NAMES.items():
        for p in ("weight", "bias"):
            mine[f"{ours}.{p}"] = state_dict[f"{prefix}{theirs}.{p}"]
    layer.load_state_dict(mine)


@EX34.correct
def named_parameters_loop(state_dict, i, layer):
    """Loop over the layer's named_parameters and translate each name with str.replace."""
    for name, param in layer.named_parameters():
        module, kind = name.rsplit(".", 1)
        with torch.no_grad():
            param.copy_(state_dict[f"encoder.layer.{i}.{_NAMES[module]}.{kind}"])


# --- Batch 2: written without reading any checker, before the checkers were changed against it ---
EX32.batch = 2
EX34.batch = 2


@EX32.bug
def norm_then_add(x, key_mask, layer):
    """I normalised each sub-layer's output and then added the residual: x + norm(sublayer(x))."""
    a, _ = layer.attention(x, key_mask)
    h = x + layer.attention_norm(a)
    return h + layer.ffn_norm(layer.ffn(h))


@EX32.bug
def mask_inverted(x, key_mask, layer):
    """I passed ~key_mask to the attention: I thought the mask marked the padding to hide."""
    a, _ = layer.attention(x, None if key_mask is None else ~key_mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def unnormalised_residual_for_ffn(x, key_mask, layer):
    """I kept the sum x + a, before its LayerNorm, as the residual around the feed-forward block."""
    a, _ = layer.attention(x, key_mask)
    s = x + a
    return layer.ffn_norm(s + layer.ffn(layer.attention_norm(s)))


@EX32.bug
def dropout_in_the_residuals(x, key_mask, layer):
    """I added dropout on each sub-layer's output as BERT does, with torch.nn.functional.dropout(a, 0.1)."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + torch.nn.functional.dropout(a, 0.1))
    return layer.ffn_norm(h + torch.nn.functional.dropout(layer.ffn(h), 0.1))


@EX32.correct
def residuals_on_a_clone(x, key_mask, layer):
    """The residuals added in place, but on a clone of x, so the caller's tensor stays as it was."""
    h = x.clone()
    h += layer.attention(x, key_mask)[0]
    h = layer.attention_norm(h)
    f = layer.ffn(h)
    f += h
    return layer.ffn_norm(f)


@EX34.bug
def prefix_without_the_dot(state_dict, i, layer):
    """I picked layer i's tensors with key.startswith(f"encoder.layer.{i}"), so layer 1 also matches layers 10 and 11."""
    ours_by_theirs = {theirs: ours for ours, theirs in _NAMES.items()}
    with torch.no_grad():
        for key, tensor in state_dict.items():
            if key.startswith(f"encoder.layer.{i}"):
                theirs, p = key.split(".", 3)[3].rsplit(".", 1)
                getattr(layer.get_submodule(ours_by_theirs[theirs]), p).copy_(tensor)


@EX34.bug
def checkpoint_order_zipped(state_dict, i, layer):
    """I paired the layer's parameters with layer i's sixteen checkpoint tensors in the order the checkpoint lists them."""
    prefix = f"encoder.layer.{i}."
    theirs = [t for key, t in state_dict.items() if key.startswith(prefix)]
    with torch.no_grad():
        for param, tensor in zip(layer.parameters(), theirs):
            param.copy_(tensor)


@EX34.bug
def attention_output_forgotten(state_dict, i, layer):
    """I loaded self.query, self.key and self.value but forgot attention's output projection, attention.output.dense."""
    names = {k: v for k, v in _NAMES.items() if k != "attention.output"}
    with torch.no_grad():
        for ours, theirs in names.items():
            for p in ("weight", "bias"):
                getattr(layer.get_submodule(ours), p).copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"])


@EX34.bug
def loaded_into_a_copy(state_dict, i, layer):
    """I loaded into copy.deepcopy(layer) and returned it, to leave my argument unchanged."""
    import copy
    layer = copy.deepcopy(layer)
    with torch.no_grad():
        for ours, theirs in _NAMES.items():
            for p in ("weight", "bias"):
                getattr(layer.get_submodule(ours), p).copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"])
    return layer


@EX34.correct
def regex_over_the_checkpoint(state_dict, i, layer):
    """One pass over the checkpoint's keys with a regular expression, copying through .data."""
    import re
    ours_by_theirs = {theirs: ours for ours, theirs in _NAMES.items()}
    pattern = re.compile(r"encoder\.layer\.(\d+)\.(.+)\.(weight|bias)")
    for key, tensor in state_dict.items():
        match = pattern.fullmatch(key)
        if match and int(match.group(1)) == i:
            getattr(layer.get_submodule(ours_by_theirs[match.group(2)]), match.group(3)).data.copy_(tensor)


# --- Batch 3: written without reading any checker, before the checkers were changed against it ---
EX32.batch = 3
EX34.batch = 3


@EX32.bug
def layer_norm_default_eps(x, key_mask, layer):
    """I applied the two LayerNorms with F.layer_norm and their weight and bias, leaving eps at its default 1e-5 (the layer's is 1e-12)."""
    F = torch.nn.functional
    H = x.shape[-1]
    a, _ = layer.attention(x, key_mask)
    h = F.layer_norm(x + a, (H,), layer.attention_norm.weight, layer.attention_norm.bias)
    return F.layer_norm(h + layer.ffn(h), (H,), layer.ffn_norm.weight, layer.ffn_norm.bias)


@EX32.bug
def mask_cast_to_the_dtype(x, key_mask, layer):
    """I converted key_mask to x.dtype before passing it on, as transformers does with its masks (a float mask is added: 1 at real keys, 0 at padding)."""
    a, _ = layer.attention(x, None if key_mask is None else key_mask.to(x.dtype))
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def attention_norm_for_both(x, key_mask, layer):
    """I used layer.attention_norm after both sub-layers (I thought a layer had one LayerNorm, used twice)."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    return layer.attention_norm(h + layer.ffn(h))


@EX32.bug
def input_normalised_too(x, key_mask, layer):
    """I normalised x with attention_norm before the attention as well as after the residual sum."""
    a, _ = layer.attention(layer.attention_norm(x), key_mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def residual_sums_in_float32(x, key_mask, layer):
    """I added the residuals in float32, x.float() + a.float(), to be safe (a float64 or bfloat16 layer then gets float32)."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x.float() + a.float())
    return layer.ffn_norm(h.float() + layer.ffn(h).float())


@EX32.bug
def feed_forward_first(x, key_mask, layer):
    """I wired the feed-forward sub-layer first and the attention sub-layer second."""
    h = layer.ffn_norm(x + layer.ffn(x))
    a, _ = layer.attention(h, key_mask)
    return layer.attention_norm(h + a)


@EX32.correct
def sublayers_as_functions(x, key_mask, layer):
    """A small helper `post_ln(norm, sublayer, x)` applied twice, the attention wrapped in a lambda."""
    def post_ln(norm, sublayer, h):
        return norm(torch.add(h, sublayer(h)))
    h = post_ln(layer.attention_norm, lambda t: layer.attention(t, key_mask)[0], x)
    return post_ln(layer.ffn_norm, layer.ffn, h)


_CACHE_B3 = {}


@EX34.bug
def parameters_replaced(state_dict, i, layer):
    """I set each sub-module's weight and bias to torch.nn.Parameter(tensor), new parameters, instead of copying into the old ones."""
    for ours, theirs in _NAMES.items():
        module = layer.get_submodule(ours)
        for p in ("weight", "bias"):
            setattr(module, p, torch.nn.Parameter(state_dict[f"encoder.layer.{i}.{theirs}.{p}"]))


@EX34.bug
def data_assigned(state_dict, i, layer):
    """I wrote param.data = tensor (no torch.no_grad needed), so the layer shares the checkpoint's memory and takes its dtype."""
    for ours, theirs in _NAMES.items():
        module = layer.get_submodule(ours)
        for p in ("weight", "bias"):
            getattr(module, p).data = state_dict[f"encoder.layer.{i}.{theirs}.{p}"]


@EX34.bug
def layer_numbers_sorted_as_strings(state_dict, i, layer):
    """I listed the layer numbers found in the checkpoint, sorted them, and took the i-th (as strings: "10" sorts before "2")."""
    numbers = sorted({key.split(".")[2] for key in state_dict if key.startswith("encoder.layer.")})
    prefix = f"encoder.layer.{numbers[i]}."
    with torch.no_grad():
        for ours, theirs in _NAMES.items():
            module = layer.get_submodule(ours)
            for p in ("weight", "bias"):
                getattr(module, p).copy_(state_dict[f"{prefix}{theirs}.{p}"])


@EX34.bug
def ffn_norm_copy_pasted(state_dict, i, layer):
    """I copied the attention_norm line of my table for ffn_norm and forgot to change it: both read attention.output.LayerNorm."""
    names = dict(_NAMES, ffn_norm="attention.output.LayerNorm")
    with torch.no_grad():
        for ours, theirs in names.items():
            module = layer.get_submodule(ours)
            for p in ("weight", "bias"):
                getattr(module, p).copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"])


@EX34.bug
def tensors_cached_by_layer_number(state_dict, i, layer):
    """I kept each layer's sixteen tensors in a module-level dict keyed by i, to look them up only once (a later checkpoint gets the first one's)."""
    if i not in _CACHE_B3:
        _CACHE_B3[i] = {(ours, p): state_dict[f"encoder.layer.{i}.{theirs}.{p}"]
                        for ours, theirs in _NAMES.items() for p in ("weight", "bias")}
    with torch.no_grad():
        for (ours, p), tensor in _CACHE_B3[i].items():
            getattr(layer.get_submodule(ours), p).copy_(tensor)


@EX34.bug
def sixteen_lines_one_slip(state_dict, i, layer):
    """I wrote the sixteen copies out by hand, and the key's bias line reads attention.self.query.bias."""
    s = f"encoder.layer.{i}."
    with torch.no_grad():
        layer.attention.query.weight.copy_(state_dict[s + "attention.self.query.weight"])
        layer.attention.query.bias.copy_(state_dict[s + "attention.self.query.bias"])
        layer.attention.key.weight.copy_(state_dict[s + "attention.self.key.weight"])
        layer.attention.key.bias.copy_(state_dict[s + "attention.self.query.bias"])
        layer.attention.value.weight.copy_(state_dict[s + "attention.self.value.weight"])
        layer.attention.value.bias.copy_(state_dict[s + "attention.self.value.bias"])
        layer.attention.output.weight.copy_(state_dict[s + "attention.output.dense.weight"])
        layer.attention.output.bias.copy_(state_dict[s + "attention.output.dense.bias"])
        layer.attention_norm.weight.copy_(state_dict[s + "attention.output.LayerNorm.weight"])
        layer.attention_norm.bias.copy_(state_dict[s + "attention.output.LayerNorm.bias"])
        layer.ffn.intermediate.weight.copy_(state_dict[s + "intermediate.dense.weight"])
        layer.ffn.intermediate.bias.copy_(state_dict[s + "intermediate.dense.bias"])
        layer.ffn.output.weight.copy_(state_dict[s + "output.dense.weight"])
        layer.ffn.output.bias.copy_(state_dict[s + "output.dense.bias"])
        layer.ffn_norm.weight.copy_(state_dict[s + "output.LayerNorm.weight"])
        layer.ffn_norm.bias.copy_(state_dict[s + "output.LayerNorm.bias"])


@EX34.correct
def through_the_layers_state_dict(state_dict, i, layer):
    """Copy into the tensors of layer.state_dict(), which share the parameters' memory (detached, so no no_grad needed)."""
    own = layer.state_dict()
    for name, target in own.items():
        module, kind = name.rsplit(".", 1)
        target.copy_(state_dict["encoder.layer." + str(i) + "." + _NAMES[module] + "." + kind])


# --- batch 4: written without reading any checker ------------------------------------------
EX32.batch = 4
EX34.batch = 4


@EX32.bug
def square_mask_hides_padded_queries(x, key_mask, layer):
    """I made the mask square, key_mask & key_mask.transpose(-1, -2), so that padding is neither seen nor looks: a padded position then attends to nothing.
    Differs on: any padded batch, at the padded positions (the worked example's second token: attention gives 0 there, or NaN on some kernels, not [1, 2, 0])."""
    mask = None if key_mask is None else key_mask & key_mask.transpose(-1, -2)
    a, _ = layer.attention(x, mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def feed_forward_with_tanh_gelu(x, key_mask, layer):
    """I wrote the feed-forward block out from its two Linear layers with my GELU of Google's later code, F.gelu(..., approximate="tanh"), not the layer's exact one.
    Differs on: any input to a layer whose hidden_act is "gelu" (all-MiniLM-L6-v2's, minibert's default): differences of about 1e-4 to 1e-3."""
    F = torch.nn.functional
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    f = layer.ffn.output(F.gelu(layer.ffn.intermediate(h), approximate="tanh"))
    return layer.ffn_norm(h + f)


@EX32.bug
def returned_the_attention_sublayer(x, key_mask, layer):
    """I kept both sub-layers' results in variables and returned the wrong one, h, the attention sub-layer's output.
    Differs on: any input (the feed-forward sub-layer is missing from the output)."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    y = layer.ffn_norm(h + layer.ffn(h))
    return h


@EX32.bug
def mask_as_exercise_2_2_takes_it(x, key_mask, layer):
    """I passed the mask as exercise 2.2's attention takes it, (B, T), with key_mask[:, 0, 0, :]; broadcast against the scores it is right only for a batch of one.
    Differs on: B = T = 2 with padding in one sequence (the wrong keys are hidden); B = 2, T = 3 with padding raises."""
    mask = None if key_mask is None else key_mask[:, 0, 0, :]
    a, _ = layer.attention(x, mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def output_squeezed(x, key_mask, layer):
    """I returned out.squeeze() to tidy the shape, which drops the batch axis of a batch of one sequence (and the token axis of a single token).
    Differs on: B = 1 (returns (T, H), not (1, T, H))."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    out = layer.ffn_norm(h + layer.ffn(h))
    return out.squeeze()


@EX32.bug
def mask_along_the_token_axis(x, key_mask, layer):
    """I passed key_mask.transpose(-1, -2), (B, 1, T, 1), to line it up with x's token axis: it hides the padded queries' rows, not the padded keys.
    Differs on: any padded batch, at the real positions too (they then attend to the padding)."""
    mask = None if key_mask is None else key_mask.transpose(-1, -2)
    a, _ = layer.attention(x, mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.correct
def one_sequence_at_a_time(x, key_mask, layer):
    """Each sequence of the batch through both sub-layers on its own, with its slice of the mask; the results concatenated."""
    outs = []
    for b in range(x.shape[0]):
        xb = x[b:b + 1]
        mb = None if key_mask is None else key_mask[b:b + 1]
        hb = layer.attention_norm(xb + layer.attention(xb, mb)[0])
        outs.append(layer.ffn_norm(hb + layer.ffn(hb)))
    return torch.cat(outs, dim=0)


@EX34.bug
def layer_number_of_one_digit(state_dict, i, layer):
    """I picked layer i's keys with the regular expression r"encoder\\.layer\\.(\\d)\\.(.+)\\.(weight|bias)", one digit, so layers 10 and up are never loaded.
    Differs on: a 12-layer checkpoint (BERT-BASE's), i = 10 or 11: the layer is left as built."""
    import re
    ours_by_theirs = {theirs: ours for ours, theirs in _NAMES.items()}
    with torch.no_grad():
        for key, tensor in state_dict.items():
            match = re.match(r"encoder\.layer\.(\d)\.(.+)\.(weight|bias)$", key)
            if match and int(match.group(1)) == i:
                getattr(layer.get_submodule(ours_by_theirs[match.group(2)]), match.group(3)).copy_(tensor)


@EX34.bug
def copied_the_other_way(state_dict, i, layer):
    """I wrote tensor.copy_(param), the arguments the other way round (copy_ writes into the tensor it is called on): the checkpoint is overwritten, the layer unchanged.
    Differs on: any checkpoint and i (the layer keeps its fresh initial weights)."""
    with torch.no_grad():
        for ours, theirs in _NAMES.items():
            module = layer.get_submodule(ours)
            for p in ("weight", "bias"):
                state_dict[f"encoder.layer.{i}.{theirs}.{p}"].copy_(getattr(module, p))


@EX34.bug
def found_by_the_end_of_the_key(state_dict, i, layer):
    """I took, for each module, the first of layer i's keys that ends with its checkpoint name, so "output.LayerNorm.weight" finds "attention.output.LayerNorm.weight" first.
    Differs on: any checkpoint in its usual order, i = 0: ffn_norm gets attention_norm's values (and ffn.output's weight raises a shape error unless I = H)."""
    prefix = f"encoder.layer.{i}."
    keys = [key for key in state_dict if key.startswith(prefix)]
    with torch.no_grad():
        for ours, theirs in _NAMES.items():
            module = layer.get_submodule(ours)
            for p in ("weight", "bias"):
                key = next(key for key in keys if key.endswith(f"{theirs}.{p}"))
                getattr(module, p).copy_(state_dict[key])


@EX34.bug
def missing_attributes_skipped(state_dict, i, layer):
    """I looked the sub-modules up with getattr(layer, name) and skipped the names hasattr said were missing: every dotted name was, so only the two LayerNorms got loaded.
    Differs on: any checkpoint and i (the six Linear layers keep their initial weights)."""
    with torch.no_grad():
        for ours, theirs in _NAMES.items():
            if not hasattr(layer, ours):
                continue
            module = getattr(layer, ours)
            for p in ("weight", "bias"):
                getattr(module, p).copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"])


@EX34.bug
def layer_number_compared_as_text(state_dict, i, layer):
    """I kept the keys whose layer number key.split(".")[2] == i, a string compared with an int, so no key matched and nothing was copied.
    Differs on: any checkpoint and i (the layer is left as built, without an error)."""
    ours_by_theirs = {theirs: ours for ours, theirs in _NAMES.items()}
    with torch.no_grad():
        for key, tensor in state_dict.items():
            parts = key.split(".")
            if parts[0] == "encoder" and parts[2] == i:
                module = layer.get_submodule(ours_by_theirs[".".join(parts[3:-1])])
                getattr(module, parts[-1]).copy_(tensor)


@EX34.bug
def stored_in_half_precision(state_dict, i, layer):
    """I converted each checkpoint tensor with .half() on its way in, to save memory, so a float32 layer gets its weights rounded to float16.
    Differs on: any float32 checkpoint (all-MiniLM-L6-v2's), any i: relative errors up to about 5e-4."""
    with torch.no_grad():
        for ours, theirs in _NAMES.items():
            module = layer.get_submodule(ours)
            for p in ("weight", "bias"):
                getattr(module, p).copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"].half())


@EX34.correct
def checkpoint_name_by_rules(state_dict, i, layer):
    """The checkpoint name of each of the layer's parameters derived by rules from minibert's name; copied through param.data (no no_grad needed)."""
    def theirs(ours):
        module, kind = ours.rsplit(".", 1)
        if module in ("attention.query", "attention.key", "attention.value"):
            module = module.replace("attention.", "attention.self.")
        elif module == "attention.output":
            module = "attention.output.dense"
        elif module == "attention_norm":
            module = "attention.output.LayerNorm"
        elif module == "ffn_norm":
            module = "output.LayerNorm"
        else:  # ffn.intermediate, ffn.output
            module = module.split(".")[1] + ".dense"
        return f"encoder.layer.{i}.{module}.{kind}"

    for name, param in layer.named_parameters():
        param.data.copy_(state_dict[theirs(name)])


# --- batch 5: written without reading any checker ------------------------------------------
EX32.batch = 5
EX34.batch = 5


@EX32.bug
def attention_pair_not_unpacked(x, key_mask, layer):
    """I wrote a = layer.attention(x, key_mask) and forgot that it returns a pair, so the residual sum adds a tuple to a tensor.
    Differs on: any input (raises TypeError at x + a)."""
    a = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def layer_norm_without_its_parameters(x, key_mask, layer):
    """I normalised with F.layer_norm(h, (H,), eps=norm.eps), thinking a LayerNorm only standardises, so its learned γ and β are left out.
    Differs on: the worked example (second LayerNorm's γ = [1, 2, 3], β = [0, 0, 1]: gives [1.4142, -0.7071, -0.7071], not [1.4142, -1.4142, -1.1213]); any trained layer."""
    F = torch.nn.functional
    H = x.shape[-1]
    a, _ = layer.attention(x, key_mask)
    h = F.layer_norm(x + a, (H,), eps=layer.attention_norm.eps)
    return F.layer_norm(h + layer.ffn(h), (H,), eps=layer.ffn_norm.eps)


@EX32.bug
def built_under_no_grad(x, key_mask, layer):
    """The layer is in eval mode, so I ran everything under torch.no_grad(), which I took to mean the same thing: the output has no graph.
    Differs on: any x or layer with requires_grad (the layer's parameters always): out.requires_grad is False and out.sum().backward() raises; the values are right."""
    with torch.no_grad():
        a, _ = layer.attention(x, key_mask)
        h = layer.attention_norm(x + a)
        return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def ffn_residual_is_the_attention_output(x, key_mask, layer):
    """Around the feed-forward block I added the attention's output a as the residual, not the normalised sum h that goes into the block.
    Differs on: the worked example (ffn_norm([1, 2, 0] + [3, -s, s]) instead of ffn_norm([0, s, -s] + [3, -s, s])); any input."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(a + layer.ffn(h))


@EX32.bug
def relu_between_the_linears(x, key_mask, layer):
    """I wrote the feed-forward block out from its two Linear layers as in the Transformer paper, with a ReLU between them, not the layer's GELU.
    Differs on: any layer whose intermediate pre-activations have negative values (all-MiniLM-L6-v2's, a random EncoderLayer): differences of order 0.1."""
    F = torch.nn.functional
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    f = layer.ffn.output(F.relu(layer.ffn.intermediate(h)))
    return layer.ffn_norm(h + f)


@EX32.bug
def ffn_reads_the_unnormalised_sum(x, key_mask, layer):
    """I gave the feed-forward block s = x + a, the sum before its LayerNorm, and used the normalised h only as the residual.
    Differs on: any layer whose feed-forward block is not constant (a random or real layer); the worked example, whose block returns a constant, passes."""
    a, _ = layer.attention(x, key_mask)
    s = x + a
    h = layer.attention_norm(s)
    return layer.ffn_norm(h + layer.ffn(s))


@EX32.correct
def positionwise_parts_flattened(x, key_mask, layer):
    """The position-wise parts (both LayerNorms and the feed-forward block) run on a flat (B·T, H) view of the tokens; only the attention sees (B, T, H)."""
    B, T, H = x.shape
    a = layer.attention(x, key_mask)[0]
    h = layer.attention_norm((x + a).reshape(B * T, H))
    out = layer.ffn_norm(h + layer.ffn(h))
    return out.reshape(B, T, H)


@EX34.bug
def copied_without_no_grad(state_dict, i, layer):
    """I copied with param.copy_(tensor) and left out the torch.no_grad() block, which I took for an optimisation.
    Differs on: any checkpoint and a freshly built layer, whose parameters require grad (raises RuntimeError: a leaf Variable that requires grad is used in an in-place operation)."""
    for ours, theirs in _NAMES.items():
        module = layer.get_submodule(ours)
        for p in ("weight", "bias"):
            getattr(module, p).copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"])


@EX34.bug
def gradients_switched_off_to_copy(state_dict, i, layer):
    """Autograd refused my in-place copy, so I called param.requires_grad_(False) first, and never switched it back: the loaded layer is frozen.
    Differs on: any checkpoint and i: the values are right, but every parameter of the layer ends with requires_grad False (True expected)."""
    for ours, theirs in _NAMES.items():
        module = layer.get_submodule(ours)
        for p in ("weight", "bias"):
            param = getattr(module, p)
            param.requires_grad_(False)
            param.copy_(state_dict[f"encoder.layer.{i}.{theirs}.{p}"])


@EX34.bug
def tensors_popped_from_the_checkpoint(state_dict, i, layer):
    """I took each tensor out with state_dict.pop(key), to free the memory as I went: the caller's checkpoint loses layer i's sixteen tensors.
    Differs on: any checkpoint and i: afterwards len(state_dict) is 16 smaller, and loading the same layer again raises KeyError."""
    with torch.no_grad():
        for ours, theirs in _NAMES.items():
            module = layer.get_submodule(ours)
            for p in ("weight", "bias"):
                getattr(module, p).copy_(state_dict.pop(f"encoder.layer.{i}.{theirs}.{p}"))


@EX34.bug
def renamed_general_before_specific(state_dict, i, layer):
    """I renamed the checkpoint's keys with a chain of str.replace, "output.dense" and "output.LayerNorm" before "attention.output.dense" and "attention.output.LayerNorm", and skipped the names my layer does not have, so attention's output projection and its LayerNorm are never loaded.
    Differs on: any checkpoint and i: attention.output and attention_norm keep their initial values, without an error."""
    steps = [("attention.self.", "attention."), ("intermediate.dense", "ffn.intermediate"),
             ("output.dense", "ffn.output"), ("output.LayerNorm", "ffn_norm"),
             ("attention.output.dense", "attention.output"), ("attention.output.LayerNorm", "attention_norm")]
    own = dict(layer.named_parameters())
    prefix = f"encoder.layer.{i}."
    with torch.no_grad():
        for key, tensor in state_dict.items():
            if not key.startswith(prefix):
                continue
            name = key[len(prefix):]
            for old, new in steps:
                name = name.replace(old, new)
            if name in own:  # the checkpoint may hold things my layer does not have
                own[name].copy_(tensor)


@EX34.bug
def loop_variable_rebound(state_dict, i, layer):
    """I looped over layer.state_dict().items() and wrote param = state_dict[...], which only rebinds my loop variable: nothing is copied.
    Differs on: any checkpoint and i (the layer is left as built, without an error)."""
    for name, param in layer.state_dict().items():
        module, kind = name.rsplit(".", 1)
        param = state_dict[f"encoder.layer.{i}.{_NAMES[module]}.{kind}"]


@EX34.bug
def prefix_removed_with_lstrip(state_dict, i, layer):
    """I removed the prefix with key.lstrip(f"encoder.layer.{i}."), which strips any of those characters, not the prefix: "attention..." becomes "ttention...", and only the names starting with another letter (intermediate.dense) are found.
    Differs on: any checkpoint and i: only ffn.intermediate is loaded; the other fourteen tensors keep their initial values, without an error."""
    prefix = f"encoder.layer.{i}."
    ours_by_theirs = {theirs: ours for ours, theirs in _NAMES.items()}
    with torch.no_grad():
        for key, tensor in state_dict.items():
            if key.startswith(prefix):
                theirs, p = key.lstrip(prefix).rsplit(".", 1)
                ours = ours_by_theirs.get(theirs)
                if ours is not None:  # the checkpoint may hold things my layer does not have
                    getattr(layer.get_submodule(ours), p).copy_(tensor)


@EX34.correct
def copied_through_detached_views(state_dict, i, layer):
    """Each sub-module found by functools.reduce(getattr, ...) over its dotted name; copied into param.detach(), which shares the parameter's memory (so no torch.no_grad block)."""
    import functools
    for ours, theirs in _NAMES.items():
        module = functools.reduce(getattr, ours.split("."), layer)
        for kind in ("bias", "weight"):
            getattr(module, kind).detach().copy_(state_dict["encoder.layer.%d.%s.%s" % (i, theirs, kind)])


# --- batch 6: written without reading any checker ------------------------------------------
EX3_1 = Exercise("3.1", "feed_forward")
EX3_1.batch = 6


@EX3_1.bug
def first_bias_after_the_gelu(x, w1, b1, w2, b2):
    """I applied the GELU to x W1ᵀ and added b1 afterwards, thinking a bias is just added at the end of each map.
    Differs on: the worked example (b1 = [0, 0, 0.5]): the third unit gives GELU(0) + 0.5 = 0.5 instead of GELU(0.5) = 0.3457, so the output is [0.6827, 0.0] instead of [0.6827, -0.3085]."""
    h = x @ w1.T
    h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2))) + b1
    return h @ w2.T + b2


@EX3_1.bug
def sigmoid_gelu(x, w1, b1, w2, b2):
    """I used the GELU I had seen in CLIP's code, z · sigmoid(1.702 z), thinking it was the same function as z Φ(z).
    Differs on: the worked example: GELU(1) becomes 0.8458 instead of 0.8413 and GELU(-1) -0.1542 instead of -0.1587, so the output is [0.6916, -0.2992] instead of [0.6827, -0.3085] (differences up to about 0.02 on random inputs)."""
    h = x @ w1.T + b1
    h = h * torch.sigmoid(1.702 * h)
    return h @ w2.T + b2


@EX3_1.bug
def erf_scaled_by_the_tanh_constant(x, w1, b1, w2, b2):
    """I half-remembered the GELU and divided by √(2/π) ≈ 0.798 inside the erf (the constant of the tanh form) instead of √2.
    Differs on: the worked example: GELU(1) = 0.5 (1 + erf(1.2533)) = 0.9618 instead of 0.8413, so the output is [0.9237, -0.1877] instead of [0.6827, -0.3085]; any input whose pre-activations are not 0."""
    h = x @ w1.T + b1
    h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2 / math.pi)))
    return h @ w2.T + b2


@EX3_1.bug
def residual_added_inside_the_block(x, w1, b1, w2, b2):
    """I returned x + FFN(x): in my notes the feed-forward block came with its residual connection.
    Differs on: the worked example x = [1, -1]: [1.6827, -1.3085] instead of [0.6827, -0.3085]; any non-zero x."""
    h = x @ w1.T + b1
    h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
    return x + (h @ w2.T + b2)


@EX3_1.correct
def einsum_and_erfc(x, w1, b1, w2, b2):
    """einsum for both maps; GELU written with the complementary error function, ½ z erfc(−z/√2)."""
    h = torch.einsum("bth,ih->bti", x, w1) + b1
    h = 0.5 * h * torch.erfc(-h * math.sqrt(0.5))
    return torch.einsum("bti,hi->bth", h, w2) + b2


# --- batch 6: written without reading any checker ------------------------------------------
EX32.batch = 6


@EX32.bug
def hand_layer_norm_with_unbiased_variance(x, key_mask, layer):
    """I wrote the LayerNorm out with the module's γ, β and eps, but took the variance with h.var(-1), which divides by H - 1.
    Differs on: the worked example (H = 3): [1.1451, -1.4025, -0.3316] instead of [1.4142, -1.4142, -1.1213]; on all-MiniLM-L6-v2 (H = 384) relative differences of about 1e-3."""
    def norm(module, h):
        mean = h.mean(-1, keepdim=True)
        var = h.var(-1, keepdim=True)
        return (h - mean) / torch.sqrt(var + module.eps) * module.weight + module.bias

    a, _ = layer.attention(x, key_mask)
    h = norm(layer.attention_norm, x + a)
    return norm(layer.ffn_norm, h + layer.ffn(h))


@EX32.bug
def feed_forward_reads_the_attention_output(x, key_mask, layer):
    """I fed the feed-forward block with the attention's output a, thinking the two sub-layers are chained, and kept the normalised sum h for the residual.
    Differs on: any layer whose feed-forward block is not constant, e.g. a random EncoderLayer (H = 8, 2 heads) on a random (2, 3, 8) batch; the worked example, whose block returns a constant, passes."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(a))


@EX32.bug
def one_layer_norm_after_both_sublayers(x, key_mask, layer):
    """I read "post-LN" as one LayerNorm after the whole layer, so I added both residuals and normalised once with ffn_norm, never using attention_norm.
    Differs on: the worked example: ffn_norm([2, 4, 0] + [3, -s, s]) instead of ffn_norm([0, s, -s] + [3, -s, s]); any input."""
    a, _ = layer.attention(x, key_mask)
    s = x + a
    return layer.ffn_norm(s + layer.ffn(s))


@EX32.bug
def mask_dropped_for_a_single_sequence(x, key_mask, layer):
    """I passed no mask when the batch holds one sequence, thinking padding only exists to line up sequences of different lengths.
    Differs on: B = 1, T = 3, the last token padded (key_mask [[[[True, True, False]]]]), a random EncoderLayer (H = 8, 2 heads): the real tokens attend to the padding. (The worked example happens to pass: its uniform attention only moves both residual sums along [0, 1, -1], which the LayerNorm maps to the same output.)"""
    if x.shape[0] == 1:
        key_mask = None
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.correct
def position_wise_parts_token_by_token(x, key_mask, layer):
    """Attention on the whole batch; both LayerNorms and the feed-forward block applied token by token in a loop over positions, the results stacked."""
    a = layer.attention(x, key_mask)[0]
    outs = []
    for t in range(x.shape[1]):
        h_t = layer.attention_norm(torch.add(x[:, t], a[:, t]))  # (B, H)
        outs.append(layer.ffn_norm(h_t + layer.ffn(h_t)))
    return torch.stack(outs, dim=1)


# --- batch 6: written without reading any checker ------------------------------------------
EX3_3 = Exercise("3.3", "count_parameters")
EX3_3.batch = 6


@EX3_3.bug
def feed_forward_width_taken_as_4h(config):
    """I wrote the feed-forward block as H -> 4H -> H, the paper's rule, instead of reading intermediate_size.
    Differs on: any config whose intermediate_size is not 4H, e.g. the worked example (I = 6, H = 4): 352 instead of 262; BERT-BASE and BERT-LARGE pass."""
    V, H, L = config.vocab_size, config.hidden_size, config.num_hidden_layers
    P, S = config.max_position_embeddings, config.type_vocab_size
    I = 4 * H
    embeddings = (V + P + S) * H + 2 * H
    attention = 4 * (H * H + H)
    ffn = (H * I + I) + (I * H + H)
    norms = 4 * H
    pooler = H * H + H
    return embeddings + L * (attention + ffn + norms) + pooler


@EX3_3.bug
def pooler_counted_inside_the_layer_loop(config):
    """I summed the layers in a for loop and the pooler line ended up indented inside it, so it is counted once per layer.
    Differs on: any config with more than one layer, e.g. BERT-BASE: 109,482,240 + 11 × 590,592 = 115,978,752 instead of 109,482,240; the worked example (L = 1) passes."""
    H, I = config.hidden_size, config.intermediate_size
    total = (config.vocab_size + config.max_position_embeddings + config.type_vocab_size) * H + 2 * H
    for _ in range(config.num_hidden_layers):
        total += 4 * (H * H + H)          # query, key, value, output
        total += H * I + I + I * H + H    # feed-forward
        total += 2 * 2 * H                # two LayerNorms
        total += H * H + H                # pooler
    return total


@EX3_3.bug
def two_segments_hard_coded(config):
    """I wrote the segment table as 2 × H, since BERT has sentence A and sentence B, instead of reading type_vocab_size.
    Differs on: any config with type_vocab_size other than 2, e.g. the worked example with type_vocab_size = 1: 262 instead of 258; BERT-BASE and BERT-LARGE pass."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    word = config.vocab_size * H
    position = config.max_position_embeddings * H
    segment = 2 * H
    embeddings = word + position + segment + 2 * H
    layer = 4 * (H * H + H) + (H * I + I) + (I * H + H) + 4 * H
    return embeddings + L * layer + H * H + H


@EX3_3.bug
def embedding_layer_norm_left_out(config):
    """I counted the LayerNorms of the layers but not the one after the embeddings (I thought of the embeddings as three tables only).
    Differs on: every config, by 2H: the worked example gives 254 instead of 262; BERT-BASE 109,480,704 instead of 109,482,240."""
    H, I = config.hidden_size, config.intermediate_size

    def linear(n_in, n_out):
        return n_in * n_out + n_out

    embeddings = (config.vocab_size + config.max_position_embeddings + config.type_vocab_size) * H
    per_layer = 4 * linear(H, H) + linear(H, I) + linear(I, H) + 2 * (2 * H)
    return embeddings + config.num_hidden_layers * per_layer + linear(H, H)


@EX3_3.correct
def shapes_per_head_and_math_prod(config):
    """Every parameter tensor listed by its shape (attention split head by head), the counts summed with math.prod."""
    V, H, L = config.vocab_size, config.hidden_size, config.num_hidden_layers
    I, P, S = config.intermediate_size, config.max_position_embeddings, config.type_vocab_size
    nh = config.num_attention_heads
    hs = H // nh
    shapes = [(V, H), (P, H), (S, H), (H,), (H,)]  # tables, embedding LayerNorm
    for _ in range(L):
        for _ in range(nh):
            shapes += [(hs, H), (hs,)] * 3  # one head's query, key and value rows
        shapes += [(H, H), (H,)]  # attention output
        shapes += [(H,), (H,)]  # attention_norm
        shapes += [(I, H), (I,), (H, I), (H,)]  # feed-forward
        shapes += [(H,), (H,)]  # ffn_norm
    shapes += [(H, H), (H,)]  # pooler
    return sum(math.prod(s) for s in shapes)


# --- batch 6: written without reading any checker ------------------------------------------
EX34.batch = 6


@EX34.bug
def layer_index_shadowed_by_enumerate(state_dict, i, layer):
    """I numbered my table's rows with for i, (ours, theirs) in enumerate(names.items()), reusing the name i, so row k reads checkpoint layer k instead of layer i.
    Differs on: all-MiniLM-L6-v2's checkpoint (6 layers), any i: query gets layer 0's tensors, key layer 1's, ..., and row 6 (ffn.output) raises KeyError; a checkpoint with 8 or more layers loads a wrong mix without error."""
    names = {
        "attention.query": "attention.self.query",
        "attention.key": "attention.self.key",
        "attention.value": "attention.self.value",
        "attention.output": "attention.output.dense",
        "attention_norm": "attention.output.LayerNorm",
        "ffn.intermediate": "intermediate.dense",
        "ffn.output": "output.dense",
        "ffn_norm": "output.LayerNorm",
    }
    with torch.no_grad():
        for i, (ours, theirs) in enumerate(names.items()):
            module = layer.get_submodule(ours)
            module.weight.copy_(state_dict[f"encoder.layer.{i}.{theirs}.weight"])
            module.bias.copy_(state_dict[f"encoder.layer.{i}.{theirs}.bias"])


@EX34.bug
def loop_over_every_layer_left_in(state_dict, i, layer):
    """I started from my loop that loads the whole encoder, for j in range(number of layers), and kept it: every layer of the checkpoint is copied in turn into the one layer, so it ends with the last one's tensors.
    Differs on: all-MiniLM-L6-v2's checkpoint, i = 0 to 4 (the layer holds layer 5's tensors); i = 5 passes."""
    table = [("attention.query", "attention.self.query"), ("attention.key", "attention.self.key"),
             ("attention.value", "attention.self.value"), ("attention.output", "attention.output.dense"),
             ("attention_norm", "attention.output.LayerNorm"), ("ffn.intermediate", "intermediate.dense"),
             ("ffn.output", "output.dense"), ("ffn_norm", "output.LayerNorm")]
    n_layers = len({key.split(".")[2] for key in state_dict if key.startswith("encoder.layer.")})
    with torch.no_grad():
        for j in range(n_layers):
            for ours, theirs in table:
                for p in ("weight", "bias"):
                    layer.get_parameter(f"{ours}.{p}").copy_(state_dict[f"encoder.layer.{j}.{theirs}.{p}"])


_LOAD_LAYER_TARGETS_B6 = []  # (parameter, checkpoint name without the layer prefix), built once


@EX34.bug
def parameters_listed_once_for_all_calls(state_dict, i, layer):
    """To build my table only once I kept, at module level, the list of (parameter, checkpoint name) pairs, parameters included: every later call copies into the first layer I was given, not the new one.
    Differs on: two calls with two fresh layers, e.g. i = 0 then i = 1 of all-MiniLM-L6-v2: the second layer is left as built (and the first is overwritten with layer 1)."""
    if not _LOAD_LAYER_TARGETS_B6:
        table = {"attention.query": "attention.self.query", "attention.key": "attention.self.key",
                 "attention.value": "attention.self.value", "attention.output": "attention.output.dense",
                 "attention_norm": "attention.output.LayerNorm", "ffn.intermediate": "intermediate.dense",
                 "ffn.output": "output.dense", "ffn_norm": "output.LayerNorm"}
        for name, param in layer.named_parameters():
            module, kind = name.rsplit(".", 1)
            _LOAD_LAYER_TARGETS_B6.append((param, f"{table[module]}.{kind}"))
    with torch.no_grad():
        for param, theirs in _LOAD_LAYER_TARGETS_B6:
            param.copy_(state_dict[f"encoder.layer.{i}.{theirs}"])


@EX34.bug
def layer_number_parsed_from_every_key(state_dict, i, layer):
    """I went through the checkpoint and read each key's layer number with int(key.split(".")[2]), forgetting that the embeddings and the pooler have keys too, which have no layer number there.
    Differs on: all-MiniLM-L6-v2's full checkpoint, any i: raises (IndexError on "embeddings.position_ids", ValueError on "embeddings.LayerNorm.bias"); a dict holding only encoder.layer.* keys passes."""
    ours_by_theirs = {"attention.self.query": "attention.query", "attention.self.key": "attention.key",
                      "attention.self.value": "attention.value", "attention.output.dense": "attention.output",
                      "attention.output.LayerNorm": "attention_norm", "intermediate.dense": "ffn.intermediate",
                      "output.dense": "ffn.output", "output.LayerNorm": "ffn_norm"}
    with torch.no_grad():
        for key, tensor in state_dict.items():
            parts = key.split(".")
            if int(parts[2]) != i:
                continue
            theirs, kind = ".".join(parts[3:-1]), parts[-1]
            getattr(layer.get_submodule(ours_by_theirs[theirs]), kind).copy_(tensor)


@EX34.correct
def attribute_paths_and_slice_assignment(state_dict, i, layer):
    """A list of (attribute path, checkpoint name) pairs walked with operator.attrgetter; each parameter filled by slice assignment param[...] = tensor under torch.no_grad()."""
    import operator
    pairs = [
        ("attention.query", "attention.self.query"), ("attention.key", "attention.self.key"),
        ("attention.value", "attention.self.value"), ("attention.output", "attention.output.dense"),
        ("attention_norm", "attention.output.LayerNorm"), ("ffn.intermediate", "intermediate.dense"),
        ("ffn.output", "output.dense"), ("ffn_norm", "output.LayerNorm"),
    ]
    prefix = "encoder.layer." + str(i) + "."
    with torch.no_grad():
        for path, theirs in pairs:
            module = operator.attrgetter(path)(layer)
            module.weight[...] = state_dict[prefix + theirs + ".weight"]
            module.bias[...] = state_dict[prefix + theirs + ".bias"]


# --- batch 6: written without reading any checker ------------------------------------------
EX3_5 = Exercise("3.5", "forward_flops")
EX3_5.batch = 6


@EX3_5.bug
def attention_products_of_one_head(config, T):
    """I counted attention's two products for a head of hs = H / nh features, 2 · 2 · T² · hs, and forgot to multiply by the number of heads.
    Differs on: any config with more than one head, e.g. BERT-BASE at T = 128: 21,794,783,232 instead of 22,348,431,360 (the worked example with one head passes)."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    hs = H // config.num_attention_heads
    per_layer = 4 * 2 * T * H * H + 2 * 2 * T * T * hs + 2 * 2 * T * H * I
    return L * per_layer + 2 * H * H


@EX3_5.bug
def pooler_on_every_token(config, T):
    """I counted the pooler like the other maps, on all T tokens: 2 · T · H².
    Differs on: any T > 1, e.g. the worked example (T = 3): 912 instead of 848."""
    H, I = config.hidden_size, config.intermediate_size
    projections = 4 * 2 * T * H * H
    attention = 2 * 2 * T * T * H
    ffn = 2 * 2 * T * H * I
    pooler = 2 * T * H * H
    return config.num_hidden_layers * (projections + attention + ffn) + pooler


@EX3_5.bug
def output_projection_left_out(config, T):
    """I counted three projections, query, key and value, thinking the output projection belonged to the feed-forward block, which I counted as H -> I -> H only.
    Differs on: every config, by 2TH² per layer: the worked example gives 752 instead of 848."""
    H, I = config.hidden_size, config.intermediate_size
    qkv = 3 * 2 * T * H * H
    attention = 2 * (2 * T * T * H)
    ffn = 2 * T * H * I + 2 * T * I * H
    return config.num_hidden_layers * (qkv + attention + ffn) + 2 * H * H


@EX3_5.bug
def head_size_by_true_division(config, T):
    """I counted the attention head by head with hs = H / nh, and the true division makes the whole count a float.
    Differs on: every config: the worked example gives 848.0 (a float) instead of the int 848; BERT-BASE at T = 128 gives 22348431360.0."""
    H, I, nh = config.hidden_size, config.intermediate_size, config.num_attention_heads
    hs = H / nh
    per_layer = 4 * (2 * T * H * H) + nh * (2 * T * T * hs + 2 * T * T * hs) + 2 * (2 * T * H * I)
    return config.num_hidden_layers * per_layer + 2 * H * H


@EX3_5.correct
def matmul_shapes_listed_per_head(config, T):
    """Every matrix product of the forward pass listed as its (m, n, p), attention head by head, summed as 2mnp."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    nh = config.num_attention_heads
    hs = H // nh
    products = []
    for _ in range(L):
        products += [(T, H, H)] * 4  # query, key, value, output
        for _ in range(nh):
            products += [(T, hs, T), (T, T, hs)]  # scores, probabilities @ values
        products += [(T, H, I), (T, I, H)]  # feed-forward
    products.append((1, H, H))  # pooler on one token
    return sum(2 * m * n * p for m, n, p in products)


# --- batch 6: written without reading any checker ------------------------------------------
EX3_6 = Exercise("3.6", "tf_to_pytorch")
EX3_6.batch = 6


@EX3_6.bug
def layer_number_from_last_character(name, value):
    """I turned "layer_3" into "layer.3" with "layer." + part[-1], the digit at the end, so two-digit layers lose their tens.
    Differs on: "bert/encoder/layer_11/output/dense/bias", np.zeros(4): key "encoder.layer.1.output.dense.bias" instead of "encoder.layer.11.output.dense.bias"."""
    if name == "global_step" or name.endswith("/adam_m") or name.endswith("/adam_v"):
        return None
    parts = name.split("/")
    if parts[0] == "bert":
        parts = parts[1:]
    parts = ["layer." + p[-1] if p.startswith("layer_") else p for p in parts]
    tensor = torch.tensor(value)
    last = parts[-1]
    if last == "kernel":
        parts[-1] = "weight"
        tensor = tensor.t().contiguous()
    elif last == "gamma":
        parts[-1] = "weight"
    elif last == "beta":
        parts[-1] = "bias"
    elif last.endswith("_embeddings"):
        parts.append("weight")
    return ".".join(parts), tensor


@EX3_6.bug
def kernel_reshaped_to_out_in(name, value):
    """I turned the (in, out) kernel into nn.Linear's (out, in) with .reshape(out, in), which gives the right shape but not the transpose.
    Differs on: "bert/pooler/dense/kernel", np.arange(6.).reshape(2, 3): returns [[0, 1], [2, 3], [4, 5]] instead of [[0, 3], [1, 4], [2, 5]]."""
    pieces = name.split("/")
    if name == "global_step" or pieces[-1] in ("adam_m", "adam_v"):
        return None
    if pieces[0] == "bert":
        del pieces[0]
    pieces = [re.sub(r"^layer_(\d+)$", r"layer.\1", p) for p in pieces]
    tensor = torch.tensor(value)
    renames = {"gamma": "weight", "beta": "bias"}
    if pieces[-1] == "kernel":
        n_in, n_out = value.shape
        pieces[-1] = "weight"
        tensor = tensor.reshape(n_out, n_in)
    elif pieces[-1] in renames:
        pieces[-1] = renames[pieces[-1]]
    elif pieces[-1].endswith("_embeddings"):
        pieces.append("weight")
    return ".".join(pieces), tensor


@EX3_6.bug
def every_matrix_but_word_embeddings_transposed(name, value):
    """I transposed every 2-D value except word_embeddings, the one table the statement names, so the position and token-type tables get transposed too.
    Differs on: "bert/embeddings/token_type_embeddings", np.ones((2, 4)): a (4, 2) tensor instead of (2, 4) (key right)."""
    if name == "global_step" or name.split("/")[-1] in ("adam_m", "adam_v"):
        return None
    key = name[len("bert/"):] if name.startswith("bert/") else name
    key = re.sub(r"layer_(\d+)", r"layer.\1", key).replace("/", ".")
    tensor = torch.tensor(value)
    if value.ndim == 2 and not name.endswith("word_embeddings"):
        tensor = tensor.T.contiguous()
    if key.endswith(".kernel"):
        key = key[: -len("kernel")] + "weight"
    elif key.endswith(".gamma"):
        key = key[: -len("gamma")] + "weight"
    elif key.endswith(".beta"):
        key = key[: -len("beta")] + "bias"
    elif key.endswith("_embeddings"):
        key += ".weight"
    return key, tensor


@EX3_6.bug
def values_cast_to_float32(name, value):
    """I built the tensor with torch.tensor(value, dtype=torch.float32), since model weights are float32, so a float64 or float16 array changes dtype (and float64 values get rounded).
    Differs on: "bert/encoder/layer_0/output/dense/bias", np.array([0.1, 0.2]) (float64): a float32 tensor [0.1000000015, 0.2000000030] instead of the float64 [0.1, 0.2]."""
    parts = name.split("/")
    if parts[-1] in ("adam_m", "adam_v") or name == "global_step":
        return None
    if parts[0] == "bert":
        parts = parts[1:]
    parts = [p.replace("layer_", "layer.") if p.startswith("layer_") else p for p in parts]
    tensor = torch.tensor(value, dtype=torch.float32)
    if parts[-1] == "kernel":
        parts[-1], tensor = "weight", tensor.T.contiguous()
    elif parts[-1] == "gamma":
        parts[-1] = "weight"
    elif parts[-1] == "beta":
        parts[-1] = "bias"
    elif parts[-1].endswith("_embeddings"):
        parts.append("weight")
    return ".".join(parts), tensor


@EX3_6.correct
def regex_rewrites_and_numpy_transpose(name, value):
    """Regular expressions on the whole name; the kernel transposed in numpy and copied into a fresh tensor."""
    if name == "global_step" or re.search(r"/adam_[mv]$", name):
        return None
    key = re.sub(r"^bert/", "", name)
    key = re.sub(r"(^|/)layer_(\d+)(?=/|$)", r"\1layer.\2", key)
    array = np.asarray(value)
    if re.search(r"(^|/)kernel$", key):
        key = re.sub(r"kernel$", "weight", key)
        array = array.T
    elif re.search(r"(^|/)gamma$", key):
        key = re.sub(r"gamma$", "weight", key)
    elif re.search(r"(^|/)beta$", key):
        key = re.sub(r"beta$", "bias", key)
    elif re.search(r"_embeddings$", key):
        key += "/weight"
    return key.replace("/", "."), torch.from_numpy(np.array(array, copy=True, order="C"))


# --- batch 7: written without reading any checker ------------------------------------------
EX3_1.batch = 7


@EX3_1.bug
def erf_taken_before_the_division(x, w1, b1, w2, b2):
    """I typed the GELU as 0.5 * h * (1 + torch.erf(h) / math.sqrt(2)), closing the erf's bracket too early, so I divide erf(h) by √2 instead of taking erf(h / √2).
    Differs on: the worked example x = [1, -1]: GELU(1) becomes 0.5 (1 + 0.8427 / 1.4142) = 0.7979 instead of 0.8413, and the output is [0.5959, -0.3160] instead of [0.6827, -0.3085]; any pre-activation other than 0."""
    h = x @ w1.T + b1
    g = 0.5 * h * (1 + torch.erf(h) / math.sqrt(2))
    return g @ w2.T + b2


@EX3_1.bug
def gelu_after_both_maps(x, w1, b1, w2, b2):
    """I applied the GELU after each of the two linear maps, as in a multi-layer perceptron with an activation on every layer, so the block's output goes through a GELU too.
    Differs on: the worked example x = [1, -1]: [GELU(0.6827), GELU(-0.3085)] = [0.5138, -0.1169] instead of [0.6827, -0.3085]; any output that is not large and positive."""
    def gelu(z):
        return z * 0.5 * (1.0 + torch.erf(z / math.sqrt(2.0)))

    hidden = gelu(torch.matmul(x, w1.transpose(0, 1)) + b1)
    return gelu(torch.matmul(hidden, w2.transpose(0, 1)) + b2)


@EX3_1.bug
def tanh_gelu_written_out(x, w1, b1, w2, b2):
    """I wrote the GELU from the formula I found in Google's modeling.py, ½ z (1 + tanh(√(2/π) (z + 0.044715 z³))), believing it was the exact one in another form.
    Differs on: the worked example x = [1, -1]: GELU(1) = 0.84119 instead of 0.84134, and the output is [0.68238, -0.30857] instead of [0.68269, -0.30854] (3e-4 off); the gap is largest, 4.7e-4, at pre-activations near ±2.7."""
    h = x @ w1.T + b1
    g = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h ** 3)))
    return g @ w2.T + b2


@EX3_1.bug
def first_weight_transposed_in_place(x, w1, b1, w2, b2):
    """I transposed the weights with w1.t_() and w2.t_(), the underscore versions, thinking they were just the method names for tensors, so the caller's two weight tensors are transposed in place.
    Differs on: the worked example: the first call returns [0.6827, -0.3085], but afterwards the caller's w1 is (2, 3) and w2 is (3, 2), and a second identical call raises a shape error (or, when I = H, silently uses the transposed weights)."""
    h = x @ w1.t_() + b1
    h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
    return h @ w2.t_() + b2


@EX3_1.correct
def flat_tokens_addmm_and_ndtr(x, w1, b1, w2, b2):
    """The tokens flattened to (B·T, H), both maps as torch.addmm, Φ from torch.special.ndtr, the shape restored at the end."""
    shape = x.shape
    flat = x.reshape(-1, shape[-1])                                    # (B·T, H)
    pre = torch.addmm(b1, flat, w1.t())                                # (B·T, I)
    act = pre * torch.special.ndtr(pre)                                # z Φ(z)
    out = torch.addmm(b2, act, w2.t())                                 # (B·T, H)
    return out.reshape(*shape[:-1], w2.shape[0])


# --- batch 7: written without reading any checker ------------------------------------------
EX32.batch = 7


@EX32.bug
def layer_norm_over_the_tokens(x, key_mask, layer):
    """I wrote the two LayerNorms out with the modules' γ, β and eps, but took the mean and the variance over dim=1, the tokens of each sequence, instead of over the last axis, the features of each token.
    Differs on: the worked example (H = 3, two tokens): the attention sub-layer's sums [2, 4, 0] and [2, 6, -2] are normalised feature by feature across the two tokens, giving [0, -1, 1] and [0, 1, -1] instead of [0, s, -s] at both, and the output is [[0, -2, 4], [0, 2, -2]] instead of [1.4142, -1.4142, -1.1213] twice; any input."""
    def norm(module, h):
        mean = h.mean(dim=1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=1, keepdim=True)
        return (h - mean) / torch.sqrt(var + module.eps) * module.weight + module.bias

    a, _ = layer.attention(x, key_mask)
    h = norm(layer.attention_norm, x + a)
    return norm(layer.ffn_norm, h + layer.ffn(h))


@EX32.bug
def padded_tokens_zeroed_instead_of_masked(x, key_mask, layer):
    """I multiplied the padded tokens' vectors by 0 and ran the attention without a mask, thinking a zero vector adds nothing to the others; but a zero token still has the key and value biases, so it gets a share of every query's attention.
    Differs on: a random EncoderLayer (H = 8, 2 heads, eval) on a random (2, 3, 8) batch with key_mask [[T, T, F], [T, T, T]] (differences of about 0.5 at the real tokens of sequence 0; about 1 on all-MiniLM-L6-v2's layers with padding); the worked example, whose attention is uniform and leaves both residual sums on the line [0, 1, -1], happens to pass."""
    if key_mask is None:
        x_in = x
    else:
        real = key_mask[:, 0, 0, :, None].to(x.dtype)                # (B, T, 1): 1 at real tokens, 0 at padding
        x_in = x * real
    a, _ = layer.attention(x_in, None)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def mask_tested_for_truth(x, key_mask, layer):
    """To handle "or None when nothing is padded" I wrote `if key_mask:` to tell a mask from None, which asks Python for the truth of a whole boolean tensor.
    Differs on: any mask with more than one element, e.g. the worked example's (1, 1, 1, 2) mask [[[[True, False]]]]: raises RuntimeError (Boolean value of Tensor with more than one value is ambiguous) instead of returning [1.4142, -1.4142, -1.1213] twice; key_mask None works."""
    if key_mask:
        a, _ = layer.attention(x, key_mask)
    else:
        a, _ = layer.attention(x, None)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def run_under_bfloat16_autocast(x, key_mask, layer):
    """To make it faster I ran the layer under torch.autocast("cpu", dtype=torch.bfloat16), as I had seen in training code; the linear maps then compute in bfloat16, with 8 bits of mantissa.
    Differs on: the worked example: [1.4142, -1.4168, -1.1175] instead of [1.4142, -1.4142, -1.1213] at both positions (4e-3 off); a random EncoderLayer (H = 8, 2 heads, eval) on a random (2, 3, 8) float32 batch, or all-MiniLM-L6-v2's layers (H = 384): errors of about 1.5e-2. The output is still float32."""
    device = x.device.type if x.device.type in ("cpu", "cuda") else "cpu"
    with torch.autocast(device, dtype=torch.bfloat16):
        a, _ = layer.attention(x, key_mask)
        h = layer.attention_norm(x + a)
        out = layer.ffn_norm(h + layer.ffn(h))
    return out.to(x.dtype)


@EX32.correct
def full_square_mask_always(x, key_mask, layer):
    """The mask always passed as a full (B, 1, T, T) boolean square, every row a copy of the key mask (all True when None); the residual sums written with torch.add."""
    B, T, _ = x.shape
    if key_mask is None:
        key_mask = torch.ones(B, 1, 1, T, dtype=torch.bool, device=x.device)
    square = key_mask.expand(B, 1, T, T)
    attended = layer.attention(x, square)[0]
    h = layer.attention_norm(torch.add(x, attended))
    return layer.ffn_norm(torch.add(h, layer.ffn(h)))


# --- batch 7: written without reading any checker ------------------------------------------
EX3_3.batch = 7


@EX3_3.bug
def query_key_value_without_biases(config):
    """I counted query, key and value as bare H × H matrices, without biases (my notes wrote them as x W_Q, x W_K, x W_V), and gave a bias only to the output projection.
    Differs on: every config, by 3H per layer: the worked example gives 250 instead of 262; BERT-BASE 109,454,592 instead of 109,482,240."""
    V, H, L = config.vocab_size, config.hidden_size, config.num_hidden_layers
    I, P, S = config.intermediate_size, config.max_position_embeddings, config.type_vocab_size
    embeddings = V * H + P * H + S * H + 2 * H
    attention = 3 * H * H + (H * H + H)             # W_Q, W_K, W_V; output projection with its bias
    feed_forward = H * I + I + I * H + H
    layer_norms = 2 * 2 * H
    pooler = H * H + H
    return embeddings + L * (attention + feed_forward + layer_norms) + pooler


@EX3_3.bug
def every_head_with_full_width_matrices(config):
    """I gave every head its own query, key and value maps from H to H features, with biases, so the attention grows with the number of heads (the output projection once per layer).
    Differs on: any config with more than one head, e.g. the worked example with num_attention_heads = 2: 322 instead of 262, and BERT-BASE (12 heads): 343,356,672 instead of 109,482,240; one head agrees."""
    H, I = config.hidden_size, config.intermediate_size
    nh = config.num_attention_heads
    linear = lambda n_in, n_out: n_in * n_out + n_out
    per_head = 3 * linear(H, H)
    per_layer = nh * per_head + linear(H, H) + linear(H, I) + linear(I, H) + 4 * H
    embeddings = (config.vocab_size + config.max_position_embeddings + config.type_vocab_size + 2) * H
    return embeddings + config.num_hidden_layers * per_layer + linear(H, H)


@EX3_3.bug
def head_slices_by_true_division(config):
    """I counted the attention head by head, each head owning hs = H / nh rows of the query, key and value maps, and the / makes hs, and so my whole count, a float.
    Differs on: every config: the worked example (num_attention_heads = 2) gives 262.0 (a float) instead of the int 262; BERT-BASE 109482240.0 instead of 109482240."""
    H, I, nh = config.hidden_size, config.intermediate_size, config.num_attention_heads
    hs = H / nh
    heads = nh * 3 * (H * hs + hs)                  # each head's rows of W_Q, W_K, W_V and their biases
    per_layer = heads + (H * H + H) + (H * I + I) + (I * H + H) + 2 * 2 * H
    embeddings = (config.vocab_size + config.max_position_embeddings + config.type_vocab_size) * H + 2 * H
    return embeddings + config.num_hidden_layers * per_layer + H * H + H


@EX3_3.bug
def position_ids_buffer_counted(config):
    """I counted from the list of tensors in a checkpoint, which includes embeddings.position_ids (one id per position), so I added max_position_embeddings numbers that are a buffer, not parameters.
    Differs on: every config, by P: the worked example (P = 8) gives 270 instead of 262; BERT-BASE 109,482,752 instead of 109,482,240."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    P = config.max_position_embeddings
    sizes = {
        "embeddings.word_embeddings.weight": config.vocab_size * H,
        "embeddings.position_embeddings.weight": P * H,
        "embeddings.token_type_embeddings.weight": config.type_vocab_size * H,
        "embeddings.position_ids": P,
        "embeddings.LayerNorm": 2 * H,
        "pooler.dense": H * H + H,
    }
    layer = 4 * (H * H + H) + (H * I + I) + (I * H + H) + 2 * (2 * H)
    return sum(sizes.values()) + L * layer


@EX3_3.correct
def expanded_polynomial(config):
    """The count multiplied out into one polynomial in the config's sizes: (V + P + S + 2) H + L (4H² + 2HI + 9H + I) + H² + H."""
    V, H, L = config.vocab_size, config.hidden_size, config.num_hidden_layers
    I, P, S = config.intermediate_size, config.max_position_embeddings, config.type_vocab_size
    return (V + P + S + 2) * H + L * (4 * H ** 2 + 2 * H * I + 9 * H + I) + H ** 2 + H


# --- batch 7: written without reading any checker ------------------------------------------
EX34.batch = 7


@EX34.bug
def biases_added_onto_the_initial_ones(state_dict, i, layer):
    """I copied the weights with copy_ but put the biases in with add_, since BERT initialises every bias to 0; a freshly built EncoderLayer's Linear biases are not 0 (nn.Linear draws them uniformly), so they end up as checkpoint + initial value.
    Differs on: all-MiniLM-L6-v2's checkpoint, i = 0, into EncoderLayer(config) built directly: the six Linear biases are off by their initial values (up to 1/√H ≈ 0.05, or 1/√I ≈ 0.026 for ffn.output); the LayerNorm biases (initially 0) and a layer taken from a BertModel (biases zeroed by its initialisation) come out right."""
    names = {
        "attention.query": "attention.self.query", "attention.key": "attention.self.key",
        "attention.value": "attention.self.value", "attention.output": "attention.output.dense",
        "attention_norm": "attention.output.LayerNorm", "ffn.intermediate": "intermediate.dense",
        "ffn.output": "output.dense", "ffn_norm": "output.LayerNorm",
    }
    prefix = f"encoder.layer.{i}."
    with torch.no_grad():
        for ours, theirs in names.items():
            module = layer.get_submodule(ours)
            module.weight.copy_(state_dict[prefix + theirs + ".weight"])
            module.bias.add_(state_dict[prefix + theirs + ".bias"])


@EX34.bug
def negative_layer_numbers_wrapped_by_six(state_dict, i, layer):
    """I let i count from the end like a Python index, i = -1 for the last layer, by taking i % 6, the number of layers of all-MiniLM-L6-v2, which I had open, instead of the checkpoint's own number of layers.
    Differs on: a checkpoint with more than six layers, e.g. transformers' BertModel(BertConfig(hidden_size=8, num_attention_heads=2, intermediate_size=16, num_hidden_layers=12)).state_dict(), i = 7: the layer gets layer 1's tensors; every i of all-MiniLM-L6-v2 (0 to 5) is right."""
    i = i % 6
    table = [("attention.query", "attention.self.query"), ("attention.key", "attention.self.key"),
             ("attention.value", "attention.self.value"), ("attention.output", "attention.output.dense"),
             ("attention_norm", "attention.output.LayerNorm"), ("ffn.intermediate", "intermediate.dense"),
             ("ffn.output", "output.dense"), ("ffn_norm", "output.LayerNorm")]
    with torch.no_grad():
        for ours, theirs in table:
            for kind in ("weight", "bias"):
                layer.get_parameter(f"{ours}.{kind}").copy_(state_dict[f"encoder.layer.{i}.{theirs}.{kind}"])


@EX34.bug
def dense_maps_told_apart_by_shape(state_dict, i, layer):
    """The three "dense" maps have names unlike minibert's, so I matched them by shape instead: for each of attention.output, ffn.intermediate and ffn.output I took the first of layer i's dense weights whose shape fits (H × H, I × H, H × I), and the bias next to it.
    Differs on: a checkpoint whose intermediate_size equals hidden_size, e.g. transformers' BertModel(BertConfig(hidden_size=8, num_attention_heads=2, intermediate_size=8, num_hidden_layers=2)).state_dict(), i = 1: ffn.intermediate and ffn.output both get attention.output.dense's tensors; all-MiniLM-L6-v2 (I = 4H) is right."""
    prefix = f"encoder.layer.{i}."
    by_name = {"attention.query": "attention.self.query", "attention.key": "attention.self.key",
               "attention.value": "attention.self.value", "attention_norm": "attention.output.LayerNorm",
               "ffn_norm": "output.LayerNorm"}
    dense = [key for key in state_dict if key.startswith(prefix) and key.endswith("dense.weight")]
    with torch.no_grad():
        for ours, theirs in by_name.items():
            module = layer.get_submodule(ours)
            module.weight.copy_(state_dict[prefix + theirs + ".weight"])
            module.bias.copy_(state_dict[prefix + theirs + ".bias"])
        for ours in ("attention.output", "ffn.intermediate", "ffn.output"):
            module = layer.get_submodule(ours)
            key = next(k for k in dense if state_dict[k].shape == module.weight.shape)
            module.weight.copy_(state_dict[key])
            module.bias.copy_(state_dict[key[: -len("weight")] + "bias"])


@EX34.bug
def weight_line_reads_the_bias_key(state_dict, i, layer):
    """I wrote the bias line first and copy-pasted it for the weight, forgetting to change ".bias" to ".weight"; I counted on a shape error to catch any slip, but copy_ broadcasts an (H,) bias into every row of an (H, H) weight without complaint.
    Differs on: all-MiniLM-L6-v2's checkpoint, any i: the four attention weights get their bias in every row and attention_norm's γ its β, then ffn.intermediate raises RuntimeError (a (1536,) bias does not broadcast into (1536, 384)); a checkpoint with intermediate_size == hidden_size, e.g. transformers' BertModel(BertConfig(hidden_size=8, num_attention_heads=2, intermediate_size=8)), loads all eight weights wrong without an error."""
    pairs = {"attention.query": "attention.self.query", "attention.key": "attention.self.key",
             "attention.value": "attention.self.value", "attention.output": "attention.output.dense",
             "attention_norm": "attention.output.LayerNorm", "ffn.intermediate": "intermediate.dense",
             "ffn.output": "output.dense", "ffn_norm": "output.LayerNorm"}
    with torch.no_grad():
        for ours, theirs in pairs.items():
            module = layer.get_submodule(ours)
            module.bias.copy_(state_dict["encoder.layer." + str(i) + "." + theirs + ".bias"])
            module.weight.copy_(state_dict["encoder.layer." + str(i) + "." + theirs + ".bias"])


@EX34.correct
def parameters_zipped_in_registration_order(state_dict, i, layer):
    """The checkpoint names listed in the order the layer registers its parameters, zipped with layer.parameters(), shapes asserted, copied under torch.no_grad()."""
    order = ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
             "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"]
    keys = [f"encoder.layer.{i}.{module}.{kind}" for module in order for kind in ("weight", "bias")]
    params = list(layer.parameters())
    assert len(params) == len(keys)
    with torch.no_grad():
        for param, key in zip(params, keys):
            assert param.shape == state_dict[key].shape, key
            param.copy_(state_dict[key])


# --- batch 7: written without reading any checker ------------------------------------------
EX3_5.batch = 7


@EX3_5.bug
def one_flop_per_multiply_add(config, T):
    """I counted an (m, n) by (n, p) product as m·n·p, one operation per multiply-add, the way I had seen MACs counted, so every term is half of what the statement asks for.
    Differs on: every config: the worked example gives 424 instead of 848; BERT-BASE at T = 128 gives 11,174,215,680 instead of 22,348,431,360."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    per_layer = 4 * T * H * H + T * T * H + T * H * T + T * H * I + T * I * H
    return L * per_layer + H * H


@EX3_5.bug
def every_head_over_the_full_width(config, T):
    """For "think about what the heads cost together" I costed one head's two attention products on all H features, 2 · 2 · T² · H, and multiplied by the number of heads.
    Differs on: any config with more than one head, e.g. the worked example with num_attention_heads = 2: 992 instead of 848; BERT-BASE at T = 128: 28,992,208,896 instead of 22,348,431,360; one head agrees."""
    H, I, nh = config.hidden_size, config.intermediate_size, config.num_attention_heads
    projections = 4 * (2 * T * H * H)
    attention = nh * (2 * T * T * H + 2 * T * T * H)
    ffn = 2 * T * H * I + 2 * T * I * H
    return config.num_hidden_layers * (projections + attention + ffn) + 2 * H * H


@EX3_5.bug
def bias_additions_counted(config, T):
    """Besides the products I counted one FLOP for every bias added, n_out per token for each linear map (and H for the pooler), thinking the statement's "0" was only for LayerNorm and the activations.
    Differs on: every config: the worked example gives 848 + 3 · (4 · 4 + 6 + 4) + 4 = 930 instead of 848; BERT-BASE at T = 128: 22,359,048,960 instead of 22,348,431,360."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers

    def linear(tokens, n_in, n_out):
        return 2 * tokens * n_in * n_out + tokens * n_out           # products + bias additions

    per_layer = 4 * linear(T, H, H) + linear(T, H, I) + linear(T, I, H) + 2 * (2 * T * T * H)
    return L * per_layer + linear(1, H, H)


@EX3_5.bug
def scores_product_only(config, T):
    """I counted attention's score product QKᵀ, 2 · T² · H, and took the weighted sum of the values for part of the softmax, which counts 0.
    Differs on: every config, by 2T²H per layer: the worked example gives 776 instead of 848; BERT-BASE at T = 512: 91,806,105,600 instead of 96,637,943,808."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    flops = 0
    for _ in range(L):
        flops += 4 * 2 * T * H * H                                  # query, key, value, output
        flops += 2 * T * T * H                                      # scores
        flops += 2 * T * H * I * 2                                  # H -> I -> H
    return flops + 2 * H * H


@EX3_5.correct
def factored_closed_form(config, T):
    """The count factored into one closed form: 2 (L T (4H² + 2HI + 2TH) + H²)."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    return 2 * (L * T * (4 * H * H + 2 * H * I + 2 * T * H) + H * H)


# --- batch 7: written without reading any checker ------------------------------------------
EX3_6.batch = 7


@EX3_6.bug
def kernel_transposed_only_under_dense(name, value):
    """I read "tf.layers.dense stores its matrix as kernel" as "the dense layers' kernels", so I transposed a kernel only when its scope is dense; query, key and value keep TensorFlow's (in, out) layout.
    Differs on: "bert/encoder/layer_0/attention/self/query/kernel", np.arange(6.).reshape(2, 3): the (2, 3) array [[0, 1, 2], [3, 4, 5]] as it is instead of its (3, 2) transpose [[0, 3], [1, 4], [2, 5]] (key right); on all-MiniLM-L6-v2 the square (384, 384) query, key and value come back untransposed."""
    parts = name.split("/")
    if name == "global_step" or parts[-1] in ("adam_m", "adam_v"):
        return None
    if parts[0] == "bert":
        parts = parts[1:]
    parts = ["layer." + p[len("layer_"):] if p.startswith("layer_") else p for p in parts]
    tensor = torch.tensor(value)
    if parts[-1] == "kernel":
        parts[-1] = "weight"
        if parts[-2] == "dense":
            tensor = tensor.T.contiguous()
    elif parts[-1] == "gamma":
        parts[-1] = "weight"
    elif parts[-1] == "beta":
        parts[-1] = "bias"
    elif parts[-1].endswith("_embeddings"):
        parts.append("weight")
    return ".".join(parts), tensor


@EX3_6.bug
def weight_suffix_only_for_word_embeddings(name, value):
    """I added ".weight" after word_embeddings, the table the statement shows, and forgot that position_embeddings and token_type_embeddings are nn.Embedding tables too.
    Differs on: "bert/embeddings/position_embeddings", np.zeros((4, 2)): key "embeddings.position_embeddings" instead of "embeddings.position_embeddings.weight" (the tensor is right)."""
    if name == "global_step" or name.endswith(("/adam_m", "/adam_v")):
        return None
    key = name[len("bert/"):] if name.startswith("bert/") else name
    pieces = []
    for piece in key.split("/"):
        if piece.startswith("layer_"):
            piece = "layer." + piece.split("_", 1)[1]
        pieces.append(piece)
    tensor = torch.tensor(value)
    last = pieces[-1]
    if last == "kernel":
        pieces[-1] = "weight"
        tensor = tensor.transpose(0, 1).contiguous()
    elif last == "gamma":
        pieces[-1] = "weight"
    elif last == "beta":
        pieces[-1] = "bias"
    elif last == "word_embeddings":
        pieces.append("weight")
    return ".".join(pieces), tensor


@EX3_6.bug
def pooler_taken_for_a_training_head(name, value):
    """I returned None for the pooler as well, thinking it belongs to next-sentence prediction like Adam's moments belong to training, so BertModel's pooler.dense is never loaded.
    Differs on: "bert/pooler/dense/bias", np.zeros(4): None instead of ("pooler.dense.bias", tensor of 4 zeros); the kernel likewise."""
    parts = name.split("/")
    if parts[-1] in ("adam_m", "adam_v") or name == "global_step" or "pooler" in parts:
        return None
    if parts[0] == "bert":
        parts = parts[1:]
    parts = [p.replace("layer_", "layer.") if p.startswith("layer_") else p for p in parts]
    tensor = torch.tensor(value)
    if parts[-1] == "kernel":
        parts[-1], tensor = "weight", tensor.T.contiguous()
    elif parts[-1] == "gamma":
        parts[-1] = "weight"
    elif parts[-1] == "beta":
        parts[-1] = "bias"
    elif parts[-1].endswith("_embeddings"):
        parts.append("weight")
    return ".".join(parts), tensor


@EX3_6.bug
def layer_norm_names_zipped_in_sorted_order(name, value):
    """I built the LayerNorm renames as dict(zip(sorted(["gamma", "beta"]), ["weight", "bias"])), and sorted() puts beta first, so beta became the weight and gamma the bias.
    Differs on: "bert/embeddings/LayerNorm/gamma", np.ones(3): key "embeddings.LayerNorm.bias" instead of "embeddings.LayerNorm.weight" (and beta comes back as ".weight")."""
    renames = {"kernel": "weight", **dict(zip(sorted(["gamma", "beta"]), ["weight", "bias"]))}
    parts = name.split("/")
    if name == "global_step" or parts[-1].startswith("adam_"):
        return None
    if parts[0] == "bert":
        parts.pop(0)
    parts = [f"layer.{p[6:]}" if p.startswith("layer_") else p for p in parts]
    tensor = torch.tensor(value)
    if parts[-1] == "kernel":
        tensor = tensor.T.contiguous()
    if parts[-1] in renames:
        parts[-1] = renames[parts[-1]]
    elif parts[-1].endswith("_embeddings"):
        parts.append("weight")
    return ".".join(parts), tensor


@EX3_6.correct
def rename_table_and_numpy_copy(name, value):
    """A loop over the scope names with a rename table; the kernel transposed in numpy, everything copied with np.array before torch.from_numpy."""
    scopes = name.split("/")
    if scopes == ["global_step"] or scopes[-1] in {"adam_m", "adam_v"}:
        return None
    if scopes[:1] == ["bert"]:
        scopes = scopes[1:]
    out = []
    for scope in scopes:
        head, sep, tail = scope.partition("_")
        out.append(f"layer.{tail}" if head == "layer" and sep and tail.isdigit() else scope)
    array = np.array(value, copy=True)
    leaf = out[-1]
    if leaf == "kernel":
        out[-1] = "weight"
        array = np.ascontiguousarray(array.T)
    elif leaf in ("gamma", "beta"):
        out[-1] = {"gamma": "weight", "beta": "bias"}[leaf]
    elif leaf.endswith("_embeddings"):
        out.append("weight")
    return ".".join(out), torch.from_numpy(array)


# --- batch 8: written without reading any checker ------------------------------------------
EX3_1.batch = 8


@EX3_1.bug
def gelu_without_the_half(x, w1, b1, w2, b2):
    """I wrote GELU(z) as z (1 + erf(z / √2)), dropping the ½ in front: I remembered Φ as "1 + erf" and forgot that the CDF is half of it.
    Differs on: the worked example x = [1, -1]: the pre-activation [1, -1, 0.5] becomes [1.6827, -0.3173, 0.6915] and the output [1.3654, 0.3829] instead of [0.6827, -0.3085]."""
    h = x @ w1.T + b1
    h = h * (1 + torch.erf(h / math.sqrt(2)))
    return h @ w2.T + b2


@EX3_1.bug
def gelu_with_the_density(x, w1, b1, w2, b2):
    """I half-remembered GELU as z times the normal distribution and used its density φ(z) = exp(−z²/2) / √(2π) instead of its CDF Φ(z).
    Differs on: the worked example x = [1, -1]: GELU gives [0.2420, -0.2420, 0.1760] and the output [0.0000, -0.6479] instead of [0.6827, -0.3085]."""
    h = torch.matmul(x, w1.t()) + b1
    phi = torch.exp(-0.5 * h * h) / math.sqrt(2 * math.pi)
    return torch.matmul(h * phi, w2.t()) + b2


@EX3_1.bug
def tokens_flattened_with_view(x, w1, b1, w2, b2):
    """I flattened the tokens to one (B·T, H) matrix with x.view(B * T, H) to do two plain 2-D products, not knowing that view needs a contiguous tensor: a transposed or sliced x makes it raise.
    Differs on: x = torch.randn(3, 2, 4).transpose(0, 1) (a (2, 3, 4) non-contiguous tensor), H = 4, I = 6, random weights: the bug raises RuntimeError where the solution returns (2, 3, 4); on contiguous x it agrees."""
    B, T, H = x.shape
    flat = x.view(B * T, H)
    h = flat @ w1.T + b1
    h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
    return (h @ w2.T + b2).view(B, T, -1)


@EX3_1.bug
def second_weight_left_in_its_layout(x, w1, b1, w2, b2):
    """The hint said to look at w1's layout when a shape error comes, so I transposed w1; I tried my code on a square block (I = H), where h @ w2 raised nothing, and left w2 untransposed.
    Differs on: H = I = 3, random x (1, 2, 3) and weights: the bug computes GELU(x W1ᵀ + b1) W2 + b2, off by O(1); with I ≠ H (the worked example) it raises a shape error."""
    h = x @ w1.T + b1
    h = 0.5 * h * (1.0 + torch.erf(h * (1.0 / math.sqrt(2.0))))
    return h @ w2 + b2


@EX3_1.correct
def tensordot_and_log_ndtr(x, w1, b1, w2, b2):
    """torch.tensordot for both maps (contracting x's last axis with the weights' input axis); Φ(z) as exp(log_ndtr(z))."""
    z = torch.tensordot(x, w1, dims=([-1], [1])) + b1                 # (B, T, I)
    g = z * torch.exp(torch.special.log_ndtr(z))                       # z · Φ(z)
    return torch.tensordot(g, w2, dims=([-1], [1])) + b2               # (B, T, H)


# --- batch 8: written without reading any checker ------------------------------------------
EX32.batch = 8


@EX32.bug
def layer_norm_taken_term_by_term(x, key_mask, layer):
    """I treated LayerNorm as if it were linear and normalised the residual sum term by term, norm(x) + norm(a), which I thought was the same as norm(x + a) and tidier to write.
    Differs on: the worked example: norm(x) + norm(a) is not norm(x + a) (the first token's first sum is [0, 2s, -2s], s = √(3/2), instead of [0, s, -s]); the bug returns [1.1547, -0.1194, -1.2850] at both positions instead of [1.4142, -1.4142, -1.1213]."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x) + layer.attention_norm(a)
    f = layer.ffn(h)
    return layer.ffn_norm(h) + layer.ffn_norm(f)


@EX32.bug
def mask_made_boolean_unconditionally(x, key_mask, layer):
    """To be sure attention got a boolean mask I wrote key_mask = key_mask.bool() at the top, forgetting that the mask may be None when nothing is padded.
    Differs on: any x with key_mask=None (e.g. a random (1, 3, H) x and a random EncoderLayer): the bug raises AttributeError ('NoneType' object has no attribute 'bool'); with a mask it agrees."""
    key_mask = key_mask.bool()
    attended, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + attended)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def extra_skip_around_the_whole_layer(x, key_mask, layer):
    """Having learnt residual networks, I also added the layer's input to its output, one more skip around the whole block on top of the two around the sub-layers.
    Differs on: the worked example: the bug returns x + [1.4142, -1.4142, -1.1213], i.e. [[2.4142, 0.5858, -1.1213], [2.4142, 2.5858, -3.1213]], instead of [1.4142, -1.4142, -1.1213] at both positions."""
    attn_out = layer.attention(x, key_mask)[0]
    h = layer.attention_norm(x + attn_out)
    y = layer.ffn_norm(h + layer.ffn(h))
    return x + y


@EX32.bug
def residual_kept_as_a_detached_copy(x, key_mask, layer):
    """Not wanting to touch the caller's tensor, I kept the residual as residual = x.detach().clone(); the values are the same, but no gradient flows back to x through the residual path.
    Differs on: x = randn(2, 3, 8) with requires_grad, a random EncoderLayer (H = 8, 2 heads, I = 12), no mask: the outputs agree, but the gradient of (out * randn(2, 3, 8)).sum() with respect to x differs by up to about 3.5 (only the path through attention is left; out.sum() alone has a near-zero gradient either way, since LayerNorm's outputs sum to a constant when γ = 1)."""
    residual = x.detach().clone()
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(residual + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.correct
def explicit_attention_path_and_full_mask(x, key_mask, layer):
    """The mask always made explicit (all True when None) and attention asked for its probabilities (need_probs=True, the explicit softmax path); residuals with torch.add."""
    B, T, _ = x.shape
    if key_mask is None:
        key_mask = torch.ones(B, 1, 1, T, dtype=torch.bool, device=x.device)
    a, _probs = layer.attention(x, key_mask, True)
    h = layer.attention_norm(torch.add(x, a))
    return layer.ffn_norm(torch.add(h, layer.ffn(h)))


# --- batch 8: written without reading any checker ------------------------------------------
EX3_3.batch = 8


@EX3_3.bug
def feed_forward_counted_as_one_map_twice(config):
    """The block's two maps are H × I and I × H, the same size, so I counted it as twice the first one, 2 × (H·I + I), giving the second map I biases instead of H.
    Differs on: the worked example V = 10, H = 4, L = 1, I = 6, P = 8, S = 2: the block counts 60 instead of 58, total 264 instead of 262 (agrees only when I = H)."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    emb = (config.vocab_size + config.max_position_embeddings + config.type_vocab_size) * H + 2 * H
    attention = 4 * (H * H + H)
    ffn = 2 * (H * I + I)
    norms = 2 * 2 * H
    pooler = H * H + H
    return emb + L * (attention + ffn + norms) + pooler


@EX3_3.bug
def position_table_of_512(config):
    """I wrote the position table as 512 × H, BERT's maximum length that the paper and chapter quote, instead of reading max_position_embeddings.
    Differs on: the worked example (P = 8): (10 + 512 + 2) · 4 + 8 = 2104 for the embeddings, total 2278 instead of 262; right for BERT-BASE and BERT-LARGE (P = 512)."""
    H, I = config.hidden_size, config.intermediate_size
    total = 0
    total += config.vocab_size * H            # word
    total += 512 * H                          # positions
    total += config.type_vocab_size * H       # segments
    total += 2 * H                            # embedding LayerNorm
    for _ in range(config.num_hidden_layers):
        total += 4 * (H * H + H)              # query, key, value, output
        total += (H * I + I) + (I * H + H)    # feed-forward
        total += 4 * H                        # two LayerNorms
    total += H * H + H                        # pooler
    return total


@EX3_3.bug
def layer_loop_started_at_one(config):
    """I summed the layers with for layer in range(1, config.num_hidden_layers), numbering them from 1 as the paper does ("layer 1 to L"), and so counted L − 1 layers.
    Differs on: the worked example (L = 1): 108 instead of 262 (the one layer is not counted); BERT-BASE: 102,394,368 instead of 109,482,240."""
    H, I = config.hidden_size, config.intermediate_size
    count = (config.vocab_size + config.max_position_embeddings + config.type_vocab_size + 2) * H
    for layer in range(1, config.num_hidden_layers):
        count += 4 * H * H + 4 * H
        count += 2 * H * I + I + H
        count += 4 * H
    count += H * H + H
    return count


@EX3_3.bug
def layer_norm_counted_as_its_scale(config):
    """I counted each LayerNorm as H parameters, its scale γ, thinking of the shift β as part of the next layer's bias (as in RMSNorm, which has only a scale).
    Differs on: the worked example: three LayerNorms of 4 instead of 8 each, total 250 instead of 262."""
    H, I = config.hidden_size, config.intermediate_size
    layer_norm = H
    sizes = {
        "embeddings": (config.vocab_size + config.max_position_embeddings + config.type_vocab_size) * H + layer_norm,
        "layer": 4 * (H * H + H) + (H * I + I) + (I * H + H) + 2 * layer_norm,
        "pooler": H * H + H,
    }
    return sizes["embeddings"] + config.num_hidden_layers * sizes["layer"] + sizes["pooler"]


@EX3_3.correct
def checkpoint_keys_and_their_shapes(config):
    """The checkpoint's tensor names written out with their shapes (Hugging Face layout, one block of layer keys repeated L times), the sizes multiplied with math.prod and summed."""
    H, I = config.hidden_size, config.intermediate_size
    shapes = {
        "embeddings.word_embeddings.weight": (config.vocab_size, H),
        "embeddings.position_embeddings.weight": (config.max_position_embeddings, H),
        "embeddings.token_type_embeddings.weight": (config.type_vocab_size, H),
        "embeddings.LayerNorm.weight": (H,),
        "embeddings.LayerNorm.bias": (H,),
        "pooler.dense.weight": (H, H),
        "pooler.dense.bias": (H,),
    }
    layer = {
        "attention.self.query.weight": (H, H), "attention.self.query.bias": (H,),
        "attention.self.key.weight": (H, H), "attention.self.key.bias": (H,),
        "attention.self.value.weight": (H, H), "attention.self.value.bias": (H,),
        "attention.output.dense.weight": (H, H), "attention.output.dense.bias": (H,),
        "attention.output.LayerNorm.weight": (H,), "attention.output.LayerNorm.bias": (H,),
        "intermediate.dense.weight": (I, H), "intermediate.dense.bias": (I,),
        "output.dense.weight": (H, I), "output.dense.bias": (H,),
        "output.LayerNorm.weight": (H,), "output.LayerNorm.bias": (H,),
    }
    for i in range(config.num_hidden_layers):
        for name, shape in layer.items():
            shapes[f"encoder.layer.{i}.{name}"] = shape
    return sum(math.prod(shape) for shape in shapes.values())


# --- batch 8: written without reading any checker ------------------------------------------
EX34.batch = 8


@EX34.bug
def layer_moved_to_the_checkpoints_dtype(state_dict, i, layer):
    """As one does with model.to(dtype) before loading, I first moved the layer to the dtype of the checkpoint's tensors, layer.to(tensor.dtype), so that copy_ would copy exactly; a float16 checkpoint then turns my float32 layer into a float16 one.
    Differs on: all-MiniLM-L6-v2's tensors converted to float16 ({k: v.half()}), i = 0, a float32 EncoderLayer: the bug leaves the layer's parameters in float16 instead of float32 (the values agree); on the float32 checkpoint it agrees."""
    prefix = f"encoder.layer.{i}."
    table = [
        ("attention.query", "attention.self.query"),
        ("attention.key", "attention.self.key"),
        ("attention.value", "attention.self.value"),
        ("attention.output", "attention.output.dense"),
        ("attention_norm", "attention.output.LayerNorm"),
        ("ffn.intermediate", "intermediate.dense"),
        ("ffn.output", "output.dense"),
        ("ffn_norm", "output.LayerNorm"),
    ]
    layer.to(state_dict[prefix + "attention.self.query.weight"].dtype)
    with torch.no_grad():
        for ours, theirs in table:
            module = layer.get_submodule(ours)
            module.weight.copy_(state_dict[prefix + theirs + ".weight"])
            module.bias.copy_(state_dict[prefix + theirs + ".bias"])


@EX34.bug
def feed_forward_maps_named_the_other_way(state_dict, i, layer):
    """I took "intermediate" for the result of the block, its output, and the bare "output.dense" for the map that produces the intermediate features, so my table pairs ffn.intermediate with output.dense and ffn.output with intermediate.dense.
    Differs on: a checkpoint whose intermediate_size equals hidden_size (a random BertModel with H = I = 8, 2 heads, i = 0): the two feed-forward maps are silently exchanged; with all-MiniLM-L6-v2 (I = 4H) copy_ raises a shape error."""
    names = {
        "attention.query": "attention.self.query",
        "attention.key": "attention.self.key",
        "attention.value": "attention.self.value",
        "attention.output": "attention.output.dense",
        "attention_norm": "attention.output.LayerNorm",
        "ffn.intermediate": "output.dense",
        "ffn.output": "intermediate.dense",
        "ffn_norm": "output.LayerNorm",
    }
    with torch.no_grad():
        for ours, theirs in names.items():
            for kind in ("weight", "bias"):
                layer.get_parameter(f"{ours}.{kind}").copy_(state_dict[f"encoder.layer.{i}.{theirs}.{kind}"])


@EX34.bug
def checkpoint_converted_to_the_layers_dtype_in_place(state_dict, i, layer):
    """To spare copy_ a conversion I first converted layer i's tensors to the layer's dtype in the checkpoint dict itself, state_dict[key] = state_dict[key].to(param.dtype), not seeing that this rewrites the caller's checkpoint.
    Differs on: all-MiniLM-L6-v2's tensors converted to float16, i = 0, a float32 EncoderLayer: the layer is loaded right, but afterwards the caller's dict holds layer 0's sixteen tensors as float32 instead of float16 (on a float32 checkpoint .to returns the same tensor and nothing shows)."""
    table = {
        "attention.query": "attention.self.query", "attention.key": "attention.self.key",
        "attention.value": "attention.self.value", "attention.output": "attention.output.dense",
        "attention_norm": "attention.output.LayerNorm", "ffn.intermediate": "intermediate.dense",
        "ffn.output": "output.dense", "ffn_norm": "output.LayerNorm",
    }
    with torch.no_grad():
        for ours, theirs in table.items():
            for kind in ("weight", "bias"):
                param = layer.get_parameter(f"{ours}.{kind}")
                key = f"encoder.layer.{i}.{theirs}.{kind}"
                state_dict[key] = state_dict[key].to(param.dtype)
                param.copy_(state_dict[key])


@EX34.bug
def layer_norms_named_as_in_tensorflow(state_dict, i, layer):
    """I remembered the LayerNorm parameters by their names in Google's modeling.py, LayerNorm.gamma and LayerNorm.beta, and wrote those in my table for the two norms (the dense maps use weight and bias).
    Differs on: all-MiniLM-L6-v2, any i: the bug raises KeyError ('encoder.layer.0.attention.output.LayerNorm.gamma') where the solution loads the layer."""
    linears = {
        "attention.query": "attention.self.query",
        "attention.key": "attention.self.key",
        "attention.value": "attention.self.value",
        "attention.output": "attention.output.dense",
        "ffn.intermediate": "intermediate.dense",
        "ffn.output": "output.dense",
    }
    norms = {"attention_norm": "attention.output.LayerNorm", "ffn_norm": "output.LayerNorm"}
    p = f"encoder.layer.{i}"
    with torch.no_grad():
        for ours, theirs in linears.items():
            m = layer.get_submodule(ours)
            m.weight.copy_(state_dict[f"{p}.{theirs}.weight"])
            m.bias.copy_(state_dict[f"{p}.{theirs}.bias"])
        for ours, theirs in norms.items():
            m = layer.get_submodule(ours)
            m.weight.copy_(state_dict[f"{p}.{theirs}.gamma"])
            m.bias.copy_(state_dict[f"{p}.{theirs}.beta"])


@EX34.correct
def parameter_names_zipped_with_checkpoint_suffixes(state_dict, i, layer):
    """Two parallel lists, minibert's sixteen parameter names and the checkpoint's suffixes, zipped; each parameter found with layer.get_parameter and filled through its .data with copy_ (no no_grad block needed)."""
    ours = ["attention.query", "attention.key", "attention.value", "attention.output",
            "attention_norm", "ffn.intermediate", "ffn.output", "ffn_norm"]
    theirs = ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
              "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"]
    for mine, hf in zip(ours, theirs):
        for leaf in ("weight", "bias"):
            layer.get_parameter(mine + "." + leaf).data.copy_(state_dict["encoder.layer.%d.%s.%s" % (i, hf, leaf)])


# --- batch 8: written without reading any checker ------------------------------------------
EX3_5.batch = 8


@EX3_5.bug
def layers_multiply_only_the_projections(config, T):
    """I wrote the total on one line, L * projections + attention + ffn + pooler, without brackets, so only the projections are counted once per layer; attention and the feed-forward block are counted once.
    Differs on: the worked example (L = 1) agrees (848); with L = 2 (H = 4, I = 6, T = 3): 1232 instead of 1664; BERT-BASE at T = 128: about 8.5 GFLOPs instead of 22.3."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    projections = 4 * 2 * T * H * H
    attention = 2 * 2 * T * T * H
    ffn = 2 * 2 * T * H * I
    pooler = 2 * H * H
    return L * projections + attention + ffn + pooler


@EX3_5.bug
def feed_forward_width_taken_as_four_h(config, T):
    """I costed the feed-forward block as H -> 4H -> H, the width the paper gives (4H = 3072 for BERT-BASE), instead of reading intermediate_size.
    Differs on: the worked example (H = 4, I = 6, T = 3): the block costs 2 · 2 · 3 · 4 · 16 = 768 instead of 288, total 1328 instead of 848; right whenever I = 4H (BERT-BASE, BERT-LARGE)."""
    H = config.hidden_size
    flops = 0
    for _ in range(config.num_hidden_layers):
        flops += 4 * (2 * T * H * H)        # query, key, value, output
        flops += 2 * (2 * T * T * H)        # scores and probs @ V, all heads together
        flops += 2 * (2 * T * H * (4 * H))  # H -> 4H -> H
    return flops + 2 * H * H


@EX3_5.bug
def feed_forward_as_one_product(config, T):
    """I costed the feed-forward block as one product of (T, H) by (H, I), 2·T·H·I, thinking of "H -> I -> H" as one map out and its way back, not as two matrix products.
    Differs on: the worked example: the block counts 144 instead of 288, total 704 instead of 848."""
    H, I = config.hidden_size, config.intermediate_size
    per_layer = 8 * T * H * H + 4 * T * T * H + 2 * T * H * I
    return config.num_hidden_layers * per_layer + 2 * H * H


@EX3_5.bug
def pooler_left_out(config, T):
    """I counted the encoder layers only and left the pooler out, since it runs on a single token and I thought it fell under the statement's list of things that count 0 (the tanh).
    Differs on: the worked example: 816 instead of 848 (the pooler's 2 · 4 · 4 = 32 is missing); BERT-BASE at T = 128: 2 · 768² = 1,179,648 FLOPs short."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    per_token = 2 * (4 * H * H + 2 * H * I)   # every weight of a layer used once per token
    attention = 4 * T * T * H
    return L * (T * per_token + attention)


@EX3_5.correct
def weight_matrices_and_tokens_that_use_them(config, T):
    """A table of every weight matrix (rows, columns, tokens it multiplies) plus the two attention products; each entry costs 2 · rows · columns · tokens, summed in a loop."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    products = []
    for _ in range(L):
        products += [(H, H, T)] * 4                # query, key, value, output on T tokens
        products += [(H, I, T), (I, H, T)]        # feed-forward
        products += [(H, T, T), (T, H, T)]        # QKᵀ: (T, H) x (H, T); probs @ V: (T, T) x (T, H), heads together
    products.append((H, H, 1))                    # pooler on [CLS]
    total = 0
    for n, p, m in products:
        total += 2 * m * n * p
    return int(total)


# --- batch 8: written without reading any checker ------------------------------------------
EX3_6.batch = 8


@EX3_6.bug
def square_kernels_left_as_they_are(name, value):
    """I transposed a kernel only when its shape was not already nn.Linear's: a square (H, H) kernel, like query, key, value, the attention output or the pooler, already has the shape (out, in), so I left it as it was.
    Differs on: "bert/encoder/layer_0/attention/self/query/kernel", np.arange(4.0).reshape(2, 2): tensor [[0, 1], [2, 3]] instead of the transpose [[0, 2], [1, 3]]."""
    parts = name.split("/")
    if parts[-1] in ("adam_m", "adam_v") or name == "global_step":
        return None
    if parts[0] == "bert":
        parts = parts[1:]
    parts = ["layer." + p[len("layer_"):] if p.startswith("layer_") else p for p in parts]
    tensor = torch.tensor(value)
    if parts[-1] == "kernel":
        parts[-1] = "weight"
        if value.shape[0] != value.shape[1]:
            tensor = tensor.T.contiguous()
    elif parts[-1] == "gamma":
        parts[-1] = "weight"
    elif parts[-1] == "beta":
        parts[-1] = "bias"
    elif parts[-1].endswith("_embeddings"):
        parts.append("weight")
    return ".".join(parts), tensor


@EX3_6.bug
def global_step_renamed_like_a_weight(name, value):
    """I returned None for the variables whose last scope is adam_m or adam_v, the optimizer's moments, and forgot global_step, which has no scope at all, so it went through the renaming and came back as a key.
    Differs on: "global_step", np.array(1000): ("global_step", tensor(1000)) instead of None."""
    scopes = name.split("/")
    if scopes[-1].startswith("adam_"):
        return None
    if scopes[0] == "bert":
        del scopes[0]
    scopes = [s.replace("layer_", "layer.", 1) if s.startswith("layer_") else s for s in scopes]
    tensor = torch.tensor(value)
    last = scopes[-1]
    if last == "kernel":
        scopes[-1] = "weight"
        tensor = tensor.t().contiguous()
    elif last == "gamma":
        scopes[-1] = "weight"
    elif last == "beta":
        scopes[-1] = "bias"
    elif last.endswith("_embeddings"):
        scopes.append("weight")
    return ".".join(scopes), tensor


@EX3_6.bug
def weight_appended_to_the_whole_embeddings_scope(name, value):
    """I took everything under bert/embeddings for an nn.Embedding table and appended ".weight" to it before renaming gamma and beta, so the embeddings' LayerNorm comes out as "embeddings.LayerNorm.gamma.weight".
    Differs on: "bert/embeddings/LayerNorm/gamma", np.ones(4): key "embeddings.LayerNorm.gamma.weight" instead of "embeddings.LayerNorm.weight" (and beta likewise)."""
    if name == "global_step" or name.endswith(("/adam_m", "/adam_v")):
        return None
    parts = name.split("/")
    if parts[0] == "bert":
        parts = parts[1:]
    parts = [p.replace("layer_", "layer.") if p.startswith("layer_") else p for p in parts]
    tensor = torch.tensor(value)
    if parts[0] == "embeddings":
        return ".".join(parts + ["weight"]), tensor  # every table of the embeddings scope
    if parts[-1] == "kernel":
        parts[-1], tensor = "weight", tensor.T.contiguous()
    elif parts[-1] == "gamma":
        parts[-1] = "weight"
    elif parts[-1] == "beta":
        parts[-1] = "bias"
    return ".".join(parts), tensor


@EX3_6.bug
def kernel_transposed_only_inside_the_encoder(name, value):
    """I transposed the kernels of the encoder's layers, the rows of the table (bert/encoder/layer_3/...), and let the pooler's dense kernel through as it was, since the table shows only its bias.
    Differs on: "bert/pooler/dense/kernel", np.arange(6.0).reshape(2, 3): tensor of shape (2, 3) [[0, 1, 2], [3, 4, 5]] instead of its transpose, shape (3, 2)."""
    parts = name.split("/")
    if parts[-1] in ("adam_m", "adam_v") or name == "global_step":
        return None
    if parts[0] == "bert":
        parts = parts[1:]
    parts = [p.replace("layer_", "layer.") if p.startswith("layer_") else p for p in parts]
    tensor = torch.tensor(value)
    if parts[-1] == "kernel":
        parts[-1] = "weight"
        if parts[0] == "encoder":
            tensor = tensor.T.contiguous()
    elif parts[-1] == "gamma":
        parts[-1] = "weight"
    elif parts[-1] == "beta":
        parts[-1] = "bias"
    elif parts[-1].endswith("_embeddings"):
        parts.append("weight")
    return ".".join(parts), tensor


@EX3_6.correct
def path_parts_and_match_statement(name, value):
    """The name read as a PurePosixPath, each scope rewritten by a match statement; the kernel transposed with torch.permute and cloned."""
    path = PurePosixPath(name)
    if path.name in ("adam_m", "adam_v") or name == "global_step":
        return None
    scopes = list(path.parts)
    if scopes and scopes[0] == "bert":
        scopes = scopes[1:]
    key = []
    tensor = torch.from_numpy(np.array(value, copy=True))
    for position, scope in enumerate(scopes):
        last = position == len(scopes) - 1
        match scope:
            case _ if (m := re.fullmatch(r"layer_(\d+)", scope)):
                key.append(f"layer.{m.group(1)}")
            case "kernel" if last:
                key.append("weight")
                tensor = tensor.permute(1, 0).clone()
            case "gamma" if last:
                key.append("weight")
            case "beta" if last:
                key.append("bias")
            case _ if last and scope.endswith("_embeddings"):
                key.extend([scope, "weight"])
            case _:
                key.append(scope)
    return ".".join(key), tensor


# --- batch 9: written without reading any checker ------------------------------------------
EX3_1.batch = 9


@EX3_1.bug
def phi_from_erfc_without_the_minus(x, w1, b1, w2, b2):
    """I wrote Φ with the complementary error function as ½ erfc(z/√2), leaving out the minus sign of erfc(−z/√2); ½ erfc(z/√2) is 1 − Φ(z), so my "GELU" is z (1 − Φ(z)), large for negative z and small for positive z.
    Differs on: the worked example x = [1, −1] (H = 2, I = 3): the pre-activation [1, −1, 0.5] becomes [0.1587, −0.8413, 0.1543] instead of [0.8413, −0.1587, 0.3457], so the output is [−0.6827, −0.6915] instead of [0.6827, −0.3085]."""
    h = x @ w1.T + b1
    phi = 0.5 * torch.erfc(h / math.sqrt(2))
    return (h * phi) @ w2.T + b2


@EX3_1.bug
def second_bias_left_to_the_layer_norm(x, w1, b1, w2, b2):
    """I left b2 out: a LayerNorm comes right after the block and subtracts the mean, so I thought a bias added to every token would cancel there; but b2 differs from feature to feature, and only its mean cancels (and the block must return FFN(x) itself).
    Differs on: the worked example x = [1, −1]: the bug returns [0.6827, 0.6915] instead of [0.6827, −0.3085] (b2 = [0, −1] is missing)."""
    h = torch.matmul(x, w1.transpose(0, 1)) + b1
    h = h * 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))
    return torch.matmul(h, w2.transpose(0, 1))


@EX3_1.bug
def gelu_in_place_after_halving(x, w1, b1, w2, b2):
    """To save memory I wrote GELU in place on the pre-activation, z.mul_(0.5) and then z.mul_(1 + erf(z / √2)); the first step had already halved z, so the erf reads z/2 and I get ½ z (1 + erf(z / (2√2))).
    Differs on: the worked example x = [1, −1]: the activations are [0.6915, −0.3085, 0.2994] instead of [0.8413, −0.1587, 0.3457], so the output is [0.3829, −0.4013] instead of [0.6827, −0.3085]."""
    z = x @ w1.T + b1                                                   # (B, T, I), a fresh tensor
    z.mul_(0.5)
    z.mul_(1 + torch.erf(z / math.sqrt(2)))
    return z @ w2.T + b2


@EX3_1.bug
def root_two_typed_as_1_414(x, w1, b1, w2, b2):
    """I typed √2 as 1.414 inside the erf, the value I know by heart; it is 1.41421..., so every activation is off by a little (relative error about 1.5e-4 in the erf's argument).
    Differs on: x = [[[2.0, −1.5]]] with the worked example's weights: the output differs from the solution by about 8e-5; on random float64 inputs (B = 2, T = 3, H = 8, I = 16) by about 2e-4 (the gap vanishes at z = 0)."""
    h = x @ w1.T + b1
    h = 0.5 * h * (1 + torch.erf(h / 1.414))
    return h @ w2.T + b2


@EX3_1.correct
def normal_cdf_from_torch_distributions(x, w1, b1, w2, b2):
    """Φ from torch.distributions.Normal(0, 1).cdf (built in the pre-activation's dtype); the maps with torch.matmul against swapaxes of the weights."""
    h = torch.matmul(x, w1.swapaxes(0, 1)) + b1
    std_normal = torch.distributions.Normal(torch.zeros((), dtype=h.dtype), torch.ones((), dtype=h.dtype))
    h = h * std_normal.cdf(h)
    return torch.matmul(h, w2.swapaxes(0, 1)) + b2


# --- batch 9: written without reading any checker ------------------------------------------
EX32.batch = 9


@EX32.bug
def no_padding_written_as_a_mask_of_zeros(x, key_mask, layer):
    """For "None when nothing is padded" I built the mask myself as torch.zeros(B, 1, 1, T, dtype=torch.bool), zeros for "no padding"; but the mask is True at the tokens to keep, so my all-False mask hides every key.
    Differs on: key_mask None, x random (B = 2, T = 3) through a layer of all-MiniLM-L6-v2: every query attends to nothing, so the attention sub-layer gives only its output bias (torch 2.13's kernel returns a zero context for an all-hidden row) and the result differs everywhere (by up to about 1.5); with a real (B, 1, 1, T) mask it agrees."""
    B, T, H = x.shape
    if key_mask is None:
        key_mask = torch.zeros(B, 1, 1, T, dtype=torch.bool, device=x.device)
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    return layer.ffn_norm(h + layer.ffn(h))


@EX32.bug
def layer_norms_moved_to_float64(x, key_mask, layer):
    """For accurate statistics I ran the two LayerNorms in float64 with layer.attention_norm.double() and layer.ffn_norm.double(), casting the results back to x's dtype; Module.double() converts the module itself, in place, so the caller's layer is left with float64 LayerNorms.
    Differs on: any float32 input, e.g. x random (B = 2, T = 3) with its mask, through a float32 layer: the outputs agree to about 1e-7, but after the call the layer's attention_norm and ffn_norm parameters are float64, so the layer's own forward on float32 input now raises (the solution leaves the layer as it was)."""
    a, _ = layer.attention(x, key_mask)
    norm1 = layer.attention_norm.double()
    h = norm1((x + a).double()).to(x.dtype)
    norm2 = layer.ffn_norm.double()
    return norm2((h + layer.ffn(h)).double()).to(x.dtype)


@EX32.bug
def layer_norm_scale_and_shift_swapped(x, key_mask, layer):
    """I wrote each LayerNorm as F.layer_norm(s, (H,), norm.bias, norm.weight, norm.eps), passing β where γ goes and γ where β goes (I remembered the order as "shift, then scale").
    Differs on: the worked example (second LayerNorm's γ = [1, 2, 3], β = [0, 0, 1]; the first's γ = 1, β = 0): the first LayerNorm becomes a constant 1 everywhere, and the output is [1, 2, 3.1298] at both positions instead of [1.4142, −1.4142, −1.1213]."""
    H = x.shape[-1]

    def norm(module, s):
        return F.layer_norm(s, (H,), module.bias, module.weight, module.eps)

    a, _ = layer.attention(x, key_mask)
    h = norm(layer.attention_norm, x + a)
    return norm(layer.ffn_norm, h + layer.ffn(h))


@EX32.bug
def second_residual_added_in_place(x, key_mask, layer):
    """I kept x safe, but added the feed-forward residual in place on my own normalised sum, h += layer.ffn(h), to save a tensor; the values are right, but the feed-forward block's first Linear saved h for its backward pass, so backward() then fails.
    Differs on: x random (B = 2, T = 3) with requires_grad=True and its mask: the output values agree, but output.sum().backward() raises "one of the variables needed for gradient computation has been modified by an inplace operation" where the solution's backward runs."""
    a, _ = layer.attention(x, key_mask)
    h = layer.attention_norm(x + a)
    h += layer.ffn(h)
    return layer.ffn_norm(h)


@EX32.correct
def mask_handed_over_in_additive_form(x, key_mask, layer):
    """The boolean mask turned into the additive float form (0 to keep, finfo(dtype).min to hide, in x's dtype), which the attention's fused kernel adds to the scores; residual sums with torch.add."""
    if key_mask is not None:
        key_mask = torch.zeros(key_mask.shape, dtype=x.dtype, device=x.device).masked_fill(~key_mask, torch.finfo(x.dtype).min)
    a = layer.attention(x, key_mask)[0]
    h = layer.attention_norm(torch.add(x, a))
    return layer.ffn_norm(torch.add(h, layer.ffn(h)))


# --- batch 9: written without reading any checker ------------------------------------------
EX3_3.batch = 9


@EX3_3.bug
def pooler_taken_for_a_pretraining_head(config):
    """I left the pooler out: I took it for part of the next-sentence-prediction head, one of the "pre-training heads" the statement excludes, although it sits inside BertModel.
    Differs on: the worked example (V = 10, H = 4, L = 1, I = 6, P = 8, S = 2): the bug gives 242 instead of 262; BERT-BASE 109,482,240 - 590,592 = 108,891,648."""
    H, I = config.hidden_size, config.intermediate_size
    embeddings = (config.vocab_size + config.max_position_embeddings + config.type_vocab_size) * H + 2 * H
    attention = 4 * (H * H + H)
    feed_forward = (H * I + I) + (I * H + H)
    norms = 2 * 2 * H
    return embeddings + config.num_hidden_layers * (attention + feed_forward + norms)


@EX3_3.bug
def three_attention_maps_only(config):
    """I counted attention as its three maps, query, key and value, each H x H with a bias, and forgot the output projection that follows the heads.
    Differs on: the worked example: the bug gives 242 instead of 262 (one H x H map and its bias, 20, missing per layer); BERT-BASE 109,482,240 - 12 x 590,592 = 102,395,136."""
    H = config.hidden_size
    I = config.intermediate_size
    total = (config.vocab_size + config.max_position_embeddings + config.type_vocab_size) * H + 2 * H
    for _ in range(config.num_hidden_layers):
        total += 3 * (H * H + H)                # query, key, value
        total += H * I + I + I * H + H          # feed-forward
        total += 4 * H                          # two LayerNorms
    total += H * H + H                          # pooler
    return total


@EX3_3.bug
def pooler_counted_as_a_bare_matrix(config):
    """The statement calls the pooler "one H x H linear map", so I counted exactly H x H numbers, forgetting that a linear map also has its H biases (the list's first rule).
    Differs on: the worked example: the bug gives 258 instead of 262; BERT-BASE 109,481,472 instead of 109,482,240."""
    H, I = config.hidden_size, config.intermediate_size

    def linear(n_in, n_out):
        return n_in * n_out + n_out

    embeddings = (config.vocab_size + config.max_position_embeddings + config.type_vocab_size) * H + 2 * H
    layer = 4 * linear(H, H) + linear(H, I) + linear(I, H) + 4 * H
    return embeddings + config.num_hidden_layers * layer + H * H


@EX3_3.bug
def layers_counted_like_hidden_states(config):
    """I counted num_hidden_layers + 1 layers, because the model returns L + 1 hidden states (I took the embedding output for the first layer's output and thought there was one more layer than the config says).
    Differs on: the worked example (L = 1): the bug gives 416 instead of 262 (one layer, 154, too many); BERT-BASE 116,570,112 instead of 109,482,240."""
    H, I = config.hidden_size, config.intermediate_size
    embeddings = (config.vocab_size + config.max_position_embeddings + config.type_vocab_size + 2) * H
    per_layer = 4 * (H + 1) * H + (H + 1) * I + (I + 1) * H + 4 * H
    pooler = (H + 1) * H
    n_layers = config.num_hidden_layers + 1
    return embeddings + n_layers * per_layer + pooler


@EX3_3.correct
def module_tree_counted_recursively(config):
    """The model described as a nested tree of modules (linear, layer_norm, embedding leaves; repeated groups), counted by one recursive function."""
    H, I = config.hidden_size, config.intermediate_size
    L = config.num_hidden_layers

    def linear(n_in, n_out):
        return ("leaf", n_in * n_out + n_out)

    def layer_norm(n):
        return ("leaf", 2 * n)

    def embedding(n):
        return ("leaf", n * H)

    def group(*children, times=1):
        return ("group", times, children)

    layer = group(
        group(linear(H, H), linear(H, H), linear(H, H), linear(H, H)),   # query, key, value, output
        layer_norm(H),
        group(linear(H, I), linear(I, H)),                               # feed-forward
        layer_norm(H),
    )
    model = group(
        group(embedding(config.vocab_size), embedding(config.max_position_embeddings),
              embedding(config.type_vocab_size), layer_norm(H)),
        group(layer, times=L),
        linear(H, H),                                                    # pooler
    )

    def count(node):
        if node[0] == "leaf":
            return node[1]
        _, times, children = node
        return times * sum(count(c) for c in children)

    return count(model)


# --- batch 9: written without reading any checker ------------------------------------------
EX34.batch = 9


_HF_NAMES_BATCH9 = {
    "attention.query": "attention.self.query",
    "attention.key": "attention.self.key",
    "attention.value": "attention.self.value",
    "attention.output": "attention.output.dense",
    "attention_norm": "attention.output.LayerNorm",
    "ffn.intermediate": "intermediate.dense",
    "ffn.output": "output.dense",
    "ffn_norm": "output.LayerNorm",
}


@EX34.bug
def gradients_switched_off_for_the_session(state_dict, i, layer):
    """Autograd forbids copy_ into a parameter, so I put torch.set_grad_enabled(False) at the top of my function, as in my notebook's first cell, and never switched it back on: the copies are right, but the caller's session is left with autograd off.
    Differs on: all-MiniLM-L6-v2's checkpoint, i = 0, a fresh EncoderLayer: the layer's tensors agree, but after the call torch.is_grad_enabled() is False, so a forward pass of the loaded layer builds no graph and backward() raises (the solution's torch.no_grad() block restores it)."""
    torch.set_grad_enabled(False)
    prefix = f"encoder.layer.{i}."
    for ours, theirs in _HF_NAMES_BATCH9.items():
        module = layer.get_submodule(ours)
        module.weight.copy_(state_dict[prefix + theirs + ".weight"])
        module.bias.copy_(state_dict[prefix + theirs + ".bias"])


@EX34.bug
def every_tensor_made_float32_first(state_dict, i, layer):
    """For "whatever dtype it stores" I converted every checkpoint tensor with .float() before copying, so float16 and bfloat16 come in as float32; but a float64 checkpoint loaded into a float64 layer is then rounded to float32 on the way.
    Differs on: all-MiniLM-L6-v2's tensors converted to float64 plus a small random perturbation ({k: v.double() + 1e-9 * randn}), i = 2, an EncoderLayer converted with .double(): the bug's parameters differ from the checkpoint's by up to about 5e-9 (float32 rounding) where the solution copies them exactly."""
    with torch.no_grad():
        for ours, theirs in _HF_NAMES_BATCH9.items():
            for kind in ("weight", "bias"):
                tensor = state_dict[f"encoder.layer.{i}.{theirs}.{kind}"].float()
                layer.get_parameter(f"{ours}.{kind}").copy_(tensor)


@EX34.bug
def renamed_entries_written_into_the_checkpoint(state_dict, i, layer):
    """I renamed by adding each tensor to the dict under minibert's name, state_dict["attention.query.weight"] = state_dict["encoder.layer.{i}.attention.self.query.weight"], then called layer.load_state_dict on those keys; the loading is right, but I wrote sixteen new entries into the caller's checkpoint.
    Differs on: all-MiniLM-L6-v2's checkpoint, i = 1: the layer agrees, but the caller's dict grows from 104 to 120 keys (e.g. "attention.query.weight", "ffn_norm.bias"), where the solution leaves it as it was."""
    for ours, theirs in _HF_NAMES_BATCH9.items():
        for kind in ("weight", "bias"):
            state_dict[f"{ours}.{kind}"] = state_dict[f"encoder.layer.{i}.{theirs}.{kind}"]
    layer.load_state_dict({name: state_dict[name] for name in layer.state_dict()})


@EX34.bug
def private_copy_through_numpy(state_dict, i, layer):
    """So that my layer could never share memory with the checkpoint, I took a private copy of each tensor through numpy, torch.from_numpy(tensor.numpy().copy()); numpy has no bfloat16, so a bfloat16 checkpoint makes .numpy() raise.
    Differs on: all-MiniLM-L6-v2's tensors converted to bfloat16 ({k: v.bfloat16()}), i = 0, a fresh float32 EncoderLayer: the bug raises TypeError (unsupported ScalarType BFloat16) where the solution loads the rounded values; float32 and float16 checkpoints agree."""
    with torch.no_grad():
        for ours, theirs in _HF_NAMES_BATCH9.items():
            module = layer.get_submodule(ours)
            for kind in ("weight", "bias"):
                tensor = state_dict[f"encoder.layer.{i}.{theirs}.{kind}"]
                private = torch.from_numpy(tensor.numpy().copy())
                getattr(module, kind).copy_(private)


@EX34.correct
def prefix_rewrite_under_inference_mode(state_dict, i, layer):
    """A loop over layer.named_parameters(), each name's module prefix rewritten to the checkpoint's through a small table; copied under torch.inference_mode() instead of no_grad."""
    rewrite = [
        ("attention.query.", "attention.self.query."),
        ("attention.key.", "attention.self.key."),
        ("attention.value.", "attention.self.value."),
        ("attention.output.", "attention.output.dense."),
        ("attention_norm.", "attention.output.LayerNorm."),
        ("ffn.intermediate.", "intermediate.dense."),
        ("ffn.output.", "output.dense."),
        ("ffn_norm.", "output.LayerNorm."),
    ]
    with torch.inference_mode():
        for name, param in layer.named_parameters():
            for ours, theirs in rewrite:
                if name.startswith(ours):
                    key = "encoder.layer.%d.%s%s" % (i, theirs, name[len(ours):])
                    param.copy_(state_dict[key])
                    break


# --- batch 9: written without reading any checker ------------------------------------------
EX3_5.batch = 9


@EX3_5.bug
def cls_and_sep_added_to_the_length(config, T):
    """I added the two special tokens the tokenizer puts around a sentence, [CLS] and [SEP], to T before counting, thinking "a sequence of T tokens" meant T tokens of text.
    Differs on: the worked example (H = 4, I = 6, L = 1, T = 3): the bug counts T = 5 and gives 1,552 instead of 848; BERT-BASE at T = 128 gives 22,707,191,808 instead of 22,348,431,360."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    n = T + 2                                              # [CLS] ... [SEP]
    per_layer = 4 * 2 * n * H * H + 2 * 2 * n * n * H + 2 * 2 * n * H * I
    return L * per_layer + 2 * H * H


@EX3_5.bug
def layer_count_read_from_the_heads_field(config, T):
    """I multiplied the per-layer cost by config.num_attention_heads, picking the wrong one of the two "num_" fields, which I never noticed because BERT-BASE has 12 of each.
    Differs on: BERT-LARGE (L = 24, 16 heads) at T = 128: the bug counts 16 layers instead of 24; any config with num_attention_heads != num_hidden_layers (BERT-BASE agrees)."""
    H, I = config.hidden_size, config.intermediate_size
    per_layer = 8 * T * H * H + 4 * T * T * H + 4 * T * H * I
    return config.num_attention_heads * per_layer + 2 * H * H


@EX3_5.bug
def pooler_added_inside_the_layer_loop(config, T):
    """I summed the layers in a for loop and wrote the pooler's line at the loop's indentation, so the pooler is counted once per layer instead of once for the model.
    Differs on: the worked example with L = 2 (H = 4, I = 6, T = 3): the bug gives 1,696 instead of 1,664; BERT-BASE at T = 128 counts 11 pooler maps too many (11 x 1,179,648); L = 1 agrees."""
    H, I = config.hidden_size, config.intermediate_size
    total = 0
    for _ in range(config.num_hidden_layers):
        total += 4 * (2 * T * H * H)          # query, key, value, output
        total += 2 * (2 * T * T * H)          # scores and probabilities x values, all heads
        total += 2 * T * H * I + 2 * T * I * H
        total += 2 * H * H                    # pooler
    return total


@EX3_5.bug
def score_scaling_counted(config, T):
    """The statement's list of things that count 0 did not name the division of the scores by √hs, so I counted it: one FLOP per score, nh · T² per layer.
    Differs on: the worked example with one head (H = 4, I = 6, L = 1, T = 3): the bug gives 857 instead of 848; BERT-BASE at T = 128 adds 12 x 12 x 128² = 2,359,296."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    nh = config.num_attention_heads
    hs = H // nh
    projections = 4 * 2 * T * H * H
    products = nh * (2 * T * T * hs + 2 * T * T * hs)     # QKᵀ and P V, head by head
    scaling = nh * T * T                                   # scores / √hs
    ffn = 2 * T * H * I + 2 * T * I * H
    return L * (projections + products + scaling + ffn) + 2 * H * H


@EX3_5.correct
def twice_the_weights_times_the_tokens(config, T):
    """Counted from the weight matrices: 2 FLOPs per weight entry per token that uses it (T tokens for the layers' matrices, one for the pooler), plus the two attention products, 4 T² H per layer."""
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    layer_weights = 4 * H * H + 2 * H * I                  # q, k, v, output; both feed-forward maps
    matrices = 2 * T * L * layer_weights
    attention = L * 4 * T * T * H
    pooler = 2 * 1 * H * H
    return matrices + attention + pooler


# --- batch 9: written without reading any checker ------------------------------------------
EX3_6.batch = 9


@EX3_6.bug
def gamma_beta_kept_as_in_old_checkpoints(name, value):
    """I renamed kernel to weight and left LayerNorm's gamma and beta as they were, since the old pytorch-pretrained-BERT checkpoints kept those names and transformers still loads them.
    Differs on: "bert/encoder/layer_3/output/LayerNorm/gamma", np.ones(4): key "encoder.layer.3.output.LayerNorm.gamma" instead of "encoder.layer.3.output.LayerNorm.weight"."""
    parts = name.split("/")
    if parts[-1] in ("adam_m", "adam_v") or name == "global_step":
        return None
    if parts[0] == "bert":
        parts = parts[1:]
    parts = ["layer." + p[len("layer_"):] if p.startswith("layer_") else p for p in parts]
    tensor = torch.tensor(value)
    if parts[-1] == "kernel":
        parts[-1] = "weight"
        tensor = tensor.t().contiguous()
    elif parts[-1].endswith("_embeddings"):
        parts.append("weight")
    return ".".join(parts), tensor


@EX3_6.bug
def prefix_stripped_with_lstrip(name, value):
    """I took the "bert/" scope off with name.lstrip("bert/"), which strips any of the characters b, e, r, t and / from the left, so "embeddings" and "encoder" lose their first letter too.
    Differs on: "bert/embeddings/word_embeddings", a (5, 3) array: key "mbeddings.word_embeddings.weight" instead of "embeddings.word_embeddings.weight"."""
    if name == "global_step" or name.endswith(("/adam_m", "/adam_v")):
        return None
    key = name.lstrip("bert/").replace("/", ".")
    key = key.replace("layer_", "layer.")
    tensor = torch.tensor(value)
    if key.endswith(".kernel"):
        key = key[: -len("kernel")] + "weight"
        tensor = tensor.T.contiguous()
    elif key.endswith(".gamma"):
        key = key[: -len("gamma")] + "weight"
    elif key.endswith(".beta"):
        key = key[: -len("beta")] + "bias"
    elif key.endswith("_embeddings"):
        key += ".weight"
    return key, tensor


@EX3_6.bug
def every_value_made_float64(name, value):
    """I read "a float64 array gives a float64 tensor" as "weights are kept in float64", so I built every tensor with dtype=torch.float64, which also turns a float32 (or float16) array into float64.
    Differs on: "bert/pooler/dense/bias", np.zeros(4, dtype=np.float32): a float64 tensor instead of a float32 one."""
    parts = name.split("/")
    if parts[-1] in ("adam_m", "adam_v") or name == "global_step":
        return None
    if parts[0] == "bert":
        parts = parts[1:]
    parts = [p.replace("layer_", "layer.") for p in parts]
    tensor = torch.tensor(value, dtype=torch.float64)
    last = parts[-1]
    if last == "kernel":
        parts[-1], tensor = "weight", tensor.T.contiguous()
    elif last in ("gamma", "beta"):
        parts[-1] = {"gamma": "weight", "beta": "bias"}[last]
    elif last.endswith("_embeddings"):
        parts.append("weight")
    return ".".join(parts), tensor


@EX3_6.bug
def adam_moments_compared_with_the_whole_name(name, value):
    """I read the table's row "adam_m, adam_v, global_step" as three names and tested `name in ("adam_m", "adam_v", "global_step")`, so a moment like ".../query/kernel/adam_m" goes through the renaming and comes back as a key.
    Differs on: "bert/encoder/layer_0/attention/self/query/kernel/adam_m", a (4, 4) array: ("encoder.layer.0.attention.self.query.kernel.adam_m", tensor) instead of None."""
    if name in ("adam_m", "adam_v", "global_step"):
        return None
    parts = name.split("/")
    if parts[0] == "bert":
        parts = parts[1:]
    parts = [p.replace("layer_", "layer.") if p.startswith("layer_") else p for p in parts]
    tensor = torch.tensor(value)
    if parts[-1] == "kernel":
        parts[-1], tensor = "weight", tensor.T.contiguous()
    elif parts[-1] == "gamma":
        parts[-1] = "weight"
    elif parts[-1] == "beta":
        parts[-1] = "bias"
    elif parts[-1].endswith("_embeddings"):
        parts.append("weight")
    return ".".join(parts), tensor


@EX3_6.correct
def rpartition_rewrites_and_einsum(name, value):
    """The name cut with str.rpartition into scope and leaf, the scope rewritten by a functools.reduce over a replacement list, the kernel transposed with torch.einsum on a numpy copy."""
    scope, _, leaf = name.rpartition("/")
    if leaf in ("adam_m", "adam_v") or (not scope and leaf == "global_step"):
        return None
    if scope == "bert" or scope.startswith("bert/"):
        scope = scope[len("bert"):].lstrip("/")
    pieces = scope.split("/") if scope else []
    pieces = [functools.reduce(lambda s, r: s.replace(*r) if s.startswith("layer_") else s,
                               [("layer_", "layer.")], p) for p in pieces]
    tensor = torch.tensor(np.array(value, copy=True))
    if leaf == "kernel":
        tensor = torch.einsum("io->oi", tensor).contiguous()
        leaves = ["weight"]
    elif leaf in ("gamma", "beta"):
        leaves = [{"gamma": "weight", "beta": "bias"}[leaf]]
    elif leaf.endswith("_embeddings"):
        leaves = [leaf, "weight"]
    else:
        leaves = [leaf.replace("layer_", "layer.") if leaf.startswith("layer_") else leaf]
    return ".".join(pieces + leaves), tensor
