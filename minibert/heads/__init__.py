"""The heads of the paper's Figure 1 and Figure 4, one file per panel, each a BertModel under
`bert` plus a few parameters of its own, named and saved as transformers names them:

    pretraining.py         BertForPreTraining: masked LM (tied decoder) + next sentence prediction (§3.1)
    classification.py      BertForSequenceClassification: pooled [CLS] -> K labels, or a score (§4.1; Fig. 4a, 4b)
    tagging.py             BertForTokenClassification: every token -> K labels, e.g. NER (§5.3; Fig. 4d)
    question_answering.py  BertForQuestionAnswering: start/end logits; best_spans, predict_answer (§4.2-4.3; 4c)
    multiple_choice.py     BertForMultipleChoice: one score per choice, softmax over C (§4.4, SWAG)
    bilstm.py              a BiLSTM on top: Table 5's "+ BiLSTM" encoder and Table 7's feature-based tagger (§5)
"""

from .bilstm import COMBINATIONS, BertWithBiLSTM, BiLSTM, FeatureTagger, chosen_layers
from .classification import BertForSequenceClassification, SequenceClassifierOutput
from .multiple_choice import BertForMultipleChoice, MultipleChoiceModelOutput
from .pretraining import BertForPreTraining, MLMHead, PreTrainingOutput
from .question_answering import (BertForQuestionAnswering, QuestionAnsweringModelOutput, best_spans,
                                 predict_answer)
from .tagging import BertForTokenClassification, TokenClassifierOutput

__all__ = [
    "BertForPreTraining", "MLMHead", "PreTrainingOutput",
    "BertForSequenceClassification", "SequenceClassifierOutput",
    "BertForTokenClassification", "TokenClassifierOutput",
    "BertForQuestionAnswering", "QuestionAnsweringModelOutput", "best_spans", "predict_answer",
    "BertForMultipleChoice", "MultipleChoiceModelOutput",
    "BiLSTM", "BertWithBiLSTM", "FeatureTagger", "COMBINATIONS", "chosen_layers",
]
