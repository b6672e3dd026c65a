"""The checker of exercise 7.4: freeze the encoder but its top layers, and count what still trains.
With top_layers=0 the encoder is all of `model.bert` (embeddings, layers and the pooler, as minibert's
`--freeze-encoder` freezes it) and only the classifier learns, K·H + K numbers; with top_layers=k > 0
the top k layers of `model.bert.encoder.layers` and the pooler above them learn too (the next step
between the frozen encoder of §5.3 and fine-tuning every weight). The count is of numbers, whatever their
dtype: one model is held in bfloat16."""

from __future__ import annotations

import torch

from ...config import BertConfig
from ...heads import BertForSequenceClassification
from ..common import ExerciseError, call, passed


def _model(seed: int, H: int, K: int, L: int = 2, dtype=torch.float32):
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=60, hidden_size=H, num_hidden_layers=L, num_attention_heads=2,
                        intermediate_size=2 * H, max_position_embeddings=16, num_labels=K)
    return BertForSequenceClassification(config).to(dtype).train()


def trainable_names(model, k: int) -> set[str]:
    """What must still learn: the classifier, and with k > 0 the top k layers and the pooler."""
    L = model.config.num_hidden_layers
    keep = ("classifier.",) + (("bert.pooler.",) + tuple(f"bert.encoder.layers.{i}." for i in range(L - k, L))
                               if k else ())
    return {n for n, _ in model.named_parameters() if n.startswith(keep)}


def _hint(model, got, k: int) -> str:
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    L, H, K = model.config.num_hidden_layers, model.config.hidden_size, model.config.num_labels
    if not trainable:
        return "nothing trains now: the classifier (model.classifier) must stay trainable, it is what is learnt"
    if trainable == {n for n, _ in model.named_parameters()}:
        return ("nothing was frozen. model.eval() only switches dropout off, and torch.no_grad() only lasts "
                "inside its `with`: set requires_grad to False on the parameters that must not learn")
    if k and trainable == {n for n in trainable_names(model, k) if not n.startswith("bert.pooler.")}:
        return "the pooler is frozen: it sits above the top layers, so when they learn, it learns too"
    for other in (k - 1, k + 1):
        if 0 <= other <= L and other != k and trainable == trainable_names(model, other):
            return f"{other} layers are trainable, not {k}: an off-by-one in which layers you keep"
    top = [i for i in range(L - k, L) if not any(n.startswith(f"bert.encoder.layers.{i}.") for n in trainable)]
    if top and any(str(i).startswith(str(j)) for i in top for j in range(L - k)):
        return (f"layer {top[0]} is one of the top {k}, yet frozen: a name test such as `\"layers.1\" in name` also "
                f"matches \"layers.{top[0]}\"; end the pattern with a dot (\"layers.1.\") or walk "
                "model.bert.encoder.layers[i] itself")
    bottom = {n for n in trainable if any(n.startswith(f"bert.encoder.layers.{i}.") for i in range(L - k))}
    if bottom and k:
        return (f"a bottom layer is trainable ({sorted(bottom)[0]}): layers[0] is next to the embeddings; the top "
                "layers, next to the head, are the last ones in model.bert.encoder.layers")
    if not k and any(n.startswith("bert.pooler.") for n in trainable):
        return ("the pooler is still trainable; with top_layers=0 (as minibert's --freeze-encoder) the encoder "
                "is all of model.bert, the pooler included: only W (K × H) and b learn")
    if any(n.startswith("bert.embeddings.") for n in trainable):
        return "the embeddings are still trainable: they are the bottom of the encoder (model.bert.embeddings)"
    if trainable == trainable_names(model, k):  # the model is right, the count is not
        if got == sum(p.numel() for p in model.parameters()):
            return "that is the count of all the parameters; count only those with requires_grad"
        if got == len(trainable):
            return "that counts parameter tensors; count their numbers, p.numel()"
        dtype = next(model.parameters()).dtype
        if dtype != torch.float32 and got == sum(p.nbytes // 4 for p in model.parameters() if p.requires_grad):
            return (f"that is their bytes over 4; this model is held in {dtype}, "
                    f"{next(model.parameters()).element_size()} bytes a number: count the numbers, p.numel()")
        return "the model is frozen right, but the count is wrong"
    return f"keep trainable: the classifier (K·H + K = {K}·{H} + {K})" + (
        f", the top {k} of the {L} layers and the pooler" if k else "")


# (seed, H, K, L, top_layers, dtype); the last has 12 layers, where "layers.1" is a prefix of "layers.10" and
# "layers.11"; one is held in bfloat16, as a model fine-tuned in bf16 is (2 bytes a number, not 4)
CASES = [(74, 32, 3, 2, 0, torch.float32), (75, 48, 2, 2, 0, torch.float32), (76, 32, 2, 3, 1, torch.float32),
         (77, 32, 2, 3, 2, torch.bfloat16), (78, 32, 2, 3, 3, torch.float32), (80, 16, 2, 12, 2, torch.float32)]
AGAIN = (79, 32, 2, 3, (0, 2, 1))  # one model, frozen by one call and then given others: k = 0, then 2, then 1


def _check_one(fn, model, name: str, k: int, seed: int, before: str = "") -> None:
    got = call(fn, name, model, k)
    want = trainable_names(model, k)
    expected = sum(p.numel() for n, p in model.named_parameters() if n in want)
    frozen_right = all(p.requires_grad is (n in want) for n, p in model.named_parameters())
    if not frozen_right or got != expected:
        counted = sum(p.numel() for p in model.parameters() if p.requires_grad)
        hint = _hint(model, got, k)
        missing = {n for n, p in model.named_parameters() if n in want and not p.requires_grad}
        if before and missing:  # the earlier call froze them, and this one never switched them back on
            hint = (f"{sorted(missing)[0]} must learn, but stays frozen from {before}: set requires_grad to True on "
                    "what learns as well as False on the rest, since a model may come in frozen")
        raise ExerciseError(f"{name}: expected {expected} trainable numbers; received {got!r}, and {counted} "
                            f"numbers of the model have requires_grad\n  hint: {hint}")
    if not all(m.training for m in model.modules()):
        off = [n for n, m in model.named_modules() if not m.training]  # parents before their children
        where = "the model" if "" in off else f"model.{off[0]}"
        raise ExerciseError(f"{name}: your function switched {where} to eval mode; freezing is requires_grad, "
                            "dropout still belongs to training (the statement asks for the model left in training "
                            "mode)")
    model.zero_grad(set_to_none=True)
    ids = torch.randint(0, 60, (2, 5), generator=torch.Generator().manual_seed(seed))
    model(ids, labels=torch.tensor([0, 1])).loss.backward()  # a step's gradients reach only what learns
    touched = {n for n, p in model.named_parameters() if p.grad is not None}
    if touched != want:
        raise ExerciseError(f"{name}: after a backward pass, gradients reached {sorted(touched - want)[:3]}")


def freeze_encoder(fn) -> None:
    """fn(model: BertForSequenceClassification, top_layers) -> the number of trainable parameters left."""
    for seed, H, K, L, k, dtype in CASES:
        held = "" if dtype == torch.float32 else f", held in {str(dtype).removeprefix('torch.')}"
        _check_one(fn, _model(seed, H, K, L, dtype), f"BertForSequenceClassification, H={H}, K={K}, {L} layers"
                   f"{held}, top_layers={k}", k, seed)
    seed, H, K, L, ks = AGAIN
    model = _model(seed, H, K, L)
    for i, k in enumerate(ks):
        before = f"the call with top_layers={ks[i - 1]}" if i else ""
        _check_one(fn, model, f"one BertForSequenceClassification ({L} layers) given top_layers="
                   + ", then ".join(map(str, ks[:i + 1])), k, seed, before)
    passed("freeze_encoder", f"{len(CASES)} models (2, 3 and 12 layers, one in bfloat16): with top_layers=0 only W "
                             "and b train (K·H + K numbers); with k > 0 the top k layers and the pooler too, and no "
                             "gradient reaches the rest; one model frozen by a call, then unfrozen to its top 2 "
                             "layers, then 1")
