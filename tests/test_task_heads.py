"""The task heads of Figure 4 against transformers: the same keys, logits and losses, both ways;
loading from an encoder-only checkpoint; span decoding; and clear errors for bad labels."""

import json
import logging
import math

import pytest
import torch

from minibert import BertConfig, CheckpointError, InputError
from minibert.heads import (BertForMultipleChoice, BertForQuestionAnswering, BertForSequenceClassification,
                            BertForTokenClassification, best_spans, predict_answer)

transformers = pytest.importorskip("transformers")

SIZES = dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37)
B, C, T, K = 3, 4, 10, 5
OURS = {cls.hf_architecture: cls for cls in (BertForSequenceClassification, BertForTokenClassification,
                                             BertForQuestionAnswering, BertForMultipleChoice)}


def perturb(model, seed):
    """Noise on every parameter, so that zero biases and unit LayerNorms cannot hide a dropped or
    swapped tensor."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.1 * torch.randn(p.shape, generator=g))
    return model.eval()


def padded_batch(rows, seed=0):
    """(rows, T) ids with ragged padding (pad id 0) and a segment B in the second half of each row."""
    g = torch.Generator().manual_seed(seed)
    lengths = torch.tensor([T - (3 * r) % (T - 3) for r in range(rows)])
    attention_mask = (torch.arange(T)[None] < lengths[:, None]).long()
    token_type_ids = ((torch.arange(T)[None] >= lengths[:, None] // 2) & attention_mask.bool()).long()
    input_ids = torch.randint(1, SIZES["vocab_size"], (rows, T), generator=g) * attention_mask
    return dict(input_ids=input_ids, token_type_ids=token_type_ids, attention_mask=attention_mask)


def case(name):
    """(architecture, config fields, batch with its labels) for each head and loss under test."""
    g = torch.Generator().manual_seed(1)
    batch = padded_batch(B)
    if name == "single_label":
        return "BertForSequenceClassification", dict(num_labels=K), {**batch, "labels": torch.tensor([4, 0, 2])}
    if name == "regression":  # STS-B: num_labels == 1, float targets
        return "BertForSequenceClassification", dict(num_labels=1), {**batch, "labels": torch.tensor([0.5, 3.2, -1.0])}
    if name == "multi_label":  # float multi-hot targets: BCE with logits
        labels = (torch.rand(B, K, generator=g) < 0.4).float()
        return "BertForSequenceClassification", dict(num_labels=K), {**batch, "labels": labels}
    if name == "tagging":  # -100 at [CLS] and at padding
        labels = torch.randint(0, K, (B, T), generator=g).masked_fill(batch["attention_mask"] == 0, -100)
        labels[:, 0] = -100
        return "BertForTokenClassification", dict(num_labels=K), {**batch, "labels": labels}
    if name == "question_answering":  # row 1: the answer lies outside the window (≥ T): ignored
        return "BertForQuestionAnswering", {}, {**batch, "start_positions": torch.tensor([3, T + 4, 0]),
                                                "end_positions": torch.tensor([5, T, 0])}
    if name == "multiple_choice":
        flat = padded_batch(B * C)
        return "BertForMultipleChoice", {}, {**{k: v.view(B, C, T) for k, v in flat.items()},
                                             "labels": torch.tensor([1, 3, 0])}
    raise KeyError(name)


CASES = ["single_label", "regression", "multi_label", "tagging", "question_answering", "multiple_choice"]


def compare(ours, theirs, batch):
    """The largest absolute difference of every logit and the loss; hidden states and attention
    probabilities pass through **kwargs and are compared too."""
    with torch.no_grad():
        a = ours(**batch, output_hidden_states=True, output_attentions=True)
        b = theirs(**batch, output_hidden_states=True, output_attentions=True)
        fast = ours(**batch)  # without attention probabilities minibert takes the SDPA path
    fields = ["start_logits", "end_logits"] if hasattr(a, "start_logits") else ["logits"]
    diffs = {f: (a[f] - b[f]).abs().max().item() for f in fields + ["loss"]}
    diffs.update({f"{f} (sdpa)": (fast[f] - b[f]).abs().max().item() for f in fields + ["loss"]})
    for f in fields:
        assert a[f].shape == b[f].shape, f
    for name in ("hidden_states", "attentions"):
        assert len(a[name]) == len(b[name])
        diffs[name] = max((x - y).abs().max().item() for x, y in zip(a[name], b[name]))
    return diffs


def transformers_model(architecture, config, seed=0):
    torch.manual_seed(seed)
    hf_config = transformers.BertConfig(**SIZES, **config, attn_implementation="eager")
    return perturb(getattr(transformers, architecture)(hf_config), seed)


@pytest.mark.parametrize("name", CASES)
def test_a_transformers_checkpoint_gives_the_same_logits_and_loss(name, tmp_path):
    architecture, config, batch = case(name)
    theirs = transformers_model(architecture, config)
    theirs.save_pretrained(tmp_path)
    ours = OURS[architecture].from_pretrained(tmp_path, strict=True)  # strict: no key missing or left over
    assert not ours.training and not theirs.training
    diffs = compare(ours, theirs, batch)
    print(f"\n{name} transformers -> minibert: max |diff| {diffs}")
    assert max(diffs.values()) <= 1e-5, diffs


@pytest.mark.parametrize("name", CASES)
def test_our_checkpoint_loads_in_transformers_with_no_key_left_over(name, tmp_path):
    architecture, config, batch = case(name)
    torch.manual_seed(0)
    ours = perturb(OURS[architecture](BertConfig(**SIZES, **config)), seed=1)
    ours.save_pretrained(tmp_path)
    theirs, info = getattr(transformers, architecture).from_pretrained(tmp_path, output_loading_info=True,
                                                                        attn_implementation="eager")
    assert not info["missing_keys"] and not info["unexpected_keys"] and not info["mismatched_keys"], info
    diffs = compare(ours, theirs.eval(), batch)
    print(f"\n{name} minibert -> transformers: max |diff| {diffs}")
    assert max(diffs.values()) <= 1e-5, diffs


def test_the_inferred_problem_type_follows_transformers():
    """problem_type None: one label -> MSE, integer labels -> cross-entropy, float multi-hot -> BCE."""
    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig(**SIZES, num_labels=K)).eval()
    batch = padded_batch(B)
    logits = model(**batch).logits.float()
    ids, hot = torch.tensor([1, 0, 4]), torch.eye(K)[[1, 0, 4]]
    torch.testing.assert_close(model(**batch, labels=ids).loss, torch.nn.functional.cross_entropy(logits, ids))
    torch.testing.assert_close(model(**batch, labels=hot).loss,
                               torch.nn.functional.binary_cross_entropy_with_logits(logits, hot))
    assert model.config.problem_type is None  # inferred on each call, never written into the config
    model.config.problem_type = "multi_label_classification"  # integer multi-hot is accepted when asked for
    torch.testing.assert_close(model(**batch, labels=hot.long()).loss, model(**batch, labels=hot).loss)


# --- loading from an encoder-only checkpoint, and config.json ------------------------------------------


@pytest.mark.parametrize("cls, head", [(BertForSequenceClassification, "classifier"),
                                       (BertForTokenClassification, "classifier"),
                                       (BertForQuestionAnswering, "qa_outputs"),
                                       (BertForMultipleChoice, "classifier")])
def test_the_real_encoder_loads_under_every_head_and_only_the_head_is_new(cls, head, minilm_dir, caplog):
    with caplog.at_level(logging.WARNING, logger="minibert.checkpoint"):
        model = cls.from_pretrained(minilm_dir, num_labels=3)
    logged = {r.getMessage().split(": ", 1)[0]: set(r.getMessage().split(": ", 1)[1].split(", "))
              for r in caplog.records}
    assert logged["newly initialised (not in the checkpoint)"] == {f"{head}.weight", f"{head}.bias"}
    if model.bert.pooler is None:  # tagging and spans never read [CLS]: MiniLM's pooler is left out
        assert logged[f"ignored (not used by {cls.__name__})"] == {"bert.pooler.dense.weight", "bert.pooler.dense.bias"}
    else:
        assert set(logged) == {"newly initialised (not in the checkpoint)"}
    from safetensors.torch import load_file
    real = load_file(minilm_dir / "model.safetensors")["encoder.layer.5.output.LayerNorm.weight"]
    assert torch.equal(model.bert.encoder.layers[5].ffn_norm.weight, real)
    assert model.config.num_labels == 3 and model.config.id2label == {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}


def test_label_names_and_problem_type_round_trip_through_transformers(tmp_path):
    id2label = {0: "negative", 1: "neutral", 2: "positive"}
    config = BertConfig(**SIZES, id2label=id2label, problem_type="single_label_classification", classifier_dropout=0.2)
    BertForSequenceClassification(config).save_pretrained(tmp_path / "ours")
    theirs = transformers.BertForSequenceClassification.from_pretrained(tmp_path / "ours")
    assert theirs.config.num_labels == 3 and theirs.config.id2label == id2label
    assert theirs.config.label2id == {"negative": 0, "neutral": 1, "positive": 2}
    assert theirs.config.problem_type == "single_label_classification" and theirs.config.classifier_dropout == 0.2
    theirs.save_pretrained(tmp_path / "theirs")
    back = BertForSequenceClassification.from_pretrained(tmp_path / "theirs", strict=True)
    assert back.config == config
    json.loads((tmp_path / "theirs" / "config.json").read_text())  # and transformers' file stays plain JSON


def test_config_overrides_at_load(tmp_path):
    BertForSequenceClassification(BertConfig(**SIZES, num_labels=3)).save_pretrained(tmp_path)
    model = BertForSequenceClassification.from_pretrained(tmp_path, problem_type="multi_label_classification",
                                                          classifier_dropout=0.3)
    assert model.config.problem_type == "multi_label_classification" and model.dropout.p == 0.3
    assert model.config.num_labels == 3
    renamed = BertForSequenceClassification.from_pretrained(tmp_path, id2label={0: "a", 1: "b", 2: "c"})
    assert renamed.config.label2id == {"a": 0, "b": 1, "c": 2}


def test_another_label_count_is_a_clear_error_or_a_fresh_head(tmp_path, caplog):
    torch.manual_seed(0)
    saved = perturb(BertForSequenceClassification(BertConfig(**SIZES, num_labels=3)), seed=0)
    saved.save_pretrained(tmp_path)
    with pytest.raises(CheckpointError) as info:
        BertForSequenceClassification.from_pretrained(tmp_path, num_labels=5)
    message = str(info.value)
    assert "trained for num_labels=3, but the model has num_labels=5" in message
    assert "BertForSequenceClassification.from_pretrained(path, num_labels=5, ignore_mismatched_heads=True)" in message

    with caplog.at_level(logging.WARNING, logger="minibert.checkpoint"):
        fresh = BertForSequenceClassification.from_pretrained(tmp_path, num_labels=5, ignore_mismatched_heads=True)
    assert "dropped (trained for 3 labels, the model has 5): classifier.bias, classifier.weight" in caplog.text
    assert "newly initialised (not in the checkpoint): classifier.bias, classifier.weight" in caplog.text
    assert fresh.classifier.weight.shape == (5, SIZES["hidden_size"]) and not fresh.classifier.bias.any()
    assert fresh.config.id2label == {i: f"LABEL_{i}" for i in range(5)}
    for (name, p), (_, q) in zip(saved.bert.state_dict().items(), fresh.bert.state_dict().items()):
        assert torch.equal(p, q), name

    # Any other mismatch stays the error it was (naming every key), fresh head or not.
    with pytest.raises(CheckpointError, match=r"(?s)wrong size.*word_embeddings.*classifier.weight: checkpoint \(3, 32\)"):
        BertForSequenceClassification.from_pretrained(tmp_path, num_labels=5, vocab_size=120)
    with pytest.raises(CheckpointError, match="(?s)wrong size or vocabulary.*word_embeddings"):
        BertForSequenceClassification.from_pretrained(tmp_path, num_labels=5, vocab_size=120,
                                                      ignore_mismatched_heads=True)


# --- span decoding (§4.2, §4.3) ---------------------------------------------------------------------


def test_best_spans_by_hand():
    #            [CLS]  who  [SEP]  ada  lovelace [SEP]
    start = torch.tensor([[1.0, 0.0, 0.0, 0.5, 3.0, 0.0],
                          [0.0, 4.0, 0.0, 1.0, 0.0, 0.0]])
    end = torch.tensor([[1.0, 0.0, 0.0, 2.0, 0.5, 0.0],
                        [0.0, 0.0, 4.0, 0.0, 2.0, 0.0]])
    passage = torch.tensor([[False, False, False, True, True, False]] * 2)
    # Row 0: the argmaxes taken apart give start 4, end 3 (score 5.0), an impossible span; of the
    # spans (3,3) = 0.5 + 2.0, (3,4) = 0.5 + 0.5, (4,4) = 3.0 + 0.5 the best is "lovelace".
    # Row 1: the best pair (1, 2) = 8.0 lies in the question, so the answer is (3, 4) = 1.0 + 2.0.
    assert best_spans(start, end, allowed=passage) == [[(3.5, 4, 4), (2.5, 3, 3), (1.0, 3, 4)],
                                                       [(3.0, 3, 4), (2.0, 4, 4), (1.0, 3, 3)]]
    assert best_spans(start, end, allowed=passage, max_answer_length=1) == [[(3.5, 4, 4), (2.5, 3, 3)],
                                                                            [(2.0, 4, 4), (1.0, 3, 3)]]
    assert best_spans(start, end, n_best=2)[1] == [(8.0, 1, 2), (6.0, 1, 4)]  # no restriction: the question


def test_best_spans_obeys_every_rule_on_random_logits():
    g = torch.Generator().manual_seed(0)
    rows, length, longest = 6, 16, 4
    start, end = torch.randn(rows, length, generator=g), torch.randn(rows, length, generator=g)
    allowed = torch.rand(rows, length, generator=g) < 0.6
    allowed[0] = False  # a row with no passage token at all has no span
    for r, spans in enumerate(best_spans(start, end, max_answer_length=longest, n_best=7, allowed=allowed)):
        valid = [(start[r, i] + end[r, j]).item() for i in range(length) for j in range(i, min(i + longest, length))
                 if allowed[r, i] and allowed[r, j]]
        assert len(spans) == min(7, len(valid))
        for score, i, j in spans:
            assert i <= j and j - i + 1 <= longest and allowed[r, i] and allowed[r, j]
            assert score == pytest.approx((start[r, i] + end[r, j]).item())
        assert [s for s, _, _ in spans] == pytest.approx(sorted(valid, reverse=True)[:7])


def test_the_worked_examples_in_the_docstrings_hold():
    import doctest

    from minibert.heads import question_answering
    result = doctest.testmod(question_answering)
    assert result.attempted >= 8 and result.failed == 0


def test_no_answer_threshold():
    start = torch.tensor([[1.0, 0.0, 0.0, 0.5, 3.0, 0.0]])
    end = torch.tensor([[1.0, 0.0, 0.0, 2.0, 0.5, 0.0]])
    passage = torch.tensor([[False, False, False, True, True, False]])
    # best span (4, 4) scores 3.5, s_null = 1.0 + 1.0 = 2.0: a span iff 3.5 > 2.0 + τ
    for tau, answer in [(-math.inf, (4, 4)), (0.0, (4, 4)), (1.4, (4, 4)), (1.5, None), (3.0, None)]:
        assert predict_answer(start, end, allowed=passage, threshold=tau) == [answer], tau
    assert predict_answer(start, end, allowed=torch.zeros_like(passage), threshold=-math.inf) == [None]


# --- bad inputs ------------------------------------------------------------------------------------


def model_for(cls, **config):
    torch.manual_seed(0)
    return cls(BertConfig(**SIZES, **config)).eval()


def test_bad_labels_are_clear_input_errors():
    batch = padded_batch(B)
    classifier = model_for(BertForSequenceClassification, num_labels=K)
    with pytest.raises(InputError, match=r"labels holds id 5, outside \[0, 5\) set by config.num_labels=5"):
        classifier(**batch, labels=torch.tensor([0, 5, 1]))
    with pytest.raises(InputError, match=r"labels has shape \(3,\), expected \(3, 5\)"):
        classifier(**batch, labels=torch.tensor([0.0, 1.0, 1.0]))  # floats infer multi-label: (B, K) multi-hot
    with pytest.raises(InputError, match=r"must be a float tensor of real-valued targets \(regression\)"):
        model_for(BertForSequenceClassification, num_labels=1)(**batch, labels=torch.tensor([1, 0, 3]))

    tagger = model_for(BertForTokenClassification, num_labels=K)
    labels = torch.full((B, T), -100)
    with pytest.raises(InputError, match="are all -100"):
        tagger(**batch, labels=labels)
    labels[0, 1] = 7
    with pytest.raises(InputError, match=r"holds id 7, outside \[0, 5\).*or -100 to ignore a position"):
        tagger(**batch, labels=labels)

    reader = model_for(BertForQuestionAnswering)
    with pytest.raises(InputError, match=r"start_positions holds id -1, outside \[0, 11\) set by the sequence length"):
        reader(**batch, start_positions=torch.tensor([-1, 2, 0]), end_positions=torch.tensor([1, 2, 0]))
    with pytest.raises(InputError, match="end_positions must be a torch.Tensor"):
        reader(**batch, start_positions=torch.tensor([1, 2, 0]))


def test_multiple_choice_wants_three_dimensions():
    chooser = model_for(BertForMultipleChoice)
    flat = padded_batch(B)
    with pytest.raises(InputError, match=r"input_ids of shape \(batch, num_choices, seq_len\), got \(3, 10\)"):
        chooser(**flat)
    batch = {k: v.view(1, B, T) for k, v in flat.items()}
    with pytest.raises(InputError, match=r"attention_mask must have input_ids' shape \(1, 3, 10\), got \(3, 10\)"):
        chooser(batch["input_ids"], attention_mask=flat["attention_mask"])
    with pytest.raises(InputError, match=r"labels holds id 3, outside \[0, 3\) set by the C=3 choices"):
        chooser(**batch, labels=torch.tensor([3]))
    assert chooser(**batch, labels=torch.tensor([2])).logits.shape == (1, B)
