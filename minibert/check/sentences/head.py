"""The checker of exercise 7.2: the sentence classifier's head by hand, in eval mode (dropout is the
identity): C = tanh(W_p h_[CLS] + b_p), logits = W C + b (§4.1), from the encoder's last hidden
states and the weights, compared with minibert's BertForSequenceClassification."""

from __future__ import annotations

from functools import lru_cache

import torch

from ...config import BertConfig
from ...heads import BertForSequenceClassification
from ...checkpoint import with_overrides
from ..common import ExerciseError, expect_close, minilm_model, minilm_tokenizer, passed, valid_lines


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


def _compare(name, fn, h, Wp, bp, W, b, expected):
    inputs = [h, Wp, bp, W, b]
    copies = [x.clone() for x in inputs]
    try:
        got = fn(*copies)
    except NotImplementedError:
        raise
    except RuntimeError as e:  # a shape mismatch, usually a weight used the wrong way round
        hint = (" (nn.Linear keeps W as (out, in): C @ W.T + b, or F.linear(C, W, b))" if "shape" in str(e) else "")
        raise ExerciseError(f"{name}: your function raised RuntimeError: {e}{hint}") from e
    except Exception as e:
        raise ExerciseError(f"{name}: your function raised {type(e).__name__}: {e}") from e
    if any(not torch.equal(c, x) for c, x in zip(copies, inputs)):
        raise ExerciseError(f"{name}: your function changed its inputs in place; compute new tensors")
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


def sequence_logits(fn) -> None:
    """fn(hidden (B, T, H), pooler_weight (H, H), pooler_bias (H,), weight (K, H), bias (K,)) -> logits (B, K)."""
    # Hand case, H = K = 2, T = 3: [CLS] differs from the mean and from the last token, tanh matters.
    h = torch.tensor([[[1.0, -2.0], [3.0, 0.5], [-1.0, 1.0]]], dtype=torch.float64)  # (1, 3, 2)
    Wp = torch.tensor([[0.5, 0.25], [-1.0, 0.5]], dtype=torch.float64)
    bp = torch.tensor([0.1, 0.0], dtype=torch.float64)
    W = torch.tensor([[2.0, -1.0], [0.5, 3.0]], dtype=torch.float64)
    b = torch.tensor([0.0, -0.5], dtype=torch.float64)
    expected = _head_ref(h, Wp, bp, W, b)
    _compare(f"hand case, hidden = {h[0].tolist()}, W_p = {Wp.tolist()}, b_p = {bp.tolist()}, W = {W.tolist()}, "
             f"b = {b.tolist()}", fn, h, Wp, bp, W, b, expected)
    cases = 0
    for seed, (H, K, B, T) in enumerate([(24, 3, 2, 7), (16, 5, 3, 4)]):
        torch.manual_seed(seed)
        config = BertConfig(vocab_size=50, hidden_size=H, num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=32, max_position_embeddings=16, num_labels=K)
        model = BertForSequenceClassification(config).eval()
        for p in model.parameters():  # larger weights than BERT's N(0, 0.02), so every mistake shows
            p.data.normal_(0, 0.5)
        ids = torch.randint(0, 50, (B, T))
        with torch.no_grad():
            hidden, logits = model.bert(ids).last_hidden_state, model(ids).logits
        _compare(f"random BertForSequenceClassification, H={H}, K={K}, (B, T)=({B}, {T}), eval mode", fn,
                 hidden, *[w.detach() for w in _weights(model)], logits)
        cases += 1
    h, weights, logits = _minilm_case()
    _compare("all-MiniLM-L6-v2 with a fresh 2-label head, three padded sentences", fn, h, *weights, logits)
    passed("sequence_logits", f"a hand-computed case, {cases} random models and MiniLM equal "
                              "BertForSequenceClassification's logits")
