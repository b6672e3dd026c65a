"""Real English text that every Python install already has, for benchmarks and tests.

`real_lines()`: the non-blank lines of Python's own help topics (`pydoc_data.topics.topics`, by
topic name), then of the long description of every installed distribution but minibert (by
lower-cased name, each name once, so a source tree's `*.egg-info` on the path does not count it
twice). Standard library only; the result depends on the Python version and the installed packages.
"""

from __future__ import annotations

import importlib.metadata

from pydoc_data.topics import topics


def real_lines() -> list[str]:
    """Non-blank lines of the pydoc topics, then of the installed distributions' descriptions."""
    docs = [topics[name] for name in sorted(topics)]
    dists = {}
    for d in importlib.metadata.distributions():  # the first found is the one Python imports
        dists.setdefault((d.metadata["Name"] or "").lower(), d)
    dists.pop("minibert", None)  # our own README: it changes with every edit
    docs += [dists[name].metadata.get_payload() or "" for name in sorted(dists)]
    return [line for doc in docs for line in doc.splitlines() if line.strip()]
