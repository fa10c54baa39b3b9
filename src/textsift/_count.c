/* textsift._count: the count pass of textsift.tokens in C.

   Lowercases (Python's str.lower, final sigma included), finds the tokens (maximal runs of
   two or more of Python's word characters -- the matches of scikit-learn's default token
   pattern (?u)\b\w\w+\b -- or runs of non-white-space characters, str.split's words),
   numbers them in an open-addressing hash table of UTF-8 byte strings (one per thread, each
   thread a contiguous range of the documents), sorts each thread's terms (byte order of
   UTF-8 is code-point order: Python's order of str; a radix sort on the first 8 bytes),
   merges the sorted lists once into the vocabulary, and writes either each document's
   (term, count) pairs (CSR, rows sorted) or each token's term (for n-grams), with no Python
   object per token; the other threads renumber while the first makes the terms' str.

   Every Unicode property comes from tables the running Python computes once per process
   (textsift.text.unicode.unicode_tables, from str.lower, re's \w and \s): set_tables() is called
   before the first count. Surrogates are neither word nor white-space characters; in the
   str.split mode they are kept inside words, encoded as UTF-8 would encode their code
   points ("surrogatepass"), which keeps the byte order the code-point order. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N_CODES 0x110000
#define WORD 1      /* re's \w: str.isalnum() or "_" */
#define SPACE 2     /* re's \s: str.isspace() */
#define CASED 4     /* cased and not case-ignorable (what the final-sigma rule tests) */
#define IGNORABLE 8 /* case-ignorable */

/* ------------------------------------------------------------------ tables (from Python) */
static PyObject *tables_ref = NULL; /* a tuple keeping the buffers below alive */
static const uint8_t *CLASS = NULL;  /* N_CODES flags */
static const int32_t *LOWER = NULL;  /* N_CODES: the one code point, or -(k + 1): EXPAND[k] */
static const uint32_t *EXPAND = NULL; /* at k: the length, then the code points */
static Py_ssize_t EXPAND_LEN = 0;

/* Latin-1 texts (PyUnicode_1BYTE_KIND, most of an English corpus) are read byte by byte:
   their lowercase is Latin-1 again and needs no context (no sigma). */
static uint8_t LOWER1[256], CLASS1[256];
static int LATIN1_CLOSED = 0; /* whether every Latin-1 character lowercases into Latin-1 */

/* ------------------------------------------------------------------ vocabulary */
/* One slot of the open-addressing table: a term's id, length, first 16 bytes (zero-padded)
   and, while counting, the last document it was seen in and its entry there -- one cache
   line holds all a token needs. */
typedef struct {
    uint32_t id1;   /* id + 1; 0: empty */
    uint32_t len;
    uint32_t seen;  /* counts mode: the last document (+ 1) holding the term */
    uint32_t where; /* and the term's entry in it */
    uint64_t k0, k1;
} Slot;

typedef struct {
    Slot *slots;
    size_t mask;      /* slots - 1 (a power of two minus one) */
    uint64_t *off;    /* each term's offset in the arena */
    uint32_t *len;    /* and its length in bytes */
    size_t n, ncap;
    char *arena;
    size_t asize, acap;
} Vocab;

/* p[0:n] has 16 readable bytes after it at least (the buffers keep that slack). */
static inline uint64_t hash_bytes(const unsigned char *p, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xff51afd7ed558ccdull);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n) { /* 8 readable bytes (every buffer hashed here has 16 bytes' slack): masked */
        memcpy(&w, p, 8);
        w &= ~0ull >> (64 - 8 * n);
    }
#else
    memcpy(&w, p, n);
#endif
    h = (h ^ w) * 0x94d049bb133111ebull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h;
}

/* The first 16 bytes of p[0:n], zero-padded; p has 16 readable bytes (every buffer keyed
   here keeps that slack), so this is two loads, not a copy through memory. */
static inline void prefix(const char *p, size_t n, uint64_t *k0, uint64_t *k1) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t a, b;
    memcpy(&a, p, 8);
    memcpy(&b, p + 8, 8);
    if (n < 8) {
        a = n ? a & (~0ull >> (64 - 8 * n)) : 0;
        b = 0;
    } else if (n < 16) {
        b = n > 8 ? b & (~0ull >> (64 - 8 * (n - 8))) : 0;
    }
    *k0 = a;
    *k1 = b;
#else
    char b[16] = {0};
    memcpy(b, p, n < 16 ? n : 16);
    memcpy(k0, b, 8);
    memcpy(k1, b + 8, 8);
#endif
}

static int vocab_init(Vocab *v) {
    memset(v, 0, sizeof *v);
    v->mask = (1u << 14) - 1;
    v->slots = calloc(v->mask + 1, sizeof *v->slots);
    v->ncap = 1u << 12;
    v->off = malloc(v->ncap * sizeof *v->off);
    v->len = malloc(v->ncap * sizeof *v->len);
    v->acap = 1u << 16;
    v->arena = malloc(v->acap);
    return v->slots && v->off && v->len && v->arena ? 0 : -1;
}

static void vocab_free(Vocab *v) {
    free(v->slots);
    free(v->off);
    free(v->len);
    free(v->arena);
    memset(v, 0, sizeof *v);
}

static int vocab_grow(Vocab *v) {
    size_t cap = (v->mask + 1) * 2, mask = cap - 1;
    Slot *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i <= v->mask; i++) {
        const Slot *s = &v->slots[i];
        if (!s->id1) continue;
        uint32_t id = s->id1 - 1;
        size_t j = hash_bytes((const unsigned char *)v->arena + v->off[id], v->len[id]) & mask;
        while (slots[j].id1) j = (j + 1) & mask;
        slots[j] = *s;
    }
    free(v->slots);
    v->slots = slots;
    v->mask = mask;
    return 0;
}

/* The slot of the term p[0:n] (hash h), added if new; NULL when out of memory. */
static inline Slot *vocab_slot(Vocab *v, const char *p, size_t n, uint64_t h) {
    uint64_t k0, k1;
    prefix(p, n, &k0, &k1);
    size_t j = h & v->mask;
    for (;;) {
        Slot *s = &v->slots[j];
        if (!s->id1) break;
        if (s->len == n && s->k0 == k0 && s->k1 == k1 &&
            (n <= 16 || memcmp(v->arena + v->off[s->id1 - 1] + 16, p + 16, n - 16) == 0))
            return s;
        j = (j + 1) & v->mask;
    }
    if (v->n >= 0x7ffffffeu || n > 0xffffffffu) return NULL;
    if (v->n == v->ncap) {
        size_t cap = v->ncap * 2;
        uint64_t *off = realloc(v->off, cap * sizeof *off);
        if (!off) return NULL;
        v->off = off;
        uint32_t *len = realloc(v->len, cap * sizeof *len);
        if (!len) return NULL;
        v->len = len;
        v->ncap = cap;
    }
    if (v->asize + n + 16 > v->acap) {
        size_t cap = v->acap * 2;
        while (cap < v->asize + n + 16) cap *= 2;
        char *a = realloc(v->arena, cap);
        if (!a) return NULL;
        v->arena = a;
        v->acap = cap;
    }
    memcpy(v->arena + v->asize, p, n);
    uint32_t id = (uint32_t)v->n++;
    v->off[id] = v->asize;
    v->len[id] = (uint32_t)n;
    v->asize += n;
    Slot *s = &v->slots[j];
    s->id1 = id + 1;
    s->len = (uint32_t)n;
    s->seen = 0;
    s->where = 0;
    s->k0 = k0;
    s->k1 = k1;
    if (v->n * 2 > v->mask + 1) {
        if (vocab_grow(v) < 0) return NULL;
        return vocab_slot(v, p, n, h); /* found now, in the new table */
    }
    return s;
}

/* ------------------------------------------------------------------ one thread's work */
typedef struct {
    const void *data;
    Py_ssize_t len;
    int kind;
} Doc;

typedef struct {
    const Doc *docs;
    Py_ssize_t d0, d1;   /* its documents */
    int lower, spaces, ids_mode;
    Vocab v;
    uint32_t *order;     /* its terms' ids in sorted order */
    uint64_t *keys;      /* and their first 8 bytes, big-endian */
    uint32_t *map;       /* each of its ids' final term */
    int64_t *rowlen;     /* entries (counts mode) or tokens (ids mode) of each document */
    uint32_t *idx;       /* term of each entry / token (thread's ids, then final ones) */
    int32_t *cnt;        /* counts mode: each entry's count */
    size_t n, cap;
    uint32_t *cp;        /* the document's (lowercased) code points */
    size_t cp_cap;
    char *tok;           /* the document's tokens' UTF-8, end to end (16 bytes' slack) */
    size_t tok_cap;
    uint64_t *toks;      /* each token's offset in tok, length and hash */
    size_t toks_cap;
    uint16_t latin1[256]; /* latin1_tokens' table */
    int failed;          /* out of memory, or stopped */
    volatile int *stop;  /* shared: set when a signal handler raised (Ctrl-C) */
    int calling;         /* the calling thread: it runs the signal handlers */
    /* phase 2 */
    const uint32_t *rank; /* final term of each of the thread's ids */
    size_t V;            /* the number of terms */
    int32_t *out_idx, *out_cnt;
} Work;

#define READ(kind, data, i)                                                \
    ((kind) == PyUnicode_1BYTE_KIND ? ((const Py_UCS1 *)(data))[i]          \
     : (kind) == PyUnicode_2BYTE_KIND ? ((const Py_UCS2 *)(data))[i]        \
                                      : ((const Py_UCS4 *)(data))[i])

/* CPython's handle_capital_sigma (Objects/unicodeobject.c): U+03A3 lowercases to final
   sigma when preceded by a cased letter and not followed by one, case-ignorable characters
   skipped either way. */
static uint32_t lower_sigma(int kind, const void *data, Py_ssize_t length, Py_ssize_t i) {
    Py_ssize_t j;
    uint32_t c = 0;
    for (j = i - 1; j >= 0; j--) {
        c = READ(kind, data, j);
        if (c >= N_CODES || !(CLASS[c] & IGNORABLE)) break;
    }
    int final = j >= 0 && c < N_CODES && (CLASS[c] & CASED);
    if (final && i + 1 < length) {
        for (j = i + 1; j < length; j++) {
            c = READ(kind, data, j);
            if (c >= N_CODES || !(CLASS[c] & IGNORABLE)) break;
        }
        final = j == length || c >= N_CODES || !(CLASS[c] & CASED);
    }
    return final ? 0x3C2 : 0x3C3;
}

static inline int ensure(void **p, size_t *cap, size_t need, size_t item) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * item);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* The document's code points, lowercased when asked, into w->cp; their number, or -1. */
static Py_ssize_t code_points(Work *w, const Doc *d) {
    Py_ssize_t n = d->len, m = 0;
    if (ensure((void **)&w->cp, &w->cp_cap, (size_t)n + 8, sizeof *w->cp) < 0) return -1;
    uint32_t *cp = w->cp;
    if (!w->lower) {
        for (Py_ssize_t i = 0; i < n; i++) cp[i] = READ(d->kind, d->data, i);
        return n;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t c = READ(d->kind, d->data, i);
        if (c < 128) {
            cp[m++] = c - 'A' < 26u ? c + 32 : c;
            continue;
        }
        if (c == 0x3A3) {
            cp[m++] = lower_sigma(d->kind, d->data, n, i);
            continue;
        }
        int32_t l = LOWER[c];
        if (l >= 0) {
            cp[m++] = (uint32_t)l;
            continue;
        }
        const uint32_t *e = EXPAND + (-(int64_t)l - 1);
        uint32_t k = e[0];
        if ((size_t)(m + (n - i) + k) > w->cp_cap) {
            if (ensure((void **)&w->cp, &w->cp_cap, (size_t)(m + (n - i) + k) + 8,
                       sizeof *w->cp) < 0)
                return -1;
            cp = w->cp;
        }
        for (uint32_t t = 1; t <= k; t++) cp[m++] = e[t];
    }
    return m;
}

static inline size_t utf8(char *o, uint32_t c) {
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xC0 | (c >> 6));
        o[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) { /* surrogates too: "surrogatepass" */
        o[0] = (char)(0xE0 | (c >> 12));
        o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (c >> 18));
    o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

static int push(Work *w, uint32_t id) {
    if (w->n == w->cap) {
        if (!w->ids_mode && w->n >= 0xffffffffu) return -1; /* entries a thread numbers */
        size_t cap = w->cap ? w->cap * 2 : 1u << 16;
        uint32_t *idx = realloc(w->idx, cap * sizeof *idx);
        if (!idx) return -1;
        w->idx = idx;
        if (!w->ids_mode) {
            int32_t *cnt = realloc(w->cnt, cap * sizeof *cnt);
            if (!cnt) return -1;
            w->cnt = cnt;
        }
        w->cap = cap;
    }
    w->idx[w->n] = id;
    if (!w->ids_mode) w->cnt[w->n] = 1;
    w->n++;
    return 0;
}

/* A token tok[a:b] of the document: recorded (its hash comes later). */
static inline int note(Work *w, size_t *nt, size_t a, size_t b) {
    if (ensure((void **)&w->toks, &w->toks_cap, 3 * (*nt + 1), sizeof *w->toks) < 0) return -1;
    w->toks[3 * *nt] = a;
    w->toks[3 * *nt + 1] = b - a;
    (*nt)++;
    return 0;
}

/* The document's tokens looked up (each slot prefetched a few tokens ahead: the table is
   larger than the cache) and counted in document `doc` (0-based within the thread). */
#define AHEAD 12
static int look_up(Work *w, size_t nt, uint32_t doc) {
    uint64_t *toks = w->toks;
    const char *tok = w->tok;
    for (size_t i = 0; i < nt; i++)
        toks[3 * i + 2] = hash_bytes((const unsigned char *)tok + toks[3 * i], toks[3 * i + 1]);
    Vocab *v = &w->v;
    for (size_t i = 0; i < nt && i < AHEAD; i++)
        __builtin_prefetch(&v->slots[toks[3 * i + 2] & v->mask]);
    for (size_t i = 0; i < nt; i++) {
        if (i + AHEAD < nt) __builtin_prefetch(&v->slots[toks[3 * (i + AHEAD) + 2] & v->mask]);
        Slot *s = vocab_slot(v, tok + toks[3 * i], toks[3 * i + 1], toks[3 * i + 2]);
        if (!s) return -1;
        uint32_t id = s->id1 - 1;
        if (w->ids_mode) {
            if (push(w, id) < 0) return -1;
            continue;
        }
        if (s->seen == doc + 1) {
            w->cnt[s->where]++;
            continue;
        }
        s->seen = doc + 1;
        s->where = (uint32_t)w->n;
        if (push(w, id) < 0) return -1;
    }
    return 0;
}

/* The tokens of a text given as code points (cp[0:m]), into w->tok and w->toks. */
static int cp_tokens(Work *w, const uint32_t *cp, Py_ssize_t m, size_t *nt) {
    int spaces = w->spaces;
    Py_ssize_t least = spaces ? 1 : 2, i = 0;
    if (ensure((void **)&w->tok, &w->tok_cap, (size_t)m * 4 + 16, 1) < 0) return -1;
    char *tok = w->tok;
    size_t k = 0;
    while (i < m) {
        if (spaces) {
            while (i < m && cp[i] < N_CODES && (CLASS[cp[i]] & SPACE)) i++;
        } else {
            while (i < m && !(cp[i] < N_CODES && (CLASS[cp[i]] & WORD))) i++;
        }
        Py_ssize_t a = i;
        size_t start = k;
        if (spaces) {
            for (; i < m && !(cp[i] < N_CODES && (CLASS[cp[i]] & SPACE)); i++)
                k += utf8(tok + k, cp[i]);
        } else {
            for (; i < m && cp[i] < N_CODES && (CLASS[cp[i]] & WORD); i++)
                k += utf8(tok + k, cp[i]);
        }
        if (i - a >= least) {
            if (note(w, nt, start, k) < 0) return -1;
        } else {
            k = start;
        }
    }
    return 0;
}

/* The tokens of a Latin-1 text, read in place, into w->tok and w->toks: table[c] is the
   character c turns into (lowercased or not) | 0x100 when that one belongs in a token. */
static int latin1_tokens(Work *w, const uint8_t *t, Py_ssize_t n, size_t *nt) {
    const uint16_t *table = w->latin1;
    Py_ssize_t least = w->spaces ? 1 : 2, i = 0;
    if (ensure((void **)&w->tok, &w->tok_cap, (size_t)n * 2 + 16, 1) < 0) return -1;
    char *tok = w->tok;
    size_t k = 0;
    while (i < n) {
        while (i < n && !(table[t[i]] & 0x100)) i++;
        Py_ssize_t a = i;
        size_t start = k;
        for (; i < n; i++) {
            uint16_t v = table[t[i]];
            if (!(v & 0x100)) break;
            uint8_t c = (uint8_t)v;
            if (c < 0x80) {
                tok[k++] = (char)c;
            } else {
                tok[k++] = (char)(0xC0 | (c >> 6));
                tok[k++] = (char)(0x80 | (c & 0x3F));
            }
        }
        if (i - a >= least) {
            if (note(w, nt, start, k) < 0) return -1;
        } else {
            k = start;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ sorting */
static inline int cmp_terms(const Vocab *u, uint32_t a, const Vocab *v, uint32_t b) {
    uint32_t la = u->len[a], lb = v->len[b];
    int c = memcmp(u->arena + u->off[a], v->arena + v->off[b], la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

static inline int term_less(const Vocab *v, uint32_t a, uint32_t b) {
    return cmp_terms(v, a, v, b) < 0;
}

/* Merge sort of term ids by their bytes (stable; tmp holds n ids). */
static void sort_terms(const Vocab *v, uint32_t *a, uint32_t *tmp, size_t n) {
    if (n < 2) return;
    if (n <= 12) {
        for (size_t i = 1; i < n; i++) {
            uint32_t t = a[i];
            size_t j = i;
            while (j && term_less(v, t, a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = t;
        }
        return;
    }
    size_t h = n / 2;
    sort_terms(v, a, tmp, h);
    sort_terms(v, a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = term_less(v, a[j], a[i]) ? a[j++] : a[i++];
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

typedef struct {
    uint64_t key; /* the term's first 8 bytes, big-endian (zero-padded) */
    uint64_t id;
} Keyed;

/* (*a)[0:V] sorted by key: an LSD radix sort byte by byte, *b the scratch (the two swapped
   as the passes go, so *a holds the result and *b is free room after), a pass skipped when
   every key has the same byte there. */
static void radix_keyed(Keyed **a, Keyed **b, size_t V) {
    size_t count[256];
    for (int shift = 0; shift < 64; shift += 8) {
        memset(count, 0, sizeof count);
        for (size_t k = 0; k < V; k++) count[((*a)[k].key >> shift) & 255]++;
        int trivial = 0;
        for (int d = 0; d < 256; d++) trivial |= count[d] == V;
        if (trivial) continue;
        size_t sum = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t k = 0; k < V; k++) (*b)[count[((*a)[k].key >> shift) & 255]++] = (*a)[k];
        Keyed *t = *a;
        *a = *b;
        *b = t;
    }
}

/* order[0:V] = the vocabulary's ids in the order of their terms: an LSD radix sort on the
   first 8 bytes (byte by byte, a pass skipped when every term has the same byte there), then
   each run of terms sharing them sorted by sort_terms; keys[k] is the first 8 bytes of the
   term order[k] (what the merge compares first). -1: out of memory. */
static int sort_vocab(const Vocab *v, uint32_t *order, uint64_t *keys) {
    size_t V = v->n;
    Keyed *a = malloc((V ? V : 1) * sizeof *a), *b = malloc((V ? V : 1) * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    for (size_t k = 0; k < V; k++) {
        uint64_t k0, k1;
        prefix(v->arena + v->off[k], v->len[k], &k0, &k1);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        k0 = __builtin_bswap64(k0);
#endif
        a[k].key = k0;
        a[k].id = k;
    }
    radix_keyed(&a, &b, V);
    for (size_t k = 0; k < V; k++) {
        order[k] = (uint32_t)a[k].id;
        keys[k] = a[k].key;
    }
    uint32_t *tmp = (uint32_t *)b; /* room for V ids */
    for (size_t i = 0; i < V;) {
        size_t j = i + 1;
        while (j < V && a[j].key == a[i].key) j++;
        if (j - i > 1) sort_terms(v, order + i, tmp, j - i);
        i = j;
    }
    free(a);
    free(b);
    return 0;
}

/* Every SIGNAL_EVERY documents the calling thread takes the GIL back for a moment and runs
   Python's signal handlers (PyErr_CheckSignals: a no-op outside the main thread); a handler
   that raises (Ctrl-C's KeyboardInterrupt) stops every thread, and count() returns with its
   exception, instead of the interrupt waiting for the whole corpus. */
#define SIGNAL_EVERY 2048

static int stopped(Work *w) {
    if (w->calling && !*w->stop) {
        PyGILState_STATE g = PyGILState_Ensure();
        if (PyErr_CheckSignals() < 0) *w->stop = 1;
        PyGILState_Release(g);
    }
    return *w->stop;
}

static void *tokenise(void *arg) {
    Work *w = arg;
    for (int c = 0; c < 256; c++) {
        uint8_t l = w->lower ? LOWER1[c] : (uint8_t)c;
        int in = w->spaces ? !(CLASS1[l] & SPACE) : (CLASS1[l] & WORD) != 0;
        w->latin1[c] = (uint16_t)(l | (in ? 0x100 : 0));
    }
    for (Py_ssize_t d = w->d0; d < w->d1; d++) {
        if (((d - w->d0) & (SIGNAL_EVERY - 1)) == SIGNAL_EVERY - 1 && stopped(w)) goto fail;
        size_t before = w->n, nt = 0;
        uint32_t doc = (uint32_t)(d - w->d0);
        const Doc *dd = &w->docs[d];
        if (dd->kind == PyUnicode_1BYTE_KIND && (LATIN1_CLOSED || !w->lower)) {
            if (latin1_tokens(w, dd->data, dd->len, &nt) < 0) goto fail;
        } else {
            Py_ssize_t m = code_points(w, dd);
            if (m < 0 || cp_tokens(w, w->cp, m, &nt) < 0) goto fail;
        }
        if (look_up(w, nt, doc) < 0) goto fail;
        w->rowlen[doc] = (int64_t)(w->n - before);
    }
    /* the thread's terms sorted (here, in parallel): the threads' lists are merged next */
    free(w->v.slots); /* the table is done with: the arena remains */
    w->v.slots = NULL;
    w->order = malloc((w->v.n ? w->v.n : 1) * sizeof *w->order);
    w->keys = malloc((w->v.n ? w->v.n : 1) * sizeof *w->keys);
    if (!w->order || !w->keys || sort_vocab(&w->v, w->order, w->keys) < 0) goto fail;
    return NULL;
fail:
    w->failed = 1;
    return NULL;
}

/* A row's entries (term << 32 | count) sorted by term: insertion sort when short, else an
   LSD radix sort on the term's `bits` bits in passes of at most 8 bits (branch-free; a
   quicksort of the rows took twice as long on IMDb). tmp holds k entries. */
static void sort_row(uint64_t *a, uint64_t *tmp, size_t k, int bits) {
    if (k <= 32) {
        for (size_t i = 1; i < k; i++) {
            uint64_t t = a[i];
            size_t j = i;
            while (j && a[j - 1] > t) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = t;
        }
        return;
    }
    int passes = (bits + 7) / 8, width = (bits + passes - 1) / passes;
    uint32_t count[256];
    uint64_t *from = a, *to = tmp;
    for (int pass = 0, shift = 32; pass < passes; pass++, shift += width) {
        uint32_t mask = (1u << width) - 1;
        memset(count, 0, sizeof(uint32_t) << width);
        for (size_t i = 0; i < k; i++) count[(from[i] >> shift) & mask]++;
        uint32_t sum = 0;
        for (uint32_t d = 0; d <= mask; d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < k; i++) to[count[(from[i] >> shift) & mask]++] = from[i];
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != a) memcpy(a, from, k * sizeof *a);
}

/* Phase 2: the thread's entries renumbered to final terms; counts mode: each row sorted. */
static void *renumber(void *arg) {
    Work *w = arg;
    const uint32_t *rank = w->rank;
    if (w->ids_mode) {
        for (size_t k = 0; k < w->n; k++) w->out_idx[k] = (int32_t)rank[w->idx[k]];
        return NULL;
    }
    uint64_t *buf = NULL;
    size_t cap = 0, at = 0;
    int bits = 1;
    while (bits < 31 && (((size_t)1 << bits) < w->V)) bits++;
    for (Py_ssize_t r = 0; r < w->d1 - w->d0; r++) {
        size_t k = (size_t)w->rowlen[r];
        if (ensure((void **)&buf, &cap, 2 * k + 1, sizeof *buf) < 0) {
            w->failed = 1;
            free(buf);
            return NULL;
        }
        for (size_t t = 0; t < k; t++)
            buf[t] = ((uint64_t)rank[w->idx[at + t]] << 32) | (uint32_t)w->cnt[at + t];
        sort_row(buf, buf + k, k, bits);
        for (size_t t = 0; t < k; t++) {
            w->out_idx[at + t] = (int32_t)(buf[t] >> 32);
            w->out_cnt[at + t] = (int32_t)(uint32_t)buf[t];
        }
        at += k;
    }
    free(buf);
    return NULL;
}

/* The merge's comparisons: the k-th smallest term of thread a against the j-th of thread b,
   their first 8 bytes first. */
static inline int next_cmp(const Work *a, size_t k, const Work *b, size_t j) {
    uint64_t x = a->keys[k], y = b->keys[j];
    if (x != y) return x < y ? -1 : 1;
    return cmp_terms(&a->v, a->order[k], &b->v, b->order[j]);
}

static inline int next_less(const Work *a, size_t k, const Work *b, size_t j) {
    return next_cmp(a, k, b, j) < 0;
}

static inline int same_term(const Work *a, size_t k, const Work *b, size_t j) {
    return next_cmp(a, k, b, j) == 0;
}

static int run_threads(Work *w, int n, void *(*fn)(void *)) {
    pthread_t th[64];
    int started = 0;
    for (int t = 1; t < n; t++) {
        if (pthread_create(&th[t], NULL, fn, &w[t]) != 0) break;
        started = t;
    }
    fn(&w[0]);
    for (int t = started + 1; t < n; t++) fn(&w[t]); /* threads that did not start */
    for (int t = 1; t <= started; t++) pthread_join(th[t], NULL);
    return 0;
}

/* Renumbering shared among threads: thread `first`'s entries, then every `step`-th. */
typedef struct {
    Work *w;
    int n, first, step;
} Batch;

static void *renumber_batch(void *arg) {
    Batch *b = arg;
    for (int t = b->first; t < b->n; t += b->step) renumber(&b->w[t]);
    return NULL;
}

/* ------------------------------------------------------------------ Python API */
static PyObject *set_tables(PyObject *self, PyObject *args) {
    PyObject *cls, *low, *exp;
    if (!PyArg_ParseTuple(args, "SSS", &cls, &low, &exp)) return NULL;
    if (CLASS) /* set once: a count running without the GIL may be reading them */
        Py_RETURN_NONE;
    if (PyBytes_GET_SIZE(cls) != N_CODES || PyBytes_GET_SIZE(low) != 4 * N_CODES ||
        PyBytes_GET_SIZE(exp) % 4) {
        PyErr_SetString(PyExc_ValueError, "tables of the wrong size");
        return NULL;
    }
    PyObject *keep = PyTuple_Pack(3, cls, low, exp);
    if (!keep) return NULL;
    Py_XSETREF(tables_ref, keep);
    CLASS = (const uint8_t *)PyBytes_AS_STRING(cls);
    LOWER = (const int32_t *)PyBytes_AS_STRING(low);
    EXPAND = (const uint32_t *)PyBytes_AS_STRING(exp);
    EXPAND_LEN = PyBytes_GET_SIZE(exp) / 4;
    LATIN1_CLOSED = 1;
    for (int c = 0; c < 256; c++) {
        CLASS1[c] = CLASS[c];
        if (LOWER[c] < 0 || LOWER[c] > 255)
            LATIN1_CLOSED = 0;
        else
            LOWER1[c] = (uint8_t)LOWER[c];
    }
    Py_RETURN_NONE;
}

static PyObject *new_array(size_t bytes, char **data) {
    PyObject *a = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(bytes ? bytes : 1));
    if (!a) return NULL;
    if (!bytes && PyByteArray_Resize(a, 0) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    *data = PyByteArray_AS_STRING(a);
    return a;
}

/* The sorted terms as a list of str (the GIL held); NULL with an exception set. */
static PyObject *make_names(Work *w, const uint8_t *final_t, const uint32_t *final_id,
                            size_t V, int spaces) {
    PyObject *names = PyList_New((Py_ssize_t)V);
    if (!names) return NULL;
    const char *errors = spaces ? "surrogatepass" : NULL;
    for (size_t k = 0; k < V; k++) {
        const Vocab *v = &w[final_t[k]].v;
        uint32_t id = final_id[k];
        const char *p = v->arena + v->off[id];
        size_t n = v->len[id];
        uint64_t high = 0; /* an ASCII term (most are) is copied, not decoded */
        for (size_t i = 0; i < n; i++) high |= (uint8_t)p[i];
        PyObject *s;
        if (high < 0x80) {
            s = PyUnicode_New((Py_ssize_t)n, 127);
            if (s) memcpy(PyUnicode_DATA(s), p, n);
        } else {
            s = PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, errors);
        }
        if (!s) {
            Py_DECREF(names);
            return NULL;
        }
        PyList_SET_ITEM(names, (Py_ssize_t)k, s);
    }
    return names;
}

PyDoc_STRVAR(count_doc,
"count(texts, lower, spaces, n_threads, ids) -> tuple\n\n"
"The tokens of a list of str, numbered over their sorted vocabulary. ``lower``: str.lower\n"
"first; ``spaces``: runs of non-white-space characters (str.split) rather than runs of two\n"
"or more word characters. With ``ids`` false: (indptr, indices, data, names), a CSR\n"
"matrix's arrays as bytearrays (int64, int32, int32; rows sorted); with ``ids`` true:\n"
"(ids, lengths, names), each token's term (int32) and each text's number of tokens\n"
"(int64). ``names``: the terms as a list of str, sorted.");

static PyObject *count(PyObject *self, PyObject *args) {
    PyObject *texts;
    int lower, spaces, n_threads, ids_mode;
    if (!PyArg_ParseTuple(args, "O!ppip", &PyList_Type, &texts, &lower, &spaces, &n_threads,
                          &ids_mode))
        return NULL;
    if (!CLASS) {
        PyErr_SetString(PyExc_RuntimeError, "textsift._count.set_tables was not called");
        return NULL;
    }
    Py_ssize_t n_docs = PyList_GET_SIZE(texts);
    if (n_threads < 1) n_threads = 1;
    if (n_threads > 64) n_threads = 64;
    if (n_threads > n_docs) n_threads = n_docs > 0 ? (int)n_docs : 1;

    PyObject *items = PySequence_Tuple(texts); /* holds every text while the GIL is off */
    if (!items) return NULL;
    Doc *docs = PyMem_Calloc(n_docs ? n_docs : 1, sizeof *docs);
    int64_t *rowlen = PyMem_Calloc(n_docs ? n_docs : 1, sizeof *rowlen);
    Work *w = PyMem_Calloc(n_threads, sizeof *w);
    PyObject *result = NULL, *names = NULL, *a = NULL, *b = NULL, *c = NULL;
    uint8_t *final_t = NULL; /* each final term's thread */
    uint32_t *final_id = NULL; /* and its id there */
    size_t *heads = NULL;
    if (!docs || !rowlen || !w) {
        PyErr_NoMemory();
        goto done;
    }
    double total = 0;
    for (Py_ssize_t i = 0; i < n_docs; i++) {
        PyObject *t = PyTuple_GET_ITEM(items, i);
        if (!PyUnicode_Check(t)) {
            PyErr_Format(PyExc_TypeError, "text %zd is %.100s, not str", i,
                         Py_TYPE(t)->tp_name);
            goto done;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(t) < 0) goto done; /* a no-op from Python 3.12 */
#endif
        docs[i].data = PyUnicode_DATA(t);
        docs[i].len = PyUnicode_GET_LENGTH(t);
        docs[i].kind = PyUnicode_KIND(t);
        total += (double)docs[i].len + 1;
    }
    /* contiguous ranges of documents with about equal numbers of characters */
    {
        Py_ssize_t d = 0;
        double acc = 0;
        for (int t = 0; t < n_threads; t++) {
            w[t].d0 = d;
            double goal = total * (t + 1) / n_threads;
            while (d < n_docs && (t == n_threads - 1 || acc < goal)) {
                acc += (double)docs[d].len + 1;
                d++;
            }
            w[t].d1 = d;
        }
    }
    volatile int stop = 0;
    for (int t = 0; t < n_threads; t++) {
        w[t].stop = &stop;
        w[t].calling = t == 0; /* run_threads runs w[0] in this thread */
        w[t].docs = docs;
        w[t].lower = lower;
        w[t].spaces = spaces;
        w[t].ids_mode = ids_mode;
        w[t].rowlen = rowlen + w[t].d0;
        if (vocab_init(&w[t].v) < 0) {
            PyErr_NoMemory();
            goto done;
        }
    }
    int failed = 0;
    size_t V = 0;
    Py_BEGIN_ALLOW_THREADS
    run_threads(w, n_threads, tokenise);
    for (int t = 0; t < n_threads; t++) {
        failed |= w[t].failed;
        free(w[t].cp);
        w[t].cp = NULL;
        free(w[t].tok);
        w[t].tok = NULL;
        free(w[t].toks);
        w[t].toks = NULL;
    }
    /* one vocabulary: the threads' sorted terms merged (equal terms made one), each
       thread's ids mapped to their final terms */
    for (int t = 0; t < n_threads && !failed; t++) {
        w[t].map = malloc((w[t].v.n ? w[t].v.n : 1) * sizeof *w[t].map);
        failed |= !w[t].map;
    }
    size_t upper = 0;
    for (int t = 0; t < n_threads; t++) upper += w[t].v.n;
    if (!failed) {
        final_t = malloc((upper ? upper : 1) * sizeof *final_t);
        final_id = malloc((upper ? upper : 1) * sizeof *final_id);
        heads = calloc(n_threads, sizeof *heads);
        failed = !final_t || !final_id || !heads;
    }
    if (!failed) {
        for (;;) {
            int best = -1; /* the thread whose next term is smallest */
            for (int t = 0; t < n_threads; t++) {
                if (heads[t] == w[t].v.n) continue;
                if (best < 0 || next_less(&w[t], heads[t], &w[best], heads[best])) best = t;
            }
            if (best < 0) break;
            size_t at = heads[best];
            final_t[V] = (uint8_t)best;
            final_id[V] = w[best].order[at];
            for (int t = 0; t < n_threads; t++) /* the same term in every thread: one */
                if (t != best && heads[t] < w[t].v.n && same_term(&w[t], heads[t], &w[best], at))
                    w[t].map[w[t].order[heads[t]++]] = (uint32_t)V;
            w[best].map[w[best].order[heads[best]++]] = (uint32_t)V;
            V++;
        }
    }
    for (int t = 0; t < n_threads; t++) {
        free(w[t].order);
        w[t].order = NULL;
        free(w[t].keys);
        w[t].keys = NULL;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        if (!stop) PyErr_NoMemory(); /* stopped: the handler's exception is set */
        goto done;
    }
    for (int t = 0; t < n_threads; t++) {
        w[t].rank = w[t].map;
        w[t].V = V;
    }
    size_t total_n = 0;
    for (int t = 0; t < n_threads; t++) total_n += w[t].n;
    char *pa, *pb, *pc;
    if (ids_mode) {
        a = new_array(total_n * 4, &pa);
        b = new_array((size_t)n_docs * 8, &pb);
        if (!a || !b) goto done;
        memcpy(pb, rowlen, (size_t)n_docs * 8);
    } else {
        a = new_array(((size_t)n_docs + 1) * 8, &pa);
        b = new_array(total_n * 4, &pb);
        c = new_array(total_n * 4, &pc);
        if (!a || !b || !c) goto done;
        int64_t *indptr = (int64_t *)pa, s = 0;
        indptr[0] = 0;
        for (Py_ssize_t i = 0; i < n_docs; i++) indptr[i + 1] = s += rowlen[i];
    }
    {
        size_t at = 0;
        for (int t = 0; t < n_threads; t++) {
            w[t].out_idx = (int32_t *)(ids_mode ? pa : pb) + at;
            w[t].out_cnt = ids_mode ? NULL : (int32_t *)pc + at;
            at += w[t].n;
        }
    }
    /* the renumbering runs on n_threads - 1 threads while this one, holding the GIL, makes
       the names (Python objects): the one serial step left overlaps the parallel one */
    Batch batch[64];
    pthread_t th[64];
    int workers = n_threads - 1, started[64] = {0};
    for (int i = 0; i < workers; i++) {
        batch[i] = (Batch){w, n_threads, i, workers};
        started[i] = pthread_create(&th[i], NULL, renumber_batch, &batch[i]) == 0;
    }
    if (!workers) {
        Py_BEGIN_ALLOW_THREADS
        renumber(&w[0]);
        Py_END_ALLOW_THREADS
    }
    names = make_names(w, final_t, final_id, V, spaces);
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < workers; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            renumber_batch(&batch[i]);
    }
    for (int t = 0; t < n_threads; t++) failed |= w[t].failed;
    Py_END_ALLOW_THREADS
    if (!names) goto done;
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = ids_mode ? PyTuple_Pack(3, a, b, names) : PyTuple_Pack(4, a, b, c, names);
done:
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(c);
    Py_XDECREF(names);
    if (w) {
        for (int t = 0; t < n_threads; t++) {
            vocab_free(&w[t].v);
            free(w[t].idx);
            free(w[t].cnt);
            free(w[t].cp);
            free(w[t].tok);
            free(w[t].toks);
            free(w[t].order);
            free(w[t].keys);
            free(w[t].map);
        }
    }
    free(final_t);
    free(final_id);
    free(heads);
    PyMem_Free(w);
    PyMem_Free(rowlen);
    PyMem_Free(docs);
    Py_DECREF(items);
    return result;
}

/* ------------------------------------------------------------------ word n-grams */
/* The n-grams of numbered words, counted as packed integers: the key of the words
   r_1 .. r_k (numbered 1..V in sorted order) is r_1 2^(b(h-1)) + ... + r_k 2^(b(h-k)) (h the
   largest n, b the bits a word takes; textsift.ngrams), whose integer order is the order of
   the n-grams' strings. Each thread counts its documents' keys in its own hash table, sorts
   its distinct keys (radix), the sorted lists are merged once and the rows renumbered and
   sorted as for words. */
typedef struct {
    uint64_t key;
    uint32_t id1, seen, where, pad;
} KeySlot;

typedef struct {
    Work w;              /* the entries, rows and renumbering (renumber()) */
    const int64_t *ids;  /* the words' numbers (0-based), all documents end to end */
    const int64_t *lengths;
    size_t first;        /* the thread's first word */
    int low, high, bits;
    KeySlot *slots;
    size_t mask;
    uint64_t *keys;      /* each local id's key, then the thread's keys sorted */
    uint32_t *order;     /* local ids in key order */
    size_t nk, kcap;
    uint64_t *buf;       /* a document's keys and hashes */
    size_t buf_cap;
} NWork;

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static int key_grow(NWork *t) {
    size_t cap = (t->mask + 1) * 2, mask = cap - 1;
    KeySlot *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i <= t->mask; i++) {
        if (!t->slots[i].id1) continue;
        size_t j = mix64(t->slots[i].key) & mask;
        while (slots[j].id1) j = (j + 1) & mask;
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->mask = mask;
    return 0;
}

static inline int add_key(NWork *t, uint64_t key, uint64_t h, uint32_t doc) {
    size_t j = h & t->mask;
    KeySlot *s;
    for (;;) {
        s = &t->slots[j];
        if (!s->id1 || s->key == key) break;
        j = (j + 1) & t->mask;
    }
    if (!s->id1) {
        if (t->nk >= 0x7ffffffeu) return -1;
        if (ensure((void **)&t->keys, &t->kcap, t->nk + 1, sizeof *t->keys) < 0) return -1;
        t->keys[t->nk] = key;
        s->key = key;
        s->id1 = (uint32_t)++t->nk;
        s->seen = 0;
        if (t->nk * 2 > t->mask + 1) {
            if (key_grow(t) < 0) return -1;
            return add_key(t, key, h, doc); /* found now, in the new table */
        }
    }
    Work *w = &t->w;
    if (s->seen == doc + 1) {
        w->cnt[s->where]++;
        return 0;
    }
    s->seen = doc + 1;
    s->where = (uint32_t)w->n;
    return push(w, s->id1 - 1);
}

static void *count_keys(void *arg) {
    NWork *t = arg;
    Work *w = &t->w;
    const int64_t *r = t->ids + t->first;
    for (Py_ssize_t d = w->d0; d < w->d1; d++) {
        size_t before = w->n, len = (size_t)t->lengths[d];
        uint32_t doc = (uint32_t)(d - w->d0);
        size_t nk = 0; /* the document's keys and their hashes, then looked up with each
                          slot prefetched a few keys ahead (the table outgrows the cache) */
        if (ensure((void **)&t->buf, &t->buf_cap, 2 * len * (size_t)t->high + 2,
                   sizeof *t->buf) < 0)
            goto fail;
        uint64_t *buf = t->buf;
        for (size_t i = 0; i < len; i++) {
            uint64_t key = 0;
            for (int n = 1; n <= t->high && i + n <= len; n++) {
                key |= (uint64_t)(r[i + n - 1] + 1) << (t->bits * (t->high - n));
                if (n >= t->low) {
                    buf[2 * nk] = key;
                    buf[2 * nk + 1] = mix64(key);
                    nk++;
                }
            }
        }
        for (size_t i = 0; i < nk && i < AHEAD; i++)
            __builtin_prefetch(&t->slots[buf[2 * i + 1] & t->mask]);
        for (size_t i = 0; i < nk; i++) {
            if (i + AHEAD < nk) __builtin_prefetch(&t->slots[buf[2 * (i + AHEAD) + 1] & t->mask]);
            if (add_key(t, buf[2 * i], buf[2 * i + 1], doc) < 0) goto fail;
        }
        r += len;
        w->rowlen[doc] = (int64_t)(w->n - before);
    }
    free(t->slots);
    t->slots = NULL;
    free(t->buf);
    t->buf = NULL;
    /* the thread's keys sorted: (key, local id) by an LSD radix sort, trivial passes skipped */
    size_t V = t->nk;
    Keyed *a = malloc((V ? V : 1) * sizeof *a), *b = malloc((V ? V : 1) * sizeof *b);
    t->order = malloc((V ? V : 1) * sizeof *t->order);
    if (!a || !b || !t->order) {
        free(a);
        free(b);
        goto fail;
    }
    for (size_t k = 0; k < V; k++) {
        a[k].key = t->keys[k];
        a[k].id = k;
    }
    radix_keyed(&a, &b, V);
    for (size_t k = 0; k < V; k++) {
        t->order[k] = (uint32_t)a[k].id;
        t->keys[k] = a[k].key;
    }
    free(a);
    free(b);
    return NULL;
fail:
    w->failed = 1;
    return NULL;
}

static void *count_keys_thread(void *arg) { return count_keys(arg); }

PyDoc_STRVAR(ngrams_doc,
"ngrams(ids, lengths, low, high, bits, n_threads) -> (indptr, indices, data, keys)\n\n"
"Counts of the packed keys of every window of ``low``..``high`` consecutive words (``ids``:\n"
"int64 word numbers from 0, documents end to end, ``lengths[d]`` words each; ``bits`` a\n"
"word, ``bits * high`` <= 62) in each document: a CSR matrix's arrays (int64, int32, int32;\n"
"rows sorted) over ``keys``, the distinct keys sorted (int64), as bytearrays.");

static PyObject *ngrams(PyObject *self, PyObject *args) {
    Py_buffer ib, lb;
    int low, high, bits, n_threads;
    if (!PyArg_ParseTuple(args, "y*y*iiii", &ib, &lb, &low, &high, &bits, &n_threads))
        return NULL;
    PyObject *result = NULL, *a = NULL, *b = NULL, *c = NULL, *k = NULL;
    NWork *t = NULL;
    uint64_t *final = NULL;
    size_t *heads = NULL;
    Py_ssize_t n_docs = lb.len / 8;
    size_t n_ids = (size_t)ib.len / 8;
    const int64_t *ids = ib.buf, *lengths = lb.buf;
    if (low < 1 || high < low || bits < 1 || bits * high > 62 || ib.len % 8 || lb.len % 8) {
        PyErr_SetString(PyExc_ValueError, "ngrams: bad sizes");
        goto out;
    }
    size_t total = 0;
    for (Py_ssize_t d = 0; d < n_docs; d++) {
        if (lengths[d] < 0) {
            PyErr_SetString(PyExc_ValueError, "ngrams: a negative length");
            goto out;
        }
        total += (size_t)lengths[d];
    }
    if (total != n_ids) {
        PyErr_SetString(PyExc_ValueError, "ngrams: the lengths do not add up to the ids");
        goto out;
    }
    for (size_t i = 0; i < n_ids; i++) {
        if (ids[i] < 0 || (uint64_t)(ids[i] + 1) >> bits) {
            PyErr_SetString(PyExc_ValueError, "ngrams: a word number does not fit its bits");
            goto out;
        }
    }
    if (n_threads < 1) n_threads = 1;
    if (n_threads > 64) n_threads = 64;
    if (n_threads > n_docs) n_threads = n_docs > 0 ? (int)n_docs : 1;
    if (n_threads < 1) n_threads = 1;
    int64_t *rowlen = PyMem_Calloc(n_docs ? n_docs : 1, sizeof *rowlen);
    t = PyMem_Calloc(n_threads, sizeof *t);
    if (!rowlen || !t) {
        PyMem_Free(rowlen);
        rowlen = NULL;
        PyErr_NoMemory();
        goto out;
    }
    {   /* contiguous ranges of documents with about equal numbers of words */
        Py_ssize_t d = 0;
        size_t acc = 0;
        for (int i = 0; i < n_threads; i++) {
            t[i].w.d0 = d;
            t[i].first = acc;
            double goal = (double)total * (i + 1) / n_threads;
            while (d < n_docs && (i == n_threads - 1 || (double)acc < goal)) {
                acc += (size_t)lengths[d];
                d++;
            }
            t[i].w.d1 = d;
        }
    }
    int failed = 0;
    for (int i = 0; i < n_threads; i++) {
        t[i].ids = ids;
        t[i].lengths = lengths;
        t[i].low = low;
        t[i].high = high;
        t[i].bits = bits;
        t[i].w.rowlen = rowlen + t[i].w.d0;
        t[i].mask = (1u << 14) - 1;
        t[i].slots = calloc(t[i].mask + 1, sizeof *t[i].slots);
        failed |= !t[i].slots;
    }
    size_t V = 0;
    Py_BEGIN_ALLOW_THREADS
    if (!failed) {
        pthread_t th[64];
        int started[64] = {0};
        for (int i = 1; i < n_threads; i++)
            started[i] = pthread_create(&th[i], NULL, count_keys_thread, &t[i]) == 0;
        count_keys(&t[0]);
        for (int i = 1; i < n_threads; i++) {
            if (started[i])
                pthread_join(th[i], NULL);
            else
                count_keys(&t[i]);
        }
        for (int i = 0; i < n_threads; i++) failed |= t[i].w.failed;
    }
    /* the sorted lists merged: equal keys made one, each thread's ids mapped */
    size_t upper = 0;
    for (int i = 0; i < n_threads; i++) upper += t[i].nk;
    if (!failed) {
        final = malloc((upper ? upper : 1) * sizeof *final);
        heads = calloc(n_threads > 0 ? (size_t)n_threads : 1, sizeof *heads);
        failed = !final || !heads;
        for (int i = 0; i < n_threads && !failed; i++) {
            t[i].w.map = malloc((t[i].nk ? t[i].nk : 1) * sizeof *t[i].w.map);
            failed |= !t[i].w.map;
        }
    }
    if (!failed) {
        for (;;) {
            int best = -1;
            for (int i = 0; i < n_threads; i++)
                if (heads[i] < t[i].nk &&
                    (best < 0 || t[i].keys[heads[i]] < t[best].keys[heads[best]]))
                    best = i;
            if (best < 0) break;
            uint64_t key = t[best].keys[heads[best]];
            final[V] = key;
            for (int i = 0; i < n_threads; i++)
                if (heads[i] < t[i].nk && t[i].keys[heads[i]] == key)
                    t[i].w.map[t[i].order[heads[i]++]] = (uint32_t)V;
            V++;
        }
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto free_rows;
    }
    size_t total_n = 0;
    for (int i = 0; i < n_threads; i++) {
        t[i].w.rank = t[i].w.map;
        t[i].w.V = V;
        total_n += t[i].w.n;
    }
    char *pa, *pb, *pc, *pk;
    a = new_array(((size_t)n_docs + 1) * 8, &pa);
    b = new_array(total_n * 4, &pb);
    c = new_array(total_n * 4, &pc);
    k = new_array(V * 8, &pk);
    if (!a || !b || !c || !k) goto free_rows;
    {
        int64_t *indptr = (int64_t *)pa, sum = 0;
        indptr[0] = 0;
        for (Py_ssize_t d = 0; d < n_docs; d++) indptr[d + 1] = sum += rowlen[d];
        memcpy(pk, final, V * 8);
        size_t at = 0;
        for (int i = 0; i < n_threads; i++) {
            t[i].w.out_idx = (int32_t *)pb + at;
            t[i].w.out_cnt = (int32_t *)pc + at;
            at += t[i].w.n;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    {
        pthread_t th[64];
        int started[64] = {0};
        for (int i = 1; i < n_threads; i++)
            started[i] = pthread_create(&th[i], NULL, renumber, &t[i].w) == 0;
        renumber(&t[0].w);
        for (int i = 1; i < n_threads; i++) {
            if (started[i])
                pthread_join(th[i], NULL);
            else
                renumber(&t[i].w);
        }
        for (int i = 0; i < n_threads; i++) failed |= t[i].w.failed;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto free_rows;
    }
    result = PyTuple_Pack(4, a, b, c, k);
free_rows:
    PyMem_Free(rowlen);
out:
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(c);
    Py_XDECREF(k);
    if (t) {
        for (int i = 0; i < n_threads; i++) {
            free(t[i].slots);
            free(t[i].buf);
            free(t[i].keys);
            free(t[i].order);
            free(t[i].w.idx);
            free(t[i].w.cnt);
            free(t[i].w.map);
        }
        PyMem_Free(t);
    }
    free(final);
    free(heads);
    PyBuffer_Release(&ib);
    PyBuffer_Release(&lb);
    return result;
}

static PyMethodDef methods[] = {
    {"set_tables", set_tables, METH_VARARGS,
     "set_tables(classes, lower, expansions): the Unicode tables of the running Python."},
    {"count", count, METH_VARARGS, count_doc},
    {"ngrams", ngrams, METH_VARARGS, ngrams_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_count",
                                    "textsift's count pass in C (see textsift.tokens).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__count(void) { return PyModule_Create(&module); }
