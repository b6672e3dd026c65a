"""Small configs and batches shared by the tests."""

import torch

import minibert


def small_config(**overrides):
    """A config small enough for fast tests, with every dimension different so that a transposed
    weight cannot go unnoticed."""
    sizes = dict(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=96, max_position_embeddings=40, type_vocab_size=2)
    return minibert.BertConfig(**{**sizes, **overrides})


def random_batch(config, B=3, T=12, seed=0, mask_prob=0.15):
    """Token ids with [CLS]/[SEP]-like ids at the ends, ragged padding and MLM/NSP labels."""
    g = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(5, config.vocab_size, (B, T), generator=g)
    lengths = torch.tensor([T] + [max(3, T - 3 * i) for i in range(1, B)])
    attention_mask = (torch.arange(T)[None, :] < lengths[:, None]).long()
    token_type_ids = ((torch.arange(T)[None, :] >= lengths[:, None] // 2) & attention_mask.bool()).long()
    input_ids = input_ids * attention_mask  # pad id 0
    labels = torch.where((torch.rand(B, T, generator=g) < mask_prob) & attention_mask.bool(),
                         input_ids, torch.full_like(input_ids, -100))
    labels[:, 1] = input_ids[:, 1]  # at least one labelled position per sequence
    next_sentence_label = torch.randint(0, 2, (B,), generator=g)
    return dict(input_ids=input_ids, token_type_ids=token_type_ids, attention_mask=attention_mask,
                labels=labels, next_sentence_label=next_sentence_label)


def exercise_functions(notebook) -> dict:
    """The functions an exercise notebook defines: its set-up cell and every cell holding an exercise
    run in one namespace (magics left out). From a solutions notebook: the solutions; from a learner's
    notebook: the stubs."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    namespace: dict = {}
    for i, cell in enumerate(code):
        holds_exercise = "### BEGIN SOLUTION" in cell.source or "raise NotImplementedError(\"Exercise" in cell.source
        if i == 0 or holds_exercise:
            source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
            exec(compile(source, f"{notebook}", "exec"), namespace)
    return namespace


def checker_contract(notebook: str, exercises: list[tuple[str, str]]):
    """What every chapter's checkers promise, as two tests a test module takes by assignment:
    each solution passes with one line starting "✓ <checker>:", and each learner's stub lets its
    NotImplementedError ("Exercise N.k ...") through. `exercises` pairs a checker's name in
    `minibert.check` with the function it checks. Returns (solutions, stubs, test, test).

        SOLUTIONS, STUBS, test_the_solution_passes, test_the_stub_raises_not_implemented = checker_contract(
            "07_sentences_and_pairs", [("head_tail", "my_head_tail"), ...])
    """
    from pathlib import Path

    import pytest

    from minibert import check

    root = Path(__file__).resolve().parents[1] / "exercises"
    solutions = exercise_functions(root / "solutions" / f"{notebook}.ipynb")
    stubs = exercise_functions(root / f"{notebook}.ipynb")
    chapter = int(notebook[:2])

    @pytest.mark.parametrize("checker, function", exercises)
    def test_the_solution_passes(checker, function, capsys):
        getattr(check, checker)(solutions[function])
        assert capsys.readouterr().out.startswith(f"✓ {checker}:")

    @pytest.mark.parametrize("checker, function", exercises)
    def test_the_stub_raises_not_implemented(checker, function):
        with pytest.raises(NotImplementedError, match=rf"Exercise {chapter}\."):
            getattr(check, checker)(stubs[function])

    return solutions, stubs, test_the_solution_passes, test_the_stub_raises_not_implemented
