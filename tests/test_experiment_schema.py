"""The documented schema of an experiment file (textsift.experiment.schema) is the one the
validation uses: every literal default it states is what a minimal file gets, the parser has
no default of its own (change one in the schema and a minimal file follows), and every key it
lists is accepted. (The documentation's experiment reference is printed from it.)"""

import dataclasses

import pytest

from textsift.experiment import parse_config
from textsift.experiment._keys import TABLES
from textsift.experiment.schema import LEARNER_KEYS, SCHEMA, TUNING_KEYS
from textsift.reading.corpus import sample_path
from textsift.text.vectorize import VectorizerOptions

MINIMAL = {"corpus": {"sample": "20ng"},
           "selection": {"methods": ["chi2"], "sizes": [10]},
           "learners": [{"name": "nb"}]}
#: What a minimal file needs for a key's default to apply.
CONTEXT = {("evaluation", "folds"): {"evaluation": {"protocol": "cv"}},
           ("tuning", "val_size"): {"tuning": {"alpha": [0.1, 1.0]}},
           ("corpus", "label_field"): {"corpus": {"path": str(sample_path("20ng"))}},
           ("selection", "method_params"): {"selection": {"methods": ["ig"], "sizes": [10]}}}
#: Another valid value of every key with a literal default.
OTHER = {("experiment", "seed"): 5, ("experiment", "n_jobs"): 2,
         ("corpus", "text_field"): "body", ("corpus", "label_field"): "topic",
         ("corpus", "split_field"): "part", ("corpus", "train_split"): "learn",
         ("corpus", "test_split"): "held", ("corpus", "label_kind"): "ordinal",
         ("corpus", "skip_bad_lines"): True, ("corpus", "strip_labels"): True,
         ("evaluation", "protocol"): "cv",
         ("evaluation", "folds"): 4, ("evaluation", "stratified"): False,
         ("evaluation", "metrics"): ["macro_f1"], ("evaluation", "tasks"): "one_vs_rest",
         ("preprocessing", "lowercase"): False, ("preprocessing", "min_df"): 2,
         ("preprocessing", "max_df"): 0.5, ("preprocessing", "stem"): True,
         ("preprocessing", "strip_headers"): True, ("preprocessing", "binary"): True,
         ("preprocessing", "token_pattern"): r"\w+", ("preprocessing", "language"): "german",
         ("preprocessing", "ngram_range"): [1, 2], ("preprocessing", "analyzer"): "char_wb",
         ("selection", "aggregates"): ["sum"], ("selection", "baselines"): ["triv"],
         ("selection", "rr_variant"): "turn_consumed",
         ("selection", "method_params"): {"ig": {"base": 10.0}}, ("tuning", "val_size"): 0.3,
         ("evaluation", "label_set"): "all", ("selection", "scope"): ["local"],
         ("selection", "correction"): "holm", ("selection", "family"): "all"}


def _plain(value):
    if isinstance(value, list | tuple):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(value.items())
    return value


def _read(exp, table, key):
    where = {"corpus": exp.corpus, "preprocessing": exp.preprocessing,
             "tuning": exp.tuning}.get(table, exp)
    value = getattr(where, key)
    return {m: dict(p) for m, p in value} if key == "method_params" else value


def _minimal(table, key):
    return {**MINIMAL, **CONTEXT.get((table, key), {})}


DEFAULTS = [(t, k, key.default) for t, keys in [*SCHEMA.items(), ("tuning", TUNING_KEYS)]
            for k, key in keys.items() if key.default is not None]


@pytest.mark.parametrize(("table", "key", "default"), DEFAULTS,
                         ids=[f"{t}.{k}" for t, k, _ in DEFAULTS])
def test_every_documented_default_is_what_a_minimal_file_gets(table, key, default):
    assert _plain(_read(parse_config(_minimal(table, key)), table, key)) == _plain(default)


@pytest.mark.parametrize(("table", "key", "default"), DEFAULTS,
                         ids=[f"{t}.{k}" for t, k, _ in DEFAULTS])
def test_a_default_is_written_once_in_the_schema(table, key, default, monkeypatch):
    """Changing a default in the schema changes what a minimal file gets: no other place
    (the parser, a dataclass) holds one that could drift."""
    keys = TUNING_KEYS if table == "tuning" else SCHEMA[table]
    monkeypatch.setitem(keys, key, keys[key]._replace(default=OTHER[(table, key)]))
    exp = parse_config(_minimal(table, key))
    assert _plain(_read(exp, table, key)) == _plain(OTHER[(table, key)]) != _plain(default)


def test_every_literal_default_has_another_value_to_try():
    assert {(t, k) for t, k, _ in DEFAULTS} == set(OTHER)


def test_preprocessing_defaults_are_the_vectorizer_options_own():
    fresh = VectorizerOptions()
    for key, spec in SCHEMA["preprocessing"].items():
        assert spec.default == getattr(fresh, key), key
    assert parse_config(MINIMAL).preprocessing == fresh


def test_value_types_have_no_defaults_of_their_own():
    from textsift.experiment import specs

    for cls in (specs.CorpusSpec, specs.LearnerSpec, specs.Tuning, specs.Experiment):
        assert all(f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
                   for f in dataclasses.fields(cls)), cls.__name__


def test_tuning_and_learner_keys_are_the_ones_read():
    exp = parse_config({**MINIMAL, "tuning": {"alpha": [0.1, 1.0]}})
    assert exp.tuning.val_size == TUNING_KEYS["val_size"].default == 0.25
    exp = parse_config({**MINIMAL, "learners": [{"name": "nb", "label": "NB", "weighting":
                                                 "binary"}]})
    assert set(LEARNER_KEYS) == {"name", "label", "weighting", "threshold", "fbr", "fallback",
                                 "cv", "rank", "proportion", "label_ratios", "label_C",
                                 "label_method"}
    assert (exp.learners[0].label, exp.learners[0].weighting) == ("NB", "binary")
    # the thresholds' keys default to the estimator's own (one place: its signature)
    cut = parse_config({**MINIMAL, "learners": [{"name": "nb", "threshold": "scut"}]})
    assert cut.learners[0].params == (("threshold", "scut"),)
    assert cut.learners[0].pipeline(0, multilabel=True).fbr == 0.1
    assert cut.learners[0].pipeline(0, multilabel=True).cv == 3


def test_the_validated_tables_are_the_documented_ones():
    assert {t: set(k) for t, k in TABLES.items() if k is not None} == {
        t: set(k) for t, k in SCHEMA.items()}
    assert all(key.doc and key.kind for keys in SCHEMA.values() for key in keys.values())
