"""Pre-training: `pretrain(recipe("tiny"))` in Python, `python -m minibert.pretrain --config tiny`
from a shell, `accelerate launch -m minibert.pretrain --config base` on GPUs."""

from .curves import diagnose, plot_run, reference_curve
from .logs import read_log
from .loop import TrainingDiverged, pretrain
from .metrics import flops_per_token, peak_tflops
from .optim import bert_schedule
from .recipes import RECIPES, PretrainConfig, recipe

__all__ = ["pretrain", "recipe", "RECIPES", "PretrainConfig", "TrainingDiverged", "read_log",
           "reference_curve", "plot_run", "diagnose", "flops_per_token", "peak_tflops", "bert_schedule"]
