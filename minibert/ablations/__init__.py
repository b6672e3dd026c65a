"""The paper's ablations in miniature (Devlin et al. 2018, §5 and Appendix C.2): Tables 5-8, measured
on the course corpus and tasks under one budget, with seeds, and stored with their provenance.

    python -m minibert.ablations 5 6 7 8            # or `all`; again to continue a stopped run
    python -m minibert.ablations all --status       # how much of each table is filled
    run_tables(["5"], budget("ci"))                 # the same from Python

    tables.py   the four tables: rows, columns, the paper's numbers beside them
    claims.py   each effect the paper states in words, as a difference of two rows in one column
    frames.py   the stored tables and effects as pandas frames, with Welch intervals and verdicts
    budget.py   the budgets (steps, data, seeds) every variant shares
    cells.py    one row at one seed: pre-train (or reuse) the variant, measure every column
    store.py    the results files, their provenance, how full they are
    run.py      cell by cell, resumable, shared out over workers
"""

from .budget import BUDGETS, Budget, budget
from .claims import EFFECTS, Effect
from .frames import VERDICTS, cell_frame, controls_frame, effects_frame, provenance_frame, side_by_side, table_frame
from .run import plan, run_tables
from .store import RESULTS, ResultsError, progress, read_table, results_file
from .tables import TABLES, Measure, Row, Table

__all__ = ["run_tables", "plan", "budget", "Budget", "BUDGETS", "TABLES", "Table", "Row", "Measure",
           "progress", "read_table", "results_file", "RESULTS", "ResultsError", "EFFECTS", "Effect",
           "cell_frame", "table_frame", "controls_frame", "VERDICTS", "side_by_side", "effects_frame", "provenance_frame"]
