"""Run by tests/test_pretrain_loop.py under `torchrun --nproc_per_node 2`: a short pre-training run,
then every process writes its own copy of the weights, so the test can compare the ranks."""

import json
import sys

import torch
from accelerate import PartialState
from accelerate.utils import set_seed

from minibert import BertForPreTraining
from minibert.pretrain import pretrain, recipe
from minibert.tokenizer import load_vocab

cfg = recipe("tiny", **json.loads(sys.argv[1]))
set_seed(cfg.seed)  # as pretrain() does before it builds a model: the same initial weights as one process
model = BertForPreTraining(cfg.model_config(len(load_vocab(cfg.vocab))))
pretrain(cfg, model=model)  # trains `model` itself: DDP wraps the module, it does not copy it
state = PartialState()
torch.save({"weights": model.state_dict(), "processes": state.num_processes},
           f"{cfg.out_dir}/rank{state.process_index}.pt")
