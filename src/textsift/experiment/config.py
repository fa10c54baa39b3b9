"""The TOML schema of a declarative experiment, read into frozen dataclasses and validated.

An experiment file has six tables::

    [experiment]     name, seed, n_jobs
    [corpus]         dataset, path | sample, test_path, text_field, label_field,
                     split_field, train_split, test_split, task ("nominal" | "ordinal"), ranks
    [evaluation]     protocol ("split" | "cv"), folds, stratified, metrics,
                     tasks ("multiclass" | "one_vs_rest")
    [preprocessing]  lowercase, stop_words, min_df, max_df, stem, strip_headers, binary,
                     token_pattern
    [selection]      methods, aggregates, sizes, rr_variant, method_params
    [[learners]]     name ("nb" | "linear_svm" | "logreg" | "svr"), label, weighting,
                     and the estimator's own parameters (C, alpha, epsilon, ...)

Every key is checked: an unknown key names itself and the table it is in, with the keys that
table accepts. ``$VARS`` (e.g. ``${TEXTSIFT_DATA}``) are expanded, and an unset variable is an
error naming it. A relative path written in the TOML is relative to the TOML file; one that
starts with a variable is relative to the working directory (where the variable was set), so
``TEXTSIFT_DATA=../shared/data textsift run examples/x.toml`` means what it says.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..corpus import SAMPLES
from ..errors import TextsiftError
from ..policies import AGGREGATES
from ..scores import get_method
from ..vectorize import VectorizerOptions

__all__ = [
    "LEARNERS",
    "METRICS",
    "ORDINAL_METRICS",
    "ConfigError",
    "CorpusSpec",
    "Experiment",
    "LearnerSpec",
    "load_config",
    "parse_config",
]

#: Learner name -> (what it is, parameters accepted from TOML, default input weighting).
LEARNERS = {
    "nb": ("multinomial naive Bayes (sklearn MultinomialNB)", ("alpha",), "counts"),
    "linear_svm": ("linear SVM, one-vs-rest (sklearn LinearSVC)",
                   ("C", "max_iter", "tol", "class_weight"), "tfidf"),
    "logreg": ("logistic regression (sklearn LogisticRegression)",
               ("C", "max_iter", "tol", "class_weight"), "tfidf"),
    "svr": ("epsilon-SVR on ranks, rounded (textsift.learners.RankSVR); ordinal tasks only",
            ("C", "epsilon", "balanced", "max_iter", "tol"), "tfidf"),
}
WEIGHTINGS = ("counts", "binary", "tfidf")
NOMINAL_METRICS = ("accuracy", "micro_f1", "macro_f1", "precision", "recall",
                   "misclassification_error")
#: Measures of the positive class of a binary task (label "pos", as in one-vs-rest tasks).
POSITIVE_METRICS = ("f1_pos", "precision_pos", "recall_pos")
ORDINAL_METRICS = ("mae_macro", "mae_micro")
METRICS = NOMINAL_METRICS + POSITIVE_METRICS + ORDINAL_METRICS


class ConfigError(TextsiftError):
    """An experiment file is invalid; the message says where and how to fix it."""


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


@dataclass(frozen=True)
class LearnerSpec:
    name: str
    label: str
    weighting: str
    params: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class Experiment:
    """A validated experiment. ``fingerprint`` identifies its results (``n_jobs`` excluded:
    the table does not depend on it)."""

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
        blob = json.dumps(d, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


# --------------------------------------------------------------------------- helpers
_SCHEMA = {
    "experiment": {"name", "seed", "n_jobs"},
    "corpus": {"dataset", "path", "sample", "test_path", "text_field", "label_field",
               "split_field", "train_split", "test_split", "task", "ranks"},
    "evaluation": {"protocol", "folds", "stratified", "metrics", "tasks"},
    "preprocessing": {"lowercase", "stop_words", "min_df", "max_df", "stem", "strip_headers",
                      "binary", "token_pattern"},
    "selection": {"methods", "aggregates", "sizes", "rr_variant", "method_params"},
    "learners": None,  # an array of tables, checked per learner
}


def _unknown(keys, allowed, where: str, src: str):
    for key in keys:
        if key not in allowed:
            close = difflib.get_close_matches(key, sorted(allowed), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(
                f"{src}: unknown key {key!r} in {where}{hint}; allowed keys there: "
                f"{', '.join(sorted(allowed))}"
            )


def _typed(value, types, what: str, src: str):
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _tuple(types)):
        names = "/".join(t.__name__ for t in _tuple(types))
        raise ConfigError(f"{src}: {what} must be {names}, got {value!r}")
    return value


def _tuple(types):
    return types if isinstance(types, tuple) else (types,)


def _choice(value, choices, what: str, src: str):
    if value not in choices:
        raise ConfigError(f"{src}: {what} = {value!r} is not one of {', '.join(map(str, choices))}")
    return value


_VAR = re.compile(r"\$(\w+|\{[^}]*\})")


def _resolve_path(raw: str, base: Path, what: str, src: str) -> str:
    _typed(raw, str, what, src)
    for m in _VAR.finditer(raw):
        var = m.group(1).strip("{}")
        if var not in os.environ:
            raise ConfigError(
                f"{src}: {what} uses ${var}, which is not set; export {var} (e.g. "
                f"{var}=/path/to/shared/data) or write the path out"
            )
    path = Path(os.path.expandvars(raw)).expanduser()
    if not path.is_absolute():
        # a path that starts with a variable (TEXTSIFT_DATA=../shared/data) is relative to
        # the working directory, where the variable was set; a literal one to the TOML
        path = (Path.cwd() if _VAR.match(raw) else base) / path
    if not path.exists():
        raise ConfigError(f"{src}: {what} {str(path)!r} does not exist; check the path")
    return str(path.resolve())


# --------------------------------------------------------------------------- sections
def _corpus(t: dict, base: Path, src: str) -> CorpusSpec:
    _unknown(t, _SCHEMA["corpus"], "[corpus]", src)
    if ("path" in t) == ("sample" in t):
        raise ConfigError(f"{src}: [corpus] needs exactly one of 'path' (a file or a list of "
                          f"files) or 'sample' ({', '.join(SAMPLES)})")
    paths: tuple[str, ...] = ()
    sample = None
    if "path" in t:
        raw = t["path"] if isinstance(t["path"], list) else [t["path"]]
        paths = tuple(_resolve_path(p, base, "[corpus] path", src) for p in raw)
        if not paths:
            raise ConfigError(f"{src}: [corpus] path is an empty list")
    else:
        sample = _choice(t["sample"], tuple(SAMPLES), "[corpus] sample", src)
    test_path = t.get("test_path")
    if test_path is not None:
        test_path = _resolve_path(test_path, base, "[corpus] test_path", src)
    task = _choice(t.get("task", "nominal"), ("nominal", "ordinal"), "[corpus] task", src)
    ranks = t.get("ranks")
    if ranks is not None:
        if task != "ordinal":
            raise ConfigError(f"{src}: [corpus] ranks is only for task = 'ordinal'")
        if not (isinstance(ranks, list) and len(ranks) >= 2
                and all(isinstance(r, int) and not isinstance(r, bool) for r in ranks)):
            raise ConfigError(f"{src}: [corpus] ranks must be a list of at least two integers")
        ranks = tuple(sorted(set(ranks)))
    default_label = SAMPLES[sample][2] if sample else "label"
    dataset = t.get("dataset", sample or Path(paths[0]).name.split(".")[0])
    fields = {k: _typed(t.get(k, d), str, f"[corpus] {k}", src) for k, d in (
        ("text_field", "text"), ("label_field", default_label), ("split_field", "split"),
        ("train_split", "train"), ("test_split", "test"))}
    return CorpusSpec(dataset=_typed(dataset, str, "[corpus] dataset", src), paths=paths,
                      sample=sample, test_path=test_path, task=task, ranks=ranks, **fields)


def _preprocessing(t: dict, src: str) -> VectorizerOptions:
    _unknown(t, _SCHEMA["preprocessing"], "[preprocessing]", src)
    stop = t.get("stop_words", None)
    if stop is False or stop == "":
        stop = None
    if stop is not None:
        _choice(stop, ("english",), "[preprocessing] stop_words", src)
    opts = {}
    for key, types in (("lowercase", bool), ("stem", bool), ("strip_headers", bool),
                       ("binary", bool), ("min_df", (int, float)), ("max_df", (int, float)),
                       ("token_pattern", str)):
        if key in t:
            opts[key] = _typed(t[key], types, f"[preprocessing] {key}", src)
    return VectorizerOptions(stop_words=stop, **opts)


def _size(value, src: str):
    if value == "all":
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{src}: [selection] sizes holds {value!r}; use positive integers "
                          "or \"all\"")
    return value


def _selection(t: dict, task: str, src: str) -> dict:
    _unknown(t, _SCHEMA["selection"], "[selection]", src)
    methods = t.get("methods")
    if not isinstance(methods, list) or not methods:
        raise ConfigError(f"{src}: [selection] methods must be a non-empty list of method names")
    for name in methods:
        try:
            m = get_method(name)
        except ValueError as exc:
            raise ConfigError(f"{src}: [selection] methods: {exc}") from None
        if m.kind == "ordinal" and task != "ordinal":
            raise ConfigError(f"{src}: method {name!r} is ordinal; set [corpus] task = 'ordinal'")
    aggregates = t.get("aggregates", ["default"])
    if not isinstance(aggregates, list) or not aggregates:
        raise ConfigError(f"{src}: [selection] aggregates must be a list, e.g. [\"max\", \"rr\"]")
    for a in aggregates:
        _choice(a, ("default",) + AGGREGATES, "[selection] aggregates entry", src)
    sizes = t.get("sizes")
    if not isinstance(sizes, list) or not sizes:
        raise ConfigError(f"{src}: [selection] sizes must be a non-empty list, e.g. [100, 500]")
    params = t.get("method_params", {})
    _typed(params, dict, "[selection] method_params", src)
    _unknown(params, set(methods), "[selection.method_params] (a table per listed method)", src)
    return {
        "methods": tuple(dict.fromkeys(methods)),
        "aggregates": tuple(dict.fromkeys(aggregates)),
        "sizes": tuple(dict.fromkeys(_size(s, src) for s in sizes)),
        "rr_variant": _choice(t.get("rr_variant", "skip"), ("skip", "turn_consumed"),
                              "[selection] rr_variant", src),
        "method_params": tuple(sorted((m, tuple(sorted(p.items()))) for m, p in params.items())),
    }


def _learners(items, task: str, src: str) -> tuple[LearnerSpec, ...]:
    if not isinstance(items, list) or not items:
        raise ConfigError(f"{src}: add at least one [[learners]] table, e.g. name = \"nb\"")
    out = []
    for i, t in enumerate(items, start=1):
        where = f"[[learners]] #{i}"
        _typed(t, dict, where, src)
        name = _choice(t.get("name"), tuple(LEARNERS), f"{where} name", src)
        _, accepted, weighting = LEARNERS[name]
        _unknown(t, {"name", "label", "weighting", *accepted}, f"{where} ({name})", src)
        if name == "svr" and task != "ordinal":
            raise ConfigError(f"{src}: {where}: 'svr' regresses ranks; it needs task = 'ordinal'")
        weighting = _choice(t.get("weighting", weighting), WEIGHTINGS, f"{where} weighting", src)
        params = tuple(sorted((k, v) for k, v in t.items() if k in accepted))
        out.append(LearnerSpec(name, _typed(t.get("label", name), str, f"{where} label", src),
                               weighting, params))
    labels = [lr.label for lr in out]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{src}: two [[learners]] share a label ({labels}); give each a "
                          "distinct label = \"...\"")
    return tuple(out)


def parse_config(data: dict, base: Path = Path("."), src: str = "<config>") -> Experiment:
    """Validate a parsed TOML document (``base``: the folder relative paths start from)."""
    _unknown(data, set(_SCHEMA), "the top level (tables)", src)
    for key, allowed in _SCHEMA.items():
        if allowed is not None and key in data and not isinstance(data[key], dict):
            raise ConfigError(f"{src}: {key!r} must be a table [{key}]")
    exp = data.get("experiment", {})
    _unknown(exp, _SCHEMA["experiment"], "[experiment]", src)
    if "corpus" not in data:
        raise ConfigError(f"{src}: missing the [corpus] table (path or sample)")
    corpus = _corpus(data["corpus"], base, src)
    ev = data.get("evaluation", {})
    _unknown(ev, _SCHEMA["evaluation"], "[evaluation]", src)
    protocol = _choice(ev.get("protocol", "split"), ("split", "cv"), "[evaluation] protocol", src)
    folds = _typed(ev.get("folds", 10 if protocol == "cv" else 1), int, "[evaluation] folds", src)
    if protocol == "cv" and folds < 2:
        raise ConfigError(f"{src}: [evaluation] folds must be at least 2 for protocol = 'cv'")
    if protocol == "split" and "folds" in ev:
        raise ConfigError(f"{src}: [evaluation] folds applies to protocol = 'cv' only")
    tasks = _choice(ev.get("tasks", "multiclass"), ("multiclass", "one_vs_rest"),
                    "[evaluation] tasks", src)
    if tasks == "one_vs_rest" and corpus.task != "nominal":
        raise ConfigError(f"{src}: [evaluation] tasks = 'one_vs_rest' needs a nominal task")
    if tasks == "one_vs_rest" and data.get("selection", {}).get("aggregates", ["default"]) != [
            "default"]:
        raise ConfigError(f"{src}: with tasks = 'one_vs_rest' each binary task ranks terms by "
                          "its positive class's scores; remove [selection] aggregates")
    metrics = ev.get("metrics", ["accuracy", "macro_f1"])
    if not isinstance(metrics, list) or not metrics:
        raise ConfigError(f"{src}: [evaluation] metrics must be a non-empty list")
    for m in metrics:
        _choice(m, METRICS, "[evaluation] metrics entry", src)
        if m in ORDINAL_METRICS and corpus.task != "ordinal":
            raise ConfigError(f"{src}: metric {m!r} measures rank distances; it needs "
                              "[corpus] task = 'ordinal' (this task is nominal)")
    if "selection" not in data:
        raise ConfigError(f"{src}: missing the [selection] table (methods, sizes)")
    seed = _typed(exp.get("seed", 0), int, "[experiment] seed", src)
    n_jobs = _typed(exp.get("n_jobs", 1), int, "[experiment] n_jobs", src)
    if n_jobs == 0:
        raise ConfigError(f"{src}: [experiment] n_jobs must be positive (or -1 for all cores)")
    return Experiment(
        name=_typed(exp.get("name", Path(src).stem), str, "[experiment] name", src),
        corpus=corpus,
        preprocessing=_preprocessing(data.get("preprocessing", {}), src),
        learners=_learners(data.get("learners"), corpus.task, src),
        metrics=tuple(dict.fromkeys(metrics)),
        protocol=protocol,
        folds=folds,
        stratified=_typed(ev.get("stratified", True), bool, "[evaluation] stratified", src),
        tasks=tasks,
        seed=seed,
        n_jobs=n_jobs,
        source=src,
        **_selection(data["selection"], corpus.task, src),
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

