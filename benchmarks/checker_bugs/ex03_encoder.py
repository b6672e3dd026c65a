"""Exercises 3.2 (my_encoder_layer) and 3.4 (my_load_layer): learners' code with one mistake each, and
correct code in other styles.

Split rule (fixed before any checker changed): within each exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import torch

from . import Exercise

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
