"""The checker of exercise 7.4: freeze the encoder (everything of `model.bert`: embeddings, layers
and the pooler, as minibert's `--freeze-encoder` does) and count what still trains: the classifier,
K·H + K numbers."""

from __future__ import annotations

import torch

from ...config import BertConfig
from ...heads import BertForSequenceClassification
from ..common import ExerciseError, call, passed


def _model(seed: int, H: int, K: int):
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=60, hidden_size=H, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=2 * H, max_position_embeddings=16, num_labels=K)
    return BertForSequenceClassification(config).train()


def _hint(model, got, H, K) -> str:
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    everything = sum(p.numel() for p in model.parameters())
    if not trainable:
        return "nothing trains now: the classifier (model.classifier) must stay trainable, it is what is learnt"
    if trainable == {n for n, _ in model.named_parameters()}:
        return ("nothing was frozen. model.eval() only switches dropout off, and torch.no_grad() only lasts "
                "inside its `with`: set requires_grad to False on model.bert's parameters "
                "(model.bert.requires_grad_(False))")
    if any(n.startswith("bert.pooler.") for n in trainable):
        return ("the pooler is still trainable; in this exercise (and in minibert's --freeze-encoder) the encoder "
                "is all of model.bert, the pooler included: only W (K × H) and b learn")
    if any(n.startswith("bert.embeddings.") for n in trainable):
        return "the embeddings are still trainable: they are part of the encoder (model.bert.embeddings)"
    if any(n.startswith("bert.") for n in trainable):
        return "part of model.bert is still trainable: freeze every parameter of model.bert"
    if got == everything:
        return "that is the count of all the parameters; count only those with requires_grad"
    if got == len(trainable):
        return "that counts parameter tensors (W and b: 2); count their numbers, p.numel()"
    return f"the classifier has K·H + K = {K}·{H} + {K} numbers"


def freeze_encoder(fn) -> None:
    """fn(model: BertForSequenceClassification) -> the number of trainable parameters after freezing model.bert."""
    cases = [(74, 32, 3), (75, 48, 2)]
    for seed, H, K in cases:
        model = _model(seed, H, K)
        name = f"BertForSequenceClassification, H={H}, K={K}, 2 layers"
        got = call(fn, name, model)
        expected = K * H + K
        counted = sum(p.numel() for p in model.parameters() if p.requires_grad)
        frozen_right = counted == expected and all(p.requires_grad is n.startswith("classifier.")
                                                   for n, p in model.named_parameters())
        if not frozen_right or got != expected:
            if frozen_right:  # the model is right, the count is not
                hint = _hint(model, got, H, K) if got in (sum(p.numel() for p in model.parameters()), 2) else (
                    f"the model is frozen right, but the count is wrong: K·H + K = {expected}")
            else:
                hint = _hint(model, got, H, K)
            raise ExerciseError(f"{name}: expected {expected} trainable numbers (W: {K}×{H}, b: {K}) and only the "
                                f"classifier trainable; received {got!r}, and {counted} numbers of the model have "
                                f"requires_grad\n  hint: {hint}")
        if not model.training and model.bert.training is False:
            raise ExerciseError(f"{name}: your function switched the model to eval mode; freezing is requires_grad, "
                                "dropout still belongs to training (the loop calls model.train())")
        ids = torch.randint(0, 60, (2, 5), generator=torch.Generator().manual_seed(seed))
        model(ids, labels=torch.tensor([0, 1])).loss.backward()  # a step's gradients reach only the head
        touched = {n for n, p in model.named_parameters() if p.grad is not None}
        if touched != {"classifier.weight", "classifier.bias"}:
            raise ExerciseError(f"{name}: after a backward pass, gradients reached {sorted(touched)}")
    passed("freeze_encoder", f"{len(cases)} models: only W and b train (K·H + K numbers), no gradient reaches "
                             "the encoder")
