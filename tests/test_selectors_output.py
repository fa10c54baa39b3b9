"""``set_output``: TermSelector and OrdinalSelector return pandas or Polars tables of the kept
columns, named, where the input is dense (issue 38 item 5; scikit-learn's own mechanism,
through ``get_feature_names_out``)."""

import numpy as np
import pandas as pd
import polars as pl
import pytest

from textsift import OrdinalSelector, TermSelector, load_sample
from textsift.text.vectorize import vectorize


@pytest.fixture(scope="module")
def dense():
    sample = load_sample("20ng", split="train")
    X, names, _ = vectorize(sample.texts, min_df=5)
    frame = pd.DataFrame(X[:, :300].toarray(), columns=[str(n) for n in names[:300]])
    return frame, np.asarray(sample.labels)


@pytest.mark.parametrize("kind, cls", [("pandas", pd.DataFrame), ("polars", pl.DataFrame)])
def test_term_selector_returns_the_kept_columns_named(dense, kind, cls):
    X, y = dense
    selector = TermSelector("chi2", k=7).set_output(transform=kind).fit(X, y)
    out = selector.transform(X)
    assert isinstance(out, cls) and out.shape == (len(X), 7)
    names = list(out.columns)
    assert names == list(selector.get_feature_names_out())
    np.testing.assert_array_equal(np.asarray(out[names[0]]), X[names[0]].to_numpy())


def test_ordinal_selector_returns_a_polars_table(dense):
    X, y = dense
    ranks = (pd.Series(y).astype("category").cat.codes.to_numpy() % 5) + 1
    out = OrdinalSelector("rr_nc_idf", k=4).set_output(transform="polars").fit(X, ranks)
    assert isinstance(out.transform(X), pl.DataFrame) and out.transform(X).width == 4


def test_sparse_input_with_a_table_output_is_refused_naming_the_fix(dense):
    import scipy.sparse as sp

    X, y = dense
    sparse = sp.csr_matrix(X.to_numpy())
    selector = TermSelector("chi2", k=3).set_output(transform="pandas").fit(sparse, y)
    with pytest.raises(ValueError, match="set_output\\(transform='default'\\)"):
        selector.transform(sparse)
