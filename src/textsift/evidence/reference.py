"""A chosen reference: a class against another class, or a corpus against a reference corpus.

Every per-class score compares a class with *the rest*: the documents without it. Two other
references answer other questions, and both are a two-group table of counts on which every
nominal method, p-value and effect size then runs unchanged (the target is the first group):

* :func:`against` -- class ``target`` against class ``reference`` (``textsift score --class
  A --reference B``): the counts of the documents of the two classes only, ``N = N_A +
  N_B`` and ``df = A_A + A_B``. It needs one class per document: with label sets a document
  may have both labels, and the counts do not say how many do, so that table cannot be
  made (refused; a label is compared with the documents without it). Ranks are classes
  here (rank 1 against rank 5 is a fine question for a nominal method); an ordinal method
  reads a whole scale, which two groups are not (refused where it is asked for).
* :func:`against_corpus` -- a corpus (or one class of it) against an external reference
  corpus (``--reference-corpus FILE``), which is how keyness is measured in corpus
  linguistics (a text against a general corpus): the reference is counted with the
  target's vocabulary and preprocessing (:func:`count_reference`), so a term means the same
  on both sides; the target's terms are the ones ranked (a word only the reference has is
  no term of the target's). Counts over other vocabularies (another preprocessing) are
  refused, as is a reference sharing no term with the target.
"""

from __future__ import annotations

import numpy as np

from ..counting.counts import Counts
from ..errors import TextsiftError
from ..labels import group_indices

__all__ = ["REFERENCE", "against", "against_corpus", "count_reference"]

#: The name of the reference group in a two-group table.
REFERENCE = "reference"


def _index(counts: Counts, label, role: str) -> int:
    j = int(group_indices(counts.classes, [label])[0])
    if j < 0:
        raise TextsiftError(f"the {role} class {label!r} is not a class of the counts; the "
                            f"classes are {', '.join(map(str, counts.classes))}: choose one "
                            "of them")
    if counts.class_sizes[j] == 0:
        raise TextsiftError(f"the {role} class {label!r} has no documents; choose a class "
                            "with documents")
    return j


def against(counts: Counts, target, reference) -> Counts:
    """The two-group counts of class ``target`` against class ``reference`` (module
    docstring): classes ``[target, reference]``, over the documents of the two."""
    if counts.multilabel:
        raise TextsiftError(
            "a label against another label needs groups of documents that do not overlap; "
            "with label sets a document may have both, and the counts do not say how many "
            "do. Compare a label with the documents without it (drop --reference)")
    if str(target) == str(reference):
        raise TextsiftError(f"the reference class {reference!r} is the target class; choose "
                            "another class, or drop the reference to compare with the rest")
    j, k = _index(counts, target, "target"), _index(counts, reference, "reference")
    return counts.select_classes(np.array([j, k]))


def count_reference(texts, target: Counts, opts=None, matrix: bool = False):
    """The counts of a reference corpus's ``texts`` against the vocabulary of ``target``,
    under ``opts`` (the :class:`~textsift.text.vectorize.VectorizerOptions` the target was counted
    with; the vocabulary's own pruning, ``min_df`` and the like, is the target's), as one
    group named :data:`REFERENCE`; with ``matrix``, ``(counts, X)``: and the reference's
    document-term matrix (for its dispersion and the document-level tests)."""
    from ..text.vectorize import Vectorizer

    if target.feature_names is None:
        raise TextsiftError("the target's counts have no term names; count it from texts "
                            "(Counts.from_texts) so that the reference can be counted with "
                            "its vocabulary")
    texts = list(texts)
    if not texts:
        raise TextsiftError("the reference corpus has no documents")
    X = Vectorizer(target.feature_names, opts).transform(texts)
    counts = Counts.from_matrix(X, np.full(len(texts), REFERENCE),
                                feature_names=target.feature_names,
                                term_freq=target.term_freq is not None)
    return (counts, X) if matrix else counts


def against_corpus(target: Counts, reference: Counts, target_class=None) -> Counts:
    """The two-group counts of the target -- every document of ``target``, or those of
    ``target_class`` -- against every document of ``reference`` (module docstring). Both
    must be counts over the same vocabulary (:func:`count_reference`)."""
    if target.feature_names is None or reference.feature_names is None or not np.array_equal(
            target.feature_names, reference.feature_names):
        raise TextsiftError(
            "the reference corpus was counted over another vocabulary (other preprocessing, or "
            "its own vocabulary): count it with the target's (textsift.evidence.reference."
            "count_reference), so that a term means the same in both")
    if not (reference.df > 0).any():
        raise TextsiftError("the reference corpus has no term in common with the target: "
                            "check that both are in the same language and read the same "
                            "text field")
    if target_class is None:
        name, n_t, a_t = "target", target.n_docs, target.df
        tf_t = target.tf
    else:
        j = _index(target, target_class, "target")
        name, n_t = target.classes[j], int(target.class_sizes[j])
        a_t, tf_t = target.column(j)
    with_tf = tf_t is not None and reference.tf is not None
    return Counts(
        classes=np.array([name, REFERENCE], dtype=object),
        class_sizes=np.array([n_t, reference.n_docs], dtype=np.int64),
        doc_counts=np.column_stack([a_t, reference.df]).astype(np.int64),
        term_freq=np.column_stack([tf_t, reference.tf]) if with_tf else None,
        feature_names=target.feature_names,
        n_docs=int(n_t + reference.n_docs),
        df=(np.asarray(a_t, dtype=np.int64) + reference.df).astype(np.int64),
        tf=(tf_t + reference.tf) if with_tf else None,
    )
