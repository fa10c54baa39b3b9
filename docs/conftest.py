"""Every Python code block of the documentation pages runs in the test suite (Sybil).

A page's blocks run in order in one namespace, in a fresh temporary working directory, so an
example may write files. Examples use the samples shipped with the package (``load_sample``),
never the full corpora, and fetch nothing from the network.
"""

import os

import pytest
from sybil import Sybil
from sybil.parsers.myst import PythonCodeBlockParser, SkipParser


@pytest.fixture
def _in_tmp_dir(tmp_path):
    cwd = os.getcwd()
    os.chdir(tmp_path)
    yield
    os.chdir(cwd)


def _setup(namespace):
    import matplotlib

    matplotlib.use("Agg")


pytest_collect_file = Sybil(
    parsers=[PythonCodeBlockParser(), SkipParser()],
    patterns=["*.md"],
    excludes=["reproductions.md", "reproductions/*"],  # measurements over the full corpora
    fixtures=["_in_tmp_dir"],
    setup=_setup,
).pytest()
