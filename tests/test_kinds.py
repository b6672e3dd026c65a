"""One record per kind of task (minibert/finetune/kinds.py): every task's kind has one, each reads
its logits as its kind says (a score for a pair without labels, the arg-max for choices, which have
no labels either), and scores follow the examples' order, not their ids."""

import pytest
import torch

from minibert.finetune.kinds import KINDS
from minibert.heads import BertForMultipleChoice, BertForQuestionAnswering, BertForSequenceClassification
from minibert.tasks import TASKS


def test_every_task_kind_has_a_record():
    assert {t.kind for t in TASKS.values()} <= set(KINDS)
    assert KINDS["pair"].head is BertForSequenceClassification and KINDS["choice"].head is BertForMultipleChoice
    assert KINDS["span"].head is BertForQuestionAnswering and not KINDS["span"].labelled_head
    assert [k for k, kind in KINDS.items() if kind.tokenwise] == ["tagging", "span"]


def test_a_pair_without_labels_reads_a_score_and_choices_read_the_arg_max():
    logits = (torch.tensor([[0.2, 0.9, 0.1], [3.0, -1.0, 0.5]]),)
    rows = [{"id": "a"}, {"id": "b"}]
    stsb, swag = TASKS["glue-stsb"], TASKS["swag"]
    assert stsb.labels is None and swag.labels is None  # neither has class names
    assert KINDS[stsb.kind].read(stsb, None, logits, rows, None) == pytest.approx([0.2, 3.0])
    assert KINDS[swag.kind].read(swag, None, logits, rows, None) == [1, 0]


def test_scores_follow_the_examples_order_even_when_ids_repeat():
    task = TASKS["sentiment"]
    rows = [{"id": "same", "label": 1}, {"id": "same", "label": 0}, {"id": "other", "label": 1}]
    logits = (torch.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 0.0]]),)
    kind = KINDS[task.kind]
    predicted = kind.read(task, None, logits, rows, None)
    assert predicted == [1, 0, 0]
    assert kind.score(task, predicted, rows)["accuracy"] == pytest.approx(2 / 3)
