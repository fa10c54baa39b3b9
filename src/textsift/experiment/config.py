"""The experiment file (TOML) parser: each table read and checked by one function into the
value types of :mod:`.specs`.

The tables and every key they accept, with types, defaults and meanings, are in
:mod:`.schema` (the documentation's experiment reference is generated from it); a key left out
takes the schema's default, read here through :func:`~.schema.default`::

    [experiment]     name, seed, n_jobs
    [corpus]         path | sample, dataset, test_path, text_field, label_field, split_field,
                     train_split, test_split, label_kind ("nominal" | "ordinal" | "multilabel"),
                     ranks, skip_bad_lines, strip_labels, label_sep
    [evaluation]     protocol ("split" | "cv"), folds, stratified, test_size, metrics, tasks,
                     label_set
    [preprocessing]  the preprocessing options (textsift._options.PREPROCESSING): min_df,
                     max_df, stop_words, stem, language, ngram_range, analyzer, tokenizer, ...
    [selection]      methods, aggregates, sizes | ratios, alphas, correction, family, baselines,
                     rr_variant, method_params, scope
    [tuning]         val_size, and a list of values per tuned parameter of a method or learner
    [[learners]]     name, label, weighting, and the estimator's own parameters

Every key is checked: an unknown key names itself and the table it is in, with the keys that
table accepts. ``$VARS`` (e.g. ``${TEXTSIFT_DATA}``) are expanded, and an unset variable is an
error naming it. A relative path written in the TOML is relative to the TOML file; one that
starts with a variable is relative to the working directory (where the variable was set), so
``TEXTSIFT_DATA=../shared/data textsift run examples/x.toml`` means what it says.

A method is a registered name (``textsift methods``) or ``"package.module:function"``, a
scoring function of :class:`~textsift.counting.counts.Counts` (see
:class:`~textsift.selection.selectors.TermSelector`), imported when the file is read. From Python,
the
function itself may be put in the list, and ``preprocessing`` may be a
:class:`~textsift.text.vectorize.VectorizerOptions` (every field of it, as the command line builds
them).

``label_kind`` is the kind of the labels (:class:`~textsift.labels.LabelKind`): what the file says
or, for a nominal file over label lists, ``"multilabel"`` (:func:`~textsift.labels.decide_kind`).
``_tasks.for_labels`` turns the experiment into the one for that kind and checks every key
against it, when the file is read (a kind the labels cannot change: ``"ordinal"``,
``"multilabel"``) or when the corpus is (a nominal file), before anything is written.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from .._bounds import ALPHA, FRACTION, RATIO
from .._choices import CORRECTIONS, FAMILIES, RR_VARIANTS
from .._options import PREPROCESSING
from ..errors import CorpusError, TextsiftError, check_n_jobs
from ..labels import LABEL_SETS, LabelKind
from ..learners import LEARNERS, PER_LABEL_KEYS, THRESHOLD_KEYS, WEIGHTINGS
from ..reading.corpus import SAMPLES, is_table
from ..reading.sources import check_reading
from ..selection.policies import AGGREGATES
from ..text.vectorize import VectorizerOptions
from ._keys import TABLES, ConfigError, bounded, choice, resolve_path, typed, unknown
from ._methods import (
    check_alpha_levels,
    check_learner,
    check_method_params,
    method_name,
    method_param_names,
)
from ._tasks import check_learner_task, check_measure, check_method_kind, for_labels
from .schema import BASELINES, LEARNER_KEYS, SCHEMA, default
from .specs import CorpusSpec, Experiment, LearnerSpec, Tuning

__all__ = ["ConfigError", "for_labels", "load_config", "parse_config"]


#: The greatest seed numpy's RandomState (and so scikit-learn's random_state) accepts.
SEED_MAX = 2**32 - 1


def _get(t: dict, table: str, key: str):
    """``t[key]``, or the schema's default."""
    return t[key] if key in t else default(table, key)


def parse_config(data: dict, base: Path = Path("."), src: str = "<config>") -> Experiment:
    """Validate a parsed TOML document (``base``: the folder relative paths start from)."""
    unknown(data, set(TABLES), "the top level (tables)", src)
    for key, allowed in TABLES.items():
        if allowed is not None and key in data and not isinstance(data[key], dict) and not (
                key == "preprocessing" and isinstance(data[key], VectorizerOptions)):
            raise ConfigError(f"{src}: {key!r} must be a table [{key}]")
    exp = data.get("experiment", {})
    unknown(exp, TABLES["experiment"], "[experiment]", src)
    if "corpus" not in data:
        raise ConfigError(f"{src}: missing the [corpus] table (path or sample)")
    corpus = corpus_section(data["corpus"], base, src)
    if "selection" not in data:
        raise ConfigError(f"{src}: missing the [selection] table (methods, and sizes, ratios "
                          "or alphas)")
    evaluation = evaluation_section(data.get("evaluation", {}), data["selection"], corpus, src)
    selection = selection_section(data["selection"], corpus.label_kind, src)
    learners = learners_section(data.get("learners"), corpus.label_kind, src)
    tuning = tuning_section(data.get("tuning"), selection, learners, src)
    seed = typed(_get(exp, "experiment", "seed"), int, "[experiment] seed", src)
    if not 0 <= seed <= SEED_MAX:  # numpy RandomState's bounds: the folds and the learners
        raise ConfigError(f"{src}: [experiment] seed must be an integer in [0, 2**32 - 1] "
                          f"(numpy's RandomState takes no other), got {seed}; e.g. seed = 0")
    n_jobs = typed(_get(exp, "experiment", "n_jobs"), int, "[experiment] n_jobs", src)
    try:
        check_n_jobs(n_jobs, "[experiment] n_jobs")
    except TextsiftError as exc:
        raise ConfigError(f"{src}: {exc}") from None
    parsed = Experiment(
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
    kinds = LabelKind.possible(parsed.kind)  # one: the labels cannot change it
    return for_labels(parsed, kinds[0]) if len(kinds) == 1 else parsed


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


# --------------------------------------------------------------------------- tables
def corpus_section(t: dict, base: Path, src: str) -> CorpusSpec:
    unknown(t, SCHEMA["corpus"], "[corpus]", src)
    if ("path" in t) == ("sample" in t):
        raise ConfigError(f"{src}: [corpus] needs exactly one of 'path' (a file or a list of "
                          f"files) or 'sample' ({', '.join(SAMPLES)})")
    paths: tuple[str, ...] = ()
    sample = table = None
    if "path" in t and is_table(t["path"]):  # from Python: a DataFrame or a Dataset
        table = t["path"]
    elif "path" in t:
        raw = t["path"] if isinstance(t["path"], list) else [t["path"]]
        paths = tuple(resolve_path(p, base, "[corpus] path", src) for p in raw)
        if not paths:
            raise ConfigError(f"{src}: [corpus] path is an empty list")
    else:
        sample = choice(t["sample"], tuple(SAMPLES), "[corpus] sample", src)
    test_path = t.get("test_path")
    if test_path is not None:
        test_path = resolve_path(test_path, base, "[corpus] test_path", src)
    kind = LabelKind(choice(_get(t, "corpus", "label_kind"), tuple(LabelKind),
                            "[corpus] label_kind", src))
    ranks = t.get("ranks")
    if ranks is not None:
        if not kind.ranks:
            raise ConfigError(f"{src}: [corpus] ranks is only for label_kind = 'ordinal'")
        if not (isinstance(ranks, list) and len(ranks) >= 2
                and all(isinstance(r, int) and not isinstance(r, bool) for r in ranks)):
            raise ConfigError(f"{src}: [corpus] ranks must be a list of at least two integers")
        ranks = tuple(sorted(set(ranks)))
    fields = {k: typed(_get(t, "corpus", k), str, f"[corpus] {k}", src) for k in (
        "text_field", "label_field", "split_field", "train_split", "test_split")}
    if sample and "label_field" not in t:
        fields["label_field"] = SAMPLES[sample][2]  # the sample's own field
    dataset = t.get("dataset", sample or (type(table).__name__ if table is not None
                                          else _dataset_name(Path(paths[0]))))
    flags = {k: typed(_get(t, "corpus", k), bool, f"[corpus] {k}", src)
             for k in ("skip_bad_lines", "strip_labels")}
    label_sep = _get(t, "corpus", "label_sep")
    if label_sep is not None and (not isinstance(label_sep, str) or not label_sep):
        raise ConfigError(f"{src}: [corpus] label_sep must be one or more characters (e.g. "
                          f"\";\"), got {label_sep!r}")
    reading = {k: _get(t, "corpus", k) for k in ("encoding", "sep")}
    try:
        check_reading(**reading)
    except CorpusError as exc:
        raise ConfigError(f"{src}: [corpus] {exc}") from None
    return CorpusSpec(dataset=typed(dataset, str, "[corpus] dataset", src), paths=paths,
                      sample=sample, test_path=test_path, label_kind=kind, ranks=ranks,
                      label_sep=label_sep, **flags, **fields, **reading, table=table)


def _dataset_name(path: Path) -> str:
    """A file's name without extensions, or its folder's when the file is named like a part
    (``amazon_alexa/all.jsonl.gz`` is ``amazon_alexa``)."""
    stem = path.name.split(".")[0]
    return path.parent.name if stem in ("all", "train", "test", "data") else stem


def evaluation_section(ev: dict, selection: dict, corpus: CorpusSpec, src: str) -> dict:
    unknown(ev, SCHEMA["evaluation"], "[evaluation]", src)
    protocol = choice(_get(ev, "evaluation", "protocol"), ("split", "cv"),
                      "[evaluation] protocol", src)
    if protocol == "split" and "folds" in ev:
        raise ConfigError(f"{src}: [evaluation] folds applies to protocol = 'cv' only")
    folds = typed(_get(ev, "evaluation", "folds"), int, "[evaluation] folds", src) if (
        protocol == "cv") else 1
    if folds < 2 and protocol == "cv":
        raise ConfigError(f"{src}: [evaluation] folds must be at least 2 for protocol = 'cv'")
    test_size = ev.get("test_size")
    if test_size is not None:
        if protocol != "split" or corpus.test_path:
            raise ConfigError(f"{src}: [evaluation] test_size (a random stratified test part) "
                              "is for protocol = 'split' without [corpus] test_path")
        test_size = bounded(test_size, FRACTION, "[evaluation] test_size", src)
    tasks = choice(_get(ev, "evaluation", "tasks"), ("multiclass", "one_vs_rest"),
                   "[evaluation] tasks", src)
    if tasks == "one_vs_rest" and _get(selection, "selection", "aggregates") != ["default"]:
        raise ConfigError(f"{src}: with tasks = 'one_vs_rest' each binary task ranks terms by "
                          "its positive class's scores; remove [selection] aggregates")
    measures = _get(ev, "evaluation", "metrics")
    if not isinstance(measures, list) or not measures:
        raise ConfigError(f"{src}: [evaluation] metrics must be a non-empty list")
    for m in measures:
        check_measure(m, LabelKind.possible(corpus.label_kind), src)
    stratified = typed(_get(ev, "evaluation", "stratified"), bool, "[evaluation] stratified",
                       src)
    label_set = choice(_get(ev, "evaluation", "label_set"), LABEL_SETS,
                       "[evaluation] label_set", src)
    return {"protocol": protocol, "folds": folds, "test_size": test_size, "tasks": tasks,
            "stratified": stratified, "metrics": tuple(dict.fromkeys(measures)),
            "label_set": label_set}


def preprocessing_section(t, src: str) -> VectorizerOptions:
    """``[preprocessing]``: every key of its schema table (given, or its default) passed to
    :class:`~textsift.text.vectorize.VectorizerOptions`; from Python, the options themselves."""
    if isinstance(t, VectorizerOptions):
        return t
    unknown(t, SCHEMA["preprocessing"], "[preprocessing]", src)
    opts = {}
    for option in PREPROCESSING:
        key = option.name
        value = _get(t, "preprocessing", key)
        if key == "stop_words" and (value is False or value == ""):
            value = None
        elif value is not None:  # a default of None (stop_words, tokenizer) is not a value
            typed(value, option.types, f"[preprocessing] {key}", src)
        opts[key] = value
    try:
        return VectorizerOptions(**opts)
    except TextsiftError as exc:  # a value out of range (min_df = 0, max_df = 0, ...)
        raise ConfigError(f"{src}: [preprocessing] {exc}") from None


def _size(value, src: str):
    if value == "all":
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{src}: [selection] sizes holds {value!r}; use positive integers "
                          "or \"all\"")
    return value


def _levels(t: dict, src: str) -> tuple[list, list, list]:
    """``[selection]``'s sizes, ratios and alphas: at least one given, never both sizes and
    ratios (a level is a number of terms or a fraction of the vocabulary, not both)."""
    if "sizes" in t and "ratios" in t:
        raise ConfigError(f"{src}: [selection] takes sizes (numbers of terms, e.g. [100, 500, "
                          "\"all\"]) or ratios (fractions of the training vocabulary, e.g. "
                          "[0.01, 0.1]), not both")
    given = [t.get(key, []) for key in ("sizes", "ratios", "alphas")]
    if not all(isinstance(v, list) for v in given) or not any(given):
        raise ConfigError(f"{src}: [selection] needs sizes, ratios or alphas as a non-empty "
                          "list, e.g. sizes = [100, 500], ratios = [0.01, 0.1] or alphas = "
                          "[0.01, 0.05]")
    return given[0], given[1], given[2]


def selection_section(t: dict, kind: str, src: str) -> dict:
    unknown(t, SCHEMA["selection"], "[selection]", src)
    methods = t.get("methods")
    if not isinstance(methods, list) or not methods:
        raise ConfigError(f"{src}: [selection] methods must be a non-empty list of method names")
    methods = [method_name(m, src) for m in methods]
    for m in methods:
        check_method_kind(m, LabelKind.possible(kind), src)
    aggregates = _get(t, "selection", "aggregates")
    if not isinstance(aggregates, list) or not aggregates:
        raise ConfigError(f"{src}: [selection] aggregates must be a list, e.g. [\"max\", \"rr\"]")
    for a in aggregates:
        choice(a, ("default",) + AGGREGATES, "[selection] aggregates entry", src)
    sizes, ratios, alphas = _levels(t, src)
    if alphas and not sizes and not ratios:
        check_alpha_levels(methods, LabelKind.possible(kind), src)
    baselines = _get(t, "selection", "baselines")
    if not isinstance(baselines, list):
        raise ConfigError(f"{src}: [selection] baselines must be a list, e.g. [\"ffs\", \"triv\"]")
    for b in baselines:
        choice(b, BASELINES, "[selection] baselines entry", src)
    scope = _get(t, "selection", "scope")
    scope = [scope] if isinstance(scope, str) else scope
    if not isinstance(scope, list) or not scope:
        raise ConfigError(f"{src}: [selection] scope must be \"global\", \"local\" or a list "
                          "of them")
    for s in scope:
        choice(s, ("global", "local"), "[selection] scope", src)
    params = _get(t, "selection", "method_params")
    typed(params, dict, "[selection] method_params", src)
    unknown(params, set(methods), "[selection.method_params] (a table per listed method)", src)
    for name, given in params.items():
        where = f"[selection.method_params.{name}]"
        unknown(typed(given, dict, where, src), set(method_param_names(name)), where, src)
        check_method_params(name, given, where, src)
    return {
        "methods": tuple(dict.fromkeys(methods)),
        "aggregates": tuple(dict.fromkeys(aggregates)),
        "sizes": tuple(dict.fromkeys(_size(s, src) for s in sizes)),
        "ratios": tuple(sorted({bounded(r, RATIO, "[selection] ratios entry", src)
                                for r in ratios})),
        "alphas": tuple(sorted({bounded(a, ALPHA, "[selection] alphas entry", src)
                                for a in alphas})),
        "correction": choice(_get(t, "selection", "correction"), CORRECTIONS,
                             "[selection] correction", src),
        "family": choice(_get(t, "selection", "family"), FAMILIES, "[selection] family", src),
        "baselines": tuple(b for b in BASELINES if b in baselines),
        "rr_variant": choice(_get(t, "selection", "rr_variant"), RR_VARIANTS,
                             "[selection] rr_variant", src),
        "method_params": tuple(sorted((m, tuple(sorted(p.items()))) for m, p in params.items())),
        "scope": tuple(s for s in ("global", "local") if s in scope),
    }


#: The keys of a ``[[learners]]`` table that set Yang's thresholds (the experiment's
#: validation part gives ``val_size``).
THRESHOLD_CONFIG_KEYS = ("threshold", *(k for k in THRESHOLD_KEYS if k != "val_size"),
                         *PER_LABEL_KEYS)


def learners_section(items, kind: str, src: str) -> tuple[LearnerSpec, ...]:
    if not isinstance(items, list) or not items:
        raise ConfigError(f"{src}: add at least one [[learners]] table, e.g. name = \"nb\"")
    out = []
    for i, t in enumerate(items, start=1):
        where = f"[[learners]] #{i}"
        typed(t, dict, where, src)
        name = choice(t.get("name"), tuple(LEARNERS), f"{where} name", src)
        learner = LEARNERS[name]
        unknown(t, {*LEARNER_KEYS, *learner.keys}, f"{where} ({name})", src)
        weighting = choice(t.get("weighting", learner.weighting), tuple(WEIGHTINGS),
                           f"{where} weighting", src)
        params = tuple(sorted((k, v) for k, v in t.items()
                              if k in learner.keys or k in THRESHOLD_CONFIG_KEYS))
        cut = t.get("threshold")
        own = "+per_label" if any(k in t for k in PER_LABEL_KEYS) else ""
        label = f"{name}{own}" if cut is None else f"{name}{own}+{cut}"
        spec = LearnerSpec(name, typed(t.get("label", label), str, f"{where} label", src),
                           weighting, params)
        check_learner_task(spec, LabelKind.possible(kind), where, src)
        check_learner(spec, f"{where} ({name})", src)
        out.append(spec)
    labels = [lr.label for lr in out]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{src}: two [[learners]] share a label ({labels}); give each a "
                          "distinct label = \"...\"")
    return tuple(out)


def tuning_section(t, selection: dict, learners, src: str) -> Tuning | None:
    """``[tuning]``: ``val_size`` and a non-empty list per parameter of a listed method (its
    scoring function's keyword) or of a learner (a key its [[learners]] table accepts)."""
    if t is None:
        return None
    typed(t, dict, "[tuning]", src)
    method_keys = {p for m in selection["methods"] for p in method_param_names(m)}
    learner_keys = {p for lr in learners for p in lr.tunable}
    unknown(t, {"val_size"} | method_keys | learner_keys, "[tuning] (val_size, or a "
            "parameter of a listed method or learner)", src)
    grids = []
    for key in sorted(k for k in t if k != "val_size"):
        values = t[key]
        if not isinstance(values, list) or not values or len(set(map(repr, values))) != len(
                values):
            raise ConfigError(f"{src}: [tuning] {key} must be a non-empty list of distinct "
                              f"values to try, e.g. {key} = [0.3, 3]")
        fixed = [lr.label for lr in learners if key in dict(lr.params)] + [
            m for m, p in selection["method_params"] if key in dict(p)]
        if fixed:
            raise ConfigError(f"{src}: {key} is tuned in [tuning] and fixed for {fixed[0]!r} "
                              "([[learners]] or [selection.method_params]); remove one of the "
                              "two")
        for value in values:  # each value the grid will try, checked now
            for lr in learners:
                if key in lr.tunable:
                    check_learner(lr, f"[tuning] {key} = {value!r} ({lr.label})", src,
                                  **{key: value})
            for m in selection["methods"]:
                if key in method_param_names(m):
                    check_method_params(m, {key: value}, f"[tuning] {key} = {value!r} ({m})",
                                        src)
        grids.append((key, tuple(values)))
    if not grids:
        raise ConfigError(f"{src}: [tuning] has no parameter to tune; add e.g. C = [0.3, 3], "
                          "or remove the table")
    val_size = bounded(_get(t, "tuning", "val_size"), FRACTION, "[tuning] val_size", src)
    return Tuning(val_size, tuple(grids))
