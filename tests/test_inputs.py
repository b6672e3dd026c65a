"""Bad batches get an error that names the problem, before anything runs."""

import pytest
import torch

from helpers import random_batch, small_config
from minibert import BertForPreTraining, BertModel, InputError


@pytest.fixture(scope="module")
def model():
    return BertForPreTraining(small_config()).eval()  # max 40 positions, vocab 1000, 2 token types


def ids(*shape, high=1000):
    return torch.randint(0, high, shape)


@pytest.mark.parametrize("kwargs, message", [
    (dict(input_ids=ids(2, 41)), r"sequence length 41 exceeds config.max_position_embeddings=40"),
    (dict(input_ids=torch.tensor([[101, 1000, 102]])), r"input_ids holds id 1000, outside \[0, 1000\)"),
    (dict(input_ids=torch.tensor([[101, -1, 102]])), r"input_ids holds id -1"),
    (dict(input_ids=torch.rand(2, 5)), r"input_ids must hold integer ids \(torch.long\), got dtype torch.float32"),
    (dict(input_ids=[[101, 102]]), r"input_ids must be a torch.Tensor .* got list"),
    (dict(input_ids=ids(5)), r"shape \(batch, seq_len\), got \(5,\) \(for one sequence use input_ids\[None\]\)"),
    (dict(input_ids=ids(2, 0)), "sequence length 0"),
    (dict(input_ids=ids(2, 5), attention_mask=torch.ones(2, 6)), r"attention_mask has shape \(2, 6\) but input_ids has \(2, 5\)"),
    (dict(input_ids=ids(2, 5), token_type_ids=torch.zeros(5, 2, dtype=torch.long)), r"token_type_ids has shape \(5, 2\)"),
    (dict(input_ids=ids(2, 5), token_type_ids=torch.full((2, 5), 2)), r"token_type_ids holds id 2, outside \[0, 2\) set by config.type_vocab_size"),
    (dict(input_ids=ids(2, 5), attention_mask=torch.full((2, 5), 2)), "attention_mask must hold only 0"),
    (dict(input_ids=ids(2, 3), attention_mask=torch.tensor([[1, 1, 0], [0, 0, 0]])), "attention_mask of all zeros"),
    (dict(input_ids=ids(2, 5), labels=ids(2, 4)), r"labels has shape \(2, 4\), expected \(2, 5\); use -100"),
    (dict(input_ids=ids(0, 5)), r"input_ids has no rows \(batch size 0\)"),
    (dict(input_ids=ids(2, 5), next_sentence_label=torch.tensor([[0], [1]])), r"next_sentence_label has shape \(2, 1\), expected \(2,\)"),
    (dict(input_ids=ids(2, 5), labels=torch.full((2, 5), -100)), "labels are all -100: no position to predict"),
    (dict(input_ids=ids(2, 5), labels=torch.full((2, 5), 1000)), r"labels holds id 1000, outside \[0, 1000\)"),
    (dict(input_ids=ids(2, 5), labels=torch.full((2, 5), -5)), r"labels holds id -5.*use -100 at positions"),
    (dict(input_ids=ids(2, 5), next_sentence_label=torch.tensor([0, 2])), r"next_sentence_label holds id 2, outside \[0, 2\).*IsNext"),
    (dict(input_ids=ids(2, 5), next_sentence_label=torch.tensor([0.0, 1.0])), "next_sentence_label must hold integer ids"),
])
def test_bad_batches_are_named(model, kwargs, message):
    with pytest.raises(InputError, match=message):
        model(**kwargs)


def test_masks_of_any_numeric_dtype_are_accepted():
    config = small_config()
    model = BertModel(config).eval()
    batch = random_batch(config)
    reference = model(batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
    for dtype in (torch.bool, torch.int32, torch.float32):
        out = model(batch["input_ids"], attention_mask=batch["attention_mask"].to(dtype)).last_hidden_state
        torch.testing.assert_close(out, reference, rtol=0, atol=0)


def test_input_errors_are_value_errors():
    assert issubclass(InputError, ValueError)
