"""Seeds derived from a run's one seed, so that every random choice is a function of where it is
made (shard number, epoch, instance, worker), never of an iterator's history: the same seed then
gives the same data whatever the number of processes or workers, and a resumed run continues the
same stream.
"""

from __future__ import annotations

import torch

# A prime well above any stream number we use, so that (seed, k) pairs never collide for seeds of a
# few digits: seed 0 stream 1_000_003 would equal seed 1 stream 0, far beyond any real stream count.
_STRIDE = 1_000_003


def derive_seed(seed: int, stream: int) -> int:
    """The seed of stream `stream` (a shard, an epoch, an instance) of a run seeded `seed`."""
    return seed * _STRIDE + stream


def generator(seed: int, stream: int = 0) -> torch.Generator:
    """A torch generator seeded for one stream of the run."""
    return torch.Generator().manual_seed(derive_seed(seed, stream))
