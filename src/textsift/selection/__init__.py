"""Selection: how a score table becomes one order of the terms and the estimators that keep it.
``policies`` (``max``, ``sum``, ``wavg``, the round robin, on dense values), ``classwise`` (the
same policies on a table held by its cells), ``ranking`` (a method's scores ranked under a
policy: ``rank``, ``TermRanking``, each class's terms), ``selectors`` (``TermSelector``, the
scikit-learn estimator) and ``ordinal`` (``OrdinalSelector``, its form for ranks). May import:
errors, labels, text, counting, scores, evidence.
"""

__all__: list[str] = []
