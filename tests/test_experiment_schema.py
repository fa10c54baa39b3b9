"""The documented schema of an experiment file (textsift.experiment.schema) is the one the
validation uses: every literal default it states is what a minimal file gets, and every key it
lists is accepted. (The documentation's experiment reference is printed from it.)"""

import pytest

from textsift.experiment import parse_config
from textsift.experiment.config import _SCHEMA
from textsift.experiment.schema import LEARNER_KEYS, SCHEMA, TUNING_KEYS

MINIMAL = {"corpus": {"sample": "20ng"},
           "selection": {"methods": ["chi2"], "sizes": [10]},
           "learners": [{"name": "nb"}]}


def _plain(value):
    if isinstance(value, list | tuple):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(value.items())
    return value


def _where(exp, table):
    return {"corpus": exp.corpus, "preprocessing": exp.preprocessing}.get(table, exp)


DEFAULTS = [(t, k, key.default) for t, keys in SCHEMA.items() for k, key in keys.items()
            if key.default is not None]


@pytest.mark.parametrize(("table", "key", "default"), DEFAULTS,
                         ids=[f"{t}.{k}" for t, k, _ in DEFAULTS])
def test_every_documented_default_is_what_a_minimal_file_gets(table, key, default):
    exp = parse_config(MINIMAL)
    assert _plain(getattr(_where(exp, table), key)) == _plain(default)


def test_tuning_and_learner_keys_are_the_ones_read():
    exp = parse_config({**MINIMAL, "tuning": {"alpha": [0.1, 1.0]}})
    assert exp.tuning.val_size == TUNING_KEYS["val_size"].default == 0.25
    exp = parse_config({**MINIMAL, "learners": [{"name": "nb", "label": "NB", "weighting":
                                                 "binary"}]})
    assert set(LEARNER_KEYS) == {"name", "label", "weighting"}
    assert (exp.learners[0].label, exp.learners[0].weighting) == ("NB", "binary")


def test_the_validated_tables_are_the_documented_ones():
    assert {t: set(k) for t, k in _SCHEMA.items() if k is not None} == {
        t: set(k) for t, k in SCHEMA.items()}
    assert all(key.doc and key.kind for keys in SCHEMA.values() for key in keys.values())
