"""The keys an experiment file accepts, with their types, defaults and meaning.

This table is what the validation reads (an unknown key is an error naming the keys its table
accepts, and a key left out takes the default written here: the parser has no default of its
own) and what the documentation prints (the experiment reference is generated from it), so
the two cannot drift; a test checks that every literal default here is the one a minimal file
gets. The learners (:data:`textsift.learners.LEARNERS`) and the evaluation measures
(:data:`textsift.learners.metrics.MEASURES`) are read from their registries where they are checked
and
documented (never copied here at import); the policies are
:data:`textsift.selection.policies.AGGREGATES`; the ``[preprocessing]`` keys are the preprocessing
options' one definition, from which :class:`~textsift.text.vectorize.VectorizerOptions` and the
command line's options are made too.
"""

from __future__ import annotations

from typing import NamedTuple

from .._bounds import ALPHA, FRACTION, RATIO
from .._choices import CORRECTION, CORRECTIONS, FAMILY, RR_VARIANTS
from .._options import PREPROCESSING
from ..learners import LABEL_RATIOS, WEIGHTINGS
from ..selection.policies import AGGREGATES

__all__ = ["BASELINES", "CLASS_WEIGHT", "LEARNER_KEYS", "SCHEMA", "TUNING_KEYS", "Key",
           "default"]


class Key(NamedTuple):
    """One key of an experiment file: its TOML type, its default (``None`` when it is
    required or derived, as ``doc`` says) and what it means."""

    kind: str
    default: object
    doc: str


#: Baseline rows: every term (FFS), and the trivial predictor (Triv).
BASELINES = ("ffs", "triv")


def _choices(values) -> str:
    return ", ".join(f'"{v}"' for v in values)


#: Table -> key -> :class:`Key`. ``[tuning]`` and ``[[learners]]`` take further keys that
#: depend on the methods and learners chosen (:data:`TUNING_KEYS`, :data:`LEARNER_KEYS`).
SCHEMA: dict[str, dict[str, Key]] = {
    "experiment": {
        "name": Key("string", None, "Name shown in the report; default the file's name."),
        "seed": Key("integer", 0, "Seed of every random choice (folds, validation parts, "
                    "learners): the same seed gives the same table."),
        "n_jobs": Key("integer", 1, "Trials run in parallel (joblib); -1 uses every core. "
                      "The table does not depend on it."),
    },
    "corpus": {
        "path": Key("string or list", None, "The corpus: a file (.jsonl[.gz], .csv[.gz], "
                    ".parquet), a directory of them, a glob, or a list of these. Exactly one "
                    "of path and sample. A path starting with a variable "
                    "(``${TEXTSIFT_DATA}/...``) is relative to the working directory; any "
                    "other relative path to the TOML file. From Python "
                    "(``parse_config``), a table in memory too: a pandas or Polars "
                    "DataFrame, or a Hugging Face Dataset (resuming hashes its texts, "
                    "labels and split values)."),
        "sample": Key("string", None, "A corpus shipped with textsift instead of path: "
                      '"20ng" or "reviews".'),
        "dataset": Key("string", None, "Name of the data set in the results; default the "
                       "file's (or its folder's) name, or the table's type (DataFrame)."),
        "test_path": Key("string", None, "A separate test file; without it the split field "
                         "decides (protocol = \"split\")."),
        "text_field": Key("string", "text", "Field holding the text."),
        "label_field": Key("string", "label", "Field holding the class (or the rating of "
                           "an ordinal task); with sample, the sample's own field."),
        "split_field": Key("string", "split", "Field saying which part a record is in."),
        "train_split": Key("string", "train", "Value of the split field for training "
                           "records."),
        "test_split": Key("string", "test", "Value of the split field for test records."),
        "label_kind": Key("string", "nominal", 'Kind of labels: "nominal" (classes), "ordinal" '
                    '(ordered integer ranks such as 1-5 stars) or "multilabel" (a set of labels '
                    "per document: label lists in the data). A nominal corpus whose label "
                    "field holds lists is read as multilabel."),
        "label_sep": Key("string", None, "The separator of several labels in a CSV label "
                         'field (``"earn;acq"``), as ``--label-sep``: a multilabel corpus.'),
        "encoding": Key("string", None, "The encoding of JSON Lines and CSV files, as "
                        "``--encoding`` (e.g. \"latin-1\"); default UTF-8."),
        "sep": Key("string", None, "The character separating a CSV file's fields, as "
                   "``--sep`` (e.g. \";\"); default the extension's."),
        "ranks": Key("list of integers", None, "The whole rating scale of an ordinal task "
                     "(e.g. [1, 2, 3, 4, 5]), when the data may lack some rank; default the "
                     "ranks present."),
        "skip_bad_lines": Key("boolean", False, "Skip (and count) malformed JSONL lines "
                              "instead of stopping at the first."),
        "strip_labels": Key("boolean", False, "Remove the white space around each label "
                            '("sci.space " is "sci.space"); labels that differ only by white '
                            "space or case are warned about either way. Case is kept."),
    },
    "evaluation": {
        "protocol": Key("string", "split", '"split" (train/test parts) or "cv" (k-fold '
                        "cross-validation over the whole corpus)."),
        "folds": Key("integer", 10, 'Number of folds for protocol = "cv".'),
        "stratified": Key("boolean", True, "Stratify the folds (and the validation parts) "
                          "by label."),
        "test_size": Key("fraction", None, 'A random stratified test part for protocol = '
                         f'"split" when the corpus has no split field ({FRACTION.words}).'),
        "metrics": Key("list of strings", ["accuracy", "macro_f1"], "Evaluation measures, "
                       "the first one deciding tuning: the registered measures (see below)."),
        "tasks": Key("string", "multiclass", '"multiclass" (one task over all classes) or '
                     '"one_vs_rest" (each class a binary task against the others, terms '
                     "ranked by its own scores, as Forman 2003)."),
        "label_set": Key("string", "train_and_test", "Multilabel task: the labels learned "
                         'and measured in each fold: "train_and_test" (those with a training '
                         "and a test document, as Reuters-21578 ModApte's 90 categories) or "
                         '"all" (every label of the corpus).'),
    },
    "preprocessing": {o.name: Key(o.kind, o.default, o.doc) for o in PREPROCESSING},
    "selection": {
        "methods": Key("list of strings", None, "Scoring methods (`textsift methods` lists "
                       'them), or your own function as "package.module:function".'),
        "aggregates": Key("list of strings", ["default"], "Policies turning per-class scores "
                          f'into one ranking: "default" (the method\'s own), '
                          f"{_choices(AGGREGATES)}."),
        "sizes": Key("list", None, 'Numbers of terms to keep, or "all" (every term of each '
                     "fold's own training vocabulary). At least one of sizes, ratios and "
                     "alphas; not both sizes and ratios."),
        "ratios": Key("list of fractions", None, "Fractions of each fold's training "
                      f"vocabulary to keep (reduction levels), each {RATIO.words}."),
        "alphas": Key("list of fractions", None, f"Significance levels, each {ALPHA.words}: "
                      "a level per "
                      "alpha keeps the terms whose p-value, adjusted by correction over family, "
                      "passes it in any class (scikit-learn's SelectFdr, SelectFpr, SelectFwe), "
                      "two-sided; the number kept is each fold's own (n_features, and the alpha "
                      "in the results' alpha column). Only the methods that are tests (those "
                      "with a p-value in `textsift methods`) have these levels."),
        "correction": Key("string", CORRECTION, "Multiple-testing correction of alphas: "
                          f"{_choices(CORRECTIONS)} (as --correction)."),
        "family": Key("string", FAMILY, 'The family a correction runs over: "class" (each '
                      'class\'s terms) or "all" (every term-class cell), as --family.'),
        "baselines": Key("list of strings", [], 'Extra rows: "ffs" (every term) and "triv" '
                         "(the middle rank, or the majority class)."),
        "rr_variant": Key("string", RR_VARIANTS[0], "Round-robin rule for a term already "
                          f'taken: "{RR_VARIANTS[0]}" to the next one, or "{RR_VARIANTS[1]}" '
                          "(JaTeCS)."),
        "method_params": Key("table of tables", {}, "Parameters of a method, e.g. "
                             "[selection.method_params.var_idf] a = 16."),
        "scope": Key("string or list", ["global"], 'Multilabel task: "global" (one '
                     "vocabulary for every label, through each policy of aggregates, as Yang "
                     'and Pedersen 1997), "local" (each label\'s binary learner on its own top '
                     "terms, as Forman 2003's one-against-all tasks; aggregate \"local\" in the "
                     'results), or both: ["global", "local"].'),
    },
}

#: Keys of ``[tuning]``: ``val_size``, then one list per parameter to tune.
TUNING_KEYS = {
    "val_size": Key("fraction", 0.25, "Stratified part of each training set on which the "
                    f"grid is tried ({FRACTION.words}); the first measure chooses, then terms "
                    "are re-selected and the learner refitted on the whole training set."),
    "<parameter>": Key("list", None, "Values to try for a parameter of a listed method "
                       "(e.g. the IDF exponent a = [1, 16]) or learner (e.g. C = [0.3, 3]); "
                       "every combination is tried."),
}

def _cut(name: str):
    """The default of a parameter of the thresholds: the estimator's own."""
    import inspect

    from ..learners import FixedThresholdClassifier, TunedThresholdClassifier

    for estimator in (TunedThresholdClassifier, FixedThresholdClassifier):
        if name in inspect.signature(estimator).parameters:
            return inspect.signature(estimator).parameters[name].default
    raise KeyError(name)


#: Keys of each ``[[learners]]`` table, besides the learner's own parameters
#: (the ``params`` of its :class:`textsift.learners.Learner`).
LEARNER_KEYS = {
    "name": Key("string", None, "The learner: a registered learner (the table below)."),
    "label": Key("string", None, "Its name in the results; default its name. Two learners "
                 "of one file need distinct labels."),
    "weighting": Key("string", None, f"Input of the learner over the selected terms: "
                     f"{_choices(WEIGHTINGS)}; default the learner's own (see below)."),
    "threshold": Key("string", None, "Label sets only: how each label is decided, instead "
                     'of each binary learner\'s own cut: "scut" (a threshold per label tuned '
                     "on held-out training documents to the label's best F1 there: `cv` inner "
                     "folds of the training part, or one validation part; Yang 2001, Fan and "
                     'Lin 2007), "micromacro" (per-label '
                     "thresholds on `cv` inner folds, default 3, maximising micro-F1 plus the "
                     "label's share of macro-F1, LibMultiLabel's thresholding; Lin et al. 2023), "
                     '"rcut" (each document\'s `rank` best labels), "pcut" (each label to its '
                     "`proportion` x training share of the test documents; Yang 2001) or "
                     '"cost" (each label\'s positive-class weight chosen on `cv` inner folds, '
                     "default 3, among 1 to 13; Fan and Lin 2007); default none. The label "
                     'in the results defaults to "name+threshold".'),
    "fbr": Key("fraction", None, "SCut: a label whose best held-out F1 is below it falls "
               f"back (Yang's SCutFBR) to `fallback`; default {_cut('fbr')}."),
    "fallback": Key("string", None, 'SCut\'s fallback: "top" (the label\'s highest '
                    'held-out score, SCutFBR.1) or "never" (SCutFBR.0); default '
                    f"{_cut('fallback')!r}."),
    "cv": Key("integer or fraction", None, "scut, micromacro and cost: inner folds of the "
              "training part (at least 2), each label's threshold the mean of its folds' (Fan "
              "and Lin's SCutFBR.1 with cross-validation); for scut and micromacro a fraction "
              "(e.g. 0.25) holds out one validation part of that share instead (Yang's SCut); "
              f"default {_cut('cv')}."),
    "rank": Key("integer", None, f"RCut: the labels each document gets; default {_cut('rank')}."),
    "label_ratios": Key("list of fractions", None, "Label sets: the shares of the terms the "
                        "learner is given that each label's own learner may keep, its terms "
                        "ranked by `label_method` on each inner fold's training part and the "
                        "share with the label's best held-out F1 (SCut's, with a threshold) on "
                        "`cv` inner folds chosen per label (the fewest terms on a tie); with "
                        "`threshold` none, \"scut\" or \"micromacro\", tuned on the same folds; "
                        f"default {list(LABEL_RATIOS)} when `label_C` is given."),
    "label_C": Key("list of numbers", None, "Label sets: the C values tried per label on "
                   "the same inner folds as `label_ratios`, each label keeping its best."),
    "label_method": Key("string", None, "The method ranking each label's terms for "
                        "`label_ratios` (a method scoring each label: chi2, ig, bns, ...); "
                        "default chi2."),
    "proportion": Key("number", None, "PCut: the factor on each label's training share of "
                      f"the documents; default {_cut('proportion')}."),
}


#: The key every learner of nominal labels takes besides its own parameters
#: (:attr:`textsift.learners.Learner.keys`); a ``[tuning]`` list may try its values.
CLASS_WEIGHT = Key("string or table", None, 'Weight of each class in the fit: "balanced" '
                   "(class c weighs n / (m n_c): every class weighs as much in total) or a table "
                   "class -> positive weight (a class left out weighs 1; with tasks = "
                   '"one_vs_rest" the classes are "pos" and "neg"); default none, every document '
                   "weighs 1. The same for every learner of nominal labels: linear_svm and logreg "
                   "take it as their class_weight, nb as sample weights in its fit.")


def default(table: str, key: str):
    """The default of ``key`` in ``[table]`` (``"tuning"`` for :data:`TUNING_KEYS`): the one
    place a key's default is written. A list or table default is returned as a copy."""
    value = (TUNING_KEYS if table == "tuning" else SCHEMA[table])[key].default
    return value.copy() if isinstance(value, list | dict) else value
