"""The identity with scikit-learn's ``CountVectorizer`` that the counting tests assert: the same
vocabulary, order, dtype and matrix (imported by test_vectorize and test_ngrams)."""

import numpy as np
import scipy.sparse as sp

from textsift.text.vectorize import VectorizerOptions, build_vectorizer, vectorize


def reference(texts, opts):
    """``CountVectorizer``'s matrix (canonical CSR) and vocabulary under ``opts``."""
    vec = build_vectorizer(opts)
    X = sp.csr_matrix(vec.fit_transform(texts))
    X.sort_indices()
    return X, vec.get_feature_names_out().tolist()


def assert_identical(texts, opts=VectorizerOptions()):
    X, names, _ = vectorize(texts, opts)
    Y, want = reference(texts, opts)
    assert names.tolist() == want
    assert X.dtype == Y.dtype == np.int32 and X.shape == Y.shape
    np.testing.assert_array_equal(X.indptr, Y.indptr)
    np.testing.assert_array_equal(X.indices, Y.indices)
    np.testing.assert_array_equal(X.data, Y.data)
