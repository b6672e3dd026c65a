"""The checkers of exercises 11.2 and 11.3: the learner's BERT classifier, first on its own (shapes,
parameter count, padding, dropout), then with MiniLM's real weights loaded by the learner's function,
piece by piece along the chain (embeddings, each layer's attention, each layer, the head) and whole,
against transformers' BertForSequenceClassification."""

from __future__ import annotations

import functools

import torch

from ...config import BertConfig
from ...hub import minilm_path
from ..common import ExerciseError, call, minilm_tokenizer, passed
from . import reference

# Every dimension different, so that a transposed weight or a swapped size cannot pass.
SMALL = dict(vocab_size=97, hidden_size=24, num_hidden_layers=2, num_attention_heads=4, intermediate_size=40,
             max_position_embeddings=32, type_vocab_size=2)
SNIPPETS = ["A three-hour cinema master class.", "Dull, lifeless and far too long.",
            "It is not a bad film , but it is n't a good one either .", "Wow!",
            "The performances are uniformly excellent, the script rarely is.", "Café society, seen from the bar."]


def _build(cls, config, num_labels: int):
    model = call(cls, f"MyBert(config, num_labels={num_labels})", config, num_labels)
    for name in ("embeddings", "layers", "head", "encode"):
        if not hasattr(model, name):
            raise ExerciseError(f"MyBert has no `{name}`: keep what the notebook gives it (embeddings, layers, head "
                                "and encode)")
    if len(model.layers) != config.num_hidden_layers:
        raise ExerciseError(f"MyBert has {len(model.layers)} layers for num_hidden_layers="
                            f"{config.num_hidden_layers}")
    return model


def _expected_count(config: BertConfig, num_labels: int) -> int:
    from ...heads import BertForSequenceClassification
    from ...checkpoint import with_overrides

    with torch.device("meta"):
        model = BertForSequenceClassification(with_overrides(config, {"num_labels": num_labels}))
    return sum(p.numel() for p in model.parameters())


def _count_hint(diff: int, config: BertConfig) -> str:
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    parts = [(H, "one vector of H numbers (a bias, or a LayerNorm's gain or shift)"),
             (2 * H, "a LayerNorm (a gain and a shift, H each)"), (L * 2 * H, "one LayerNorm in every layer"),
             (L * H, "one bias of H in every layer"), (L * 4 * H, "the biases of Q, K, V and W^O in every layer"),
             (L * (H + I), "the feed-forward's two biases in every layer"),
             (H * H + H, "one H x H linear layer (the pooler?)"), (L * (H * H + H), "one H x H linear layer in every layer"),
             (config.max_position_embeddings * H, "the position embeddings"),
             (config.type_vocab_size * H, "the token-type (segment) embeddings")]
    names = [name for size, name in parts if size == abs(diff)]
    return f"\n  hint: {' or '.join(names)} {'missing' if diff < 0 else 'too many'}" if names else ""


def _batch(config: BertConfig, seed: int = 0) -> dict:
    g = torch.Generator().manual_seed(seed)
    B, T = 3, 10
    lengths = torch.tensor([10, 7, 4])
    attention_mask = (torch.arange(T)[None] < lengths[:, None]).long()
    input_ids = torch.randint(1, config.vocab_size, (B, T), generator=g) * attention_mask
    token_type_ids = ((torch.arange(T)[None] >= lengths[:, None] // 2) & attention_mask.bool()).long()
    return dict(input_ids=input_ids, token_type_ids=token_type_ids, attention_mask=attention_mask)


def bert_pieces(cls) -> None:
    """`cls(config, num_labels)`: a BERT classifier with .embeddings, .layers and .head; checked without
    real weights: its parameter count, every piece's shapes, padding invariance, dropout in training."""
    config = BertConfig(**SMALL)
    model = _build(cls, config, 3)
    got, expected = sum(p.numel() for p in model.parameters()), _expected_count(config, 3)
    if got != expected:
        raise ExerciseError(f"a BERT with {SMALL} and 3 labels has {expected:,} parameters; yours has {got:,} "
                            f"(difference {got - expected:+,})" + _count_hint(got - expected, config))
    batch = _batch(config)
    kept = {k: v.clone() for k, v in batch.items()}
    model.eval()
    with torch.no_grad():
        x = call(model.embeddings, "embeddings(input_ids, token_type_ids)", batch["input_ids"], batch["token_type_ids"])
        _shape("embeddings(input_ids, token_type_ids)", x, (3, 10, 24))
        a = call(model.layers[0].attention, "layers[0].attention(x, attention_mask)", x, batch["attention_mask"])
        _shape("layers[0].attention(x, attention_mask)", a, (3, 10, 24))
        y = call(model.layers[0], "layers[0](x, attention_mask)", x, batch["attention_mask"])
        _shape("layers[0](x, attention_mask)", y, (3, 10, 24))
        logits = call(model, "model(input_ids, token_type_ids, attention_mask)", **batch)
        _shape("model(input_ids, token_type_ids, attention_mask)", logits, (3, 3))
        if any(not torch.equal(batch[k], kept[k]) for k in kept):
            raise ExerciseError("your model changed its inputs in place; compute new tensors")
        _padding(model, batch, logits)
    model.train()
    with torch.no_grad():
        if torch.equal(model(**batch), model(**batch)):
            raise ExerciseError("in training mode two calls give the same logits: where is the dropout? BERT drops "
                                "attention probabilities and each sub-layer's output (config.*_dropout_prob)")
    passed("bert_pieces", f"{got:,} parameters, as BERT's; shapes, padding and dropout as BERT's")


def _padding(model, batch: dict, logits) -> None:
    """Each row alone, unpadded, must give its row of the padded batch: its hidden states at its real
    tokens (else the attention reads [PAD]) and its logits (else the head reads a padded position)."""
    hidden = model.encode(**batch)
    for b, n in ((1, 7), (2, 4)):
        alone = {k: v[b:b + 1, :n] for k, v in batch.items()}
        what = f"row {b} ({n} real tokens, {10 - n} [PAD])"
        if not torch.allclose(model.encode(**alone), hidden[b:b + 1, :n], atol=1e-5):
            raise ExerciseError(f"{what}: its hidden states alone differ from those in the padded batch\n  hint: real "
                                "tokens attend to [PAD]: set the scores of padded KEYS (the last axis of the "
                                "(B, nh, T, T) scores) to -inf before the softmax")
        if not torch.allclose(model(**alone), logits[b:b + 1], atol=1e-5):
            raise ExerciseError(f"{what}: the same hidden states, other logits alone than in the padded batch\n  "
                                "hint: the head reads a position that is [PAD] in a padded row: it reads [CLS], "
                                "position 0")


def _shape(name: str, got, shape: tuple) -> None:
    if not isinstance(got, torch.Tensor):
        raise ExerciseError(f"{name}: expected a tensor of shape {shape}, received {type(got).__name__}")
    if tuple(got.shape) != shape:
        raise ExerciseError(f"{name}: expected shape {shape}, received {tuple(got.shape)}")


@functools.lru_cache(maxsize=1)
def minilm_weights() -> tuple[BertConfig, dict]:
    """MiniLM's weights by Hugging Face name, and a classifier drawn with seed 0 (MiniLM has none)."""
    from safetensors.torch import load_file

    folder = minilm_path()
    W = {k: v for k, v in load_file(str(folder / "model.safetensors")).items() if not k.endswith("position_ids")}
    config = BertConfig.from_json_file(folder / "config.json")
    g = torch.Generator().manual_seed(0)
    W["classifier.weight"] = torch.randn(2, config.hidden_size, generator=g) * 0.5  # logits of order 1: a wrong head shows
    W["classifier.bias"] = torch.randn(2, generator=g) * 0.1
    return config, W


def _snippet_batch() -> dict:
    """Six pairs of real snippets (token types 0 and 1), padded to the longest."""
    rows = minilm_tokenizer().encode_batch(SNIPPETS, SNIPPETS[::-1], padding=True)
    return {k: torch.tensor(rows[k]) for k in ("input_ids", "token_type_ids", "attention_mask")}


def _transformers_logits(W: dict, batch: dict) -> torch.Tensor:
    import transformers

    with reference.quietly():
        hf = transformers.BertForSequenceClassification.from_pretrained(minilm_path(), num_labels=2).eval()
    with torch.no_grad():
        hf.classifier.weight.copy_(W["classifier.weight"])
        hf.classifier.bias.copy_(W["classifier.bias"])
        return hf(**batch).logits


def _loaded(cls, load, config: BertConfig, W: dict):
    model = _build(cls, config, 2)
    given = {k: v.clone() for k, v in W.items()}
    call(load, "my_load_weights(model, weights)", model, given)
    if any(not torch.equal(given[k], W[k]) for k in W):
        raise ExerciseError("my_load_weights changed the weights it was given; copy them into the model instead")
    return model.eval()


def _placement(model, W: dict) -> str:
    """What the loaded model holds of each weight: a hint when a tensor is nowhere, or only transposed."""
    held = [p.detach() for p in model.parameters()]
    for name, w in W.items():
        if any(p.shape == w.shape and torch.equal(p, w) for p in held):
            continue
        if w.ndim == 2 and any(p.shape == w.T.shape and torch.equal(p, w.T) for p in held):
            return (f"\n  hint: your model holds {name} transposed: nn.Linear keeps its weight as (out, in), the "
                    "layout of the checkpoint, so copy it as it is")
        return f"\n  hint: no parameter of your model holds {name} after my_load_weights: was it copied?"
    return ""


def _at_real(x, mask):
    return x[mask.bool()]  # (N, H): padded positions are ignored by everything that follows


def _check_piece(name: str, got, expected, mask, variants, model, W, *, atol=1e-4) -> None:
    """One link of the chain: `got` against the reference at the real tokens; on a mismatch, the
    variant it matches (a known mistake) or where the weights went."""
    _shape(name, got, tuple(expected.shape))
    real = mask is not None
    g, e = (_at_real(got, mask), _at_real(expected, mask)) if real else (got, expected)
    if torch.allclose(g, e, atol=atol, rtol=1e-4):
        return
    message = (f"the chain breaks at {name}: it differs from BERT's by up to {(g - e).abs().max().item():.3g}"
               + (" at real tokens" if real else ""))
    for hint, value in variants:
        v = _at_real(value, mask) if real else value
        if torch.allclose(g, v, atol=atol, rtol=1e-4):
            raise ExerciseError(f"{message}\n  hint: {hint}")
    raise ExerciseError(message + _placement(model, W))


def assembled_bert(cls, load) -> None:
    """`cls(config, num_labels)` and `load(model, weights)`: MiniLM's weights (and a seeded classifier)
    loaded into the learner's BERT; every piece along the chain, then the logits, against BERT's."""
    config, W = minilm_weights()
    model = _loaded(cls, load, config, W)
    batch = _snippet_batch()
    mask, nh, eps = batch["attention_mask"], config.num_attention_heads, config.layer_norm_eps
    ids, types = batch["input_ids"], batch["token_type_ids"]
    with torch.no_grad():
        x = reference.embed(W, ids, types, eps)
        got = call(model.embeddings, "embeddings", ids, types)
        _check_piece("the embeddings", got, x, mask, [
            ("the token-type (segment) embeddings are missing", reference.embed(W, ids, types, eps, types=False)),
            ("the position embeddings are missing", reference.embed(W, ids, types, eps, positions=False)),
            ("the LayerNorm after the sum is missing", reference.embed(W, ids, types, eps, norm=False))], model, W)
        for i, mine in enumerate(model.layers):
            def attn(**kw):
                return reference.attention(W, i, x, mask, nh, **kw)

            _check_piece(f"layer {i}'s attention", call(mine.attention, f"layers[{i}].attention", x, mask), attn(),
                         mask, [("the scores are not divided by the square root of the head size",
                                 attn(scale="none")),
                                ("scale by the square root of the HEAD size (H / heads), not of H", attn(scale="hidden")),
                                ("real tokens attend to [PAD]: the mask must act on the KEYS, the last axis of the "
                                 "(B, nh, T, T) scores (a mask on the queries' axis changes only rows no one reads)",
                                 attn(masked=False)),
                                ("the heads are cut with a plain view to (B, nh, T, hs): view to (B, T, nh, hs), then "
                                 "transpose(1, 2), and back the same way", attn(split="view")),
                                ("the heads are cut with a plain view to (B, nh, T, hs), which mixes positions: view "
                                 "to (B, T, nh, hs), then transpose(1, 2)", attn(split="view-in"))], model, W)

            def lay(**kw):
                return reference.layer(W, i, x, mask, nh, eps, **kw)

            _check_piece(f"layer {i}", call(mine, f"layers[{i}]", x, mask), lay(), mask, [
                ("this is pre-LN (LayerNorm before each sub-layer, as GPT-2): BERT is post-LN, "
                 "x = LayerNorm(x + sublayer(x))", lay(post_ln=False)),
                ("the residual connections are missing: LayerNorm(x + sublayer(x))", lay(residual=())),
                ("the feed-forward's residual connection is missing: LayerNorm(x + FFN(x))", lay(residual=("attention",))),
                ("the attention's residual connection is missing: LayerNorm(x + Attention(x))", lay(residual=("ffn",))),
                ("the FFN's activation is ReLU: BERT uses GELU", lay(act="relu")),
                ("this GELU is the tanh approximation: BERT's checkpoints use the exact erf form "
                 "(F.gelu's default)", lay(act="tanh-gelu"))], model, W)
            x = lay()
        logits = _transformers_logits(W, batch)
        _check_piece("the head", call(model.head, "head", x), reference.head(W, x, mask), None, [
            ("the head reads the mean of the positions: BERT's reads [CLS], position 0", reference.head(W, x, mask, pool="mean")),
            ("the head reads the mean of the tokens: BERT's reads [CLS], position 0",
             reference.head(W, x, mask, pool="real-mean")),
            ("the head reads the last position: BERT's reads [CLS], position 0", reference.head(W, x, mask, pool="last")),
            ("the pooler's tanh is missing", reference.head(W, x, mask, tanh=False)),
            ("the pooler is skipped: the classifier reads tanh(W_p h_[CLS] + b_p)", reference.head(W, x, mask, pooler=False))],
            model, W, atol=1e-5)
        whole = call(model, "model(input_ids, token_type_ids, attention_mask)", **batch)
        _shape("model(input_ids, token_type_ids, attention_mask)", whole, tuple(logits.shape))
        if not torch.allclose(whole, logits, atol=1e-5, rtol=0):
            raise ExerciseError(f"every piece agrees, but the whole model's logits differ from transformers' by up to "
                                f"{(whole - logits).abs().max().item():.3g}\n  hint: forward must chain the pieces: "
                                "embeddings, every layer in order with the attention mask, then the head")
    passed("assembled_bert", f"MiniLM's {len(W)} tensors loaded; the embeddings, {len(model.layers)} layers (each with "
                             "its attention) and the head agree with BERT's, and the logits with transformers' "
                             "BertForSequenceClassification within 1e-5")
