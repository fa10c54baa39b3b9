"""The two layouts of Counts: dense (V, m) arrays and sparse matrices of the non-zero cells
(many labels, each with a few documents). Invariants, over random multi-label corpora: the
same counts, every per-class score bit for bit, each class's first k terms equal to the
ranking of its column, every policy as on the dense table (max and the round robin exactly,
sum and wavg to rounding), whichever layout."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import textsift.counting._tables as counting
import textsift.selection.classwise as classwise
from textsift.counting.counts import Counts
from textsift.errors import TextsiftError
from textsift.labels import LabelKind
from textsift.scores import REGISTRY, compute, pvalues
from textsift.selection.policies import globalise, order
from textsift.selection.ranking import ranking_of

#: every method that scores label sets (one-vs-rest, or one score per term)
LABEL_SETS = sorted(n for n, m in REGISTRY.items() if LabelKind.MULTILABEL.serves(m))


def corpus(seed: int, n_docs: int = 30, n_terms: int = 25, n_labels: int = 8,
           density: float = 0.2):
    """A random count matrix and label lists (some empty, some of several labels; a declared
    label may have no document)."""
    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, n_terms, density=density, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.integers(1, 4, k).astype(float))
    labels = [sorted(rng.choice(n_labels, rng.integers(0, min(4, n_labels + 1)),
                                replace=False).tolist())
              for _ in range(n_docs)]
    return X, labels


def both(seed, **kw):
    X, labels = corpus(seed, **kw)
    classes = list(range(kw.get("n_labels", 8)))
    return (Counts.from_matrix(X, labels, classes=classes, layout="dense"),
            Counts.from_matrix(X, labels, classes=classes, layout="sparse"))


corpora = st.builds(lambda seed, d, t, m, dens: (seed, dict(n_docs=d, n_terms=t, n_labels=m,
                                                            density=dens)),
                    st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 30),
                    st.integers(1, 12), st.sampled_from([0.05, 0.2, 0.5]))


@settings(max_examples=40, deadline=None)
@given(corpora)
def test_both_layouts_hold_the_same_counts(data):
    dense, sparse = both(data[0], **data[1])
    assert dense.layout == "dense" and sparse.layout == "sparse"
    assert "sparse layout" in repr(sparse) and "dense layout" in repr(dense)
    assert dense.equals(sparse) and sparse.equals(dense)
    np.testing.assert_array_equal(sparse.doc_counts.toarray(), dense.doc_counts)
    np.testing.assert_array_equal(sparse.term_freq.toarray(), dense.term_freq)
    np.testing.assert_array_equal(sparse.class_tf, dense.class_tf)
    assert sparse.n_nonzero == dense.n_nonzero == np.count_nonzero(dense.doc_counts)
    mine, theirs = sparse.cells.by_term[0], dense.cells.by_term[0]  # the same cells,
    for name in ("row", "col", "a", "tf", "b", "c", "d", "flat"):     # in another order
        np.testing.assert_array_equal(getattr(sparse.cells, name)[mine],
                                      getattr(dense.cells, name)[theirs])
    np.testing.assert_array_equal(dense.cells.by_term[0], np.arange(len(theirs)))
    np.testing.assert_array_equal(sparse.cells.by_class[0], np.arange(len(mine)))
    for name in ("df_index", "size_index", "df_values", "size_values"):
        np.testing.assert_array_equal(getattr(sparse.cells, name), getattr(dense.cells, name))
    # every cell's distinct table: the same (A, B, C, D), found on either layout
    for cells, at in ((sparse.cells, mine), (dense.cells, theirs)):
        tables = [t[cells.nz_table] for t in cells.evaluation_set]
        for got, want in zip(tables, (cells.a, cells.b, cells.c, cells.d), strict=True):
            np.testing.assert_array_equal(got[at], want[at])
    assert sparse.to_layout("dense").equals(dense) and dense.to_layout("sparse").equals(sparse)


@pytest.mark.parametrize("distinct_cells", [2**20, 0])
@settings(max_examples=25, deadline=None)
@given(data=corpora)
def test_every_score_is_the_same_on_both_layouts_bit_for_bit(data, distinct_cells):
    """Every method that serves label sets: the dense table, each column, blocks of rows --
    on the sparse layout with the metrics evaluated once per distinct table, or (with
    ``DISTINCT_CELLS = 0``) once per cell, as many labels make them."""
    import textsift.scores._per_class as tables

    dense, sparse = both(data[0], **data[1])
    if not (dense.class_sizes > 0).any():
        return  # no label with a document: nothing to score (refused alike)
    saved, tables.DISTINCT_CELLS = tables.DISTINCT_CELLS, distinct_cells
    try:
        _same_scores(dense, sparse)
    finally:
        tables.DISTINCT_CELLS = saved


def _same_scores(dense, sparse):
    for name in LABEL_SETS:
        a, b = compute(dense, name), compute(sparse, name)
        np.testing.assert_array_equal(a.values, b.values, err_msg=name)
        np.testing.assert_array_equal(a.groups, b.groups, err_msg=name)
        table = compute(sparse, name, dense=False)
        if table.storage == "cells":
            for j in range(a.values.shape[1]):
                np.testing.assert_array_equal(table.column(j), a.values[:, j], err_msg=name)
            np.testing.assert_array_equal(table.rows(1, dense.n_terms), a.values[1:], name)


@pytest.mark.parametrize("whole_column", [8, 10**9])
@settings(max_examples=20, deadline=None)
@given(data=corpora, k=st.integers(1, 35))
def test_each_class_first_k_terms_are_its_column_ranking(data, k, whole_column):
    """classwise.top: the first k terms of a class's ranking, found from its non-zero cells
    and its best absent terms (with ``whole_column`` huge, always by walking the absent
    terms), are exactly ``order(column, seen, k)`` and its scores, on both layouts."""
    dense, sparse = both(data[0], **data[1])
    if not (dense.class_sizes > 0).any():
        return
    saved = classwise.WHOLE_COLUMN
    classwise.WHOLE_COLUMN = whole_column
    try:
        for name in LABEL_SETS:
            for counts in (dense, sparse):
                table = compute(counts, name, dense=False)
                if table.storage != "cells":
                    continue
                values = table.table().values
                found = table.top_many(np.arange(values.shape[1]), k)
                for j, (terms, scores) in enumerate(found):
                    want = order(values[:, j], table.seen, k)
                    np.testing.assert_array_equal(terms, want, err_msg=f"{name} {j} {k}")
                    np.testing.assert_array_equal(scores, values[want, j], err_msg=name)
    finally:
        classwise.WHOLE_COLUMN = saved


@settings(max_examples=20, deadline=None)
@given(data=corpora, limit=st.sampled_from([None, 1, 4, 40]))
def test_policies_on_the_sparse_layout_are_those_of_the_dense_table(data, limit):
    """max and the round robin exactly (order, scores, groups); sum and wavg to rounding
    (they add the same values in another order)."""
    dense, sparse = both(data[0], **data[1])
    if not (dense.class_sizes > 0).any():
        return
    for name in LABEL_SETS:
        table = compute(sparse, name, dense=False)
        if table.storage != "cells":
            continue
        values = table.table().values
        for aggregate in ("max", "sum", "wavg"):
            got = table.reduce(aggregate)
            want = globalise(values, aggregate, table.weights)
            if aggregate == "max":
                np.testing.assert_array_equal(got, want, err_msg=name)
            else:
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)
        a = ranking_of(table, "rr", limit=limit)  # the dense layout's table, written whole:
        b = ranking_of(compute(dense, name), "rr", limit=limit)  # policies.rank_terms
        for got, want in zip((a.index, a.scores, a.groups), (b.index, b.scores, b.groups),
                             strict=True):
            np.testing.assert_array_equal(got, want, err_msg=name)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_counts_of_chunks_add_up_in_either_layout(seed, mixed):
    """Counts of two chunks with different labels add to the counts of the whole, whatever
    the chunks' layouts; the sum of a sparse chunk is sparse."""
    X, labels = corpus(seed, n_docs=30)
    whole = Counts.from_matrix(X, labels, layout="dense")
    half = 15
    first = Counts.from_matrix(X[:half], labels[:half], layout="sparse")
    second = Counts.from_matrix(X[half:], labels[half:], layout="dense" if mixed else "sparse")
    total = first + second
    assert total.layout == "sparse"
    assert total.equals(whole)


def test_selecting_terms_classes_and_one_label_is_the_same_on_both_layouts():
    dense, sparse = both(7, n_docs=40, n_terms=30)
    pick = np.array([0, 3, 5, 9])
    assert sparse.select_terms(pick).equals(dense.select_terms(pick))
    mask = dense.class_sizes > 1
    assert sparse.select_classes(mask).equals(dense.select_classes(mask))
    assert sparse.select_classes([1, 4]).equals(dense.select_classes([1, 4]))
    assert sparse.one_vs_rest(2).equals(dense.one_vs_rest(2))
    assert sparse.with_documents.layout == "sparse"


def test_auto_layout_is_sparse_for_a_large_table_of_few_non_zero_cells():
    """Above SMALL_TABLE cells, fewer than SPARSE_BELOW of them non-zero: sparse."""
    rng = np.random.default_rng(0)
    n_terms, n_labels = 20_000, 100  # 2M cells > SMALL_TABLE
    X = sp.random(60, n_terms, density=0.002, format="csr", random_state=rng)
    labels = [[int(v)] for v in rng.integers(0, n_labels, 60)]
    auto = Counts.from_matrix(X, labels, classes=list(range(n_labels)))
    assert auto.layout == "sparse" and auto.n_nonzero <= X.nnz
    single = Counts.from_matrix(X, [v[0] for v in labels], classes=list(range(n_labels)))
    assert single.layout == "sparse" and single.equals(auto.to_layout("sparse")) is False
    small = Counts.from_matrix(X[:, :100], labels)
    assert small.layout == "dense"  # 100 x 100 cells: small, whatever its share
    assert counting.choose_layout("auto", 2**21, 2**21 // 16 - 1) == "sparse"
    assert counting.choose_layout("auto", 2**21, 2**21 // 16) == "dense"
    with pytest.raises(TextsiftError, match="unknown layout 'packed'; choose one of auto"):
        Counts.from_matrix(X, labels, layout="packed")


def test_a_dense_table_that_cannot_fit_is_refused_with_the_memory_it_would_need(monkeypatch):
    """"More labels than fit the chosen layout": refused before the work, with the memory it
    would need: 20,000 terms x 100 labels x (4 + 8) bytes = 22.9 MiB."""
    rng = np.random.default_rng(0)
    X = sp.random(60, 20_000, density=0.002, format="csr", random_state=rng)
    labels = [[int(v)] for v in rng.integers(0, 100, 60)]
    sparse = Counts.from_matrix(X, labels, classes=list(range(100)), layout="sparse")
    monkeypatch.setattr(counting, "available_memory", lambda: 2**20)
    with pytest.raises(TextsiftError, match=r"a dense count table of 20,000 terms x 100 classes "
                                            r"would need 23 MiB \(12 bytes a cell\), more than "
                                            r"the 1 MiB of memory available; count with "
                                            r"layout='sparse'"):
        Counts.from_matrix(X, labels, classes=list(range(100)), layout="dense")
    with pytest.raises(TextsiftError, match="keep the sparse layout"):
        sparse.to_layout("dense")
    # the score table's columns: the 44 labels with a document; 20,000 x 44 x 8 B = 6.7 MiB
    with pytest.raises(TextsiftError, match="a dense score table of 20,000 terms x 44 classes "
                                            r"would need 7 MiB \(8 bytes a cell\)"):
        compute(sparse, "chi2")
    with pytest.raises(TextsiftError, match="a dense table of p-values of 20,000 terms x 44 "
                                            r"classes would need 7 MiB \(8 bytes a cell\)"):
        _ = pvalues(sparse, "chi2").values  # written from the distinct tables, still checked
    assert pvalues(sparse, "chi2").at([0], [0]).shape == (1,)  # read without the table
    ranked = ranking_of(compute(sparse, "chi2", dense=False), "max")  # never the table
    assert len(ranked.index) == 20_000


def test_term_weights_outside_the_counted_cells_are_refused():
    docs = sp.csc_matrix(np.array([[1, 0], [0, 2]]))
    weights = sp.csc_matrix(np.array([[1.0, 3.0], [0.0, 2.0]]))  # weight where A = 0
    with pytest.raises(TextsiftError, match="term_freq has weight in a cell where doc_counts"):
        Counts(np.array(["a", "b"]), np.array([1, 2]), docs, weights)
    fewer = sp.csc_matrix(np.array([[2.0, 0.0], [0.0, 5.0]]))
    fewer.data[:] = [2.0, 5.0]
    ok = Counts(np.array(["a", "b"]), np.array([1, 2]), docs, fewer)
    np.testing.assert_array_equal(ok.term_freq.toarray(), [[2, 0], [0, 5]])


def test_stream_totals_of_sparse_chunks_are_the_counts_of_the_whole(monkeypatch):
    """Chunks counted in the sparse layout (forced here) add up, in the exact mode, to the
    counts of the whole corpus."""
    from textsift.engines.readers import Chunk
    from textsift.engines.stream import count_exact

    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(40)]
    texts = [" ".join(rng.choice(words, 6)) for _ in range(50)]
    labels = [[f"l{v}" for v in rng.choice(9, rng.integers(0, 3), replace=False)]
              for _ in range(50)]
    whole = Counts.from_texts(texts, labels)
    chunks = [Chunk(texts[i:i + 7], labels[i:i + 7]) for i in range(0, 50, 7)]
    monkeypatch.setattr(counting, "SMALL_TABLE", 0)
    monkeypatch.setattr(counting, "SPARSE_BELOW", 1.01)
    streamed = count_exact(lambda: iter(chunks))
    assert streamed.layout == "sparse" and streamed.equals(whole)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), layouts=st.lists(st.sampled_from(["dense", "sparse"]),
                                                    min_size=1, max_size=6),
       sum_after=st.sampled_from([0, 2**22]))
def test_table_sums_of_chunks_in_either_layout_are_the_counts_of_the_whole(seed, layouts,
                                                                           sum_after):
    """Chunks counted in any mix of layouts, over vocabularies and label sets that grow from
    chunk to chunk, add up (``TermTotals``, whose tables are a ``TableSums``) to the counts of
    the whole corpus, whenever the list of cells is summed (``SUM_AFTER = 0``: after every
    chunk); the storage turns into cells when a chunk comes sparse, and only then."""
    import textsift.counting._sums as sums
    from textsift.engines.stream import TermTotals

    rng = np.random.default_rng(seed)
    X, labels = corpus(seed, n_docs=7 * len(layouts), n_terms=20, n_labels=6)
    names = np.array([f"t{i:02d}" for i in range(20)], dtype=object)
    shown = np.zeros(X.shape)  # the entries of each chunk's own terms
    totals = TermTotals()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sums, "SUM_AFTER", sum_after)
        for i, layout in enumerate(layouts):
            rows = slice(7 * i, 7 * i + 7)
            cols = np.sort(rng.permutation(20)[:rng.integers(12, 21)])  # this chunk's terms
            shown[rows, cols] = 1
            totals.add(Counts.from_matrix(X[rows][:, cols], labels[rows],
                                          feature_names=names[cols], layout=layout))
    whole = Counts.from_matrix(sp.csr_matrix(X.multiply(shown)), labels, feature_names=names)
    summed = totals.counts()
    seen = summed.feature_names
    assert summed.equals(whole.select_terms(np.isin(names, seen)).select_classes(
        np.isin(whole.classes, summed.classes)))
    assert (totals.tables.cells is None) == ("sparse" not in layouts)


# ----------------------------------------------------------------------------- registry
def _quantity(counts, name):
    if name == "df":
        return counts.df.astype(float)
    if name == "TF(t)":
        return counts.tf
    tf = counts.term_freq.astype(float)  # sum_j p(t|c_j), rc's smoothed p
    return ((tf + 1) / (tf.sum(axis=0, keepdims=True) + counts.n_terms)).sum(axis=1)


@pytest.mark.parametrize("name", sorted(n for n, m in REGISTRY.items() if m.absent))
@pytest.mark.parametrize("seed", range(4))
def test_each_method_orders_its_absent_terms_as_the_registry_says(name, seed):
    """Method.absent: within a class, the scores of the terms no document of the class has
    follow the stated quantity (rising, falling, or the same for every term), checked on the
    dense table of random counts (label sets and single labels)."""
    from textsift.scores._registry import ABSENT_ORDERS

    X, labels = corpus(seed, n_docs=60, n_terms=40, density=0.15)
    single = [v[0] if v else -1 for v in labels]
    quantity, direction = ABSENT_ORDERS[REGISTRY[name].absent]
    for counts in (Counts.from_matrix(X, labels), Counts.from_matrix(X, single)):
        counts = counts.with_documents
        values = compute(counts, name).values
        q = None if quantity is None else _quantity(counts, quantity)
        for j in range(values.shape[1]):
            absent = np.flatnonzero((counts.doc_counts[:, j] == 0) & counts.seen)
            s = values[absent, j]
            if direction == 0:
                assert np.all(s == s[0]) if len(s) else True, name
                continue
            ranked = s[np.lexsort((s * direction, q[absent]))] * direction
            steps = np.diff(ranked)
            assert np.all((steps >= 0) | np.isclose(steps, 0, atol=1e-12)), (name, j)


def test_a_fold_of_sparse_counts_is_cached_and_read_back(tmp_path):
    """The experiment's fold cache keeps the sparse layout's cells (sorted within each
    label) and their term weights: the counts read back equal those written."""
    from textsift.experiment.folds import load_fold, save_fold
    from textsift.experiment.specs import TrainTest

    X, labels = corpus(5, n_docs=40, n_terms=30)
    labels = [[f"l{v}" for v in row] for row in labels]  # an experiment's labels: text
    counts = Counts.from_matrix(X, labels, feature_names=np.array([f"t{i}" for i in range(30)]),
                                layout="sparse")
    Y = counts.doc_counts  # any sparse matrix stands for the indicators here
    fold = TrainTest(X_train=X.tocsr(), y_train=sp.csr_matrix(Y.T), X_test=X.tocsr(),
                     y_test=sp.csr_matrix(Y.T), counts=counts)
    save_fold(fold, tmp_path / "fold.npz")
    back = load_fold(tmp_path / "fold.npz").counts
    assert back.layout == "sparse" and back.equals(counts)
