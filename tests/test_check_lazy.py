"""`from minibert import check` loads a chapter's checkers when one is first asked for: chapter 01's
checker costs chapter 01's modules, not fine-tuning's or the ablations' (and their scipy, scikit-learn,
seqeval, accelerate)."""

import subprocess
import sys

import pytest

from minibert import check


def test_chapter_01s_checker_loads_no_later_chapter():
    probe = ("import sys; from minibert import check; check.wordpiece_encode; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('scipy', 'sklearn', 'seqeval', 'accelerate') or m.startswith(('minibert.finetune', "
             "'minibert.ablations', 'minibert.pretrain', 'minibert.check.spans', 'minibert.check.sentences'))))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", loaded


def test_every_checker_is_reachable_and_a_typo_is_named():
    assert len(check.__all__) == len(set(check.__all__)) > 40  # no name in two rooms
    assert all(callable(getattr(check, name)) for name in check.__all__)
    assert set(check.__all__) <= set(dir(check))
    with pytest.raises(AttributeError, match=r"'wordpiece_encod' \(did you mean 'wordpiece_encode'\?\)"):
        check.wordpiece_encod
