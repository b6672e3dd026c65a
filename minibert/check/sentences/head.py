"""The checker of exercise 7.2: the sentence classifier's head by hand, in eval mode (dropout is the
identity): C = tanh(W_p h_[CLS] + b_p), logits = W C + b (§4.1), and its loss for each kind of label
as transformers reads it off the labels (K = 1: regression, MSE; integer labels: cross-entropy;
float multi-hot labels: binary cross-entropy with logits), compared with minibert's
BertForSequenceClassification(..., labels=...)."""

from __future__ import annotations

from functools import lru_cache

import torch
import torch.nn.functional as F

from ...config import BertConfig
from ...heads import BertForSequenceClassification
from ...heads.classification import classification_loss, problem_type
from ...checkpoint import with_overrides
from ..common import ExerciseError, expect_close, minilm_model, minilm_tokenizer, passed, valid_lines
from .head_grads import gradients


def _head_ref(h, Wp, bp, W, b, *, pool="cls", act=torch.tanh, pooler=True, Wp_t=False, W_t=False, out="logits",
              bias=True):
    """The head; the keyword arguments produce the usual mistakes."""
    x = {"cls": lambda: h[:, 0], "mean": lambda: h.mean(1), "last": lambda: h[:, -1]}[pool]()  # (B, H)
    if pooler:
        x = act(x @ (Wp if Wp_t else Wp.T) + bp)  # nn.Linear computes x W^T + b; W_p is (H_out, H_in)
    logits = x @ (W if W_t else W.T) + (b if bias else 0)  # (B, H) -> (B, K)
    return {"logits": logits, "softmax": logits.softmax(-1)}[out]


MISTAKES = [
    ("no tanh: the pooler is tanh(W_p h_[CLS] + b_p), BERT's NSP pooler", dict(act=lambda x: x)),
    ("this is a sigmoid (or ReLU) where the pooler has tanh", dict(act=torch.sigmoid)),
    ("", dict(act=torch.relu)),
    ("this pools the mean of all the tokens (sentence-transformers' way); BERT's classifier reads [CLS], "
     "position 0", dict(pool="mean")),
    ("this reads the last position (GPT's way, and here [SEP] or padding); BERT reads [CLS], position 0",
     dict(pool="last")),
    ("the pooler is skipped: W was applied to h_[CLS] directly; C is the *pooled* [CLS] vector",
     dict(pooler=False)),
    ("the pooler's weight is used transposed: nn.Linear stores (out, in) and computes x @ W.T + b",
     dict(Wp_t=True)),
    ("W is used transposed: it is (K, H) as nn.Linear stores it, so logits = C @ W.T + b", dict(W_t=True)),
    ("these are probabilities (a softmax); return the logits, the loss applies the softmax itself",
     dict(out="softmax")),
    ("the classifier's bias b is missing", dict(bias=False)),
]


def _call(name, fn, inputs):
    """fn once, on copies of `inputs`; what it raised named, and (got, the copies) returned."""
    copies = [x.clone() for x in inputs]
    try:
        return fn(*copies), copies
    except NotImplementedError:
        raise
    except RuntimeError as e:  # a shape mismatch, usually a weight used the wrong way round
        hint = (" (nn.Linear keeps W as (out, in): C @ W.T + b, or F.linear(C, W, b))" if "shape" in str(e) else "")
        raise ExerciseError(f"{name}: your function raised RuntimeError: {e}{hint}") from e
    except Exception as e:
        raise ExerciseError(f"{name}: your function raised {type(e).__name__}: {e}") from e


def _compare(name, got, h, Wp, bp, W, b, expected):
    """The logits received against the expected ones, naming the mistake that gives them."""
    if isinstance(got, torch.Tensor) and got.shape == expected.shape and not torch.allclose(
            got.detach().to(expected.dtype), expected, atol=1e-5, rtol=1e-4):
        for hint, kw in MISTAKES:
            try:
                wrong = _head_ref(h, Wp, bp, W, b, **kw)
            except RuntimeError:  # that mistake is impossible at these shapes
                continue
            if wrong.shape == got.shape and torch.allclose(got.detach().to(wrong.dtype), wrong, atol=1e-5, rtol=1e-4):
                raise ExerciseError(f"{name}: {hint or MISTAKES[1][0]}")
    expect_close(name, got, expected, hint="C = tanh(h[:, 0] @ W_p.T + b_p), logits = C @ W.T + b")


def _weights(model):
    return (model.bert.pooler.dense.weight, model.bert.pooler.dense.bias,
            model.classifier.weight, model.classifier.bias)


@lru_cache(maxsize=1)
def _minilm_case():
    """all-MiniLM-L6-v2 with a fresh 2-label head (seeded), on three padded real sentences."""
    encoder = minilm_model()
    torch.manual_seed(72)
    model = BertForSequenceClassification(with_overrides(encoder.config, {"num_labels": 2})).eval()
    model.bert.load_state_dict(encoder.state_dict())  # MiniLM's encoder and pooler; the classifier is new
    batch = minilm_tokenizer()(list(valid_lines()[:3]), padding=True, truncation=True, max_length=32,
                               return_tensors="pt")
    with torch.no_grad():
        h = model.bert(**batch).last_hidden_state
        logits = model(**batch).logits
    return h, [w.detach() for w in _weights(model)], logits


KINDS = {"regression": "K = 1, float labels (B,): regression (STS-B)",
         "single_label_classification": "integer labels (B,): one class each (SST-2, MNLI)",
         "multi_label_classification": "float multi-hot labels (B, K): several classes each"}

LOSS_MISTAKES = {  # the kind of labels -> (hint, the loss that mistake computes from right logits)
    "regression": [
        ("the logits are (B, 1) and the labels (B,): subtracting one from the other broadcasts to a (B, B) "
         "grid of every pair; squeeze the logits first (logits.squeeze(-1), or view(-1))",
         lambda z, y: ((z - y) ** 2).mean()),
        ("this is the mean absolute error; the regression loss is the mean squared error",
         lambda z, y: (z.view(-1) - y).abs().mean()),
        ("this is the root of the mean squared error; the loss is the MSE itself",
         lambda z, y: ((z.view(-1) - y) ** 2).mean().sqrt()),
        ("this sums over the batch; the loss is the mean", lambda z, y: ((z.view(-1) - y) ** 2).sum()),
        ("with one output (K = 1) the task is regression: a cross-entropy over one class is always 0; the loss "
         "is the mean squared error of the score", lambda z, y: z.sum() * 0),
    ],
    "single_label_classification": [
        ("cross_entropy takes logits: these are probabilities, so the softmax was applied twice",
         lambda z, y: F.cross_entropy(z.softmax(-1), y)),
        ("nll_loss takes log-probabilities: apply log_softmax first, or use cross_entropy on the logits",
         lambda z, y: F.nll_loss(z, y)),
        ("this sums over the batch; the loss is the mean", lambda z, y: F.cross_entropy(z, y, reduction="sum")),
        ("integer labels name one class each: a softmax cross-entropy across the K classes, not a binary "
         "cross-entropy on one-hot vectors", lambda z, y: F.binary_cross_entropy_with_logits(
             z, F.one_hot(y, z.shape[-1]).to(z.dtype))),
    ],
    "multi_label_classification": [
        ("float labels of shape (B, K) are multi-hot: each class is its own yes/no question, so a binary "
         "cross-entropy of each logit's sigmoid, not a softmax across the classes", lambda z, y: F.cross_entropy(z, y)),
        ("this sums over the K classes and averages over the batch; the loss averages over all B x K entries",
         lambda z, y: F.binary_cross_entropy_with_logits(z, y, reduction="none").sum(-1).mean()),
        ("binary_cross_entropy_with_logits takes logits: these are probabilities (the sigmoid applied twice)",
         lambda z, y: F.binary_cross_entropy_with_logits(z.sigmoid(), y)),
    ],
}


def _pair(name, got):
    if not (isinstance(got, (tuple, list)) and len(got) == 2):
        raise ExerciseError(f"{name}: return a pair (logits, loss), received {type(got).__name__}")
    return got


LARGE = ("right on the moderate logits before, wrong on these large ones: in float32, sigmoid(z) is exactly 1 above "
         "z ≈ 17 and a softmax probability exactly 0 some 104 below the top logit, and log of those is −inf (or "
         "clamped). Compute the loss from the logits: F.cross_entropy, F.binary_cross_entropy_with_logits, or "
         "log_softmax / F.logsigmoid by hand")


def _check_loss(name, fn, h, Wp, bp, W, b, labels, expected_logits, expected_loss, last_hint=None):
    """The logits first (with their own mistakes named), then the loss of this kind of labels; `last_hint`, if
    given, replaces the last resort's hint."""
    kind = problem_type(None, W.shape[0], labels)
    name = f"{name}; {KINDS[kind]}"
    inputs = [h, Wp, bp, W, b, labels]
    got, copies = _call(name, fn, inputs)
    if any(not torch.equal(c, x) for c, x in zip(copies[:5], inputs)):
        raise ExerciseError(f"{name}: your function changed its inputs in place; compute new tensors")
    logits, loss = _pair(name, got)
    _compare(name, logits, h, Wp, bp, W, b, expected_logits)
    if not torch.equal(copies[5], labels):
        raise ExerciseError(f"{name}: your function changed the labels in place; compute new tensors")
    if not isinstance(loss, torch.Tensor):
        raise ExerciseError(f"{name}: the loss must be a tensor (backward() needs one), received {type(loss).__name__}")
    if loss.dim() != 0:
        raise ExerciseError(f"{name}: the loss is one number, the mean over the batch (a 0-dim tensor); received "
                            f"shape {tuple(loss.shape)}: was reduction='none' left on, or the mean not taken?")
    got = loss.detach().to(torch.float64)
    if not torch.isfinite(got):
        raise ExerciseError(f"{name}: the loss is {got.item()}, expected {expected_loss.item():.6g}"
                            + (f"\n  hint: {last_hint}" if last_hint else ""))
    if not torch.allclose(got, expected_loss.to(torch.float64), atol=1e-5, rtol=1e-4):
        z, y = expected_logits.detach().to(torch.float64), labels if kind == "single_label_classification" else \
            labels.to(torch.float64)
        for hint, wrong in LOSS_MISTAKES[kind]:
            if torch.allclose(got, wrong(z, y).to(torch.float64), atol=1e-5, rtol=1e-4):
                raise ExerciseError(f"{name}: {hint}")
    usual = {"regression": "F.mse_loss(logits.squeeze(-1), labels)",
             "single_label_classification": "F.cross_entropy(logits, labels)",
             "multi_label_classification": "F.binary_cross_entropy_with_logits(logits, labels)"}[kind]
    expect_close(f"{name}, the loss", got, expected_loss.to(torch.float64), hint=last_hint or usual)


def _labels(kind, B, K, generator):
    if kind == "regression":  # STS-B's similarity, 0 to 5
        return torch.rand(B, generator=generator, dtype=torch.float64) * 5
    if kind == "single_label_classification":
        return torch.randint(0, K, (B,), generator=generator)
    return torch.randint(0, 2, (B, K), generator=generator).to(torch.float64)


def _large_logits(fn) -> int:
    """A confident head in float32, logits past ±100, and labels that contradict it: the loss is large but
    finite, and log(softmax) or log(sigmoid) taken apart reach log(0) there. After the moderate cases, so a
    failure here is the numerics, not the formula. Returns how many cases it checked."""
    kinds = (("single_label_classification", 3), ("multi_label_classification", 3))
    for seed, (kind, K) in enumerate(kinds):
        g = torch.Generator().manual_seed(74 + seed)
        h, Wp, bp = torch.randn(4, 3, 8, generator=g), torch.randn(8, 8, generator=g), torch.randn(8, generator=g)
        W, b = torch.randn(K, 8, generator=g) * 30, torch.zeros(K)
        logits = _head_ref(h, Wp, bp, W, b)
        labels = logits.argmin(-1) if kind == "single_label_classification" else (logits < 0).float()  # all wrong
        _check_loss(f"large logits (up to {logits.abs().max().item():.0f}, float32), labels the head gets wrong",
                    fn, h, Wp, bp, W, b, labels, logits, classification_loss(logits, labels, kind), last_hint=LARGE)
    return len(kinds)


def _top_class_absent(fn) -> int:
    """One class each, K = 3, and a batch in which no example is of class 2: a batch need not hold every class,
    and K is the head's (the logits' width), not what the labels show. Returns how many cases it checked."""
    g = torch.Generator().manual_seed(71)
    h, Wp, bp = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in ((3, 2, 2), (2, 2), (2,)))
    W, b = torch.randn(3, 2, generator=g, dtype=torch.float64) * 2, torch.randn(3, generator=g, dtype=torch.float64)
    labels, logits = torch.tensor([0, 1, 1]), _head_ref(h, Wp, bp, W, b)
    name = "small case, K = 3, labels = [0, 1, 1] (no example of class 2 in this batch)"
    try:
        _check_loss(name, fn, h, Wp, bp, W, b, labels, logits, classification_loss(logits, labels,
                                                                                   "single_label_classification"))
    except ExerciseError as e:
        if "your function raised" not in str(e):
            raise
        raise ExerciseError(f"{e}\n  hint: K = 2 worked, and this batch lacks its top class: the number of classes "
                            "is the logits' width, weight.shape[0]; one taken from the labels (max(labels) + 1, "
                            "F.one_hot(labels) without num_classes) is 2 here") from e
    return 1


def sequence_loss(fn) -> None:
    """fn(hidden (B, T, H), pooler_weight (H, H), pooler_bias (H,), weight (K, H), bias (K,), labels)
    -> (logits (B, K), loss: a 0-dim tensor, the mean over the batch)."""
    cases = 0
    # Small cases, one per kind of labels, B = 3, T = 2, H = 2: [CLS] differs from the mean and from the
    # last token, tanh matters, and the three examples differ so a sum is not a mean.
    for kind, K in (("single_label_classification", 2), ("regression", 1), ("multi_label_classification", 3)):
        g = torch.Generator().manual_seed(7 + K)
        h = torch.randn(3, 2, 2, generator=g, dtype=torch.float64)
        Wp, bp = torch.randn(2, 2, generator=g, dtype=torch.float64), torch.randn(2, generator=g, dtype=torch.float64)
        W, b = torch.randn(K, 2, generator=g, dtype=torch.float64) * 2, torch.randn(K, generator=g, dtype=torch.float64)
        labels = _labels(kind, 3, K, g)
        logits = _head_ref(h, Wp, bp, W, b)
        shown = [round(x, 3) for x in labels.tolist()] if kind == "regression" else labels.tolist()
        _check_loss(f"small case, K = {K}, labels = {shown}", fn, h, Wp, bp, W, b, labels, logits,
                    classification_loss(logits, labels, kind))
        cases += 1
    cases += _top_class_absent(fn)
    for seed, (H, K, B, T, kind) in enumerate([(24, 3, 4, 7, "single_label_classification"),
                                               (16, 1, 5, 4, "regression"), (16, 4, 3, 5, "multi_label_classification")]):
        torch.manual_seed(seed)
        config = BertConfig(vocab_size=50, hidden_size=H, num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=32, max_position_embeddings=16, num_labels=K)
        model = BertForSequenceClassification(config).eval()
        for p in model.parameters():  # larger weights than BERT's N(0, 0.02), so every mistake shows
            p.data.normal_(0, 0.5)
        ids = torch.randint(0, 50, (B, T))
        labels = _labels(kind, B, K, torch.Generator().manual_seed(seed)).to(
            torch.float32 if kind != "single_label_classification" else torch.long)
        with torch.no_grad():
            hidden, out = model.bert(ids).last_hidden_state, model(ids, labels=labels)
        _check_loss(f"random BertForSequenceClassification, H={H}, K={K}, (B, T)=({B}, {T}), eval mode", fn,
                    hidden, *[w.detach() for w in _weights(model)], labels, out.logits, out.loss)
        cases += 1
    large = _large_logits(fn)
    cases += gradients(fn)  # after the values: a cut gradient leaves them right
    h, weights, logits = _minilm_case()
    labels = torch.tensor([1, 0, 1])
    _check_loss("all-MiniLM-L6-v2 with a fresh 2-label head, three padded sentences", fn, h, *weights, labels,
                logits, classification_loss(logits, labels, "single_label_classification"))
    passed("sequence_loss", f"{cases + large} cases of the three kinds of labels ({large} with large logits) and "
                            "MiniLM: the logits and the loss equal BertForSequenceClassification's")
