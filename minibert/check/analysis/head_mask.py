"""The checker of exercise 6.3: a forward pre-hook on the attention's output projection that silences
one head, compared with `minibert.analysis.masked_heads` on a small random layer and on MiniLM."""

from __future__ import annotations

import copy
from contextlib import contextmanager
from functools import lru_cache

import torch

from ...analysis import masked_heads
from ...config import BertConfig
from ...model import BertModel
from ..common import ExerciseError, call, minilm_model, minilm_tokenizer, passed, valid_lines


@lru_cache(maxsize=1)
def _models():
    small = BertModel(BertConfig(vocab_size=50, hidden_size=24, num_hidden_layers=2, num_attention_heads=4,
                                 intermediate_size=40, max_position_embeddings=16)).eval()
    g = torch.Generator().manual_seed(63)
    ids = torch.randint(5, 50, (2, 7), generator=g)
    small_batch = dict(input_ids=ids, attention_mask=torch.tensor([[1] * 7, [1] * 5 + [0] * 2]))
    minilm = minilm_model()
    batch = minilm_tokenizer()(list(valid_lines()[:2]), padding=True, truncation=True, max_length=32,
                               return_tensors="pt")
    # A second, smaller batch for each model: a hook runs at every forward, not just the first.
    small_again = dict(input_ids=torch.randint(5, 50, (3, 4), generator=g), attention_mask=torch.ones(3, 4).long())
    again = minilm_tokenizer()([valid_lines()[2]], truncation=True, max_length=16, return_tensors="pt")
    return [("a random 4-head layer (H = 24, head size 6)", small, small_batch, small_again),
            ("all-MiniLM-L6-v2 (12 heads, head size 32)", minilm, dict(batch), dict(again))]


def _by_hand(hook, module, H):
    """The hook called by hand (on a copy of the module) on a context (2, H + 8, H) with no zero in it:
    (columns it zeroed, tokens it zeroed, whether it returned None and changed nothing), or None if it
    gave no context of that shape back. More tokens than columns, so neither can pass for the other."""
    context = torch.arange(1.0, H + 1).expand(2, H + 8, H).clone()
    given = context.clone()
    try:
        out = hook(copy.deepcopy(module), (given,))
    except Exception:  # noqa: BLE001  (the run itself reports what the hook raised)
        return None
    new = given if out is None else out[0] if isinstance(out, tuple) and out else out
    if not isinstance(new, torch.Tensor) or new.shape != context.shape:
        return None
    zero = new == 0
    return ([c for c in range(H) if bool(zero[..., c].all())], [t for t in range(H + 8) if bool(zero[:, t].all())],
            out is None and torch.equal(given, context))


def _hint(got, model, batch, layer, head, hook):
    """Name the usual mistake that `got` (last hidden states) matches."""
    cfg = model.config
    if head + 1 < cfg.num_attention_heads:
        with masked_heads(model, {layer: [head + 1]}):
            if torch.allclose(got, model(**batch).last_hidden_state, atol=1e-5):
                return "this silenced head + 1: head h owns columns h·head_size to (h + 1)·head_size − 1"
    with masked_heads(model, {layer: [h for h in range(cfg.num_attention_heads) if h != head]}):
        if torch.allclose(got, model(**batch).last_hidden_state, atol=1e-5):
            return "this kept only that head and silenced the others"
    probe = _by_hand(hook, model.encoder.layers[layer].attention.output, cfg.hidden_size)
    if probe is not None and probe[2]:
        return ("nothing changed: a pre-hook must return the new input as a tuple; returning None leaves "
                "the input as it was")
    owned = list(range(head * cfg.head_size, (head + 1) * cfg.head_size))
    if probe is not None and not probe[1] and probe[0] != owned:
        columns = probe[0]
        shown = "(none)" if not columns else f"{columns[0]} to {columns[-1]}" \
            if columns == list(range(columns[0], columns[-1] + 1)) else columns
        return (f"called by hand on a context (2, {cfg.hidden_size + 8}, {cfg.hidden_size}) with no zero in it, your "
                f"hook zeroed the columns {shown}; head {head} (head_size {cfg.head_size}) owns the columns "
                f"{owned[0]} to {owned[-1]} of the last axis, and only those")
    if torch.allclose(got, model(**batch).last_hidden_state, atol=1e-6):
        return "nothing changed: the output is the model's own, as if no column had been zeroed"
    return ("the context is (B, T, H), the heads side by side on the last axis: zero the last axis's "
            "columns head·head_size to (head + 1)·head_size, leave the tokens (axis 1) alone")


def _run_hooked(hook, name, model, batch, layer):
    """The model's last hidden states with the hook on `layer`'s output projection; the projection's
    own weights must be as they were after it (restored, for the next cases, if not)."""
    module = model.encoder.layers[layer].attention.output
    kept = {k: v.clone() for k, v in module.state_dict().items()}
    handle = module.register_forward_pre_hook(hook)
    try:
        got = call(model, f"{name}, the model with your hook", **batch).last_hidden_state
    finally:
        handle.remove()
    if any(not torch.equal(v, kept[k]) for k, v in module.state_dict().items()):
        module.load_state_dict(kept)
        raise ExerciseError(f"{name}: your hook changed the output projection itself (its weight or bias), so the head "
                            "stays silenced after the hook is removed\n  hint: change the input, args[0], and return "
                            "it; leave the module's parameters alone")
    return got


def _compare(hook, name, model, batch, layer, head):
    got = _run_hooked(hook, name, model, batch, layer)
    with masked_heads(model, {layer: [head]}):
        expected = model(**batch).last_hidden_state
    if not torch.allclose(got, expected, atol=1e-5):
        raise ExerciseError(f"{name}: the model's output with your hook differs from the output with "
                            f"head {head} masked by up to {(got - expected).abs().max().item():.3g}"
                            f"\n  hint: {_hint(got, model, batch, layer, head, hook)}")


@contextmanager
def _hooked(model, layer, hook):
    """Within the block, `hook` is a forward pre-hook on `layer`'s output projection."""
    handle = model.encoder.layers[layer].attention.output.register_forward_pre_hook(hook)
    try:
        yield model
    finally:
        handle.remove()


def _gradients(name, model, batch, layer, silenced):
    """Gradients of the loss for `layer`'s query, key and value weights, within `silenced` (the learner's hook,
    or `masked_heads`), outside no_grad: the hooks of an ablation may serve in training too. The loss weighs the last
    hidden states by a fixed random vector: their plain sum, after a LayerNorm whose weight is still all ones,
    is a constant, whose gradient is 0 whatever the hook lets through."""
    attention = model.encoder.layers[layer].attention
    weights = torch.randn(model.config.hidden_size, generator=torch.Generator().manual_seed(630))
    model.zero_grad()
    try:
        with silenced, torch.enable_grad():
            (model(**batch).last_hidden_state * weights).sum().backward()
    except RuntimeError as e:
        if "inplace" not in str(e):
            raise ExerciseError(f"{name}: the backward through your hook raised RuntimeError: {e}") from e
        raise ExerciseError(f"{name}: the backward raised RuntimeError: {str(e).splitlines()[0][:120]}...\n  hint: "
                            "your hook changed args[0] in place, and autograd keeps that tensor (the attention's "
                            "output) for the backward: zero the columns of a copy, args[0].clone()") from e
    weights = [(n, p) for n, p in attention.named_parameters() if not n.startswith("output")]
    grads = {n: None if p.grad is None else p.grad.clone() for n, p in weights}
    model.zero_grad()
    return grads


def _gradient_flows(fn, model, batch, layer, head):
    """The silenced head's neighbours still learn: the gradient reaches this layer's attention through the
    hook as it does through `masked_heads`. A copy made with .detach() gives the same forward and none."""
    name = (f"a random 4-head layer: layer {layer}, head {head}, loss = (last_hidden_state · a fixed random vector)"
            ".sum() backpropagated (outside torch.no_grad)")
    hook = call(fn, f"{name}, my_head_mask_hook({head}, {model.config.head_size})", head, model.config.head_size)
    got = _gradients(name, model, batch, layer, _hooked(model, layer, hook))
    expected = _gradients(name, model, batch, layer, masked_heads(model, {layer: [head]}))
    for what, grad in got.items():
        if grad is None:
            raise ExerciseError(f"{name}: layer {layer}'s attention parameter {what} gets no gradient; the other "
                                "heads' gradient flows back through the context\n  hint: a context cut off from the "
                                "graph (by .detach(), .data or a new tensor made from its values) gives the same "
                                "forward and no gradient; args[0].clone() copies and keeps the path")
        if not torch.allclose(grad, expected[what], atol=1e-5):
            unrecorded = _gradients(name, model, batch, layer, _hooked(model, layer, _zeroed_unrecorded(model, head)))
            hint = _UNRECORDED if torch.allclose(grad, unrecorded[what], atol=1e-5) else (
                "the silenced head's columns are constants (0) for the backward too, and the other heads' gradient "
                "flows back through the context as it is")
            raise ExerciseError(f"{name}: layer {layer}'s attention parameter {what} gets a gradient other than "
                                f"masked_heads gives\n  hint: {hint}")


_UNRECORDED = ("the gradient still flows back through the silenced head's columns, as if they had not been zeroed: "
               "zeros written under torch.no_grad() (or through .data) are not seen by autograd; write them on a "
               "clone with gradients on, args[0].clone() then [..., columns] = 0")


def _zeroed_unrecorded(model, head):
    """The usual mistake: the right forward, the zeros written where autograd does not record them."""
    hs = model.config.head_size

    def hook(module, args):
        context = args[0].clone()
        with torch.no_grad():
            context[..., head * hs:(head + 1) * hs] = 0.0
        return (context,)
    return hook


def head_mask_hook(fn) -> None:
    """fn(head, head_size) -> a forward pre-hook for `layer.attention.output` that zeros that head's slice."""
    runs = 0
    with torch.no_grad():
        for what, model, batch, again in _models():
            cfg = model.config
            for layer, head in [(0, 0), (1, cfg.num_attention_heads - 1), (0, 2)]:
                name = f"{what}: layer {layer}, head {head}"
                hook = call(fn, f"{name}, my_head_mask_hook({head}, {cfg.head_size})", head, cfg.head_size)
                if not callable(hook):
                    raise ExerciseError(f"{name}: expected a function (module, args) -> new args, received {hook!r}")
                _compare(hook, name, model, batch, layer, head)
                try:  # the same hook on another batch: PyTorch calls it at every forward
                    _compare(hook, f"{name}, the same hook run again on a batch of shape "
                             f"{tuple(again['input_ids'].shape)}", model, again, layer, head)
                except ExerciseError as e:
                    raise ExerciseError(f"{e}\n  hint: the first batch was right: a hook runs at every forward of "
                                        "the module, so it must work from that call's args alone, keeping "
                                        "nothing from an earlier call") from e
                runs += 1
            # The hook must not hold state between models: a fresh one for another head size still works.
    _, small, small_batch, _ = _models()[0]
    _gradient_flows(fn, small, small_batch, 0, 1)
    passed("head_mask_hook", f"{runs} heads silenced, on a random layer and on MiniLM, equal to "
                             "minibert.analysis.masked_heads")
