"""The one lookup of a label among groups (textsift.labels.group_index / group_indices)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from textsift.errors import TextsiftError
from textsift.labels import group_index, group_indices

labels = st.one_of(st.integers(-50, 50), st.text(min_size=1, max_size=6))


def test_a_label_is_found_by_its_text():
    groups = np.array(["1", "2", "sci.space"], dtype=object)
    assert group_index(groups, 2) == 1  # the number 2 finds the class "2"
    assert group_index(np.array([1, 2, 3]), "3") == 2
    np.testing.assert_array_equal(group_indices(groups, ["sci.space", 1, "x", None]),
                                  [2, 0, -1, -1])


def test_a_missing_label_is_named_with_the_groups():
    with pytest.raises(TextsiftError, match=r"class 'x' is not among the classes \[a, b\]"):
        group_index(["a", "b"], "x")


@given(st.lists(labels, min_size=1, max_size=30, unique_by=str), st.lists(labels, max_size=30))
def test_group_indices_is_group_index_of_each(groups, wanted):
    """The vectorised lookup gives what the single lookup gives, -1 where it refuses."""
    got = group_indices(groups, wanted)
    names = [str(g) for g in groups]
    for label, j in zip(wanted, got, strict=True):
        assert j == (names.index(str(label)) if str(label) in names else -1)
