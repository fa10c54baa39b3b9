"""Evidence for ranked terms: p-values adjusted for multiple testing (``corrections``), the
evidence table of a ranking (``terms``), selection by significance (``significant``),
permutation p-values (``permutation``) and a corpus against a reference corpus (``reference``);
the tests themselves and the effect sizes are scores' (``textsift.scores.significance``,
``textsift.scores.effects``). May import: errors, labels, text, counting, scores, selection.
"""

__all__: list[str] = []
