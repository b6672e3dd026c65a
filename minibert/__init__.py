"""minibert: BERT (Devlin et al. 2018) built to be read, and proven identical to the real one."""

from .checkpoint import CheckpointError, hf_name, minibert_name
from .config import PRESETS, BertConfig, ConfigError
from .heads import (BertForMultipleChoice, BertForPreTraining, BertForQuestionAnswering,
                    BertForSequenceClassification, BertForTokenClassification, PreTrainingOutput)
from .hub import minilm_path
from .inputs import InputError
from .model import BertModel, BertOutput
from .tokenizer import Tokenizer, TokenizerError, train_wordpiece

__all__ = [
    "BertConfig", "PRESETS", "BertModel", "BertOutput", "BertForPreTraining", "PreTrainingOutput",
    "BertForSequenceClassification", "BertForTokenClassification", "BertForQuestionAnswering", "BertForMultipleChoice",
    "ConfigError", "InputError", "CheckpointError", "hf_name", "minibert_name", "minilm_path",
    "Tokenizer", "TokenizerError", "train_wordpiece",
]
