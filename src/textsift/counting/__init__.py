"""Counting: the additive sufficient statistics of a labelled corpus, ``Counts`` (``counts``: N,
df, the per-label document and term counts in a dense or sparse layout, the one-vs-rest 2 x 2
tables at any cells), the counting kernels and the layouts' memory rules (``_tables``) and the
non-zero cells with their distinct tables (``_cells``), and how a ``Counts`` is made from what it
is given (``_making``: the fields it keeps checked and completed, a matrix checked and counted
in one pass or by sparse products, sparse tables made canonical, two counts checked and added),
and the tables of a stream's chunks added up (``_sums``). May import: errors, labels, text.
"""

__all__: list[str] = []
