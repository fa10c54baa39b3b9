"""Weighted lasso paths, the data-shared augmentation, AdaBag and bootstrap frequencies: the
AdaBag paper, "Learning low dimensional word based linear classifiers using Data Shared
Adaptive Bootstrap Aggregated Lasso with application to IMDb data" (arXiv); the steps are on
the API pages of the modules below and in the AdaBag guide."""

from .adabag import (
    NestedModels,
    choose_cutoff,
    label_rows,
    loess,
    nested_models,
    split_211,
    split_cells,
)
from .bagging import (
    BootstrapStore,
    bagging_frequencies,
    run_bootstraps,
    stability_selection,
    stratified_bootstrap,
)
from .classifier import NestedOLS, OLSFit, misclassification, ols_fit, predict_class
from .estimator import AdaBagClassifier
from .path import BACKENDS, LassoPath, check_backend, lambda_grid, lasso_path, objective
from .polarity import (
    POLARITY_SOURCES,
    adaptive_weights,
    load_polarity,
    polarity_from_lexicon,
    shrink_polarity,
)
from .protocol import HoldoutRun, holdout_run
from .shared import SCHEMES, SharedDesign, group_weights
from .simulate import Simulation, simulate, simulation_polarity
from .skew import (
    CRITERIA,
    THRESHOLDS,
    Criterion,
    choose_threshold,
    class_scores,
    class_weights,
    resolve_criterion,
)

__all__ = ["AdaBagClassifier", "BACKENDS", "BootstrapStore", "CRITERIA", "Criterion",
           "HoldoutRun", "LassoPath", "NestedModels", "NestedOLS", "OLSFit", "POLARITY_SOURCES",
           "SCHEMES", "SharedDesign", "Simulation", "THRESHOLDS", "adaptive_weights",
           "bagging_frequencies", "check_backend", "choose_cutoff", "choose_threshold",
           "class_scores", "class_weights", "group_weights", "holdout_run", "label_rows",
           "lambda_grid", "lasso_path", "load_polarity", "loess", "misclassification",
           "nested_models", "objective", "ols_fit", "polarity_from_lexicon", "predict_class",
           "resolve_criterion", "run_bootstraps", "shrink_polarity", "simulate",
           "simulation_polarity", "split_211", "split_cells", "stability_selection",
           "stratified_bootstrap"]
