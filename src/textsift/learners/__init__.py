"""Learners of the experiments, and the one learner scikit-learn lacks (the ordinal learner of
Baccianella, Esuli & Sebastiani 2010).

:data:`LEARNERS` is the registry of the learners an experiment may fit, shaped like the score
registry (:data:`textsift.scores.REGISTRY`): each :class:`Learner` records its factory, the
tasks it serves, its default input weighting and the parameters an experiment file may set or
tune. :func:`make_learner` puts an input weighting (:data:`WEIGHTINGS`) before the estimator.
A new learner is one :func:`register_learner` entry.

Label sets (task ``"multilabel"``) are learned one binary estimator per label, on a 0/1
indicator matrix ``Y``: scikit-learn's :class:`~sklearn.multiclass.OneVsRestClassifier` when
every label reads the same columns, :class:`PerLabelClassifier` when each label has its own.

Every nominal learner weights classes the same way, by one rule (:meth:`Learner.build`):
``class_weight`` (``"balanced"``, ``w_c = n / (m n_c)``, or a weight per class) goes to the
estimator's own ``class_weight`` parameter where it has one (linear SVM, logistic regression),
and otherwise into the ``sample_weight`` of its ``fit`` (:class:`ClassWeighted`: naive Bayes),
as scikit-learn's ``compute_sample_weight(class_weight, y)`` gives them -- the weights the
``class_weight`` parameter of scikit-learn's estimators stands for.

:class:`RankSVR` is the learner of Baccianella, Esuli & Sebastiani (SAC 2010): a linear
epsilon-support vector regressor on the rank values, whose real-valued output is rounded to
the nearest rank of the scale (which also clips it to the scale). The regression itself is
scikit-learn's :class:`~sklearn.svm.LinearSVR` (liblinear, L1 epsilon-insensitive loss).

Every multi-label learner may decide its labels otherwise than by each estimator's own cut,
which lifts the macro-F1 of rare labels: by per-label thresholds tuned on the training part
(:class:`TunedThresholdClassifier`: Yang's SCut and Fan and Lin's SCutFBR, on a validation
part or inner folds, and LibMultiLabel's micro+macro cut), by a fixed cut
(:class:`FixedThresholdClassifier`: given thresholds, RCut, PCut), or by each label's
positive-class weight chosen on inner folds (:class:`CostSensitiveClassifier`). Each label
may also have its own number of terms and its own ``C``, chosen on inner folds
(:class:`PerLabelSearchClassifier`, with its threshold tuned on the same folds).

Inside the package: ``_estimators`` (the estimators written here, the class-weight checks and
:func:`label_scores`), ``_thresholds`` (the cuts) and ``_costs`` (the cost-sensitive
learner), which import ``_estimators`` only, ``_perlabel`` (the per-label choices, which also
imports ``_thresholds``), and ``_registry`` (the registry, the weightings
and the registered learners), which imports them.
"""

from ._costs import COST_WEIGHTS, CostSensitiveClassifier
from ._estimators import (
    ClassWeighted,
    PerLabelClassifier,
    RankSVR,
    check_class_weight,
    class_weight_codes,
    label_scores,
)
from ._perlabel import LABEL_RATIOS, PerLabelSearchClassifier, label_rankings
from ._registry import (
    LEARNERS,
    PER_LABEL_KEYS,
    THRESHOLD_KEYS,
    WEIGHTINGS,
    Learner,
    get_learner,
    make_learner,
    register_learner,
)
from ._thresholds import (
    STRATEGIES,
    STRATEGY_KEYS,
    FixedThresholdClassifier,
    TunedThresholdClassifier,
)

__all__ = ["COST_WEIGHTS", "LABEL_RATIOS", "LEARNERS", "PER_LABEL_KEYS", "STRATEGIES",
           "STRATEGY_KEYS", "THRESHOLD_KEYS", "WEIGHTINGS", "ClassWeighted",
           "CostSensitiveClassifier", "FixedThresholdClassifier", "Learner",
           "PerLabelClassifier", "PerLabelSearchClassifier", "RankSVR",
           "TunedThresholdClassifier", "check_class_weight", "class_weight_codes",
           "get_learner", "label_rankings", "label_scores", "make_learner", "register_learner"]
