"""Checkers for the exercises: `from minibert import check`, then `check.wordpiece_encode(my_encode)`.

Each checker receives your function, tries hand-computed cases first (a failure names the input, the
expected and the received result), then random cases compared with minibert's own implementation,
and prints one line starting with ✓ when everything agrees. Nothing here contains a solution: the
checkers compare with minibert, whose code is the reference you can read.
"""

from . import analysis, attention, encoder, masking, pretraining, sentences, spans, wordpiece
from .ablations import *  # noqa: F403
from .analysis import *  # noqa: F403
from .attention import *  # noqa: F403
from .common import ExerciseError
from .encoder import *  # noqa: F403
from .masking import *  # noqa: F403
from .pretraining import *  # noqa: F403
from .scale import *  # noqa: F403
from .sentences import *  # noqa: F403
from .spans import *  # noqa: F403
from .wordpiece import *  # noqa: F403

__all__ = ["ExerciseError", *wordpiece.__all__, *attention.__all__, *encoder.__all__, *masking.__all__, *analysis.__all__, *pretraining.__all__, *sentences.__all__, *spans.__all__, *ablations.__all__, *scale.__all__]
