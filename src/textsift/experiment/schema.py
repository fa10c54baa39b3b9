"""The keys an experiment file accepts, with their types, defaults and meaning.

This table is what the validation reads (an unknown key is an error naming the keys its table
accepts) and what the documentation prints (the experiment reference is generated from it), so
the two cannot drift; a test checks that every literal default here is the one a minimal file
gets.
"""

from __future__ import annotations

from typing import NamedTuple

from ..policies import AGGREGATES

__all__ = ["BASELINES", "LEARNERS", "LEARNER_KEYS", "METRICS", "NOMINAL_METRICS",
           "ORDINAL_METRICS", "POSITIVE_METRICS", "SCHEMA", "TUNING_KEYS", "WEIGHTINGS", "Key"]


class Key(NamedTuple):
    """One key of an experiment file: its TOML type, its default (``None`` when it is
    required or derived, as ``doc`` says) and what it means."""

    kind: str
    default: object
    doc: str


#: Learner name -> (what it is, parameters accepted from TOML, default input weighting).
LEARNERS = {
    "nb": ("multinomial naive Bayes (sklearn MultinomialNB)", ("alpha",), "counts"),
    "linear_svm": ("linear SVM, one-vs-rest (sklearn LinearSVC)",
                   ("C", "max_iter", "tol", "class_weight"), "tfidf"),
    "logreg": ("logistic regression (sklearn LogisticRegression)",
               ("C", "max_iter", "tol", "class_weight"), "tfidf"),
    "svr": ("epsilon-SVR on ranks, rounded (textsift.learners.RankSVR); ordinal tasks only",
            ("C", "epsilon", "balanced", "max_iter", "tol"), "sublinear_tfidf"),
}
#: Input weightings: term counts, presence, tf-idf (L2-normalised), and tf-idf with
#: ``1 + ln tf`` (Baccianella et al.'s learner input), all over the selected terms.
WEIGHTINGS = ("counts", "binary", "tfidf", "sublinear_tfidf")
#: Measures of a nominal task (averaged ones are macro-averages over the classes).
NOMINAL_METRICS = ("accuracy", "micro_f1", "macro_f1", "precision", "recall",
                   "misclassification_error")
#: Measures of the positive class of a binary task (label "pos", as in one-vs-rest tasks).
POSITIVE_METRICS = ("f1_pos", "precision_pos", "recall_pos")
#: Measures of an ordinal task: MAE^M (averaged over the true ranks) and MAE^mu.
ORDINAL_METRICS = ("mae_macro", "mae_micro")
#: Every measure an experiment may report.
METRICS = NOMINAL_METRICS + POSITIVE_METRICS + ORDINAL_METRICS
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
        "n_jobs": Key("integer", 1, "Cells run in parallel (joblib); -1 uses every core. "
                      "The table does not depend on it."),
    },
    "corpus": {
        "path": Key("string or list", None, "The corpus: a file (.jsonl[.gz], .csv[.gz], "
                    ".parquet), a directory of them, a glob, or a list of these. Exactly one "
                    "of path and sample. A path starting with a variable "
                    "(``${TEXTSIFT_DATA}/...``) is relative to the working directory; any "
                    "other relative path to the TOML file."),
        "sample": Key("string", None, "A corpus shipped with textsift instead of path: "
                      '"20ng" or "reviews".'),
        "dataset": Key("string", None, "Name of the data set in the results; default the "
                       "file's (or its folder's) name."),
        "test_path": Key("string", None, "A separate test file; without it the split field "
                         "decides (protocol = \"split\")."),
        "text_field": Key("string", "text", "Field holding the text."),
        "label_field": Key("string", None, "Field holding the class (or the rating of an "
                           'ordinal task); default "label" (the sample\'s own field for '
                           "sample)."),
        "split_field": Key("string", "split", "Field saying which part a record is in."),
        "train_split": Key("string", "train", "Value of the split field for training "
                           "records."),
        "test_split": Key("string", "test", "Value of the split field for test records."),
        "task": Key("string", "nominal", 'Kind of labels: "nominal" (classes) or "ordinal" '
                    "(ordered integer ranks such as 1-5 stars)."),
        "ranks": Key("list of integers", None, "The whole rating scale of an ordinal task "
                     "(e.g. [1, 2, 3, 4, 5]), when the data may lack some rank; default the "
                     "ranks present."),
        "skip_bad_lines": Key("boolean", False, "Skip (and count) malformed JSONL lines "
                              "instead of stopping at the first."),
    },
    "evaluation": {
        "protocol": Key("string", "split", '"split" (train/test parts) or "cv" (k-fold '
                        "cross-validation over the whole corpus)."),
        "folds": Key("integer", None, 'Number of folds for protocol = "cv" (default 10).'),
        "stratified": Key("boolean", True, "Stratify the folds (and the validation parts) "
                          "by label."),
        "test_size": Key("fraction", None, 'A random stratified test part for protocol = '
                         '"split" when the corpus has no split field.'),
        "metrics": Key("list of strings", ["accuracy", "macro_f1"], "Measures, the first "
                       f"one deciding tuning: {_choices(METRICS)}."),
        "tasks": Key("string", "multiclass", '"multiclass" (one task over all classes) or '
                     '"one_vs_rest" (each class a binary task against the others, terms '
                     "ranked by its own scores, as Forman 2003)."),
    },
    "preprocessing": {
        "lowercase": Key("boolean", True, "Lower-case the text before tokenising."),
        "stop_words": Key("string", None, '"english" removes scikit-learn\'s English stop '
                          "words, a language's name (\"german\", \"korean\", ...) "
                          "stopwords-iso's list of it; default none."),
        "min_df": Key("integer or fraction", 1, "Drop terms in fewer training documents "
                      "(a count, or a fraction of them)."),
        "max_df": Key("integer or fraction", 1.0, "Drop terms in more training documents "
                      "(a fraction, or a count)."),
        "stem": Key("boolean", False, "Snowball stems of the words, in the language "
                    "(English: Porter 2)."),
        "language": Key("string", "english", "The text's language: its Snowball stemmer "
                        "(any of PyStemmer's) for stem."),
        "ngram_range": Key("list of integers", [1, 1], "[min_n, max_n]: the n-grams counted, "
                           "of words or characters, e.g. [1, 2] for words and pairs of words "
                           "(scikit-learn's ngram_range)."),
        "analyzer": Key("string", "word", '"word", "char" (character n-grams) or "char_wb" '
                        "(character n-grams inside words), as scikit-learn's."),
        "tokenizer": Key("string", None, '"korean": Kiwi\'s morphemes instead of the token '
                         'pattern (pip install "textsift[korean]"); default none.'),
        "strip_headers": Key("boolean", False, "Drop an e-mail header (everything before the "
                             "first blank line)."),
        "binary": Key("boolean", False, "Count presence instead of occurrences in the "
                      "document-term matrices."),
        "token_pattern": Key("string", r"(?u)\b\w\w+\b", "Regular expression of a token "
                             "(scikit-learn's by default)."),
    },
    "selection": {
        "methods": Key("list of strings", None, "Scoring methods (`textsift methods` lists "
                       'them), or your own function as "package.module:function".'),
        "aggregates": Key("list of strings", ["default"], "Policies turning per-class scores "
                          f'into one ranking: "default" (the method\'s own), '
                          f"{_choices(AGGREGATES)}."),
        "sizes": Key("list", None, 'Numbers of terms to keep, or "all" (every term of each '
                     "fold's own training vocabulary). Exactly one of sizes and ratios."),
        "ratios": Key("list of fractions", None, "Fractions of each fold's training "
                      "vocabulary to keep (reduction levels)."),
        "baselines": Key("list of strings", [], 'Extra rows: "ffs" (every term) and "triv" '
                         "(the middle rank, or the majority class)."),
        "rr_variant": Key("string", "skip", 'Round-robin rule for a term already taken: '
                          '"skip" to the next one, or "turn_consumed" (JaTeCS).'),
        "method_params": Key("table of tables", {}, "Parameters of a method, e.g. "
                             "[selection.method_params.var_idf] a = 16."),
    },
}

#: Keys of ``[tuning]``: ``val_size``, then one list per parameter to tune.
TUNING_KEYS = {
    "val_size": Key("fraction", 0.25, "Stratified part of each training set on which the "
                    "grid is tried; the first metric chooses, then terms are re-selected and "
                    "the learner refitted on the whole training set."),
    "<parameter>": Key("list", None, "Values to try for a parameter of a listed method "
                       "(e.g. the IDF exponent a = [1, 16]) or learner (e.g. C = [0.3, 3]); "
                       "every combination is tried."),
}

#: Keys of each ``[[learners]]`` table, besides the learner's own parameters
#: (:data:`LEARNERS`).
LEARNER_KEYS = {
    "name": Key("string", None, f"The learner: {_choices(LEARNERS)}."),
    "label": Key("string", None, "Its name in the results; default its name. Two learners "
                 "of one file need distinct labels."),
    "weighting": Key("string", None, f"Input of the learner over the selected terms: "
                     f"{_choices(WEIGHTINGS)}; default the learner's own (see below)."),
}
