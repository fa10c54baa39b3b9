"""The tables of an experiment file, each read and checked by one function (see
:mod:`.config` for the schema). Every error names the file, the table and the fix."""

from __future__ import annotations

from pathlib import Path

from ..corpus import SAMPLES
from ..errors import TextsiftError
from ..policies import AGGREGATES
from ..vectorize import VectorizerOptions
from ._keys import ConfigError, choice, fraction, resolve_path, typed, unknown
from ._methods import check_learner, check_method_params, method_name, method_param_names
from .schema import (
    BASELINES,
    LEARNER_KEYS,
    LEARNERS,
    METRICS,
    ORDINAL_METRICS,
    SCHEMA,
    TUNING_KEYS,
    WEIGHTINGS,
)

__all__ = ["corpus_section", "evaluation_section", "learners_section", "preprocessing_section",
           "selection_section", "tuning_section"]


# --------------------------------------------------------------------------- tables
def corpus_section(t: dict, base: Path, src: str):
    from .config import CorpusSpec

    unknown(t, SCHEMA["corpus"], "[corpus]", src)
    if ("path" in t) == ("sample" in t):
        raise ConfigError(f"{src}: [corpus] needs exactly one of 'path' (a file or a list of "
                          f"files) or 'sample' ({', '.join(SAMPLES)})")
    paths: tuple[str, ...] = ()
    sample = None
    if "path" in t:
        raw = t["path"] if isinstance(t["path"], list) else [t["path"]]
        paths = tuple(resolve_path(p, base, "[corpus] path", src) for p in raw)
        if not paths:
            raise ConfigError(f"{src}: [corpus] path is an empty list")
    else:
        sample = choice(t["sample"], tuple(SAMPLES), "[corpus] sample", src)
    test_path = t.get("test_path")
    if test_path is not None:
        test_path = resolve_path(test_path, base, "[corpus] test_path", src)
    task = choice(t.get("task", "nominal"), ("nominal", "ordinal"), "[corpus] task", src)
    ranks = t.get("ranks")
    if ranks is not None:
        if task != "ordinal":
            raise ConfigError(f"{src}: [corpus] ranks is only for task = 'ordinal'")
        if not (isinstance(ranks, list) and len(ranks) >= 2
                and all(isinstance(r, int) and not isinstance(r, bool) for r in ranks)):
            raise ConfigError(f"{src}: [corpus] ranks must be a list of at least two integers")
        ranks = tuple(sorted(set(ranks)))
    default_label = SAMPLES[sample][2] if sample else "label"
    dataset = t.get("dataset", sample or _dataset_name(Path(paths[0])))
    fields = {k: typed(t.get(k, d), str, f"[corpus] {k}", src) for k, d in (
        ("text_field", "text"), ("label_field", default_label), ("split_field", "split"),
        ("train_split", "train"), ("test_split", "test"))}
    skip = typed(t.get("skip_bad_lines", False), bool, "[corpus] skip_bad_lines", src)
    return CorpusSpec(dataset=typed(dataset, str, "[corpus] dataset", src), paths=paths,
                      sample=sample, test_path=test_path, task=task, ranks=ranks,
                      skip_bad_lines=skip, **fields)


def _dataset_name(path: Path) -> str:
    """A file's name without extensions, or its folder's when the file is named like a part
    (``amazon_alexa/all.jsonl.gz`` is ``amazon_alexa``)."""
    stem = path.name.split(".")[0]
    return path.parent.name if stem in ("all", "train", "test", "data") else stem


def evaluation_section(ev: dict, selection: dict, corpus, src: str) -> dict:
    unknown(ev, SCHEMA["evaluation"], "[evaluation]", src)
    protocol = choice(ev.get("protocol", "split"), ("split", "cv"), "[evaluation] protocol", src)
    folds = typed(ev.get("folds", 10 if protocol == "cv" else 1), int, "[evaluation] folds", src)
    if protocol == "cv" and folds < 2:
        raise ConfigError(f"{src}: [evaluation] folds must be at least 2 for protocol = 'cv'")
    if protocol == "split" and "folds" in ev:
        raise ConfigError(f"{src}: [evaluation] folds applies to protocol = 'cv' only")
    test_size = ev.get("test_size")
    if test_size is not None:
        if protocol != "split" or corpus.test_path:
            raise ConfigError(f"{src}: [evaluation] test_size (a random stratified test part) "
                              "is for protocol = 'split' without [corpus] test_path")
        test_size = fraction(test_size, "[evaluation] test_size", src)
    tasks = choice(ev.get("tasks", "multiclass"), ("multiclass", "one_vs_rest"),
                   "[evaluation] tasks", src)
    if tasks == "one_vs_rest" and corpus.task != "nominal":
        raise ConfigError(f"{src}: [evaluation] tasks = 'one_vs_rest' needs a nominal task")
    if tasks == "one_vs_rest" and selection.get("aggregates", ["default"]) != ["default"]:
        raise ConfigError(f"{src}: with tasks = 'one_vs_rest' each binary task ranks terms by "
                          "its positive class's scores; remove [selection] aggregates")
    metrics = ev.get("metrics", ["accuracy", "macro_f1"])
    if not isinstance(metrics, list) or not metrics:
        raise ConfigError(f"{src}: [evaluation] metrics must be a non-empty list")
    for m in metrics:
        choice(m, METRICS, "[evaluation] metrics entry", src)
        if m in ORDINAL_METRICS and corpus.task != "ordinal":
            raise ConfigError(f"{src}: metric {m!r} measures rank distances; it needs "
                              "[corpus] task = 'ordinal' (this task is nominal)")
    return {"protocol": protocol, "folds": folds, "test_size": test_size, "tasks": tasks,
            "stratified": typed(ev.get("stratified", True), bool, "[evaluation] stratified",
                                src),
            "metrics": tuple(dict.fromkeys(metrics))}


#: The Python types of the TOML kinds of ``[preprocessing]`` keys.
_KINDS = {"boolean": bool, "string": str, "integer or fraction": (int, float),
          "list of integers": list}


def preprocessing_section(t: dict, src: str) -> VectorizerOptions:
    """Every key of the schema's ``[preprocessing]`` is a :class:`VectorizerOptions` field of
    the same name, checked there (a new option needs its schema row only)."""
    keys = SCHEMA["preprocessing"]
    unknown(t, keys, "[preprocessing]", src)
    opts = {k: None if k == "stop_words" and v in (False, "") else
            typed(v, _KINDS[keys[k].kind], f"[preprocessing] {k}", src) for k, v in t.items()}
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


def selection_section(t: dict, task: str, src: str) -> dict:
    unknown(t, SCHEMA["selection"], "[selection]", src)
    methods = t.get("methods")
    if not isinstance(methods, list) or not methods:
        raise ConfigError(f"{src}: [selection] methods must be a non-empty list of method names")
    methods = [method_name(m, task, src) for m in methods]
    aggregates = t.get("aggregates", ["default"])
    if not isinstance(aggregates, list) or not aggregates:
        raise ConfigError(f"{src}: [selection] aggregates must be a list, e.g. [\"max\", \"rr\"]")
    for a in aggregates:
        choice(a, ("default",) + AGGREGATES, "[selection] aggregates entry", src)
    if ("sizes" in t) == ("ratios" in t):
        raise ConfigError(f"{src}: [selection] needs exactly one of sizes (numbers of terms, "
                          "e.g. [100, 500, \"all\"]) or ratios (fractions of the training "
                          "vocabulary, e.g. [0.01, 0.1])")
    sizes, ratios = t.get("sizes", []), t.get("ratios", [])
    if not isinstance(sizes, list) or not isinstance(ratios, list) or not (sizes or ratios):
        raise ConfigError(f"{src}: [selection] sizes or ratios must be a non-empty list, e.g. "
                          "sizes = [100, 500] or ratios = [0.01, 0.1]")
    baselines = t.get("baselines", [])
    if not isinstance(baselines, list):
        raise ConfigError(f"{src}: [selection] baselines must be a list, e.g. [\"ffs\", \"triv\"]")
    for b in baselines:
        choice(b, BASELINES, "[selection] baselines entry", src)
    params = t.get("method_params", {})
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
        "ratios": tuple(sorted({fraction(r, "[selection] ratios entry", src, one=True)
                                for r in ratios})),
        "baselines": tuple(b for b in BASELINES if b in baselines),
        "rr_variant": choice(t.get("rr_variant", "skip"), ("skip", "turn_consumed"),
                             "[selection] rr_variant", src),
        "method_params": tuple(sorted((m, tuple(sorted(p.items()))) for m, p in params.items())),
    }


def learners_section(items, task: str, src: str) -> tuple:
    from .config import LearnerSpec

    if not isinstance(items, list) or not items:
        raise ConfigError(f"{src}: add at least one [[learners]] table, e.g. name = \"nb\"")
    out = []
    for i, t in enumerate(items, start=1):
        where = f"[[learners]] #{i}"
        typed(t, dict, where, src)
        name = choice(t.get("name"), tuple(LEARNERS), f"{where} name", src)
        _, accepted, weighting = LEARNERS[name]
        unknown(t, {*LEARNER_KEYS, *accepted}, f"{where} ({name})", src)
        if name == "svr" and task != "ordinal":
            raise ConfigError(f"{src}: {where}: 'svr' regresses ranks; it needs task = 'ordinal'")
        weighting = choice(t.get("weighting", weighting), WEIGHTINGS, f"{where} weighting", src)
        params = tuple(sorted((k, v) for k, v in t.items() if k in accepted))
        spec = LearnerSpec(name, typed(t.get("label", name), str, f"{where} label", src),
                           weighting, params)
        check_learner(spec, f"{where} ({name})", src)
        out.append(spec)
    labels = [lr.label for lr in out]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{src}: two [[learners]] share a label ({labels}); give each a "
                          "distinct label = \"...\"")
    return tuple(out)


def tuning_section(t, selection: dict, learners, src: str):
    """``[tuning]``: ``val_size`` and a non-empty list per parameter of a listed method (its
    scoring function's keyword) or of a learner (a key its [[learners]] table accepts)."""
    from .config import Tuning

    if t is None:
        return None
    typed(t, dict, "[tuning]", src)
    method_keys = {p for m in selection["methods"] for p in method_param_names(m)}
    learner_keys = {p for lr in learners for p in LEARNERS[lr.name][1]}
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
                if key in LEARNERS[lr.name][1]:
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
    val_size = fraction(t.get("val_size", TUNING_KEYS["val_size"].default), "[tuning] val_size",
                        src)
    return Tuning(val_size, tuple(grids))
