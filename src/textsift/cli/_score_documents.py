"""What ``textsift score`` reads beyond the counts: the texts of a corpus without its labels
(the target of ``--reference-corpus``), the documents behind the counts (the dispersion and
the document-level tests of ``--evidence``), a reference's two-group counts
(``--reference``, ``--reference-corpus``) and the permutation test (``--permutations``)."""

from __future__ import annotations

from ..errors import TextsiftError
from ._app import print_note
from ._progress import step, task_progress
from ._score_groups import EvidenceSettings, Reference

__all__ = ["MAX_PERMUTATION_S", "corpus_texts", "documents_of", "permuted", "referenced",
           "unlabelled_counts"]

#: The longest permutation test ``score --evidence --permutations`` starts (a day): a longer
#: one is refused with its estimate (:func:`textsift.evidence.permutation.permutation_pvalues`).
MAX_PERMUTATION_S = 24 * 3600


def corpus_texts(corpus) -> list:
    """The texts of the corpus (its split), its labels not read."""
    from ..reading.corpus import read_corpus

    return read_corpus(corpus.source, corpus.text_field, None, corpus.split_field,
                       corpus.split, corpus.on_bad_line, encoding=corpus.encoding,
                       sep=corpus.sep).frame[corpus.text_field].tolist()


def unlabelled_counts(corpus):
    """The counts of every document of the corpus as one group (``target``): the target of
    ``--reference-corpus`` without ``--class``, whose labels are not read (a corpus without
    them is fine), counted in memory."""
    import numpy as np

    from ..counting.counts import Counts

    if corpus.engine != "memory":
        print_note("--reference-corpus without --class counts the corpus in memory")
    texts = corpus_texts(corpus)
    return Counts.from_texts(texts, np.full(len(texts), "target", dtype=object),
                             corpus.vectorizer())


def documents_of(corpus, counts, ranks: bool = False, labels: bool = True, matrix=None):
    """The documents behind ``counts`` (:class:`~textsift.evidence.dispersion.Documents`), for the
    dispersion and the document-level tests of ``--evidence``: the corpus read in memory and
    counted against the counts' vocabulary (``None``, with a note, for the other
    engines). ``matrix``: the matrix and labels the counts were counted from, when kept."""
    import numpy as np

    from ..evidence.dispersion import Documents
    from ..text.vectorize import Vectorizer

    if matrix:
        X, y = matrix[0]
        return Documents.of(X, y, counts.classes)

    if corpus.engine != "memory":
        print_note("the dispersion and the document-level tests of --evidence need the "
                   "documents in memory: count with --engine memory for them")
        return None
    if labels:
        read = corpus.read(ranks=ranks)
        texts, y = read.texts, read.labels
    else:
        texts = corpus_texts(corpus)
        y = np.full(len(texts), "target", dtype=object)
    X = Vectorizer(counts.feature_names, corpus.vectorizer()).transform(texts)
    docs = Documents.of(X, y, counts.classes)
    if not np.array_equal(np.asarray((docs.X > 0).sum(axis=0)).ravel(), counts.df):
        raise TextsiftError("the corpus read in memory has another vocabulary than the one "
                            "counted; count with --engine memory")
    return docs


def referenced(corpus, counts, m, class_label, reference: Reference, docs=None):
    """The two-group counts of a chosen reference (:mod:`textsift.evidence.reference`), the
    target's class and the two groups' documents (when ``docs``, the target's, are
    given)."""
    import numpy as np

    from ..evidence.dispersion import Documents
    from ..evidence.reference import against, against_corpus, count_reference
    from ..labels import group_index

    if m is not None and m.kind == "ordinal":
        raise TextsiftError(f"{m.name} is an ordinal method: it reads the whole rating scale, "
                            "which a target and a reference are not; choose a nominal method")
    if reference.label is not None:
        two = against(counts, class_label, reference.label)
        if docs is not None:
            docs = docs.select_classes([group_index(counts.classes, c) for c in two.classes])
        return two, class_label, docs
    from ..reading.corpus import read_corpus

    texts = read_corpus(reference.corpus, corpus.text_field, None, encoding=corpus.encoding,
                        sep=corpus.sep).frame[corpus.text_field]  # read as the corpus is
    ref, X_ref = count_reference(texts, counts, corpus.vectorizer(), matrix=True)
    two = against_corpus(counts, ref, class_label)
    if docs is not None:
        rows = (np.ones(docs.X.shape[0], dtype=bool) if class_label is None else
                docs.groups(group_index(counts.classes, class_label))[0])
        docs = Documents.two_groups(docs.X[rows], X_ref)
    return two, str(two.classes[0]), docs


def permuted(ev: EvidenceSettings, m, corpus, counts, documents):
    """The permutation test of ``m`` (``--permutations``), on the document-term matrix the
    memory engine counted (``documents``: ``[(X, labels)]``), or with another engine on the
    corpus read in memory (the counts streamed have the vocabulary it must have)."""
    if ev.permutations is None:
        return None
    from ..evidence.permutation import permutation_pvalues

    if documents:  # the matrix the memory engine counted
        ((X, labels),) = documents
    else:
        from ..text.vectorize import vectorize

        with step("reading the documents for the permutations"):
            read = corpus.read()
            X, names, _ = vectorize(read.texts, corpus.vectorizer())
        labels = read.labels
        if len(names) != counts.n_terms or (names != counts.feature_names).any():
            raise TextsiftError("the corpus read in memory has another vocabulary than the "
                                "one counted; count with --engine memory")
    if X.shape[1] != counts.n_terms:
        raise TextsiftError("the permutations' matrix has another vocabulary than the counts "
                            "shown; count with --engine memory")
    with task_progress("permutations", "permutations") as progress:
        return permutation_pvalues(X, labels, [m.name], ev.permutations, ev.seed,
                                   alpha=ev.alpha, n_jobs=-1, progress=progress,
                                   max_seconds=MAX_PERMUTATION_S)[m.name]
