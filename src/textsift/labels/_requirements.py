"""The checks of a labelling against what a scoring method requires of it
(:data:`~._kinds.REQUIREMENTS`) or a ``--class``."""

from __future__ import annotations

import numpy as np

from ..errors import CorpusError, TextsiftError
from ._kinds import MULTILABEL, requirements
from ._labelling import check_ranks


def check_requirement(requires, counts, method: str, source=None) -> None:
    """The one check of a method against a labelling: refuse ``counts`` (anything with
    ``multilabel`` and ``classes``: a :class:`~textsift.counting.counts.Counts` or a
    :class:`Labels`)
    if a method that ``requires`` these (``Method.requires``) cannot score it, in one message
    naming ``source``, the corpus, when given: label lists for any requirement (each needs
    one label per document); labels that are not integer ranks for ``"ranks"``
    (:func:`check_ranks` says why); other than two classes for ``"two_classes"``.
    :func:`textsift.scores.compute` calls it where a method meets counts."""
    requires = requirements(requires)
    where = f"{source}: " if source else ""
    if counts.multilabel:
        refuse_label_lists(requires, method, source)
    if "ranks" in requires:
        try:
            check_ranks(np.asarray(counts.classes))
        except TextsiftError as exc:
            raise TextsiftError(
                f"{where}{method} is an ordinal method: it needs ordered integer ranks as "
                f"labels (ratings such as 1-5 stars), and these labels are not ({exc}); choose "
                "a nominal method, e.g. chi2, ig or bns") from None
    if "two_classes" in requires and len(counts.classes) != 2:
        raise TextsiftError(f"{where}{method} needs exactly two classes; the labels have "
                            f"{len(counts.classes)}")


def refuse_label_lists(requires, method: str, source=None) -> None:
    """Refuse label sets for a method that ``requires`` one label per document (every
    requirement does: :meth:`LabelKind.meets <textsift.labels.LabelKind.meets>`), in one
    message naming ``source`` when given and the methods that score label sets."""
    requires = requirements(requires)
    if MULTILABEL.meets(requires):
        return
    what = {"ranks": "ordered ranks", "single_label": "one class per document",
            "two_classes": "two classes"}[requires[0]]
    raise TextsiftError(
        f"{f'{source}: ' if source else ''}{method} needs one label per document ({what}), but "
        "the documents have label lists (a multi-label corpus); choose a one-vs-rest method, "
        "which scores each label against the documents without it (e.g. chi2, ig, bns, "
        "log_odds_dirichlet; `textsift methods` lists them), or give each document one label")


def check_labelled(counts) -> None:
    """Per-class scores need classes with documents: two for single-label counts (a class
    against the others), one for multi-label counts (a label against the documents without
    it). ``counts`` has ``class_sizes``, ``classes`` and ``multilabel``."""
    present = counts.classes[counts.class_sizes > 0]
    if counts.multilabel and len(present) == 0:
        raise TextsiftError("per-label scoring needs a label that some document has; no "
                            "document has a label. Check the label field")
    if not counts.multilabel and len(present) < 2:
        raise TextsiftError(
            "per-class scoring needs at least two classes with documents; got only one "
            f"class ({[str(c) for c in present]}). Check the label field."
        )


def check_class(counts, label, source) -> None:
    """``label`` (asked for with ``--class``) must be a class some document of ``source`` has;
    compared as text, as the command line gives it."""
    present = [str(c) for c in counts.classes[counts.class_sizes > 0]]
    if str(label) in present:
        return
    shown = ", ".join(present[:30]) + (" ..." if len(present) > 30 else "")
    raise CorpusError(f"{source}: no document has the class {str(label)!r} (--class); the "
                      f"classes with documents are {shown}. Choose one of them")
