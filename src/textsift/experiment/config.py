"""An experiment file (TOML) read into frozen dataclasses and validated.

The tables and every key they accept, with types, defaults and meanings, are in
:mod:`.schema` (the documentation's experiment reference is generated from it)::

    [experiment]     name, seed, n_jobs
    [corpus]         path | sample, dataset, test_path, text_field, label_field, split_field,
                     train_split, test_split, task ("nominal" | "ordinal"), ranks,
                     skip_bad_lines
    [evaluation]     protocol ("split" | "cv"), folds, stratified, test_size, metrics, tasks
    [preprocessing]  lowercase, stop_words, min_df, max_df, stem, strip_headers, binary,
                     token_pattern
    [selection]      methods, aggregates, sizes | ratios, baselines, rr_variant, method_params
    [tuning]         val_size, and a list of values per tuned parameter of a method or learner
    [[learners]]     name, label, weighting, and the estimator's own parameters

Every key is checked: an unknown key names itself and the table it is in, with the keys that
table accepts. ``$VARS`` (e.g. ``${TEXTSIFT_DATA}``) are expanded, and an unset variable is an
error naming it. A relative path written in the TOML is relative to the TOML file; one that
starts with a variable is relative to the working directory (where the variable was set), so
``TEXTSIFT_DATA=../shared/data textsift run examples/x.toml`` means what it says.

A method is a registered name (``textsift methods``) or ``"package.module:function"``, a
scoring function of :class:`~textsift.counts.Counts` (see
:class:`~textsift.selectors.TermSelector`), imported when the file is read; from Python, the
function itself may be put in the list.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import TextsiftError, check_n_jobs
from ..vectorize import VectorizerOptions
from ._keys import TABLES, ConfigError, typed, unknown
from ._methods import resolve_method as resolve_method
from ._sections import (
    corpus_section,
    evaluation_section,
    learners_section,
    preprocessing_section,
    selection_section,
    tuning_section,
)
from .schema import LEARNERS, METRICS, ORDINAL_METRICS, POSITIVE_METRICS

__all__ = [
    "LEARNERS",
    "METRICS",
    "ORDINAL_METRICS",
    "POSITIVE_METRICS",
    "ConfigError",
    "CorpusSpec",
    "Experiment",
    "LearnerSpec",
    "Tuning",
    "load_config",
    "parse_config",
    "resolve_method",
]

_SCHEMA = TABLES  # the keys each table accepts (tests read it)


@dataclass(frozen=True)
class CorpusSpec:
    dataset: str
    paths: tuple[str, ...] = ()
    sample: str | None = None
    test_path: str | None = None
    text_field: str = "text"
    label_field: str = "label"
    split_field: str = "split"
    train_split: str = "train"
    test_split: str = "test"
    task: str = "nominal"
    ranks: tuple[int, ...] | None = None
    skip_bad_lines: bool = False


@dataclass(frozen=True)
class LearnerSpec:
    name: str
    label: str
    weighting: str
    params: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class Tuning:
    """Parameters chosen on a validation part: ``val_size`` of each fold's training set
    (stratified) is held out, every combination of ``grids`` is tried there, the first metric
    decides (ties: the first in grid order), then terms are re-selected and the learner refit
    on the whole training set with the chosen values."""

    val_size: float
    grids: tuple[tuple[str, tuple], ...]


@dataclass(frozen=True)
class Experiment:
    """A validated experiment. ``fingerprint`` identifies its results (``n_jobs`` excluded:
    the table does not depend on it). Exactly one of ``sizes`` (numbers of terms, or
    ``"all"``) and ``ratios`` (fractions of each fold's training vocabulary) is non-empty."""

    name: str
    corpus: CorpusSpec
    preprocessing: VectorizerOptions
    methods: tuple[str, ...]
    aggregates: tuple[str, ...]
    sizes: tuple[int | str, ...]
    learners: tuple[LearnerSpec, ...]
    metrics: tuple[str, ...]
    protocol: str = "split"
    folds: int = 1
    stratified: bool = True
    tasks: str = "multiclass"
    seed: int = 0
    n_jobs: int = 1
    rr_variant: str = "skip"
    method_params: tuple[tuple[str, tuple[tuple[str, object], ...]], ...] = ()
    ratios: tuple[float, ...] = ()
    baselines: tuple[str, ...] = ()
    tuning: Tuning | None = None
    test_size: float | None = None
    source: str = field(default="", compare=False)

    @property
    def n_folds(self) -> int:
        return self.folds if self.protocol == "cv" else 1

    def params_of(self, method: str) -> dict:
        return dict(dict(self.method_params).get(method, ()))

    def as_dict(self) -> dict:
        d = asdict(self)
        d.pop("source")
        return d

    @property
    def fingerprint(self) -> str:
        d = self.as_dict()
        d.pop("n_jobs")
        if d["tasks"] == "multiclass":  # as before the option existed: old runs still resume
            d.pop("tasks")
        if not d["corpus"]["skip_bad_lines"]:  # likewise
            d["corpus"].pop("skip_bad_lines")
        blob = json.dumps(d, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def parse_config(data: dict, base: Path = Path("."), src: str = "<config>") -> Experiment:
    """Validate a parsed TOML document (``base``: the folder relative paths start from)."""
    unknown(data, set(TABLES), "the top level (tables)", src)
    for key, allowed in TABLES.items():
        if allowed is not None and key in data and not isinstance(data[key], dict):
            raise ConfigError(f"{src}: {key!r} must be a table [{key}]")
    exp = data.get("experiment", {})
    unknown(exp, TABLES["experiment"], "[experiment]", src)
    if "corpus" not in data:
        raise ConfigError(f"{src}: missing the [corpus] table (path or sample)")
    corpus = corpus_section(data["corpus"], base, src)
    if "selection" not in data:
        raise ConfigError(f"{src}: missing the [selection] table (methods, sizes or ratios)")
    evaluation = evaluation_section(data.get("evaluation", {}), data["selection"], corpus, src)
    selection = selection_section(data["selection"], corpus.task, src)
    learners = learners_section(data.get("learners"), corpus.task, src)
    tuning = tuning_section(data.get("tuning"), selection, learners, src)
    seed = typed(exp.get("seed", 0), int, "[experiment] seed", src)
    n_jobs = typed(exp.get("n_jobs", 1), int, "[experiment] n_jobs", src)
    try:
        check_n_jobs(n_jobs, "[experiment] n_jobs")
    except TextsiftError as exc:
        raise ConfigError(f"{src}: {exc}") from None
    return Experiment(
        name=typed(exp.get("name", Path(src).stem), str, "[experiment] name", src),
        corpus=corpus,
        preprocessing=preprocessing_section(data.get("preprocessing", {}), src),
        learners=learners,
        seed=seed,
        n_jobs=n_jobs,
        tuning=tuning,
        source=src,
        **evaluation,
        **selection,
    )


def load_config(path) -> Experiment:
    """Read and validate an experiment TOML file."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such experiment file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    return parse_config(data, path.parent, str(path))
