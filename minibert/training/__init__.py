"""What every training loop shares, pre-training and fine-tuning alike:

    accelerator.py  one Accelerator over every launched process; a batch shared out in micro-batches
    optim.py        AdamW without decay on LayerNorm and biases; Google's warm-up then linear decay
    watchdog.py     stop before a NaN or inf reaches the weights
    log.py          log.jsonl (and TensorBoard); read_log
    meter.py        what a log record says of the steps since the last: mean losses, tokens/s, grad norm
    resume.py       checkpoints that continue a run exactly, in the Hugging Face layout
    claim.py        one run at a time in a folder: claimed before anything is read or written there
    export.py       a finished model written whole to a folder, never over someone's files
    cli.py          command lines built from a run's config dataclass

The loops themselves stay in their rooms, each plain and visible, standing on these helpers:
pre-training's `while step < max_steps` (`minibert.pretrain.loop.train`) and fine-tuning's
`for epoch / for batch` (`minibert.finetune.loop.run`).
"""

from .accelerator import accumulation_steps, device_name, make_accelerator, micro_batch_size
from .log import RunLog, read_log
from .meter import Meter, Window
from .optim import bert_schedule, build_optimizer, parameter_groups
from .resume import Progress
from .watchdog import TrainingDiverged, check_finite

__all__ = ["make_accelerator", "micro_batch_size", "accumulation_steps", "device_name", "RunLog", "read_log",
           "Meter", "Window", "bert_schedule", "build_optimizer", "parameter_groups", "Progress", "TrainingDiverged", "check_finite"]
