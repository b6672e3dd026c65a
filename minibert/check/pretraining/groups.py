"""The checker of exercise 5.2: AdamW's parameter groups, weight decay on matrices, none on parameters
of fewer than 2 dimensions (LayerNorm gains, biases, a learned scalar) whatever their names; frozen
parameters left out, tied ones once."""

from __future__ import annotations

import torch
from torch import nn

from ..common import ExerciseError, call, passed


class _Renamed(nn.Module):
    """A small model whose names defeat a rule by name: a LayerNorm called `norm`, a gain `scale`, a
    frozen embedding table, an output layer tied to that table's twin, a 3-D weight (a
    convolution's kernel is one) that a rule `p.ndim == 2` spares, and a learned 0-D scalar (a
    temperature) that a rule `p.ndim == 1` leaves in neither group; a (1, H) matrix that looks 1-D once
    squeezed, and a 2-D table whose name holds "bias" (T5's relative_attention_bias)."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.table = nn.Embedding(11, 6)
        self.table.weight.requires_grad_(False)  # frozen, as when fine-tuning with fixed embeddings
        self.words = nn.Embedding(13, 6)
        self.proj = nn.Linear(6, 6)
        self.norm = nn.LayerNorm(6)
        self.scale = nn.Parameter(torch.ones(6))
        self.out = nn.Linear(6, 13)
        self.out.weight = self.words.weight  # tied: one tensor under two names
        self.mix = nn.Parameter(torch.ones(2, 3, 6))  # 3-D: decayed, as every tensor of 2 or more dimensions
        self.temperature = nn.Parameter(torch.tensor(1.0))  # 0-D: fewer than 2 dimensions, not decayed
        self.row = nn.Parameter(torch.ones(1, 6))  # (1, H): a matrix of one row, decayed (squeezed, it looks 1-D)
        self.relative_attention_bias = nn.Embedding(4, 2)  # T5's name for a 2-D table: decayed, "bias" or not
        for p in self.parameters():
            with torch.no_grad():
                p.copy_(torch.randn(p.shape, generator=g))


def _bert():
    from ...config import BertConfig
    from ...heads import BertForPreTraining

    torch.manual_seed(0)
    config = BertConfig(vocab_size=50, hidden_size=12, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=20, max_position_embeddings=16)
    return BertForPreTraining(config)


def _names(model, tensors) -> list[str]:
    by_id = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        by_id.setdefault(id(p), name)
    return sorted(by_id.get(id(t), "<not a parameter of the model>") for t in tensors)


def _check(fn, model, what: str, weight_decay: float) -> None:
    case = f"{what}, weight_decay={weight_decay}"
    groups = call(fn, case, model, weight_decay)
    if isinstance(groups, dict) or not hasattr(groups, "__iter__"):
        raise ExerciseError(f"{case}: expected a list of two dicts, received {type(groups).__name__}\n  hint: "
                            "return [{'params': [...], 'weight_decay': wd}, {'params': [...], 'weight_decay': 0.0}]")
    groups = list(groups)
    trainable = [p for p in model.parameters() if p.requires_grad]
    lacking = [kind for kind, big in (("matrix", True), ("parameter of fewer than 2 dimensions", False))
               if not any((p.ndim >= 2) == big for p in trainable)]
    if len(groups) == 1 and lacking:  # the empty group left out: AdamW takes it, and the exercise asks for two
        raise ExerciseError(f"{case}: received one group; this model has no trainable {lacking[0]}, so one of the "
                            "two groups is empty, and it is still returned\n  hint: always return both groups, an "
                            "empty one included: AdamW takes a group whose 'params' is []")
    if len(groups) != 2 or not all(isinstance(g, dict) and "params" in g and "weight_decay" in g for g in groups):
        raise ExerciseError(f"{case}: expected two dicts, each with 'params' and 'weight_decay'; received "
                            f"{[sorted(g) if isinstance(g, dict) else type(g).__name__ for g in groups]}")
    for g in groups:
        if isinstance(g["params"], (set, frozenset)):
            raise ExerciseError(f"{case}: a group's 'params' is a {type(g['params']).__name__}; torch's AdamW refuses "
                                "sets (TypeError: their order changes from run to run, so a saved optimizer state "
                                "would not match its tensors)\n  hint: a list, in the order model.parameters() "
                                "yields them; model.parameters() already yields a tied tensor once")
    params = [list(g["params"]) for g in groups]
    for ps in params:
        for p in ps:
            if not isinstance(p, torch.Tensor):
                raise ExerciseError(f"{case}: a group holds {type(p).__name__} {p!r}, expected the parameters "
                                    "themselves\n  hint: model.named_parameters() gives (name, parameter) pairs: "
                                    "put the parameter, not its name, in 'params'")
    own = {id(p) for p in model.parameters()}
    if any(id(p) not in own for ps in params for p in ps):
        raise ExerciseError(f"{case}: a group holds a tensor that is not one of the model's parameters\n  hint: no "
                            ".clone(), .detach(), .data or .float() (a copy when the model is not in float32): "
                            "the optimizer must update the model's own tensors")
    everything = [id(p) for ps in params for p in ps]
    listed = set(everything)
    if len(everything) != len(listed):
        twice = _names(model, [p for ps in params for p in ps if everything.count(id(p)) > 1])
        raise ExerciseError(f"{case}: these parameters appear more than once: {sorted(set(twice))}\n  hint: a tied "
                            "weight is one tensor under two names; model.parameters() (or named_parameters() with "
                            "its default remove_duplicate=True) yields it once, and torch's AdamW refuses duplicates")
    if not all(isinstance(g["weight_decay"], (int, float)) and not isinstance(g["weight_decay"], bool)
               for g in groups):
        raise ExerciseError(f"{case}: the groups' weight_decay values are {[g['weight_decay'] for g in groups]!r}; "
                            f"expected the numbers {weight_decay} and 0.0\n  hint: no decay is weight_decay 0.0 "
                            "(AdamW's step multiplies by it, so None fails there)")
    decays = [float(g["weight_decay"]) for g in groups]
    if sorted(decays) != sorted([0.0, weight_decay]):
        hint = ("\n  hint: weight_decay=0.0 is a value (no decay at all), not a missing one: use it as given "
                "(weight_decay or 0.01 turns 0.0 into 0.01)") if weight_decay == 0.0 else ""
        raise ExerciseError(f"{case}: the groups' weight_decay values are {decays}, expected {weight_decay} for one "
                            "and 0.0 for the other" + hint)
    decay, no_decay = (params[0], params[1]) if decays[0] == weight_decay else (params[1], params[0])
    if weight_decay == 0.0 and {id(p) for p in params[1]} == {id(p) for p in trainable if p.ndim >= 2}:
        decay, no_decay = no_decay, decay  # both rates 0.0: the groups are told apart by what they hold
    frozen = [p for p in model.parameters() if not p.requires_grad]
    if any(id(p) in listed for p in frozen):
        raise ExerciseError(f"{case}: frozen parameters (requires_grad=False) are in a group: "
                            f"{_names(model, [p for p in frozen if id(p) in listed])}\n  hint: leave out "
                            "what is not trained")
    expected_decay = {id(p) for p in trainable if p.ndim >= 2}
    expected_none = {id(p) for p in trainable if p.ndim < 2}
    if {id(p) for p in decay} != expected_decay or {id(p) for p in no_decay} != expected_none:
        wrongly_decayed = _names(model, [p for p in decay if id(p) in expected_none])
        wrongly_spared = _names(model, [p for p in no_decay if id(p) in expected_decay])
        missing = _names(model, [p for p in trainable if id(p) not in listed])
        lines = [f"{case}:"]
        if wrongly_decayed:
            lines.append(f"  decayed, but 1-D (LayerNorm gains or biases): {wrongly_decayed}")
        if wrongly_spared:
            lines.append(f"  not decayed, but matrices: {wrongly_spared}")
        if missing:
            lines.append(f"  in no group (so never trained): {missing}")
        hint = ("decide by shape, not by name: every LayerNorm gain and every bias is 1-D (p.ndim < 2), every "
                "other weight a matrix; minibert calls its norms attention_norm and ffn_norm, which no rule "
                "looking for 'LayerNorm' finds")
        if missing and _names(model, _beside_frozen_weights(model)) == missing:
            hint = ("requires_grad belongs to each parameter, not to its module: a frozen weight leaves the bias "
                    "beside it trainable (BitFit trains the biases alone); test p.requires_grad parameter by "
                    "parameter")
        elif any(p.ndim == 0 for p in trainable if id(p) not in listed):
            hint = ("a 0-D parameter (a learned scalar) has fewer than 2 dimensions too: it belongs with the 1-D "
                    "ones; test p.ndim < 2 (or put every parameter in one group or the other), not p.ndim == 1")
        elif any("bias" in n for n in wrongly_spared):
            hint = ("decide by shape alone: a name holding \"bias\" (T5's relative_attention_bias.weight) can be a "
                    "2-D table, decayed like every matrix; only p.ndim tells")
        elif any(p.ndim == 2 and 1 in p.shape for p in no_decay if id(p) in expected_decay):
            hint = ("a (1, 6) tensor is a matrix of one row: count the dimensions as stored (p.ndim), not after "
                    "p.squeeze(), which makes it look 1-D")
        elif any(p.ndim > 2 for p in no_decay if id(p) in expected_decay):
            hint = ("2 or more dimensions, not exactly 2: a 3-D weight (a convolution's kernel, a stack of "
                    "matrices) is decayed too; test p.ndim >= 2, or put the 1-D ones apart with p.ndim < 2")
        elif any(n.endswith(".bias") for n in wrongly_decayed):
            hint = "biases are 1-D too: no decay on any parameter with p.ndim < 2"
        raise ExerciseError("\n".join(lines) + f"\n  hint: {hint}")


def _beside_frozen_weights(model) -> list[torch.Tensor]:
    """The trainable parameters of the modules whose `weight` is frozen (a bias beside a frozen weight)."""
    out = []
    for module in model.modules():
        weight = getattr(module, "weight", None)
        if isinstance(weight, torch.Tensor) and not weight.requires_grad:
            out += [p for p in module.parameters(recurse=False) if p.requires_grad]
    return out


def _frozen_between_calls(fn, model) -> None:
    """The same model called again after one more parameter was frozen (a second training phase): each call
    must read the model as it is now."""
    model.bert.encoder.layers[1].ffn_norm.weight.requires_grad_(False)
    try:
        _check(fn, model, "the same BERT called again after layers[1].ffn_norm.weight was frozen too", 0.05)
    except ExerciseError as e:
        if "frozen parameters" in str(e) and "ffn_norm.weight" in str(e):  # the earlier call on it was right
            raise ExerciseError(f"{e}\n  hint: the first call on this model was right, so something kept between "
                                "calls (functools.lru_cache, a dict keyed by the model) returned its old groups; "
                                "build the groups afresh at every call") from None
        raise


def _one_step_agrees(fn) -> None:
    """The learner's groups and minibert's give the same AdamW step on BERT."""
    from ...training.optim import parameter_groups as reference

    moved = []
    for make_groups in (fn, reference):
        model = _bert()
        opt = torch.optim.AdamW(make_groups(model, 0.1), lr=0.1)  # as given: AdamW checks them itself
        for p in model.parameters():
            p.grad = torch.ones_like(p)
        opt.step()
        moved.append([p.detach().clone() for p in model.parameters()])
    for a, b in zip(*moved, strict=True):
        if not torch.allclose(a, b):
            raise ExerciseError("one AdamW step with your groups moved BERT's weights differently from minibert's "
                                "parameter_groups\n  hint: keep the decay rate of each group as given")


def parameter_groups(fn) -> None:
    """`fn(model, weight_decay) -> [{"params": [...], "weight_decay": weight_decay}, {"params": [...],
    "weight_decay": 0.0}]`."""
    _check(fn, _bert(), "minibert's BertForPreTraining (L=2, H=12)", 0.01)
    frozen = _bert()
    frozen.bert.embeddings.position_embeddings.weight.requires_grad_(False)
    frozen.bert.embeddings.layer_norm.bias.requires_grad_(False)
    frozen.bert.encoder.layers[0].attention.query.weight.requires_grad_(False)  # its bias is still trained
    _check(fn, frozen, "BERT with its position embeddings, one LayerNorm bias and one query weight frozen (the "
                       "query's bias still trained)", 0.05)
    _frozen_between_calls(fn, frozen)
    _check(fn, _bert().to(torch.bfloat16), "minibert's BertForPreTraining in bfloat16 (model.to(torch.bfloat16))",
           0.01)
    _check(fn, _Renamed(), "a model with a LayerNorm named `norm`, a gain `scale`, a frozen table, a tied "
                           "output layer, a 3-D weight `mix`, a 0-D scalar `temperature`, a (1, 6) matrix `row` and "
                           "a 2-D table `relative_attention_bias`", 0.01)
    _check(fn, nn.LayerNorm(6), "torch.nn.LayerNorm(6) alone: no matrix, so the decayed group is empty", 0.01)
    _check(fn, nn.Linear(3, 2), "torch.nn.Linear(3, 2), no decay asked for", 0.0)
    _one_step_agrees(fn)
    passed("parameter_groups", "6 models (minibert's names in float32 and bfloat16, frozen parameters, one more "
                               "frozen between two calls, other names, "
                               "a tied weight, a 3-D one and a 0-D one, a LayerNorm alone, a Linear with "
                               "weight_decay 0.0): decay on every matrix, "
                               "none on every parameter of fewer than 2 dimensions, each trainable tensor once; one "
                               "AdamW step equals minibert's")
