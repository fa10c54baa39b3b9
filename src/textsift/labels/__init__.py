"""What a labelling of the documents is, how it is read and checked: one home for every fact
about labels.

A labelling of ``n`` documents over ``m`` sorted classes is one of:

* **single-label** -- each document has exactly one class (a string, a number or true/false):
    the classes partition the documents, ``N = sum_c N_c``;
* **multi-label** -- each document has a *set* of labels, possibly empty, possibly several: a
    sparse ``n x m`` indicator matrix ``Y`` (``Y[d, c] = 1`` when document ``d`` has label
  ``c``), as scikit-learn's ``MultiLabelBinarizer`` gives. A document with no label is kept:
    it counts in ``N`` and is a negative for every label. A method compares each label with the
    documents *without* it (one-vs-rest), so ``N_c`` need not sum to ``N``;
* **ordinal ranks** -- a single-label labelling whose classes are integer ranks of a scale
  (:func:`check_ranks`; :mod:`textsift.labels.ranks` rounds to them).

:func:`as_labels` reads every encoding into a :class:`Labels`: a sequence of single labels; a
sequence of label lists, tuples or sets (multi-label); a scikit-learn indicator matrix, dense
or sparse, with the class names given. In files (:func:`label_type`, :class:`LabelTypes`), a
label field holds one label per record, or in every record a list of strings (JSON Lines,
Parquet list columns), or, in CSV, labels joined by a separator (``--label-sep``,
:func:`csv_labels`). A list holding a number or a list, a list in some records and a single
label in others, and label lists that are empty in every record are errors that name the file,
the record and the fix.

The kind of a labelling -- nominal, ordinal or multilabel, the *task* of an experiment -- is
a :class:`LabelKind`, which knows its rules (which methods, learners and measures serve it, how
its folds are split, its scopes); :func:`decide_kind` decides a corpus's from what a file
declares and the labels read. A scoring method may require something of the labelling
(``"ranks"``, ``"single_label"``, ``"two_classes"``: :data:`REQUIREMENTS`); each of these
needs one label per document, and :func:`check_requirement` refuses multi-label counts for
such a method with one message.

Labels that are readable but probably wrong are warned about
(:class:`~textsift.errors.DataWarning`): labels that differ only by the white space around them
or by case (``"sci.space"`` and ``"sci.space "``: :func:`check_label_spelling`), which
:func:`strip_labels` folds for the white space; and test classes that no training document has
(:func:`unseen_classes`) are noted.

Inside the package, each module imports only those before it: ``_values`` (the kind of a
label value, for messages), ``_kinds`` (:class:`LabelKind`), ``_labelling`` (:class:`Labels`
and its encodings, ranks), ``_requirements`` (the checks of what methods need), ``_fields``
(label fields of records), ``_spelling`` (probably wrong labels).
"""

from ._fields import (
    LabelTypes,
    csv_labels,
    holds_label_lists,
    label_type,
    label_type_of,
    no_labels,
    plain_values,
    read_labels,
)
from ._kinds import REQUIREMENTS, LabelKind, decide_kind
from ._labelling import (
    LABEL_SETS,
    Labels,
    as_labels,
    check_ranks,
    encode_labels,
    evaluated_labels,
    numeric_labels,
)
from ._requirements import check_class, check_labelled, check_requirement, refuse_label_lists
from ._spelling import (
    check_label_counts,
    check_label_spelling,
    distinct_labels,
    similar_labels,
    strip_labels,
    unseen_classes,
)
from ._values import show_value

__all__ = ["LABEL_SETS", "REQUIREMENTS", "LabelKind", "LabelTypes", "Labels", "as_labels",
           "check_class", "check_label_counts", "check_label_spelling", "check_labelled",
           "check_ranks", "check_requirement", "csv_labels", "decide_kind", "distinct_labels",
           "encode_labels", "evaluated_labels", "holds_label_lists", "label_type",
           "label_type_of", "no_labels", "numeric_labels", "plain_values", "read_labels",
           "refuse_label_lists", "show_value", "similar_labels", "strip_labels", "unseen_classes"]
