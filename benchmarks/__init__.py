"""Benchmarks: minibert against transformers and raw tokenizers (see README.md here).

A regular package, so that `benchmarks.real_text` is ours even where another distribution (pysbd)
installs a top-level `benchmarks` package of its own."""
