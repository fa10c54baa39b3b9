"""Shared fixtures. Tests marked ``real_data`` read the corpora in ``$TEXTSIFT_DATA``
(CI sets it to ``../shared/data``); without it they are skipped with a message saying so."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA_ENV = "TEXTSIFT_DATA"


def data_dir() -> Path | None:
    value = os.environ.get(DATA_ENV)
    if value and Path(value).is_dir():
        return Path(value)
    return None


def pytest_collection_modifyitems(config, items):
    if data_dir() is not None:
        return
    skip = pytest.mark.skip(
        reason=f"needs the real corpora: set {DATA_ENV}=/path/to/shared/data "
        "(e.g. TEXTSIFT_DATA=../shared/data make test)"
    )
    for item in items:
        if "real_data" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def real_data() -> Path:
    d = data_dir()
    if d is None:
        pytest.skip(f"set {DATA_ENV} to the shared data folder")
    return d
