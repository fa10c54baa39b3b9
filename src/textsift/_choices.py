"""The values the library's string options take, and the defaults the command line shows, in
a module that imports nothing: the command line builds its options from them at start-up,
before numpy is loaded (``textsift -h`` and ``textsift --version`` stay well under a second).
Each module that checks one of these values imports it from here, so the command line and the
library cannot disagree.
"""

#: Counting engines (:func:`textsift.engines.count_file`).
ENGINES = ("memory", "stream", "dask")
#: The policies that turn a (V, G) score table into one ranking
#: (:mod:`textsift.selection.policies`).
AGGREGATES = ("max", "sum", "wavg", "rr")
#: Which terms of a class a view or a selector keeps: over-represented in the class, under-
#: represented, or both (:mod:`textsift.scores.direction`).
DIRECTIONS = ("over", "under", "both")
#: Multiple-testing corrections (:mod:`textsift.evidence.corrections`), each with how its adjusted
#: p-value ``q`` passes a level ``alpha``: ``q <= alpha`` for the false discovery rate
#: procedures (scikit-learn's ``SelectFdr``), ``q < alpha`` for the others (``SelectFpr``,
#: ``SelectFwe``). A new correction is one entry here and its procedure in
#: ``corrections.adjust_families``, which refuses a name it has no procedure for.
PASS_RULES = {"none": "<", "bonferroni": "<", "holm": "<", "bh": "<=", "by": "<="}
CORRECTIONS = tuple(PASS_RULES)
#: The families a correction controls: each class's terms, or every term-class cell.
FAMILIES = ("class", "all")
#: The defaults of every view, selector and experiment that corrects p-values.
CORRECTION, FAMILY = "bh", "class"
#: What a term is: a word (token) n-gram, a character n-gram, or a character n-gram inside
#: a word (padded with spaces), as scikit-learn's ``analyzer`` (:mod:`textsift.text.vectorize`).
ANALYZERS = ("word", "char", "char_wb")

#: Lasso path backends (:func:`textsift.lasso.lasso_path`).
BACKENDS = ("adelie", "glmnet")
#: Group weight schemes WS1-WS6 of the data-shared lasso (:func:`textsift.lasso.group_weights`).
SCHEMES = ("ws1", "ws2", "ws3", "ws4", "ws5", "ws6")
#: The two polarity variants of the AdaBag paper's simulation (:func:`textsift.lasso.simulate`).
VARIANTS = ("assigned", "equal")
#: The values of :class:`~textsift.lasso.AdaBagClassifier`'s string parameters.
ADABAG_CHOICES = {"scheme": SCHEMES, "cutoff_selection": ("raw", "loess", "1se"),
                  "lambda_selection": ("min", "1se"), "final_model": ("pooled", "per_group"),
                  "threshold": ("midpoint", "validation"), "final": ("ols", "ridge", "logistic")}
#: The named validation criteria of AdaBag (:data:`textsift.lasso.CRITERIA`).
ADABAG_CRITERIA = ("misclassification", "balanced_error", "f1", "f1_low", "macro_f1")

#: The explore page (:mod:`textsift.report.explore_data`): terms kept per method and view
#: (class, rank or policy), and terms per view whose snippets are embedded.
EXPLORE_CAP = 2000
EXPLORE_SNIPPET_TOP = 100
#: Above this many labels the page loads each label's data when it is chosen, from shard
#: files of this many labels, each label with this many terms per method.
EXPLORE_MANY, EXPLORE_SHARD, EXPLORE_LABEL_CAP = 50, 64, 200
