"""Fine-tuning: task heads on a pre-trained BERT (section 4 and Appendix A.3).

    finetune(FinetuneConfig(task="sentiment", model="minilm"))     # one run -> {"metrics": ...}
    sweep(FinetuneConfig(task="sentiment"), seeds=3, space=GRID)    # A.3's grid, random restarts
    python -m minibert.finetune --task sentiment --model minilm --seeds 3

    recipes.py     every setting, A.3's defaults and grid      features.py  examples -> inputs, per kind
    loop.py        the loop                                    evaluation.py, spans.py  predictions -> answers
    metrics.py     the benchmarks' own metrics                 sweep.py     seeds and grids -> mean ± sd
"""

from .loop import finetune
from .recipes import GRID, FinetuneConfig
from .sweep import sweep, table

__all__ = ["finetune", "FinetuneConfig", "GRID", "sweep", "table"]
