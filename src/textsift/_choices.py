"""The values the library's string options take, and the defaults the command line shows, in
a module that imports nothing: the command line builds its options from them at start-up,
before numpy is loaded (``textsift -h`` and ``textsift --version`` stay well under a second).
Each module that checks one of these values imports it from here, so the command line and the
library cannot disagree.
"""

#: Counting engines (:func:`textsift.engines.count_file`).
ENGINES = ("memory", "stream", "dask")
#: The engine of :func:`textsift.engines.count_file` and of ``--engine`` when none is
#: chosen: the whole corpus in memory, the fastest wherever it fits (``stream`` bounds the
#: memory to a chunk, for a corpus that does not fit; all three give the same counts).
ENGINE = "memory"
#: The policies that turn a (V, G) score table into one ranking
#: (:mod:`textsift.selection.policies`).
AGGREGATES = ("max", "sum", "wavg", "rr")
#: How a round robin treats a term another group took first: skip to the group's next
#: term, or lose the turn (JaTeCS) (:func:`textsift.selection.policies.round_robin`).
RR_VARIANTS = ("skip", "turn_consumed")
#: Which terms of a class a view or a selector keeps: over-represented in the class, under-
#: represented, or both (:mod:`textsift.scores.direction`).
DIRECTIONS = ("over", "under", "both")
#: Multiple-testing corrections (:mod:`textsift.evidence.corrections`): each name's procedure
#: as people name it (the command line's help and the explore page show it) and how its
#: adjusted p-value ``q`` passes a level ``alpha``: ``q <= alpha`` for the false discovery
#: rate procedures (scikit-learn's ``SelectFdr``), ``q < alpha`` for the others
#: (``SelectFpr``, ``SelectFwe``). A new correction is one entry here and its procedure in
#: ``corrections._adjusted``, which refuses a name it has no procedure for.
CORRECTION_TABLE = {"none": ("no correction", "<"), "bonferroni": ("Bonferroni", "<"),
                    "holm": ("Holm", "<"), "bh": ("Benjamini-Hochberg", "<="),
                    "by": ("Benjamini-Yekutieli", "<=")}
PASS_RULES = {name: rule for name, (_, rule) in CORRECTION_TABLE.items()}
CORRECTION_NAMES = {name: shown for name, (shown, _) in CORRECTION_TABLE.items()}
CORRECTIONS = tuple(CORRECTION_TABLE)
#: The families a correction controls: each class's terms, or every term-class cell.
FAMILIES = ("class", "all")
#: The defaults of every view, selector and experiment that corrects p-values.
CORRECTION, FAMILY = "bh", "class"
#: The significance level of ``--evidence``'s count of passing terms, and the confidence
#: level of the effect sizes' intervals, unless told (their ranges: ``textsift._bounds``).
DEFAULT_ALPHA, DEFAULT_LEVEL = 0.05, 0.95
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
