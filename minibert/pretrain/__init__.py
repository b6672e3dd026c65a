"""Pre-training (MLM + NSP): `pretrain(recipe("tiny"))` in Python, `python -m minibert.pretrain
--config tiny` from a shell, `accelerate launch -m minibert.pretrain --config base` on GPUs.

    recipes.py  every setting of a run, and the presets from a laptop to the paper's BERT-LARGE
    shards.py   a corpus -> instances on disk, written by worker processes, memory-mapped back
    data.py     the vocabulary, the shards, and batches that are a function of the step (exact resume)
    loop.py     the loop; metrics.py, curves.py, card.py: what it measures, compares and writes
    cost.py     what a run costs before it runs: tokens, FLOPs, days at a stated MFU (`--plan`)
    heldout.py  a saved model scored on the held-out split under chosen settings (Table 8's common ground)
    baselines.py  the floors a masked LM must clear: unigram and neighbour counts on the same held-out
                positions (`python -m minibert.pretrain.baselines --config course`)
"""

from ..training.log import read_log
from ..training.optim import bert_schedule
from ..training.watchdog import TrainingDiverged
from .cost import paper_cost, plan_text, run_cost
from .curves import diagnose, plot_run, reference_curve
from .heldout import heldout_metrics
from .loop import pretrain
from .metrics import flops_per_token, peak_tflops
from .recipes import RECIPES, PretrainConfig, recipe

__all__ = ["pretrain", "recipe", "RECIPES", "PretrainConfig", "TrainingDiverged", "read_log",
           "reference_curve", "plot_run", "diagnose", "flops_per_token", "peak_tflops", "bert_schedule", "heldout_metrics",
           "run_cost", "paper_cost", "plan_text"]
