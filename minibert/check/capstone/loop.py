"""The checker of exercise 11.4: the fine-tuning loop, run by the learner on a small BERT classifier and
compared, weight by weight, with minibert's loop (`minibert.finetune`): cross-entropy on the logits,
backward, clipping at 1.0, AdamW with weight decay 0.01 on matrices only, BERT's warm-up and linear
decay, gradients zeroed each step, and one dev accuracy per epoch scored in eval mode."""

from __future__ import annotations

import math
import warnings

import torch
import torch.nn.functional as F

from ...config import BertConfig
from ...heads import BertForSequenceClassification
from ...training.optim import bert_schedule
from ..common import ExerciseError, call, optimizer_step, passed, weights_apart

# 4 batches a epoch: 12 steps; 0.3 × 12 = 3.6, so int() gives 3 steps of warm-up where round() or ceil() give 4
EPOCHS, LR, WARMUP = 3, 3e-3, 0.3


class Recorder(torch.nn.Module):
    """A small BERT classifier with the notebook's call, `model(input_ids, token_type_ids,
    attention_mask) -> logits`, that notes the mode of every call (training? gradients on?)."""

    def __init__(self, seed: int):
        super().__init__()
        config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=24, max_position_embeddings=16, hidden_dropout_prob=0.0,
                            attention_probs_dropout_prob=0.0, initializer_range=0.5, num_labels=3)
        torch.manual_seed(seed)
        self.model = BertForSequenceClassification(config)  # no dropout: the same function of the weights
        self.calls: list[tuple[torch.Tensor, bool, bool]] = []

    def forward(self, input_ids, token_type_ids, attention_mask):
        self.calls.append((input_ids.detach().clone(), self.training, torch.is_grad_enabled()))
        return self.model(input_ids=input_ids, token_type_ids=token_type_ids, attention_mask=attention_mask).logits


def batches(n: int, seed: int, last: int = 8) -> list[dict]:
    """n batches of 8 rows, the last of `last` rows (a dev set rarely divides into equal batches)."""
    g = torch.Generator().manual_seed(seed)
    pairs = torch.Generator().manual_seed(seed + 7)  # apart from g, so the ids and labels stay what they were
    out = []
    for k in range(n):
        rows = last if k == n - 1 else 8
        lengths = torch.randint(4, 11, (rows,), generator=g)
        attention_mask = (torch.arange(10)[None] < lengths[:, None]).long()
        input_ids = torch.randint(1, 50, (rows, 10), generator=g) * attention_mask
        # Sentence pairs: segment B from a random split on, so a loop that drops token_type_ids trains otherwise
        split = torch.randint(2, 4, (rows, 1), generator=pairs)
        token_type_ids = ((torch.arange(10)[None] >= split) & attention_mask.bool()).long()
        out.append(dict(input_ids=input_ids, token_type_ids=token_type_ids,
                        attention_mask=attention_mask, labels=torch.randint(0, 3, (rows,), generator=g)))
    return out


def reference(model, train, dev, *, zero_grad=True, scheduler_first=False, warmup=True, clip=1.0, decay="matrices",
              total="all", rounding=int, proportion=WARMUP) -> tuple[list[float], list[torch.Tensor]]:
    """minibert's loop on (model, batches); the switches make the usual mistakes. Returns (dev accuracy
    after each epoch, the final weights)."""
    groups = {"matrices": [[p for p in model.parameters() if p.ndim >= 2], [p for p in model.parameters() if p.ndim < 2]],
              "all": [list(model.parameters()), []], "none": [[], list(model.parameters())]}[decay]
    optimizer = torch.optim.AdamW([{"params": groups[0], "weight_decay": 0.01}, {"params": groups[1], "weight_decay": 0.0}],
                                  lr=LR, eps=1e-6)
    steps = EPOCHS * len(train) if total == "all" else len(train)
    warm = rounding(proportion * steps) if warmup else 0
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: bert_schedule(step, warm, steps))
    accuracies = []
    for _ in range(EPOCHS):
        model.train()
        for batch in train:
            loss = F.cross_entropy(model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"]),
                                   batch["labels"])
            loss.backward()
            optimizer_step(model, optimizer, schedule, clip=clip, scheduler_first=scheduler_first, zero_grad=zero_grad)
        model.eval()
        with torch.no_grad():
            right = sum(int((model(b["input_ids"], b["token_type_ids"], b["attention_mask"]).argmax(-1)
                             == b["labels"]).sum()) for b in dev)
        accuracies.append(right / sum(len(b["labels"]) for b in dev))
    return accuracies, [p.detach().clone() for p in model.parameters()]


MISTAKES = [
    (dict(zero_grad=False), "the gradients are never zeroed: each step adds to the last ones. Call "
                            "optimizer.zero_grad() once per step, after optimizer.step()"),
    (dict(scheduler_first=True), "the schedule is one step ahead: call scheduler.step() AFTER optimizer.step(), "
                                 "so that the first step runs at the schedule's value for step 0"),
    (dict(warmup=False), "there is no warm-up: the rate climbs linearly from 0 over the first warmup_proportion "
                         "of all the steps, then decays linearly to 0"),
    (dict(total="epoch"), "the schedule counts one epoch's steps: the decay reaches 0 at the end of ALL the "
                          "training, epochs x batches steps"),
    (dict(clip=None), "the gradients are not clipped: clip their global norm to 1.0 "
                      "(torch.nn.utils.clip_grad_norm_) between backward() and optimizer.step()"),
    (dict(decay="all"), "weight decay is applied to every parameter: BERT leaves biases and LayerNorm "
                        "weights (every 1-D parameter) without it"),
    (dict(decay="none"), "there is no weight decay: BERT uses 0.01 on every matrix (AdamW's weight_decay)"),
    (dict(rounding=math.ceil), f"the warm-up lasts {math.ceil(WARMUP * 12)} steps; it is int(warmup_proportion x all "
                               f"steps) = int({WARMUP} x 12) = {int(WARMUP * 12)}: int() rounds down, not up"),
    (dict(rounding=float), f"the warm-up lasts {WARMUP * 12:.1f} steps, not a whole number: it is "
                           f"int(warmup_proportion x all steps) = {int(WARMUP * 12)}"),
]


def _modes(recorder: Recorder, train: list[dict], dev: list[dict]) -> None:
    on_dev = [(training, grad) for ids, training, grad in recorder.calls
              if any(ids.shape == b["input_ids"].shape and torch.equal(ids, b["input_ids"]) for b in dev)]
    on_train = [training for ids, training, _ in recorder.calls
                if any(ids.shape == b["input_ids"].shape and torch.equal(ids, b["input_ids"]) for b in train)]
    if len(on_dev) != EPOCHS * len(dev):
        raise ExerciseError(f"{EPOCHS} epochs and {len(dev)} dev batches: expected {EPOCHS * len(dev)} calls of the "
                            f"model on dev batches (every dev batch once after each epoch), counted {len(on_dev)}")
    if any(training for training, _ in on_dev):
        raise ExerciseError("the dev batches were scored in training mode: call model.eval() before scoring "
                            "(dropout must be off), and model.train() before training again")
    if any(grad for _, grad in on_dev):
        raise ExerciseError("the dev batches were scored with gradients on: score under torch.no_grad() (or "
                            "torch.inference_mode()), so that no graph is built for a backward that never comes")
    if not all(on_train):
        raise ExerciseError("a training batch ran in eval mode: call model.train() at the start of every epoch "
                            "(the scoring after the last one left the model in eval mode)")
    if not all(m.training for m in recorder.modules()):
        raise ExerciseError("your loop returned the model in eval mode (dropout off): after the last epoch's dev "
                            "accuracy too, put it back to training (model.train()), as minibert's finetune does, so "
                            "whoever trains it next trains with dropout")


def _no_warmup_steps(fn) -> None:
    """A short run (2 batches, 3 epochs: 6 steps) at warmup_proportion=0.1: int(0.6) = 0 steps of warm-up, so the
    rate starts at its peak. A schedule that divides by the warm-up's length there raises ZeroDivisionError."""
    train, dev = batches(2, 7), batches(1, 107, last=5)
    _, weights = reference(Recorder(7), train, dev, proportion=0.1)
    recorder = Recorder(7)
    start = [p.detach().clone() for p in recorder.parameters()]
    case = f"a 2-layer BERT, 2 batches of 8, {EPOCHS} epochs, lr {LR}, warm-up 0.1 (int(0.1 x 6 steps) = 0 steps)"
    call(fn, case, recorder, train, dev, EPOCHS, LR, 0.1)
    mine = [p.detach().clone() for p in recorder.parameters()]
    if weights_apart(mine, weights, start) > 1e-3:
        raise ExerciseError(f"{case}: the weights after your loop are not minibert's (off by "
                            f"{weights_apart(mine, weights, start):.0%} of how far training moved them)\n  hint: "
                            "with 0 steps of warm-up there is no ramp: the multiplier is 1 - step / all_steps "
                            "from the first step on")


def finetune_loop(fn) -> None:
    """`fn(model, train_batches, dev_batches, epochs, lr, warmup_proportion)` -> the dev accuracy after each
    epoch; the model's weights after it are those minibert's loop leaves."""
    for seed in (0, 1):
        train, dev = batches(4, seed), batches(2, 100 + seed, last=5)
        kept = [{k: v.clone() for k, v in b.items()} for b in train + dev]
        expected, weights = reference(Recorder(seed), train, dev)
        recorder = Recorder(seed)
        start = [p.detach().clone() for p in recorder.parameters()]
        case = f"a 2-layer BERT, {len(train)} batches of 8, {EPOCHS} epochs, lr {LR}, warm-up {WARMUP} (seed {seed})"
        got = call(fn, case, recorder, train, dev, EPOCHS, LR, WARMUP)
        if any(not torch.equal(b[k], c[k]) for b, c in zip(train + dev, kept) for k in c):
            raise ExerciseError(f"{case}: your loop changed the batches it was given")
        mine = [p.detach().clone() for p in recorder.parameters()]
        if weights_apart(mine, weights, start) > 1e-3:
            for settings, hint in MISTAKES:
                with warnings.catch_warnings():  # torch warns of the scheduler-first mistake this simulates
                    warnings.simplefilter("ignore")
                    theirs = reference(Recorder(seed), train, dev, **settings)[1]
                if weights_apart(mine, theirs, start) < 1e-3:
                    raise ExerciseError(f"{case}: the weights after your loop are not minibert's\n  hint: {hint}")
            raise ExerciseError(f"{case}: the weights after your loop are not minibert's (off by "
                                f"{weights_apart(mine, weights, start):.0%} of how far training moved them)\n  hint: "
                                "per batch: logits, F.cross_entropy, backward, clip to norm 1.0, optimizer.step, "
                                "scheduler.step, zero_grad; AdamW(lr, eps=1e-6), weight decay 0.01 on matrices only; "
                                "warm-up over int(warmup_proportion x all steps), then linear decay to 0")
        _modes(recorder, train, dev)
        if not isinstance(got, (list, tuple)) or len(got) != EPOCHS:
            raise ExerciseError(f"{case}: expected a list of {EPOCHS} dev accuracies (one per epoch), received "
                                f"{got!r:.200}")
        # float32's rounding of k / 13 (a mean taken in torch) is ~1e-8; one dev row more or less is 1 / 13
        if any(not isinstance(a, (int, float)) or abs(float(a) - e) > 1e-6 for a, e in zip(got, expected)):
            raise ExerciseError(f"{case}: the weights are right, the accuracies are not: expected {expected}, "
                                f"received {list(got)}\n  hint: the share of dev rows whose arg-max logit is the label, "
                                f"over all the {sum(len(b['labels']) for b in dev)} dev rows (in batches of "
                                f"{' and '.join(str(len(b['labels'])) for b in dev)}), as a float")
    _no_warmup_steps(fn)  # after the two runs, so that their hints come first
    passed("finetune_loop", "the weights after 3 epochs are minibert's loop's, on three runs; one dev accuracy per "
                            "epoch, scored in eval mode, the model left in training mode")
