"""AdaBag as a scikit-learn estimator: a classifier of ratings into low (``y <= a``) and high
(``y >= b``) that selects its words (the AdaBag paper; the steps are in
:mod:`textsift.lasso.adabag`).

``fit(X, y, groups=None)`` takes a document-term matrix and numeric ratings, drops the rows
strictly between ``a`` and ``b``, splits the rest 2:1 into core and validation sets within each
class x group cell, runs the bootstraps on the core set, chooses the cutoff ``c*`` on the
validation set, and refits OLS on ``A_{c*}`` on core + validation. ``predict`` is classifier
(2.2): 1 ("high") iff the fitted rating is at least ``(a + b) / 2``; ``transform`` keeps the
words of ``A_{c*}``. For skewed classes, ``class_weight``, ``criterion`` and
``threshold="validation"`` (:mod:`~textsift.lasso.skew`) weight the rows, change the
validation loss and choose the decision threshold on validation, and ``final="ridge"`` or
``"logistic"`` (:mod:`~textsift.lasso.final`) replaces the least squares by a shrunk model;
their defaults are the paper's.

The paper's protocol, which also holds out a test quarter, is :func:`~.protocol.holdout_run`.
"""

from __future__ import annotations

import numbers
import time
import warnings
from numbers import Integral, Real
from os import PathLike

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from .._bounds import FRACTION, POSITIVE, Bound, Range, constraints, validate_params
from .._choices import ADABAG_CHOICES, BACKENDS
from ..errors import DataWarning, TextsiftError
from .adabag import BootstrapTask, NestedModels, choose_cutoff, label_rows, split_cells
from .bagging import BootstrapStore, bagging_frequencies, fingerprint, run_bootstraps
from .final import PENALTIES, Rows, final_models, midpoint
from .path import check_backend
from .polarity import adaptive_weights, shrink_polarity
from .shared import SharedDesign, group_weights
from .skew import choose_threshold, class_weights, resolve_criterion

__all__ = ["EXPECTED_FAILED_CHECKS", "AdaBagClassifier", "check_ratings"]

#: scikit-learn's estimator checks that cannot apply, and why (``check_estimator(...,
#: expected_failed_checks=EXPECTED_FAILED_CHECKS)`` with ``a=0, b=1``, so that the checks'
#: 0/1 labels are low and high ratings)
EXPECTED_FAILED_CHECKS = {
    "check_classifiers_classes": "y are numeric ratings; string class labels are refused",
    "check_classifiers_regression_target": "y are ratings, so a continuous y is the input "
                                           "it is built for, not an error",
    "check_classifier_not_supporting_multiclass": "ratings of many values are thresholded "
                                                  "into two classes, not refused",
    "check_estimators_dtypes": "labels 1 and 2 are both >= b=1; passes with a=1, b=2",
    "check_classifier_data_not_an_array": "labels 1 and 2 are both >= b=1; passes with "
                                          "a=1, b=2",
    "check_fit2d_1feature": "labels 1 and 2 are both >= b=1; passes with a=1, b=2",
}

#: The values of the estimator's string parameters (the CLI offers the same choices).
CHOICES = ADABAG_CHOICES

#: The numeric ranges of the estimator's parameters (``textsift._bounds``).
_BOUNDS = {
    "n_bootstraps": POSITIVE, "patience": POSITIVE, "max_active": POSITIVE,
    "max_features": POSITIVE, "min_ratio": FRACTION,
    "n_lambdas": Bound("an integer >= 2", (Range(Integral, 2, None, "left"),)),
    "polarity_min_count": Bound("an integer >= 0", (Range(Integral, 0, None, "left"),)),
    "polarity_prior": Bound("a number >= 0", (Range(Real, 0, None, "left"),)),
}


def check_ratings(y) -> np.ndarray:
    """``y`` as float ratings; strings (class labels) or non-finite values are errors."""
    y = np.asarray(y)
    if y.dtype == object and all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                 for v in y.ravel()):
        y = y.astype(float)  # numbers held as objects (a pandas object column)
    if y.dtype.kind not in "iuf":
        raise TextsiftError(f"y must hold numeric ratings (Unknown label type {y.dtype}); got "
                            f"values such as {[str(v) for v in y.ravel()[:3]]}: choose a "
                            "numeric rating field, not a class label")
    if not np.all(np.isfinite(y)):
        raise TextsiftError("y must hold finite ratings; NaN or infinite values found")
    return y.astype(float)


def _warn_empty(model, weighted: bool, pred) -> None:
    """A :class:`DataWarning` for a fit that chose the model without words (the intercept
    alone: one class for every row of a group; ``pred`` its validation predictions), with
    the likely reason (:mod:`~textsift.lasso.skew`, criteria)."""
    name = model.criterion_.name
    if weighted and name in ("misclassification", "f1"):
        why = ("with class weights each fit buys the rare class's rows with errors on the "
               f"common class, which {name} counts against it; criterion='balanced_error' "
               "scores what the weights aim at")
    else:
        why = "the words do not separate the classes on validation" + (
            "" if weighted else "; when one class is rare, use class_weight='balanced', "
            "criterion='balanced_error'")
    warnings.warn(DataWarning(
        f"AdaBag chose the model with no word (cutoff {model.cutoff_} of "
        f"{model.n_bootstraps}): on the validation rows no model with words has a lower "
        f"loss ({name}) than the intercept alone, which calls every row "
        f"{'high' if pred.all() else 'low' if not pred.any() else 'of a group alike'}; "
        f"{why}"), stacklevel=3)


class AdaBagClassifier(SelectorMixin, ClassifierMixin, BaseEstimator):
    """AdaBag (module docstring).

    Parameters: ``a < b`` the class thresholds on the rating; ``scheme`` the group weights
    ws1..ws6 of the data-shared lasso (used with ``groups``); ``n_bootstraps`` (B);
    ``polarity`` one value per feature (adaptive weights ``1/(|pol| + polarity_tol)``) or None
    (equal weights: the plain lasso); ``polarity_prior`` and ``polarity_min_count`` shrink the
    polarities of words in few training documents towards 0 (:func:`.shrink_polarity`, counted
    on the rows outside ``(a, b)``); ``backend`` of the lasso path (``"adelie"`` or
    ``"glmnet"``); ``cutoff_selection`` ``"raw" | "loess" | "1se"``; ``lambda_selection``
    ``"min" | "1se"``; ``max_features`` chooses ``c*`` among the models of at most that many
    words; ``random_state`` seeds the split and the bootstraps; ``n_jobs`` runs
    bootstraps in parallel (joblib); ``n_lambdas``, ``min_ratio``, ``patience``,
    ``max_active`` shape each path (:mod:`textsift.lasso.adabag`); ``final_model``
    ``"pooled"`` (one OLS model, the paper's shrinkage classifier) or ``"per_group"`` (one per
    group: ``predict`` then needs ``groups``); ``store`` a folder that keeps finished
    bootstraps, so an interrupted fit resumes (it needs an int ``random_state``);
    ``progress(done, total)`` is called as bootstraps finish; ``class_weight`` ``None |
    "balanced" | {0: w0, 1: w1}`` weights the rows of each class in the lasso and the OLS
    refits, ``criterion`` (``"misclassification"``, ``"balanced_error"``, ``"f1"``,
    ``"f1_low"``, ``"macro_f1"`` or a function ``(y_true, y_pred) -> loss``) chooses each
    bootstrap's lambda and the cutoff, ``threshold`` ``"midpoint"`` (``(a + b) / 2``) or
    ``"validation"`` (chosen on the validation rows) is the decision threshold
    (:mod:`~textsift.lasso.skew`); ``final`` the model on the chosen words: ``"ols"``, the
    paper's least squares of the rating, or ``"ridge"`` (of the rating) or ``"logistic"`` (of
    the class), shrunk by a penalty chosen on the validation rows with the cutoff
    (:mod:`~textsift.lasso.final`, which says how).
    Switch from the defaults when one class is much rarer than the other (say under a third
    of the rows): ``class_weight="balanced", criterion="balanced_error"``. A fit whose chosen
    model has no word (``c* = B``: nothing beat the intercept alone on validation) warns with
    :class:`~textsift.errors.DataWarning`, naming the likely reason.

    Fitted: ``frequencies_`` (bagging frequency per feature), ``cutoffs_`` (1..B), ``sizes_``
    and ``validation_errors_`` per cutoff, ``cutoff_``, ``support_`` (mask of ``A_{c*}``),
    ``coef_`` (the final model's coefficient per feature, 0 outside the support) and
    ``intercept_`` (refitted on core + validation), ``cutoff_coef_`` / ``cutoff_intercept_``
    (the same for every cutoff: per group, a CSR matrix with a row per cutoff),
    ``validation_error_``, ``bootstraps_`` (per bootstrap: selected words, lambda, validation
    errors along its path, ``seconds``: CPU seconds preparing, solving the path, refitting
    and scoring the criterion), ``groups_`` and ``r_`` (group labels and weights),
    ``seed_`` (the seed drawn from ``random_state``), ``classes_ = [0, 1]``, ``criterion_``
    (the :class:`~.skew.Criterion`; the "errors" above are its losses), ``class_weight_``
    (``(w_0, w_1)``), ``midpoint_`` (the midpoint rule's threshold on the final model's
    scale: ``(a + b) / 2``, 0 for logistic regression), ``threshold_`` (the decision
    threshold), ``final_penalty_`` (ridge's ``alpha`` or logistic regression's ``C``; None
    for least squares),
    ``seconds_`` (wall seconds of the stages: ``prepare``, ``bootstraps``, ``cutoff``,
    ``threshold``, ``final``; each bootstrap's own CPU seconds are in ``bootstraps_``).
    """

    def __init__(self, a=4.0, b=7.0, scheme="ws3", n_bootstraps=100, polarity=None,
                 backend="adelie", cutoff_selection="raw", lambda_selection="min",
                 random_state=None, n_jobs=None, n_lambdas=100, min_ratio=1e-3, patience=10,
                 max_active=3000, final_model="pooled", polarity_tol=1e-5, polarity_prior=0.0,
                 polarity_min_count=1, max_features=None, store=None, progress=None,
                 class_weight=None, criterion="misclassification", threshold="midpoint",
                 final="ols"):
        self.a = a
        self.b = b
        self.scheme = scheme
        self.n_bootstraps = n_bootstraps
        self.polarity = polarity
        self.backend = backend
        self.cutoff_selection = cutoff_selection
        self.lambda_selection = lambda_selection
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.n_lambdas = n_lambdas
        self.min_ratio = min_ratio
        self.patience = patience
        self.max_active = max_active
        self.final_model = final_model
        self.polarity_tol = polarity_tol
        self.polarity_prior = polarity_prior
        self.polarity_min_count = polarity_min_count
        self.max_features = max_features
        self.store = store
        self.progress = progress
        self.class_weight = class_weight
        self.criterion = criterion
        self.threshold = threshold
        self.final = final

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = False
        tags.classifier_tags.poor_score = True
        return tags

    # ------------------------------------------------------------------ checks
    _parameter_bounds = _BOUNDS
    _parameter_choices = {**CHOICES, "backend": BACKENDS}
    _parameter_constraints = constraints(
        _BOUNDS, _parameter_choices, patience=[None], max_active=[None], max_features=[None],
        a=[Real], b=[Real], polarity=["array-like", None],
        random_state=["random_state"], n_jobs=[Integral, None],
        polarity_tol=[Interval(Real, 0, None, closed="neither")], store=[str, PathLike, None],
        progress=[callable, None],
        # checked by skew's own rules, whose messages say more than a type could:
        class_weight="no_validation", criterion="no_validation")

    def check_params(self):
        """Check the parameters (``_parameter_constraints``: scikit-learn's validation, a
        :class:`~textsift.errors.TextsiftError` naming the parameter, the values it takes and
        the value given; then the rules between parameters), and that the backend is
        installed, without fitting (fit starts with it)."""
        validate_params(self)
        if not self.a < self.b:
            raise TextsiftError(f"the class thresholds need a < b, got a={self.a}, b={self.b}")
        if self.store is not None and not isinstance(self.random_state, numbers.Integral):
            raise TextsiftError("a store of bootstraps needs an int random_state (a rerun "
                                "must draw the same bootstraps)")
        criterion = resolve_criterion(self.criterion)
        class_weights(self.class_weight, [0, 1])
        for name in ("lambda_selection", "cutoff_selection"):
            if getattr(self, name) == "1se" and criterion.se is None:
                raise TextsiftError(f"{name}='1se' needs the standard error of the criterion, "
                                    f"which criterion={criterion.name!r} has not; use "
                                    "misclassification or balanced_error, or another rule")
        check_backend(self.backend)

    def _polarity(self, p):
        if self.polarity is None:
            return np.ones(p)
        pol = np.asarray(self.polarity, dtype=float)
        if pol.shape != (p,):
            raise TextsiftError(f"polarity has {pol.size} values; it needs one per feature "
                                f"({p})")
        if not np.all(np.isfinite(pol)):
            raise TextsiftError(f"polarity holds {int(np.sum(~np.isfinite(pol)))} NaN or "
                                "infinite values; give every feature a finite polarity "
                                "(0 for words a lexicon lacks)")
        return pol

    def _parts(self, theta, gcode, grouped, validation, keep):
        """Core (0) or validation (1) of each kept row: the 2:1 split, or ``validation``."""
        if validation is None:
            return split_cells(theta, gcode, (2, 1), self.seed_, grouped)
        validation = np.asarray(validation)
        if validation.dtype != bool or validation.shape != keep.shape:
            raise TextsiftError("validation must be a boolean mask with one value per row")
        part = validation[keep].astype(np.int8)
        for g in range(gcode.max() + 1):
            for c in (0, 1):
                cell = part[(gcode == g) & (theta == c)]
                if (cell == 1).sum() < 1 or (cell == 0).sum() < 2:
                    raise TextsiftError("validation: every class in every group needs a "
                                        "validation row and two core rows")
        return part

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, groups=None, *, validation=None):
        """Fit on ratings ``y`` (module docstring); ``validation``, a boolean mask over the
        rows, replaces the 2:1 split (to reproduce a given split)."""
        start = time.perf_counter()
        self.check_params()
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc"), dtype=np.float64)
        y = check_ratings(y)
        pol = self._polarity(X.shape[1])
        rs = self.random_state
        self.seed_ = (int(rs) if isinstance(rs, numbers.Integral)
                      else int(check_random_state(rs).randint(np.iinfo(np.int32).max)))
        keep, theta, self.groups_, gcode = label_rows(y, self.a, self.b, groups)
        part = self._parts(theta, gcode, groups is not None, validation, keep)
        X = sp.csr_matrix(X)[keep]
        if self.polarity_prior or self.polarity_min_count > 1:
            counts = np.bincount(X.indices[X.data != 0], minlength=X.shape[1])
            pol = shrink_polarity(pol, counts, self.polarity_prior, self.polarity_min_count)
        self.criterion_ = resolve_criterion(self.criterion)
        self.criterion_.check(theta[part == 1])  # a criterion returning NaN fails here
        cw = class_weights(self.class_weight, theta)
        self.class_weight_ = np.ones(2) if cw is None else cw
        rows = Rows(X, X.tocsc(), y[keep], theta, gcode, part, None if cw is None else cw[theta])
        self.seconds_ = {"prepare": time.perf_counter() - start}
        self._bootstraps(rows, adaptive_weights(pol, self.polarity_tol), pol)
        self._cutoff(rows)
        self._final(rows)
        self.classes_ = np.array([0, 1])
        self.fit_seconds_ = time.perf_counter() - start
        return self

    def _bootstraps(self, rows, weights, pol) -> None:
        """Step 2 on the core rows (:class:`~.adabag.BootstrapTask`), and the bagging
        frequencies."""
        start = time.perf_counter()
        core, val = rows.core, rows.val
        gc = rows.gcode[core]
        self.r_ = group_weights(np.bincount(gc), self.scheme)
        design = SharedDesign.build(rows.X[core], gc, weights, self.r_)
        task = BootstrapTask(
            design, rows.X[core], rows.y[core], gc, rows.X[val], rows.theta[val],
            rows.gcode[val], self.a, self.b, n_lambdas=self.n_lambdas,
            min_ratio=self.min_ratio, backend=self.backend, patience=self.patience,
            max_active=self.max_active, lambda_selection=self.lambda_selection,
            row_weight=None if rows.rw is None else rows.rw[core], criterion=self.criterion_)
        store = None
        if self.store is not None:  # created only now: bad input has been caught above
            params = ("a", "b", "scheme", "n_lambdas", "min_ratio", "backend", "polarity_tol",
                      "patience", "max_active", "lambda_selection", "polarity_prior",
                      "polarity_min_count")
            config = {k: getattr(self, k) for k in params}
            config.update(seed=self.seed_, data=fingerprint(rows.X, rows.y, rows.gcode,
                                                            rows.part, pol))
            if rows.rw is not None or self.criterion_.name != "misclassification":
                config.update(class_weight=self.class_weight_.tolist(),
                              criterion=self.criterion_.name)
            store = BootstrapStore(self.store, config)
        self.bootstraps_ = run_bootstraps(task, self.n_bootstraps, gc * 2 + rows.theta[core],
                                          self.seed_, self.n_jobs, store, self.progress)
        self.frequencies_ = bagging_frequencies([r["selected"] for r in self.bootstraps_],
                                                rows.X.shape[1])
        self.seconds_["bootstraps"] = time.perf_counter() - start

    def _cutoff(self, rows) -> None:
        """Step 4: the nested models fitted on the core rows, ``c*`` by their loss on the
        validation rows (with the final model's penalty, :mod:`~.final`), then the
        threshold."""
        start = time.perf_counter()
        self.cutoffs_ = np.arange(1, self.n_bootstraps + 1)
        self.midpoint_ = midpoint(self.final, self.a, self.b)
        val, criterion, best = rows.val, self.criterion_, None
        candidates = final_models(self.final, PENALTIES[self.final], rows, rows.core,
                                  self.frequencies_, self.cutoffs_,
                                  self.final_model == "per_group", len(self.groups_))
        for penalty, models in candidates.items():  # strongest first
            scores = models.ratings(rows.X[val], rows.gcode[val])
            losses = criterion.losses(rows.theta[val], scores >= self.midpoint_)
            se = None  # the binomial one, for the misclassification error
            if self.cutoff_selection == "1se" and criterion.name != "misclassification":
                se = [criterion.se(rows.theta[val], s >= self.midpoint_) for s in scores.T]
            c = choose_cutoff(self.cutoffs_, losses, len(val), self.cutoff_selection,
                              models.sizes, self.max_features, se)
            if best is None or losses[c - 1] < best[0]:  # ties: the stronger penalty
                best = (losses[c - 1], penalty, c, models.sizes, losses, scores[:, c - 1])
        loss, self.final_penalty_, self.cutoff_, self.sizes_, self.validation_errors_, chosen = best
        self.validation_error_ = float(loss)
        self.support_ = self.frequencies_ >= self.cutoff_
        self.seconds_["cutoff"] = time.perf_counter() - start
        start = time.perf_counter()
        self.threshold_ = (self.midpoint_ if self.threshold == "midpoint" else
                           choose_threshold(chosen, rows.theta[val], criterion, self.midpoint_))
        self.seconds_["threshold"] = time.perf_counter() - start
        if not self.support_.any():
            _warn_empty(self, rows.rw is not None, chosen >= self.threshold_)

    def _final(self, rows) -> None:
        """Every ``A_c`` refitted on core + validation: the chosen model, and the others for
        :meth:`cutoff_errors` (for least squares, one factorisation of ``A_1`` serves them
        all)."""
        start = time.perf_counter()
        final = final_models(self.final, (self.final_penalty_,), rows,
                             np.flatnonzero(rows.part <= 1), self.frequencies_, self.cutoffs_,
                             self.final_model == "per_group", len(self.groups_))[
                                 self.final_penalty_]
        self.cutoff_coef_, self.cutoff_intercept_ = final.coef, final.intercept
        k = self.cutoff_ - 1
        self.coef_by_group_ = np.vstack([c[k].toarray() for c in final.coef])
        self.intercept_by_group_ = final.intercept[:, k].copy()
        self.coef_ = self.coef_by_group_.mean(axis=0)
        self.intercept_ = float(self.intercept_by_group_.mean())
        self.seconds_["final"] = time.perf_counter() - start

    # ------------------------------------------------------------------ use
    def _get_support_mask(self):
        check_is_fitted(self)
        return self.support_

    def _group_codes(self, groups, n):
        if self.final_model == "pooled":
            return np.zeros(n, np.int64)
        if groups is None:
            raise TextsiftError("final_model='per_group' predicts with each row's group: pass "
                                "groups")
        groups = np.asarray(groups)
        code = np.searchsorted(self.groups_, groups)
        code = np.minimum(code, len(self.groups_) - 1)
        if groups.shape != (n,) or np.any(self.groups_[code] != groups):
            raise TextsiftError("groups must hold one known group label per row")
        return code

    def rating(self, X, groups=None) -> np.ndarray:
        """The score ``x'b_hat`` of each row by the final model on ``A_{c*}``: the fitted
        rating (``final`` ``"ols"`` or ``"ridge"``), or the log-odds of "high"
        (``"logistic"``)."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        code = self._group_codes(groups, X.shape[0])
        out = X @ self.coef_by_group_.T + self.intercept_by_group_
        return np.asarray(out)[np.arange(X.shape[0]), code]

    def decision_function(self, X, groups=None) -> np.ndarray:
        """``x'b_hat - t``, ``t`` the threshold (``midpoint_`` unless chosen on validation):
        positive means "high" (class 1)."""
        return self.rating(X, groups) - self.threshold_

    def predict(self, X, groups=None) -> np.ndarray:
        """Classifier (2.2): 1 ("high", ``y >= b``) iff ``x'b_hat >= t``, else 0 (``t``
        :meth:`decision_function`'s)."""
        return (self.decision_function(X, groups) >= 0).astype(np.int64)

    def cutoff_errors(self, X, y, groups=None) -> np.ndarray:
        """The loss of the criterion (the misclassification error by default) on ``(X, y)``
        (rows outside ``(a, b)``) of the model ``A_c`` of every cutoff ``c``, each refitted on
        core + validation like the chosen one (the paper's test curve), by the midpoint
        rule."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        y = check_ratings(y)
        if groups is None and self.final_model == "per_group":
            raise TextsiftError("final_model='per_group' predicts with each row's group: pass "
                                "groups")
        keep = (y <= self.a) | (y >= self.b)
        if not keep.any():
            raise TextsiftError(f"no rating is <= a={self.a} or >= b={self.b}: nothing to score")
        code = self._group_codes(None if groups is None else np.asarray(groups)[keep],
                                 int(keep.sum()))
        models = NestedModels(self.sizes_, self.cutoff_coef_, self.cutoff_intercept_)
        return models.errors(sp.csr_matrix(X)[keep], (y[keep] >= self.b).astype(np.int8), code,
                             self.midpoint_, self.criterion_)

    def score(self, X, y, sample_weight=None, groups=None) -> float:
        """Accuracy on the rows whose rating is <= a or >= b (the others have no class)."""
        y = check_ratings(y)
        keep = (y <= self.a) | (y >= self.b)
        if not keep.any():
            raise TextsiftError(f"no rating is <= a={self.a} or >= b={self.b}: nothing to score")
        pred = self.predict(X, groups)
        w = None if sample_weight is None else np.asarray(sample_weight)[keep]
        return float(np.average(pred[keep] == (y[keep] >= self.b), weights=w))

