"""The benchmark metrics of minibert.finetune.metrics, on cases small enough to compute by hand.
The arithmetic is in the comments, so each expected number can be checked with pencil and paper."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from scipy.stats import ConstantInputWarning

from minibert.finetune import metrics
from minibert.finetune.metrics import (
    METRICS, accuracy, compute, entity_f1, f1, matthews, normalize_answer, pearson_spearman,
    squad_exact_match, squad_f1, squad_scores, tag_accuracy,
)

# ---- GLUE: accuracy, F1, Matthews, Pearson/Spearman -------------------------------------------


def test_accuracy_three_of_four():
    # positions 0, 1 and 3 agree, position 2 does not: 3/4
    assert accuracy([1, 0, 1, 1], [1, 0, 0, 1]) == 0.75


@pytest.mark.parametrize("convert", [list, np.array, torch.tensor], ids=["list", "numpy", "torch"])
def test_accuracy_takes_lists_arrays_and_tensors(convert):
    assert accuracy(convert([1, 0, 1, 1]), convert([1, 0, 0, 1])) == 0.75


# labels      1 0 1 1 0 0
# predictions 1 1 1 0 0 1
#             TP FP TP FN TN FP   ->  TP = 2, FP = 2, FN = 1, TN = 1
F1_PREDICTIONS, F1_LABELS = [1, 1, 1, 0, 0, 1], [1, 0, 1, 1, 0, 0]


def test_f1_of_the_positive_class():
    # precision P = TP / (TP + FP) = 2 / 4 = 1/2;  recall R = TP / (TP + FN) = 2 / 3
    # F1 = 2PR / (P + R) = (2 * 1/2 * 2/3) / (1/2 + 2/3) = (2/3) / (7/6) = 4/7
    # (the same as 2TP / (2TP + FP + FN) = 4 / (4 + 2 + 1))
    assert f1(F1_PREDICTIONS, F1_LABELS) == pytest.approx(4 / 7)


def test_f1_is_of_class_1_not_class_0():
    # flipping both sides makes class 0 the one scored before: TP = 1, FP = 1, FN = 2
    # F1 = 2 / (2 + 1 + 2) = 2/5, not 4/7
    flip = lambda values: [1 - v for v in values]  # noqa: E731
    assert f1(flip(F1_PREDICTIONS), flip(F1_LABELS)) == pytest.approx(2 / 5)


def test_f1_with_no_positive_anywhere_is_zero_without_a_warning(recwarn):
    assert f1([0, 0, 0], [0, 0, 0]) == 0.0
    assert not recwarn.list


def test_mrpc_metric_reports_accuracy_and_f1():
    # accuracy: TP + TN = 3 right out of 6 = 1/2; F1 = 4/7 as above
    assert compute("f1", F1_PREDICTIONS, F1_LABELS) == pytest.approx({"accuracy": 0.5, "f1": 4 / 7})


def test_matthews_on_a_hand_computed_confusion_matrix():
    # labels      1 1 1 1 0 0 0 0
    # predictions 1 1 1 0 1 0 0 0   ->  TP = 3, FN = 1, FP = 1, TN = 3
    # MCC = (TP TN - FP FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)) = (9 - 1) / sqrt(4 * 4 * 4 * 4) = 8/16
    assert matthews([1, 1, 1, 0, 1, 0, 0, 0], [1, 1, 1, 1, 0, 0, 0, 0]) == pytest.approx(0.5)


def test_matthews_extremes_and_a_constant_predictor():
    labels = [1, 1, 0, 0]
    assert matthews([1, 1, 0, 0], labels) == pytest.approx(1.0)
    assert matthews([0, 0, 1, 1], labels) == pytest.approx(-1.0)  # TP = TN = 0: (0 - 2*2) / 4
    # always "acceptable": TN = FN = 0, so (TN + FN) = 0 in the denominator: defined as 0
    assert matthews([1, 1, 1, 1], labels) == 0.0
    assert compute("matthews", [1, 0, 1], [1, 1, 1]) == {"matthews": 0.0}  # the docstring's example


def test_spearman_is_one_on_a_monotone_curve_where_pearson_is_not():
    x = [1, 2, 3, 4]
    y = [1, 4, 9, 16]  # y = x², increasing but not a straight line
    # Spearman: the ranks are 1 2 3 4 on both sides, so rho = 1
    # Pearson: means 2.5 and 7.5; deviations dx = -1.5 -0.5 0.5 1.5, dy = -6.5 -3.5 1.5 8.5
    #   sum dx dy = 9.75 + 1.75 + 0.75 + 12.75 = 25
    #   sum dx² = 2.25 + 0.25 + 0.25 + 2.25 = 5;  sum dy² = 42.25 + 12.25 + 2.25 + 72.25 = 129
    #   r = 25 / sqrt(5 * 129) = 25 / sqrt(645) = 0.98437...
    scores = pearson_spearman(y, x)
    assert scores["spearman"] == pytest.approx(1.0)
    assert scores["pearson"] == pytest.approx(25 / math.sqrt(645))
    assert scores["pearson"] < 1.0


def test_correlations_of_a_reversed_order_and_of_floats_from_a_tensor():
    # a straight line going down: both -1
    scores = compute("pearson_spearman", torch.tensor([4.0, 3.0, 2.0, 1.0]), [0.5, 1.0, 1.5, 2.0])
    assert scores == pytest.approx({"pearson": -1.0, "spearman": -1.0})


def test_correlation_with_a_constant_side_is_nan_with_a_warning():
    with pytest.warns(ConstantInputWarning):
        scores = pearson_spearman([3.0, 3.0, 3.0], [1.0, 2.0, 3.0])
    assert math.isnan(scores["pearson"]) and math.isnan(scores["spearman"])


# ---- SQuAD ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer, normalized", [
    ("The Cat!", "cat"),  # lower, "!" goes, the article goes, whitespace tidied
    ("  An   apple, a day ", "apple day"),
    ("Theatre", "theatre"),  # articles are whole words only
    ("don't", "dont"),  # the apostrophe is ASCII punctuation: deleted, not turned into a space
    ("U.S.A.", "usa"),
    ("1914—1918", "1914—1918"),  # the em dash is not in string.punctuation: it stays
    ("the", ""),  # nothing left: this is a no-answer
])
def test_normalize_answer_as_the_official_script(answer, normalized):
    assert normalize_answer(answer) == normalized


def test_exact_match_takes_the_best_gold_answer():
    golds = ["Denver Broncos", "Broncos!"]
    assert squad_exact_match("the broncos", golds) == 1.0  # "broncos" == "broncos" (second gold)
    assert squad_exact_match("Denver", golds) == 0.0


def test_f1_takes_the_best_gold_answer():
    # prediction tokens: carolina panthers team (3)
    #   vs "panthers" (1 token):            overlap 1, P = 1/3, R = 1/1, F1 = (2/3) / (4/3) = 1/2
    #   vs "carolina panthers" (2 tokens):  overlap 2, P = 2/3, R = 2/2, F1 = (4/3) / (5/3) = 4/5
    # the best: 4/5
    golds = ["Panthers", "the Carolina Panthers"]
    assert squad_f1("Carolina Panthers team", golds) == pytest.approx(4 / 5)
    assert squad_exact_match("Carolina Panthers team", golds) == 0.0


def test_f1_counts_shared_tokens_with_multiplicity():
    # prediction: new york new york (4 tokens); gold: new york city (3 tokens)
    # shared: min(2, 1) "new" + min(2, 1) "york" = 2, so P = 2/4, R = 2/3
    # F1 = (2 * 1/2 * 2/3) / (1/2 + 2/3) = (2/3) / (7/6) = 4/7
    assert squad_f1("New York, New York", ["new york city"]) == pytest.approx(4 / 7)


def test_no_answer_rules_of_squad_2():
    # no gold answer: the gold is "" and only the empty prediction is right
    assert squad_exact_match("", []) == 1.0 and squad_f1("", []) == 1.0
    assert squad_exact_match("Denver", []) == 0.0 and squad_f1("Denver", []) == 0.0
    # an answerable question answered with "no answer": nothing
    assert squad_exact_match("", ["Denver"]) == 0.0 and squad_f1("", ["Denver"]) == 0.0
    # what normalizes to "" is a no-answer on either side: the prediction "The." ...
    assert squad_exact_match("The.", []) == 1.0 and squad_f1("The.", []) == 1.0
    # ... and a gold answer "the" is dropped, leaving the question with none
    assert squad_f1("", ["the"]) == 1.0


def test_a_single_gold_string_is_one_answer_not_its_characters():
    assert squad_exact_match("Denver", "Denver") == 1.0


def test_squad_scores_in_percent():
    references = {"q1": ["Denver Broncos"], "q2": ["Panthers", "Carolina Panthers"], "q3": [],
                  "q4": ["Santa Clara"]}
    predictions = {"q1": "denver broncos", "q2": "Carolina Panthers team", "q3": "",
                   "q4": "Levi's Stadium"}
    # EM: 1, 0, 1, 0 -> 2/4 = 50%
    # F1: 1, 4/5 (overlap 2 of 3 predicted, 2 of 2 gold), 1 (both no-answer), 0 -> 2.8/4 = 70%
    scores = squad_scores(predictions, references)
    assert scores == pytest.approx({"exact_match": 50.0, "f1": 70.0})
    assert compute("squad", predictions, references) == scores
    # two lists are paired by position
    assert squad_scores(list(predictions.values()), list(references.values())) == scores


def test_squad_scores_need_the_same_question_ids():
    expected = r"1 without a prediction \('q2'\), 1 not in the references \('zz'\)"
    with pytest.raises(ValueError, match=expected):
        squad_scores({"q1": "a", "zz": "b"}, {"q1": ["a"], "q2": ["b"]})


# ---- CoNLL-2003 entities and tag accuracy --------------------------------------------------------

#            sentence 1                                  sentence 2
GOLD_TAGS = [["B-PER", "I-PER", "O", "B-LOC", "O"],      ["B-ORG", "I-ORG", "I-ORG"]]
PREDICTED = [["B-PER", "I-PER", "O", "B-LOC", "B-MISC"], ["B-ORG", "I-ORG", "O"]]
# gold entities:      PER 1:0-1, LOC 1:3, ORG 2:0-2                    (3)
# predicted entities: PER 1:0-1, LOC 1:3, MISC 1:4, ORG 2:0-1          (4)
# right: PER and LOC (2). The ORG has the right type but ends one token early: wrong.


def test_entity_f1_counts_a_wrong_boundary_as_wrong():
    # P = 2/4 = 1/2, R = 2/3, F1 = (2 * 1/2 * 2/3) / (1/2 + 2/3) = (2/3) / (7/6) = 4/7
    assert entity_f1(PREDICTED, GOLD_TAGS) == pytest.approx({"precision": 0.5, "recall": 2 / 3,
                                                              "f1": 4 / 7})
    assert compute("entity_f1", PREDICTED, GOLD_TAGS) == entity_f1(PREDICTED, GOLD_TAGS)


def test_entity_chunking_follows_conlleval():
    # conlleval lets an I-PER begin an entity, so "I-PER I-PER" is the entity "B-PER I-PER"
    assert entity_f1([["I-PER", "I-PER"]], [["B-PER", "I-PER"]])["f1"] == 1.0
    # a change of type ends an entity: B-PER I-LOC is PER 0 and LOC 1, neither is gold PER 0-1
    assert entity_f1([["B-PER", "I-LOC"]], [["B-PER", "I-PER"]])["f1"] == 0.0
    # no entity runs from one sentence into the next: gold has two PERs, a prediction of one fails
    assert entity_f1([["B-PER"], ["O"]], [["B-PER"], ["I-PER"]]) == pytest.approx(
        {"precision": 1.0, "recall": 0.5, "f1": 2 / 3})


def test_entity_f1_with_no_entities_is_zero_without_a_warning(recwarn):
    assert entity_f1([["O", "O"]], [["O", "O"]]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert not recwarn.list


def test_tag_accuracy_over_all_tokens():
    # 5 + 3 = 8 tokens; wrong: sentence 1 token 4 (B-MISC for O), sentence 2 token 2 (O for I-ORG)
    # 6/8 = 3/4
    assert tag_accuracy(PREDICTED, GOLD_TAGS) == 0.75
    assert compute("tag_accuracy", PREDICTED, GOLD_TAGS) == {"tag_accuracy": 0.75}
    # sentences may be arrays; POS tags may be ids: 2 of 3 right
    assert tag_accuracy([np.array([3, 1]), torch.tensor([2])], [[3, 1], [0]]) == pytest.approx(2 / 3)


# ---- errors --------------------------------------------------------------------------------------


def test_unknown_metric_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown metric 'bleu'") as error:
        compute("bleu", [1], [1])
    for name in METRICS:
        assert name in str(error.value)


def test_different_lengths_name_both():
    with pytest.raises(ValueError, match="3 predictions, 2 labels"):
        compute("accuracy", [1, 0, 1], [1, 0])
    with pytest.raises(ValueError, match="2 predictions, 3 labels"):
        f1(np.array([1, 0]), torch.tensor([1, 0, 1]))  # the functions check too


@pytest.mark.parametrize("name", list(METRICS))
def test_empty_input_is_an_error(name):
    empty = {} if name == "squad" else []
    with pytest.raises(ValueError, match="empty"):
        compute(name, empty, empty)


def test_logits_instead_of_classes_are_an_error():
    with pytest.raises(ValueError, match=r"1-D.*shape \(2, 2\).*argmax"):
        accuracy(np.zeros((2, 2)), [0, 1])


def test_tag_errors_name_the_problem():
    with pytest.raises(ValueError, match="sentence 1 has 2 predicted tags but 3 gold tags"):
        entity_f1([["O"], ["O", "O"]], [["O"], ["O", "O", "O"]])
    with pytest.raises(ValueError, match="not a flat list of tags"):
        entity_f1(["B-PER", "O"], [["B-PER", "O"]])
    with pytest.raises(ValueError, match="no tokens"):
        tag_accuracy([[]], [[]])


def test_correlation_needs_two_examples():
    with pytest.raises(ValueError, match="at least 2"):
        pearson_spearman([1.0], [1.0])


# ---- the registry --------------------------------------------------------------------------------


def test_every_metric_returns_named_plain_floats():
    cases = {
        "squad": ({"q": "Denver"}, {"q": ["Denver"]}),
        "entity_f1": (PREDICTED, GOLD_TAGS),
        "tag_accuracy": (PREDICTED, GOLD_TAGS),
    }
    for name in METRICS:
        predictions, labels = cases.get(name, (np.array([1, 0, 1]), torch.tensor([1, 0, 0])))
        scores = compute(name, predictions, labels)
        assert scores and all(type(value) is float for value in scores.values()), name
        json.dumps(scores)  # ready for a results file


def test_the_module_does_not_import_torch():
    # loaded by path, away from the minibert package (whose __init__ imports the model, and torch)
    path = Path(metrics.__file__)
    code = ("import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('finetune_metrics', {str(path)!r})\n"
            "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
            "assert module.compute('accuracy', [1, 0], [1, 1]) == {'accuracy': 0.5}\n"
            "print('torch' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
