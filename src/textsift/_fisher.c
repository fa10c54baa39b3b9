/* textsift._fisher: Fisher's exact test of many 2 x 2 tables, in log space.

   X, the count of "red" items among n drawn from r red and b black ones, is hypergeometric:
   P(X = x) = C(r, x) C(b, n - x) / C(r + b, n) on max(0, n - b) <= x <= min(r, n).

   The density's log is the sum of nine log-factorials, each a double-double (about 32
   digits): log k! exactly for k <= 15 (log of the exact k!), beyond by Stirling's series,
   (k + 1/2) log k - k + log(2 pi) / 2 + 1/(12 k) - 1/(360 k^3) + ... (eight terms: below
   1e-21 from k = 16), with log k in double-double (libm's log, then one Newton step on an
   exp in double-double). The largest magnitudes cancel exactly in the double-double sum, so
   log P(X = x) is accurate to about one rounding of its own value whatever the counts. The
   log-factorials of 0..K are kept in a table (grown on demand up to TABLE_LIMIT, by the
   calls that have the GIL; one table per process, kept alive by every call that reads it):
   an anchor is then nine reads.

   A tail is its end's density times 1 + the sum of the products of the ratios of successive
   probabilities, P(X = x - 1) / P(X = x) = x (b - n + x) / ((n + 1 - x) (r + 1 - x)), summed
   from the tail's end outwards until a term is below 2^-52 of the sum (R's pdhyper), when the
   tail lies beyond the mean (its terms fall); otherwise the tail is 1 minus the other one
   (log1p(-P) with P the other tail's probability). Every RESYNC terms the running
   product is replaced by the density's own ratio (the exp of a difference of two anchors),
   so that its rounding does not grow with the length of the series.

   Fisher's p-value (R. A. Fisher, The Design of Experiments, 1935, chapter II): greater =
   P(X >= A), less = P(X <= A), two-sided as scipy.stats.fisher_exact computes it: 1 where
   P(A) is within a relative 1e-14 of the mode's probability, else A's tail plus the far tail
   of the tables whose probability is below P(A) (1 + 1e-14) (A below the mode; at most that,
   A above it), the far tail's bound found by a binary search on the log-density. 0 (p = 1)
   where a margin of the table is 0.

   The loop over the tables runs without the GIL; every SIGNAL_EVERY terms summed it takes
   the GIL back and runs Python's signal handlers, so that Ctrl-C stops a long call
   (PyErr_CheckSignals). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ double-double */
typedef struct {
    double hi, lo;
} DD;

static inline DD two_sum(double a, double b) {
    double s = a + b, v = s - a;
    DD r = {s, (a - (s - v)) + (b - v)};
    return r;
}

static inline DD fast_two_sum(double a, double b) { /* |a| >= |b| (or a = 0) */
    double s = a + b;
    DD r = {s, b - (s - a)};
    return r;
}

static DD dd_add(DD a, DD b) {
    DD s = two_sum(a.hi, b.hi), t = two_sum(a.lo, b.lo);
    s.lo += t.hi;
    s = fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return fast_two_sum(s.hi, s.lo);
}

static DD dd_mul(DD a, DD b) {
    double p = a.hi * b.hi, e = fma(a.hi, b.hi, -p);
    e += a.hi * b.lo + a.lo * b.hi;
    return fast_two_sum(p, e);
}

static DD dd_mul_d(DD a, double b) {
    double p = a.hi * b, e = fma(a.hi, b, -p);
    e += a.lo * b;
    return fast_two_sum(p, e);
}

static DD dd_div_d(DD a, double b) {
    double q1 = a.hi / b, p1 = q1 * b, p2 = fma(q1, b, -p1);
    DD s = two_sum(a.hi, -p1);
    s.lo = s.lo - p2 + a.lo;
    return fast_two_sum(q1, (s.hi + s.lo) / b);
}

static const DD LN2 = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};
static const DD HALF_LN_2PI = {0x1.d67f1c864beb5p-1, -0x1.65b5a1b7ff5dfp-55};

/* exp(x) in double-double, |x| < 700: x = m log 2 + t, exp(t / 1024) - 1 by its Taylor
   series (|t / 1024| < 3.4e-4: nine terms, the tenth below 1e-40), squared ten times as
   expm1 (e -> e (2 + e), which keeps its relative accuracy), times 2^m. */
static DD exp_dd(double x) {
    double m = nearbyint(x / LN2.hi);
    DD t = dd_add((DD){x, 0.0}, dd_mul_d(LN2, -m));
    DD s = {ldexp(t.hi, -10), ldexp(t.lo, -10)};
    DD term = s, e = s;
    for (int j = 2; j <= 9; j++) {
        term = dd_div_d(dd_mul(term, s), j);
        e = dd_add(e, term);
    }
    for (int i = 0; i < 10; i++) e = dd_mul(e, dd_add(e, (DD){2.0, 0.0}));
    e = dd_add(e, (DD){1.0, 0.0});
    return (DD){ldexp(e.hi, (int)m), ldexp(e.lo, (int)m)};
}

/* log(a) in double-double, a > 0: h = log(a), then log(a) = h + log1p(a exp(-h) - 1), the
   argument ~1e-16 (its square below the double-double's reach). */
static DD log_dd(double a) {
    double h = log(a);
    DD e = dd_mul_d(exp_dd(-h), a);
    return fast_two_sum(h, (e.hi - 1.0) + e.lo);
}

static const double FACTORIAL[16] = {1.0, 1.0, 2.0, 6.0, 24.0, 120.0, 720.0, 5040.0, 40320.0,
                                     362880.0, 3628800.0, 39916800.0, 479001600.0,
                                     6227020800.0, 87178291200.0, 1307674368000.0};

/* log k! in double-double (header). */
static DD log_factorial(int64_t k) {
    if (k < 16) return log_dd(FACTORIAL[k < 0 ? 0 : k]);
    double x = (double)k, y = 1.0 / (x * x);
    /* Stirling's error log k! - log(sqrt(2 pi k) (k / e)^k): B_2j / (2j (2j - 1) k^(2j-1)) */
    double err = (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680 - (1.0 / 1188 -
                  (691.0 / 360360 - (1.0 / 156 - 3617.0 / 122400 * y) * y) * y) * y) * y) *
                  y) * y) / x;
    DD v = dd_mul_d(log_dd(x), x + 0.5);
    v = dd_add(v, (DD){-x, 0.0});
    v = dd_add(v, HALF_LN_2PI);
    return dd_add(v, (DD){err, 0.0});
}

/* ------------------------------------------------------------------ the table */
#define TABLE_LIMIT (1 << 22) /* entries (16 bytes each): 64 MB at most */
static PyObject *table_obj = NULL; /* a bytes object of DD entries */

typedef struct {
    const DD *t;
    int64_t size;
    int64_t work; /* terms summed since the last look at the signals */
} Ctx;

/* The table of log 0!, ..., log (size - 1)!: grown (a new object, the entries it had
   copied; the old one lives as long as a call reads it) to the multiple of 4096 above `top`
   when the new entries (about 0.5 microseconds each) are at most as many log-factorials as
   the call's `anchors` would compute without it, or the table stays below 65536 entries.
   Called with the GIL. */
static PyObject *table_for(int64_t top, double anchors) {
    int64_t have = table_obj ? (int64_t)(PyBytes_GET_SIZE(table_obj) / sizeof(DD)) : 0;
    if (top >= have && top < TABLE_LIMIT) {
        int64_t size = (top / 4096 + 1) * 4096;
        if ((double)(size - have) <= 9.0 * anchors || size <= 65536) {
            PyObject *next = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(size * sizeof(DD)));
            if (!next) return NULL;
            DD *t = (DD *)PyBytes_AS_STRING(next);
            if (have) memcpy(t, PyBytes_AS_STRING(table_obj), (size_t)have * sizeof(DD));
            Py_BEGIN_ALLOW_THREADS
            for (int64_t k = have; k < size; k++) t[k] = log_factorial(k);
            Py_END_ALLOW_THREADS
            Py_XSETREF(table_obj, next);
        }
    }
    if (!table_obj) {
        table_obj = PyBytes_FromStringAndSize(NULL, 0);
        if (!table_obj) return NULL;
    }
    Py_INCREF(table_obj);
    return table_obj;
}

static inline DD lf(const Ctx *c, int64_t k) {
    return k < c->size ? c->t[k] : log_factorial(k);
}

/* a + b - c exactly as an unevaluated sum hi + lo (each rounding kept in lo). */
static inline DD three(DD a, DD b, DD c) {
    DD u = two_sum(a.hi, b.hi), v = two_sum(u.hi, -c.hi);
    return (DD){v.hi, ((u.lo + v.lo) + (a.lo + b.lo)) - c.lo};
}

/* log P(X = x) = log r! + log b! + log n! + log (r + b - n)! - log x! - log (r - x)!
   - log (n - x)! - log (b - n + x)! - log (r + b)!, -inf outside the support, 0 where it
   is one point: the highs summed exactly (two_sum, in three independent chains), every
   rounding error and low part beside; kept as hi + lo (a double-double) for the
   two-sided rule's comparisons of two densities (two_sided). */
static DD log_pmf_dd(const Ctx *c, int64_t x, int64_t r, int64_t b, int64_t n) {
    if (x < 0 || x > r || n - x < 0 || n - x > b) return (DD){-INFINITY, 0.0};
    if ((n - b > 0 ? n - b : 0) == (r < n ? r : n)) return (DD){0.0, 0.0};
    DD p = three(lf(c, r), lf(c, b), lf(c, x));
    DD q = three(lf(c, n), lf(c, r + b - n), lf(c, r - x));
    DD m = lf(c, n - x), s = three((DD){-m.hi, -m.lo}, (DD){0.0, 0.0}, lf(c, b - n + x));
    DD t = three(p, q, lf(c, r + b));
    DD u = two_sum(t.hi, s.hi);
    return fast_two_sum(u.hi, (u.lo + t.lo) + s.lo);
}

static double log_pmf(const Ctx *c, int64_t x, int64_t r, int64_t b, int64_t n) {
    return log_pmf_dd(c, x, r, b, n).hi;
}

/* log P(X = x) - log P(X = a) of two densities held as double-doubles: exact to about
   1e-30 where they are close, the case the two-sided rule's tolerance of 1e-14 decides
   (rounded to doubles, two equal densities near 1e-56 -- log P = -128, whose ulp is 3e-14
   -- can differ by more than the tolerance: the table [[0, 95], [95, 0]] lost its far
   tail that way). */
static inline double log_ratio(DD x, DD a) {
    return (x.hi - a.hi) + (x.lo - a.lo);
}

/* ------------------------------------------------------------------ tails */
#define RESYNC 1024
#define SIGNAL_EVERY (1 << 22)
static const double EPS = 0x1p-52;

/* sum_{k >= 1} prod_{j <= k} P(X = x - j) / P(X = x - j + 1) (x in the lower tail, lp =
   log P(X = x)), until a term is below EPS of the sum or x - k reaches the support's end. */
static double ratio_sum(Ctx *c, int64_t x, int64_t r, int64_t b, int64_t n, double lp) {
    double xk = (double)x, ek = (double)(b - n + x), fk = (double)(n + 1 - x),
           gk = (double)(r + 1 - x);
    double term = 1.0, total = 0.0;
    int64_t k = 0;
    while (xk >= 1.0) {
        term *= (xk * ek) / (fk * gk);
        if (++k % RESYNC == 0) term = exp(log_pmf(c, x - k, r, b, n) - lp);
        total += term;
        if (!(term > EPS * total)) break;
        xk -= 1.0;
        ek -= 1.0;
        fk += 1.0;
        gk += 1.0;
    }
    c->work += k;
    return total;
}

/* log(1 + x), x > -1, by libm's log (several times faster than glibc's log1p): log(u) for
   u = 1 + x rounded, less the rounding's share (u - 1 - x) / u (the idea of D. Goldberg,
   "What every computer scientist should know about floating-point arithmetic", ACM
   Computing Surveys 23(1), 1991, theorem 4): within a few ulps. */
static inline double log1p_(double x) {
    double u = 1.0 + x;
    return u == 1.0 ? x : log(u) - ((u - 1.0) - x) / u;
}

/* log P(X <= x), or with `upper` log P(X > x) (header; R's phyper's rule, the asked tail
   taken when the mean lies between x and x + 1). */
static double log_cdf(Ctx *c, int64_t x, int64_t r, int64_t b, int64_t n, int upper) {
    double total = (double)r + (double)b, nr = (double)n * (double)r;
    int swap = upper ? ((double)x + 1.0) * total >= nr : (double)x * total > nr;
    int64_t xs = swap ? n - x - 1 : x, rs = swap ? b : r, bs = swap ? r : b;
    int direct = swap == upper; /* the sum is the asked tail, or its complement */
    if (xs < 0 || xs < n - bs) return direct ? -INFINITY : 0.0;
    if (xs >= rs || xs >= n) return direct ? 0.0 : -INFINITY;
    double lp = log_pmf(c, xs, rs, bs, n), s = ratio_sum(c, xs, rs, bs, n, lp);
    if (direct) return lp + log1p_(s);
    /* 1 - P, P = exp(lp) (1 + s) at most about 1/2 (the tail beyond the mean), or
       underflowing to 0 (the complement 1) */
    return log1p_(-(exp(lp) * (1.0 + s)));
}

static double logaddexp(double x, double y) { /* numpy's */
    if (x == y) return x + M_LN2;
    double d = x - y;
    if (d > 0) return x + log1p_(exp(-d));
    if (d <= 0) return y + log1p_(exp(d));
    return x + y;
}

/* The least x in [lo, hi] where log(P(x) / P(a)) < tol (`below`) or > tol (else), hi + 1
   if none (the predicate false, then true: the density falls beyond the mode on that side, rises
   before it): a galloping search from the guess g (steps 1, 2, 4, ... away from it until the
   predicate changes), then a binary search of what is left; the same x as a binary search of
   [lo, hi], in a few evaluations where g is near it. */
static int64_t first_past(const Ctx *c, int64_t lo, int64_t hi, int64_t g, DD lpa,
                          double tol, int below, int64_t r, int64_t b, int64_t n) {
#define PAST(x) (below ? log_ratio(log_pmf_dd(c, (x), r, b, n), lpa) < tol \
                       : log_ratio(log_pmf_dd(c, (x), r, b, n), lpa) > tol)
    int64_t end = hi + 1;
    g = g < lo ? lo : g > hi ? hi : g;
    if (PAST(g)) {
        end = g;
        for (int64_t step = 1; g - step >= lo; step *= 2) {
            if (!PAST(g - step)) {
                lo = g - step + 1;
                break;
            }
            end = g - step;
        }
    } else {
        lo = g + 1;
        for (int64_t step = 1; g + step <= hi; step *= 2) {
            if (PAST(g + step)) {
                end = g + step;
                break;
            }
            lo = g + step + 1;
        }
    }
    while (lo < end) {
        int64_t mid = lo + (end - lo) / 2;
        if (PAST(mid))
            end = mid;
        else
            lo = mid + 1;
    }
    return lo;
#undef PAST
}

/* scipy.stats.fisher_exact's two-sided p-value (header); the far tail's bound searched from
   A's mirror image about the mean, 2 n r / (r + b) - A. */
static double two_sided(Ctx *c, int64_t a, int64_t r, int64_t b, int64_t n) {
    double total = (double)r + (double)b;
    int64_t mode = (int64_t)floor(((double)n + 1) * ((double)r + 1) / (total + 2));
    int64_t lo_x = n - b > 0 ? n - b : 0, hi_x = r < n ? r : n;
    DD lpe = log_pmf_dd(c, a, r, b, n);
    if (-expm1(log_ratio(lpe, log_pmf_dd(c, mode, r, b, n))) <= 1e-14) return 0.0;
    double tol = log1p(1e-14), near, far; /* P(x) <= P(a) (1 + 1e-14): in the far tail */
    int64_t mirror = (int64_t)nearbyint(2.0 * (double)n * (double)r / total - (double)a);
    if (a < mode) { /* the far tail: x >= the least x in [mode, hi_x] past the tolerance */
        int64_t x = first_past(c, mode, hi_x, mirror, lpe, tol, 1, r, b, n);
        near = log_cdf(c, a, r, b, n, 0);
        far = x > hi_x ? -INFINITY : log_cdf(c, x - 1, r, b, n, 1);
    } else { /* x <= the greatest x in [lo_x, mode] within it */
        int64_t x = first_past(c, lo_x, mode, mirror + 1, lpe, tol, 0, r, b, n) - 1;
        near = log_cdf(c, a - 1, r, b, n, 1);
        far = x < lo_x ? -INFINITY : log_cdf(c, x, r, b, n, 0);
    }
    return logaddexp(near, far);
}

enum { GREATER, LESS, TWO_SIDED };

static double fisher(Ctx *c, int64_t A, int64_t B, int64_t C, int64_t D, int alternative) {
    int64_t r = A + B, b = C + D, n = A + C;
    if (r == 0 || b == 0 || n == 0 || B + D == 0) return 0.0;
    double out = alternative == GREATER ? log_cdf(c, A - 1, r, b, n, 1)
                 : alternative == LESS  ? log_cdf(c, A, r, b, n, 0)
                                        : two_sided(c, A, r, b, n);
    return out > 0 ? 0.0 : out;
}

/* ------------------------------------------------------------------ Python */
/* Runs fn over the rows [0, len) without the GIL, looking at the signals every SIGNAL_EVERY
   terms; -1 with the exception set if a handler raised. */
typedef void (*RowFn)(Ctx *, const double *const *, double *, Py_ssize_t, int);

static int run_rows(Ctx *c, RowFn fn, const double *const *in, double *out, Py_ssize_t len,
                    int arg) {
    Py_ssize_t i = 0;
    while (i < len) {
        Py_BEGIN_ALLOW_THREADS
        c->work = 0;
        for (; i < len && c->work < SIGNAL_EVERY; i++) {
            fn(c, in, out, i, arg);
            c->work += 8;
        }
        Py_END_ALLOW_THREADS
        if (i < len && PyErr_CheckSignals() < 0) return -1;
    }
    return 0;
}

static void fisher_row(Ctx *c, const double *const *in, double *out, Py_ssize_t i, int alt) {
    out[i] = fisher(c, (int64_t)in[0][i], (int64_t)in[1][i], (int64_t)in[2][i],
                    (int64_t)in[3][i], alt);
}

static void pmf_row(Ctx *c, const double *const *in, double *out, Py_ssize_t i, int unused) {
    (void)unused;
    out[i] = log_pmf(c, (int64_t)in[0][i], (int64_t)in[1][i], (int64_t)in[2][i],
                     (int64_t)in[3][i]);
}

/* The four float64 inputs and the output (equal lengths), the table for their largest
   total (r + b: with `pmf` the sum of the 2nd and 3rd inputs, else of all four), then fn
   over the rows. */
static PyObject *run(PyObject *args, RowFn fn, int with_arg, int pmf) {
    Py_buffer buf[5];
    int arg = 0, ok;
    memset(buf, 0, sizeof buf);
    if (with_arg)
        ok = PyArg_ParseTuple(args, "y*y*y*y*iw*", &buf[0], &buf[1], &buf[2], &buf[3], &arg,
                              &buf[4]);
    else
        ok = PyArg_ParseTuple(args, "y*y*y*y*w*", &buf[0], &buf[1], &buf[2], &buf[3], &buf[4]);
    if (!ok) return NULL;
    PyObject *result = NULL, *table = NULL;
    Py_ssize_t len = buf[4].len / (Py_ssize_t)sizeof(double);
    for (int j = 0; j < 4; j++)
        if (buf[j].len != buf[4].len) {
            PyErr_SetString(PyExc_ValueError, "the arrays differ in length");
            goto done;
        }
    const double *in[4];
    for (int j = 0; j < 4; j++) in[j] = buf[j].buf;
    double top = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        double t = pmf ? in[1][i] + in[2][i] : in[0][i] + in[1][i] + in[2][i] + in[3][i];
        if (t > top) top = t;
    }
    table = table_for((int64_t)top, (double)len);
    if (!table) goto done;
    Ctx c = {(const DD *)PyBytes_AS_STRING(table),
             (int64_t)(PyBytes_GET_SIZE(table) / sizeof(DD)), 0};
    if (run_rows(&c, fn, in, buf[4].buf, len, arg) < 0) goto done;
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(table);
    for (int j = 0; j < 5; j++)
        if (buf[j].obj) PyBuffer_Release(&buf[j]);
    return result;
}

PyDoc_STRVAR(log_pvalue_doc,
"log_pvalue(A, B, C, D, alternative, out): the natural log of Fisher's exact p-value of\n"
"each 2 x 2 table [[A, B], [C, D]] (float64 buffers of whole counts, equal lengths), written\n"
"to out; alternative 0 greater, 1 less, 2 two-sided (scipy.stats.fisher_exact's rule).");

static PyObject *log_pvalue(PyObject *self, PyObject *args) {
    (void)self;
    return run(args, fisher_row, 1, 0);
}

PyDoc_STRVAR(log_pmf_doc,
"log_pmf(x, r, b, n, out): log P(X = x) of the hypergeometric law (x red among n drawn from\n"
"r red and b black), -inf outside its support, written to out (float64 buffers).");

static PyObject *py_log_pmf(PyObject *self, PyObject *args) {
    (void)self;
    return run(args, pmf_row, 0, 1);
}

static PyMethodDef methods[] = {
    {"log_pvalue", log_pvalue, METH_VARARGS, log_pvalue_doc},
    {"log_pmf", py_log_pmf, METH_VARARGS, log_pmf_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fisher",
                                    "Fisher's exact test in C (see textsift.scores._hypergeom).",
                                    -1, methods};

PyMODINIT_FUNC PyInit__fisher(void) { return PyModule_Create(&module); }
