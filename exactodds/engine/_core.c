/*
 * exactodds.engine._core: the engine's hot kernels in C, exact.
 *
 * Eight kernels, each taking its arrays through the buffer protocol (NumPy arrays, int64 unless
 * said), writing into arrays the caller made (or returning a list of Python ints), with the GIL
 * released while it counts:
 *
 *   key_sums     the sparse sum of a multiset table (engine/multiset.py): per key, the sum over
 *                its entries of orderings x the multiset's weight(s) [x a per-entry factor];
 *   wide_key_sums  the same for weights past int64 (to 2^64), in 128 bits under a proven bound;
 *   batch_sums   the same weights for many shoes at once, as a tree of shared products,
 *                times a sparse matrix of shoe-free columns (the exposure kernel);
 *   block_sums   one shoe's weights and sums over a table whose entries are merged by the blocks
 *                a selection of wagers settles alike (the main game: three), in 128 bits;
 *   category_products  per value multiset, its draws with every card of one suit or colour (the
 *                every-card categories), by halves, checked;
 *   walk         the walk of the deal, card by card over the classes a wager tells apart,
 *                forward, one layer per card, each distinct (shoe left, round state,
 *                summary) carried once with its ways (engine/walk.py builds the automaton).
 *   grouped_sums per group, the exact sum of int64 values times the big multiples (given as
 *                32-bit limbs) their kinds name, a list of Python ints (engine/grouped.py; the
 *                exposure tally's sums by key).
 *   round_tally  a batch's rounds of int64 values times those multiples, tallied by count, pen, place,
 *                shoe (sums of squares over shoes by count threshold), ahead (engine/grouped.py).
 *
 * Exactness. key_sums sums in 64 bits, each step checked, and a key whose sum overflows on
 * the way (terms of both signs) again in 128 bits; wide_key_sums in 128 bits under a bound it proves
 * first; batch_sums sums modulo 2^64 beside a bound in
 * 64 bits, checked, that proves the residue is the sum, else again in 128 bits, checked (see each).
 * A result that does not fit 64 bits is an error (OverflowError), never a wrap. The walk counts
 * in unsigned __int128 under a proven bound: every quantity it forms (ways to reach a state, a leaf's count, any partial sum) is at most the shoe's
 * ordered 6-card sequences, which is at most N^6 for N cards; the caller passes N and the kernel
 * refuses N^6 >= 2^127 before it starts (checked with the overflow builtins). grouped_sums sums
 * 56-bit limbs of its multiples in signed 128 bits, 128 items at a time (a term is below 2^119), then
 * carries exactly into a Python int (fewer than 2^31 items, checked, keep the carries in 128 bits). round_tally
 * sums 32-bit halves in int64 and squares' words in signed 128 bits, without carries, and carries them into
 * two's-complement words (as many as its bound needs) only where a value is read (fewer than 2^31 rounds, checked:
 * see there). Every index read from
 * an array is checked against the array it indexes.
 *
 * Nothing here knows the rules of baccarat: the drawing rules reach the walk as a table of round
 * states built in Python from exactodds.game.rules, and what a wager reads as an automaton of
 * summaries built from its trackers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

/* -- buffers -------------------------------------------------------------------------------- */

typedef struct {
    Py_buffer view;
    int64_t *data;
    int32_t *data32;                        /* the same buffer, where it holds int32 (arr_get32) */
    uint16_t *data16;                       /* or uint16 (arr_get16) */
    uint64_t *datau64;                      /* or uint64 (arr_getu64) */
    Py_ssize_t n;
    int held;
} Arr;

/* Take an int64 C-contiguous buffer from ``obj`` (writable if asked); 0 on success. */
static int arr_get(PyObject *obj, Arr *a, int writable, const char *name)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    a->held = 0;
    if (PyObject_GetBuffer(obj, &a->view, flags) < 0) {
        PyErr_Format(PyExc_TypeError, "%s: a C-contiguous%s int64 array is needed", name,
                     writable ? " writable" : "");
        return -1;
    }
    a->held = 1;
    const char *f = a->view.format ? a->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (a->view.itemsize != 8 || (strcmp(f, "q") != 0 && strcmp(f, "l") != 0)) {
        PyErr_Format(PyExc_TypeError, "%s: int64 items are needed (got format %s, itemsize %zd)", name,
                     a->view.format ? a->view.format : "?", a->view.itemsize);
        PyBuffer_Release(&a->view);
        a->held = 0;
        return -1;
    }
    a->data = (int64_t *)a->view.buf;
    a->n = a->view.len / 8;
    return 0;
}

/* Take a C-contiguous buffer (writable if asked) of ``itemsize``-byte items of a struct format among the letters of
 * ``format`` from ``obj``; 0 on success. */
static int arr_get_narrow(PyObject *obj, Arr *a, const char *name, Py_ssize_t itemsize, const char *format,
                          const char *type, int writable)
{
    a->held = 0;
    if (PyObject_GetBuffer(obj, &a->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) {
        PyErr_Format(PyExc_TypeError, "%s: a C-contiguous%s %s array is needed", name, writable ? " writable" : "",
                     type);
        return -1;
    }
    a->held = 1;
    const char *f = a->view.format ? a->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (a->view.itemsize != itemsize || strlen(f) != 1 || !strchr(format, *f)) {    /* one of format's letters */
        PyErr_Format(PyExc_TypeError, "%s: %s items are needed (got format %s, itemsize %zd)", name, type,
                     a->view.format ? a->view.format : "?", a->view.itemsize);
        PyBuffer_Release(&a->view);
        a->held = 0;
        return -1;
    }
    a->n = a->view.len / itemsize;
    return 0;
}

/* int32 indices (half the memory a kernel streams through) and uint16 orderings. */
static int arr_get32(PyObject *obj, Arr *a, const char *name)
{
    if (arr_get_narrow(obj, a, name, 4, "i", "int32", 0)) return -1;
    a->data32 = (int32_t *)a->view.buf;
    return 0;
}

static int arr_get16(PyObject *obj, Arr *a, const char *name)
{
    if (arr_get_narrow(obj, a, name, 2, "H", "uint16", 0)) return -1;
    a->data16 = (uint16_t *)a->view.buf;
    return 0;
}

/* uint64 (struct format L or Q: the item size tells which is 64 bits), writable if asked. */
static int arr_getu64(PyObject *obj, Arr *a, int writable, const char *name)
{
    if (arr_get_narrow(obj, a, name, 8, "LQ", "uint64", writable)) return -1;
    a->datau64 = (uint64_t *)a->view.buf;
    return 0;
}

static void arr_release(Arr *a)
{
    if (a->held) {
        PyBuffer_Release(&a->view);
        a->held = 0;
    }
}

/* Error codes of the kernels, turned into Python exceptions once the GIL is held again. */
enum { OK = 0, E_OVERFLOW = 1, E_INDEX = 2, E_MEMORY = 3, E_LIMIT = 4, E_SIGNAL = 5, E_SHAPE = 6 };

static PyObject *raise_code(int code, const char *where)
{
    switch (code) {
    case E_OVERFLOW:
        PyErr_Format(PyExc_OverflowError, "%s: a count does not fit 64 bits", where);
        break;
    case E_INDEX:
        PyErr_Format(PyExc_IndexError, "%s: an index out of range (a malformed table)", where);
        break;
    case E_MEMORY:
        PyErr_NoMemory();
        break;
    case E_SHAPE:
        PyErr_Format(PyExc_ValueError, "%s: arrays of mismatched shapes", where);
        break;
    default:
        if (!PyErr_Occurred()) PyErr_Format(PyExc_RuntimeError, "%s: failed (%d)", where, code);
    }
    return NULL;
}

/* -- key_sums ------------------------------------------------------------------------------ */

/* One key's sum over entries a..b of column j: in 64 bits, every step checked; should a step
 * overflow (a sum of terms of both signs may pass 2^63 on the way to a result that fits), again
 * in 128 bits, every step checked, and the result checked to fit 64 bits. */
static int key_sum(const int64_t *w, Py_ssize_t m, Py_ssize_t columns, Py_ssize_t j, const int64_t *em,
                   const int64_t *ord, const int64_t *per, int64_t a, int64_t b, int64_t *result)
{
    int64_t sum = 0, from = a;
    int over = 0;
    if (columns == 1 && !per) {                       /* the common case, one column: the same, tighter */
        for (int64_t i = a; i < b; i++) {
            int64_t x = em[i], t;
            if ((uint64_t)x >= (uint64_t)m) return E_INDEX;
            over |= __builtin_mul_overflow(w[x], ord[i], &t);
            over |= __builtin_add_overflow(sum, t, &sum);
        }
        from = b;
    }
    for (int64_t i = from; i < b; i++) {              /* every step checked; the flags read once */
        int64_t x = em[i], t;
        if ((uint64_t)x >= (uint64_t)m) return E_INDEX;
        over |= __builtin_mul_overflow(w[x * columns + j], ord[i], &t);
        if (per) over |= __builtin_mul_overflow(t, per[i], &t);
        over |= __builtin_add_overflow(sum, t, &sum);
    }
    if (!over) {
        *result = sum;
        return OK;
    }
    __int128 wide = 0;
    for (int64_t i = a; i < b; i++) {
        __int128 t;
        int64_t x = em[i];
        if (__builtin_mul_overflow((__int128)w[x * columns + j], (__int128)ord[i], &t)
            || (per && __builtin_mul_overflow(t, (__int128)per[i], &t)) || __builtin_add_overflow(wide, t, &wide))
            return E_OVERFLOW;
    }
    if (wide > INT64_MAX || wide < INT64_MIN) return E_OVERFLOW;
    *result = (int64_t)wide;
    return OK;
}

/* The most columns key_sums adds in one pass over a key's entries (the categories of every card: six). */
#define KEY_COLUMNS 16

/* key_sums(per_multiset, columns, entry_multiset, entry_orderings, key_starts, per_entry, out): per key k
 * and column j, the sum over k's entries e of orderings[e] x per_multiset[multiset of e, j]
 * (x per_entry[e]), into out[k, j]. */
static PyObject *key_sums(PyObject *self, PyObject *args)
{
    PyObject *ow, *oem, *oord, *ostarts, *oper, *oout;
    Py_ssize_t columns;
    if (!PyArg_ParseTuple(args, "OnOOOOO", &ow, &columns, &oem, &oord, &ostarts, &oper, &oout)) return NULL;
    Arr w = {0}, em = {0}, ord = {0}, starts = {0}, per = {0}, out = {0};
    PyObject *result = NULL;
    int code = OK;
    if (arr_get(ow, &w, 0, "per_multiset") || arr_get(oem, &em, 0, "entry_multiset")
        || arr_get(oord, &ord, 0, "entry_orderings") || arr_get(ostarts, &starts, 0, "key_starts")
        || (oper != Py_None && arr_get(oper, &per, 0, "per_entry")) || arr_get(oout, &out, 1, "out"))
        goto done;
    if (columns < 1 || w.n % columns || em.n != ord.n || starts.n * columns != out.n || (per.held && per.n != em.n)) {
        code = E_SHAPE;
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t m = w.n / columns, e = em.n, k = starts.n;
    for (Py_ssize_t key = 0; code == OK && key < k; key++) {
        int64_t a = starts.data[key], b = key + 1 < k ? starts.data[key + 1] : e;
        if (a < 0 || b > e || a >= b) { code = E_INDEX; break; }
        if (columns > 1 && columns <= KEY_COLUMNS) {   /* every column in one pass over the entries */
            int64_t acc[KEY_COLUMNS] = {0};
            int over = 0;
            for (int64_t i = a; i < b; i++) {
                int64_t x = em.data[i], f = ord.data[i], t;
                if ((uint64_t)x >= (uint64_t)m) { code = E_INDEX; break; }
                if (per.held) over |= __builtin_mul_overflow(f, per.data[i], &f);
                const int64_t *row = w.data + x * columns;
                for (Py_ssize_t j = 0; j < columns; j++) {
                    over |= __builtin_mul_overflow(row[j], f, &t);
                    over |= __builtin_add_overflow(acc[j], t, &acc[j]);
                }
            }
            if (code != OK) break;
            if (!over) {
                memcpy(out.data + key * columns, acc, sizeof(int64_t) * (size_t)columns);
                continue;
            }                               /* a step overflowed: each column again, checked in 128 bits */
        }
        for (Py_ssize_t j = 0; j < columns; j++) {
            int64_t sum;
            code = key_sum(w.data, m, columns, j, em.data, ord.data, per.held ? per.data : NULL, a, b, &sum);
            if (code != OK) break;
            out.data[key * columns + j] = sum;
        }
    }
    Py_END_ALLOW_THREADS
fail:
    if (code != OK) raise_code(code, "key_sums");
    else result = Py_NewRef(Py_None);
done:
    arr_release(&w); arr_release(&em); arr_release(&ord); arr_release(&starts); arr_release(&per);
    arr_release(&out);
    return result;
}

/* -- wide_key_sums -------------------------------------------------------------------------- */

/*
 * wide_key_sums(per_multiset, columns, entry_multiset, entry_orderings, key_starts, out): key_sums for weights
 * past int64 (a shoe past about 27 decks), per_multiset and out uint64: per key k and column j (at most
 * KEY_COLUMNS), the sum over k's entries e of orderings[e] x per_multiset[multiset of e, j], into out[k, j].
 *
 * Exact in signed 128 bits by a bound proven before any term, checked with the overflow builtins: a weight
 * is below 2^64 and every ordering at most H in size, so with e entries every term and every partial sum is
 * below 2^64 x H x e in size, at most 2^127 where H x e <= 2^63. Else, and for a sum outside [0, 2^64), an
 * error (OverflowError), never a wrap.
 */
static PyObject *wide_key_sums(PyObject *self, PyObject *args)
{
    PyObject *ow, *oem, *oord, *ostarts, *oout;
    Py_ssize_t columns;
    if (!PyArg_ParseTuple(args, "OnOOOO", &ow, &columns, &oem, &oord, &ostarts, &oout)) return NULL;
    Arr w = {0}, em = {0}, ord = {0}, starts = {0}, out = {0};
    PyObject *result = NULL;
    int code = OK;
    if (arr_getu64(ow, &w, 0, "per_multiset") || arr_get(oem, &em, 0, "entry_multiset")
        || arr_get(oord, &ord, 0, "entry_orderings") || arr_get(ostarts, &starts, 0, "key_starts")
        || arr_getu64(oout, &out, 1, "out"))
        goto done;
    if (columns < 1 || columns > KEY_COLUMNS || w.n % columns || em.n != ord.n || starts.n * columns != out.n) {
        code = E_SHAPE;
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t m = w.n / columns, e = em.n, k = starts.n;
    uint64_t largest = 0, reach;                      /* the bound: H x e <= 2^63 */
    for (Py_ssize_t i = 0; i < e; i++) {
        uint64_t h = ord.data[i] < 0 ? -(uint64_t)ord.data[i] : (uint64_t)ord.data[i];
        if (h > largest) largest = h;
    }
    if (__builtin_mul_overflow(largest, (uint64_t)e, &reach) || reach > (uint64_t)1 << 63) code = E_OVERFLOW;
    for (Py_ssize_t key = 0; code == OK && key < k; key++) {
        int64_t a = starts.data[key], b = key + 1 < k ? starts.data[key + 1] : e;
        if (a < 0 || b > e || a >= b) { code = E_INDEX; break; }
        __int128 acc[KEY_COLUMNS] = {0};
        for (int64_t i = a; i < b; i++) {
            int64_t x = em.data[i];
            if ((uint64_t)x >= (uint64_t)m) { code = E_INDEX; break; }
            const uint64_t *row = w.datau64 + x * columns;
            for (Py_ssize_t j = 0; j < columns; j++) acc[j] += (__int128)row[j] * ord.data[i];
        }
        for (Py_ssize_t j = 0; code == OK && j < columns; j++) {
            if (acc[j] < 0 || acc[j] > (__int128)UINT64_MAX) { code = E_OVERFLOW; break; }
            out.datau64[key * columns + j] = (uint64_t)acc[j];
        }
    }
    Py_END_ALLOW_THREADS
fail:
    if (code != OK) raise_code(code, "wide_key_sums");
    else result = Py_NewRef(Py_None);
done:
    arr_release(&w); arr_release(&em); arr_release(&ord); arr_release(&starts); arr_release(&out);
    return result;
}

/* -- batch_sums ----------------------------------------------------------------------------- */

#define VALUES 10
#define SLOTS 6     /* factor slots per token: n, n-1, ..., n-5 */
#define FACTORS ((VALUES + 1) * SLOTS)
#define LANES 8     /* shoes counted side by side: one vector of products per item of the tree */

typedef uint64_t lanes_t __attribute__((vector_size(LANES * sizeof(uint64_t))));

/* The checked inputs of batch_sums, and its scratch space. */
typedef struct {
    Py_ssize_t levels, columns, terms, last, inner;  /* inner: the items of every level, added up */
    const int64_t *level_sizes, *tw, *from;
    const int32_t *sl, *pa, *tp, *ts;
    const uint64_t *wabs;                            /* |term weight|, as unsigned */
    uint64_t heaviest;                               /* the largest of them */
    int64_t *work;                                   /* one shoe's factors and two levels */
    Py_ssize_t widest;
    __int128 *acc;
    uint64_t *mod;
    lanes_t *f, *node, *lanes_mod;                   /* LANES shoes' factors, items, column residues */
    /* the terms in groups of one column, weight and last slot (consecutive: the caller sorts them so): group g
     * is terms gstart[g] to gstart[g + 1], column j's groups gfrom[j] to gfrom[j + 1] */
    int64_t *gstart, *gfrom;
    int32_t *gslot;                                  /* per group, its last slot and its weight (as unsigned) */
    uint64_t *gweight;
} Batch;

/* One shoe's sums into o[columns]: every product checked where the shoe's size does not prove it, the
 * residues kept where the bound proves them, else the shoe counted again in 128 bits, checked. */
static int batch_one(const Batch *B, const int64_t *c, int64_t *o)
{
    int64_t *a = B->work, *b = B->work + B->widest, *f = B->work + 2 * B->widest;
    int64_t size = 0;
    for (int t = 0; t < VALUES; t++) {
        if (c[t] < 0 || __builtin_add_overflow(size, c[t], &size)) return E_OVERFLOW;
        for (int o = 0; o < SLOTS; o++) f[t * SLOTS + o] = c[t] - o < 0 ? 0 : c[t] - o;
    }
    for (int o = 0; o < SLOTS; o++) f[VALUES * SLOTS + o] = size - o < 0 ? 0 : size - o;
    int64_t power = 1;                      /* every factor is at most size: a product of six at most size^6 */
    int proven = 1;
    for (int o = 0; o < SLOTS && proven; o++) proven = !__builtin_mul_overflow(power, size, &power);
    const int32_t *sl = B->sl, *pa = B->pa, *tpar = B->tp, *tsl = B->ts;
    const int64_t *twt = B->tw, *from = B->from;
    a[0] = 1;
    for (Py_ssize_t l = 0; l < B->levels; l++) {
        Py_ssize_t n = B->level_sizes[l];
        if (l == 0)
            for (Py_ssize_t i = 0; i < n; i++) b[i] = f[sl[i]];
        else if (proven)
            for (Py_ssize_t i = 0; i < n; i++) b[i] = a[pa[i]] * f[sl[i]];
        else
            for (Py_ssize_t i = 0; i < n; i++)
                if (__builtin_mul_overflow(a[pa[i]], f[sl[i]], &b[i])) return E_OVERFLOW;
        int64_t *swap = a; a = b; b = swap;
        sl += n; pa += n;
    }
    u128 weights = 0;                       /* the sum of the terms' weights x: at most terms x 2^63 */
    for (Py_ssize_t j = 0; j < B->columns; j++) {
        uint64_t run = 0;                   /* the column's sum, in a register */
        if (proven)
            for (int64_t t = from[j]; t < from[j + 1]; t++) {
                int64_t x = a[tpar[t]] * f[tsl[t]];
                weights += (uint64_t)x;
                run += (uint64_t)x * (uint64_t)twt[t];
            }
        else
            for (int64_t t = from[j]; t < from[j + 1]; t++) {
                int64_t x;
                if (__builtin_mul_overflow(a[tpar[t]], f[tsl[t]], &x)) return E_OVERFLOW;
                weights += (uint64_t)x;
                run += (uint64_t)x * (uint64_t)twt[t];
            }
        B->mod[j] = run;
    }
    /* every column's sum lies in [-B, B], B = sum of x |w| <= (largest |w|) x (sum of x) */
    int fits = weights <= (u128)INT64_MAX && (u128)B->heaviest * weights <= (u128)INT64_MAX;
    if (!fits) {                            /* the bound term by term, every step checked */
        uint64_t bound = 0, part;
        int wide = 0;
        for (Py_ssize_t t = 0; t < B->terms && !wide; t++)
            wide = __builtin_mul_overflow((uint64_t)(a[tpar[t]] * f[tsl[t]]), B->wabs[t], &part)
                   || __builtin_add_overflow(bound, part, &bound);
        fits = !wide && bound <= (uint64_t)INT64_MAX;
    }
    if (fits) {
        for (Py_ssize_t j = 0; j < B->columns; j++) o[j] = (int64_t)B->mod[j];
        return OK;
    }
    for (Py_ssize_t j = 0; j < B->columns; j++) {
        B->acc[j] = 0;
        for (int64_t t = from[j]; t < from[j + 1]; t++) {
            __int128 term;                  /* x fits 64 bits (checked above), so x * w fits 128 */
            if (__builtin_mul_overflow((__int128)(a[tpar[t]] * f[tsl[t]]), (__int128)twt[t], &term)
                || __builtin_add_overflow(B->acc[j], term, &B->acc[j]))
                return E_OVERFLOW;
        }
    }
    for (Py_ssize_t j = 0; j < B->columns; j++) {
        if (B->acc[j] > INT64_MAX || B->acc[j] < INT64_MIN) return E_OVERFLOW;
        o[j] = (int64_t)B->acc[j];
    }
    return OK;
}

/* weights[k] += (*s)[k] for every lane. The caller hands a copy of its running sum: reading the lanes of the sum
 * itself would keep it in memory, each group's sum += x then a store and a load in a chain (measured: about 15
 * cycles a group, half the time of three wagers' terms). */
static inline __attribute__((always_inline)) void lanes_flush(u128 *weights, const lanes_t *s)
{
    uint64_t lane[LANES];
    memcpy(lane, s, sizeof lane);
    for (Py_ssize_t k = 0; k < LANES; k++) weights[k] += lane[k];
}

/* ``rows`` (at most LANES) shoes side by side, one lane each, into out[rows][columns]: the tree's products
 * and the columns' residues as vectors of LANES. Only where every shoe's size N has N^6 < 2^63: then no
 * product of at most six factors (each at most N) wraps, and a chunk of K = floor((2^64 - 1) / P) terms,
 * P the largest N^6, sums its products x (each at most P) in 64 bits without a wrap (K x P <= 2^64 - 1),
 * added to each lane's 128-bit sum of x between chunks. Terms in a row of one last slot and weight (a group)
 * add their items (each a product of at most five factors, at most N^5) before the slot's factor multiplies
 * them: the part of a group in one chunk, n <= K terms, gives n x N^5 x N <= K x P, again no wrap (a column of at
 * most K terms is one chunk, its groups summed without the split's checks). A shoe whose residues that sum does
 * not prove (the bound of batch_one) is counted again by batch_one. Returns 1, nothing counted, where some shoe's
 * size does not prove it. Inlined into a copy per instruction set (batch_block). */
static inline __attribute__((always_inline)) int
block_lanes(const Batch *B, const int64_t *counts, Py_ssize_t rows, int64_t *out, int *code)
{
    lanes_t *f = B->f, *node = B->node;
    uint64_t largest = 0;
    static const int64_t none[VALUES];                /* a lane past the rows: no cards, every factor 0 */
    for (Py_ssize_t k = 0; k < LANES; k++) {
        const int64_t *c = k < rows ? counts + k * VALUES : none;
        int64_t size = 0, power = 1;
        for (int t = 0; t < VALUES; t++)
            if (c[t] < 0 || __builtin_add_overflow(size, c[t], &size)) return 1;
        for (int o = 0; o < SLOTS; o++)
            if (__builtin_mul_overflow(power, size, &power)) return 1;
        if ((uint64_t)power > largest) largest = (uint64_t)power;
        for (int t = 0; t < VALUES; t++)
            for (int o = 0; o < SLOTS; o++) f[t * SLOTS + o][k] = c[t] > o ? (uint64_t)(c[t] - o) : 0;
        for (int o = 0; o < SLOTS; o++) f[VALUES * SLOTS + o][k] = size > o ? (uint64_t)(size - o) : 0;
    }
    const int32_t *sl = B->sl, *pa = B->pa;
    lanes_t *prev = node, *level = node;
    for (Py_ssize_t l = 0; l < B->levels; l++) {     /* level l's items: products of l + 1 factors */
        Py_ssize_t n = B->level_sizes[l];
        if (l == 0)
            for (Py_ssize_t i = 0; i < n; i++) level[i] = f[sl[i]];
        else
            for (Py_ssize_t i = 0; i < n; i++) level[i] = prev[pa[i]] * f[sl[i]];
        prev = level; level += n;
        sl += n; pa += n;
    }
    if (B->levels == 0)                               /* the root alone: the empty product */
        for (Py_ssize_t k = 0; k < LANES; k++) prev[0][k] = 1;
    uint64_t most = largest ? UINT64_MAX / largest : UINT64_MAX;  /* K: at least 2, as P < 2^63 */
    int64_t chunk = most > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)most;
    const int32_t *tpar = B->tp;
    u128 weights[LANES] = {0};
    for (Py_ssize_t j = 0; j < B->columns; j++) {
        /* a group's terms share their last factor and weight: their items added up, times the factor, times the
         * weight, once; each term's product is at most P, a piece of n terms' x at most n P, and a chunk holds at
         * most K terms, so its sum of x, at most K P, does not wrap */
        lanes_t run = {0}, sum = {0};
        if (B->gstart[B->gfrom[j + 1]] - B->gstart[B->gfrom[j]] <= chunk) {
            /* the whole column in one chunk (at 8 decks, K is about 3,500 terms): no group is split */
            for (int64_t g = B->gfrom[j]; g < B->gfrom[j + 1]; g++) {
                lanes_t items = {0};
                for (int64_t t = B->gstart[g]; t < B->gstart[g + 1]; t++) items += prev[tpar[t]];
                lanes_t x = items * f[B->gslot[g]];
                run += x * B->gweight[g];
                sum += x;
            }
            lanes_t whole = sum;
            lanes_flush(weights, &whole);
            B->lanes_mod[j] = run;
            continue;
        }
        int64_t room = chunk;                         /* the terms the chunk can still take */
        for (int64_t g = B->gfrom[j]; g < B->gfrom[j + 1]; g++) {
            const int64_t end = B->gstart[g + 1];
            const lanes_t factor = f[B->gslot[g]];
            const uint64_t w = B->gweight[g];
            for (int64_t t = B->gstart[g]; t < end;) {
                int64_t stop = end - t > room ? t + room : end;
                lanes_t items = {0};
                room -= stop - t;
                for (; t < stop; t++) items += prev[tpar[t]];
                lanes_t x = items * factor;
                run += x * w;
                sum += x;
                if (room == 0) {
                    lanes_t chunked = sum;
                    lanes_flush(weights, &chunked);
                    sum = (lanes_t){0};
                    room = chunk;
                }
            }
        }
        lanes_t rest = sum;
        lanes_flush(weights, &rest);
        B->lanes_mod[j] = run;
    }
    for (Py_ssize_t k = 0; k < rows; k++) {
        int64_t *o = out + k * B->columns;
        /* every column's sum lies in [-B, B], B = sum of x |w| <= (largest |w|) x (sum of x) */
        if (weights[k] <= (u128)INT64_MAX && (u128)B->heaviest * weights[k] <= (u128)INT64_MAX)
            for (Py_ssize_t j = 0; j < B->columns; j++) o[j] = (int64_t)B->lanes_mod[j][k];
        else if ((*code = batch_one(B, counts + k * VALUES, o)) != OK)
            return 0;
    }
    return 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* block_lanes compiled for AVX-512 (eight 64-bit products per instruction) and for AVX2 (four, each
 * made of 32-bit products); chosen by what the processor has, when it runs. */
__attribute__((target("avx512f,avx512dq"))) static int
block_avx512(const Batch *B, const int64_t *counts, Py_ssize_t rows, int64_t *out, int *code)
{
    return block_lanes(B, counts, rows, out, code);
}

__attribute__((target("avx2"))) static int
block_avx2(const Batch *B, const int64_t *counts, Py_ssize_t rows, int64_t *out, int *code)
{
    return block_lanes(B, counts, rows, out, code);
}
#endif

/* block_lanes where the processor has vector instructions that make it faster than shoe by shoe; else
 * 1, nothing counted (without them a 64-bit product costs several instructions per lane). */
static int batch_block(const Batch *B, const int64_t *counts, Py_ssize_t rows, int64_t *out, int *code)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
        return block_avx512(B, counts, rows, out, code);
    if (__builtin_cpu_supports("avx2"))
        return block_avx2(B, counts, rows, out, code);
#endif
    return 1;
}

/*
 * batch_sums(value_counts, slots, parents, level_sizes, term_parent, term_slot, term_weight,
 * column_starts, out): for each shoe (a row of 10 cards per point value), the multisets' weights by
 * a tree of shared products (level l's item i is item parents[i] of level l - 1 times factor
 * slots[i]; level 0's items are their factors), then, for each column j and its terms t from
 * column_starts[j] to column_starts[j + 1], out[shoe, j] += (item term_parent[t] of the tree's last
 * level) x factor term_slot[t] x term_weight[t]: the last card of each multiset is multiplied in
 * beside its column (once for a row of terms of one slot and weight: the caller sorts them so for
 * speed; any order gives the same sums), and a multiset that feeds no column costs nothing (the terms
 * are the sparse matrix of a multiset per column, by column; one naming the root when the tree has no level). The
 * indices are int32: half the memory streamed per shoe. Shoes go LANES at a time (batch_block).
 *
 * Exact without a check per term: a weight is a product of at most six factors of at most N (the
 * shoe's cards), so where N^6 < 2^63 none overflows (else every product is checked); the sums are
 * formed modulo 2^64 (unsigned, well defined), each column's in a register. Every column's true
 * sum lies in [-B, B], B = sum over terms of weight x |term_weight|, and B <= (largest
 * |term_weight|) x (sum of the weights), which is formed exactly beside (in 128 bits: each weight
 * is below 2^63, and there are fewer than 2^63 terms). Where that is
 * below 2^63 the residues are the sums; else B itself, term by term, every step checked; where B
 * is not below 2^63 either, the shoe is counted again, every step checked in 128 bits, and a column
 * that does not fit 64 bits is an error.
 */
static PyObject *batch_sums(PyObject *self, PyObject *args)
{
    PyObject *ocounts, *oslots, *oparents, *osizes, *otp, *ots, *otw, *ostarts, *oout;
    if (!PyArg_ParseTuple(args, "OOOOOOOOO", &ocounts, &oslots, &oparents, &osizes, &otp, &ots, &otw, &ostarts,
                          &oout))
        return NULL;
    Arr counts = {0}, slots = {0}, parents = {0}, sizes = {0}, tp = {0}, ts = {0}, tw = {0}, starts = {0}, out = {0};
    PyObject *result = NULL;
    int code = OK;
    Batch B = {0};
    uint64_t *wabs = NULL;
    if (arr_get(ocounts, &counts, 0, "value_counts") || arr_get32(oslots, &slots, "slots")
        || arr_get32(oparents, &parents, "parents") || arr_get(osizes, &sizes, 0, "level_sizes")
        || arr_get32(otp, &tp, "term_parent") || arr_get32(ots, &ts, "term_slot")
        || arr_get(otw, &tw, 0, "term_weight") || arr_get(ostarts, &starts, 0, "column_starts")
        || arr_get(oout, &out, 1, "out"))
        goto done;
    Py_ssize_t shoes = counts.n / VALUES, levels = sizes.n, total = 0, widest = 1, terms = tp.n;
    for (Py_ssize_t l = 0; l < levels; l++) {
        if (sizes.data[l] < 1) { code = E_SHAPE; goto fail; }
        total += sizes.data[l];
        if (sizes.data[l] > widest) widest = sizes.data[l];
    }
    Py_ssize_t last = levels ? sizes.data[levels - 1] : 1;        /* the root alone when there is no level */
    if (counts.n % VALUES || levels >= SLOTS || slots.n != total || parents.n != total || ts.n != terms
        || tw.n != terms || starts.n < 1 || out.n != shoes * (starts.n - 1)) {
        code = E_SHAPE;
        goto fail;
    }
    Py_ssize_t columns = starts.n - 1;
    /* the tree's and the terms' indices, checked once */
    {
        const int32_t *sl = slots.data32, *pa = parents.data32;
        Py_ssize_t prev = 1;
        for (Py_ssize_t l = 0; l < levels; l++) {
            for (Py_ssize_t i = 0; i < sizes.data[l]; i++)
                if (sl[i] < 0 || sl[i] >= FACTORS || (l ? pa[i] : 0) < 0 || (l ? pa[i] : 0) >= prev) {
                    code = E_INDEX;
                    goto fail;
                }
            sl += sizes.data[l]; pa += sizes.data[l]; prev = sizes.data[l];
        }
        for (Py_ssize_t t = 0; t < terms; t++)
            if (tp.data32[t] < 0 || tp.data32[t] >= last || ts.data32[t] < 0 || ts.data32[t] >= FACTORS) {
                code = E_INDEX;
                goto fail;
            }
        if (starts.data[0] != 0 || starts.data[columns] != terms) { code = E_INDEX; goto fail; }
        for (Py_ssize_t j = 0; j < columns; j++)
            if (starts.data[j + 1] < starts.data[j]) { code = E_INDEX; goto fail; }
    }
    size_t cols = (size_t)(columns ? columns : 1);
    B = (Batch){levels, columns, terms, last, total, sizes.data, tw.data, starts.data, slots.data32, parents.data32,
                tp.data32, ts.data32, NULL, 0, NULL, widest, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    B.work = malloc(sizeof(int64_t) * (size_t)(2 * widest + FACTORS));
    B.acc = malloc(sizeof(__int128) * cols);
    B.mod = malloc(sizeof(uint64_t) * cols);
    wabs = malloc(sizeof(uint64_t) * (size_t)terms + 1);
    /* sizes rounded up to the vectors' alignment, as aligned_alloc asks */
    B.f = aligned_alloc(sizeof(lanes_t), sizeof(lanes_t) * FACTORS);
    B.node = aligned_alloc(sizeof(lanes_t), sizeof(lanes_t) * (size_t)(total + 1));
    B.lanes_mod = aligned_alloc(sizeof(lanes_t), sizeof(lanes_t) * cols);
    B.gstart = malloc(sizeof(int64_t) * (size_t)(terms + 1));
    B.gfrom = malloc(sizeof(int64_t) * (size_t)(columns + 1));
    B.gslot = malloc(sizeof(int32_t) * (size_t)(terms + 1));       /* at most a group per term; never 0 bytes */
    B.gweight = malloc(sizeof(uint64_t) * (size_t)(terms + 1));
    if (!B.work || !B.acc || !B.mod || !wabs || !B.f || !B.node || !B.lanes_mod || !B.gstart || !B.gfrom || !B.gslot
        || !B.gweight) {
        code = E_MEMORY;
        goto fail;
    }
    B.wabs = wabs;
    {   /* the groups: a new one where the column, the weight or the last slot changes */
        Py_ssize_t g = 0;
        for (Py_ssize_t j = 0; j < columns; j++) {
            B.gfrom[j] = g;
            for (int64_t t = starts.data[j]; t < starts.data[j + 1]; t++)
                if (t == starts.data[j] || tw.data[t] != tw.data[t - 1] || ts.data32[t] != ts.data32[t - 1]) {
                    B.gslot[g] = ts.data32[t];
                    B.gweight[g] = (uint64_t)tw.data[t];
                    B.gstart[g++] = t;
                }
        }
        B.gfrom[columns] = g;
        B.gstart[g] = terms;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < terms; t++) {         /* |w| as unsigned: 2^63 for INT64_MIN */
        wabs[t] = tw.data[t] < 0 ? 0 - (uint64_t)tw.data[t] : (uint64_t)tw.data[t];
        if (wabs[t] > B.heaviest) B.heaviest = wabs[t];
    }
    for (Py_ssize_t s = 0; code == OK && s < shoes; s += LANES) {
        Py_ssize_t rows = shoes - s < LANES ? shoes - s : LANES;
        const int64_t *c = counts.data + s * VALUES;
        if (batch_block(&B, c, rows, out.data + s * columns, &code))
            for (Py_ssize_t k = 0; code == OK && k < rows; k++)
                code = batch_one(&B, c + k * VALUES, out.data + (s + k) * columns);
    }
    Py_END_ALLOW_THREADS
fail:
    if (code != OK) raise_code(code, "batch_sums");
    else result = Py_NewRef(Py_None);
done:
    free(B.work); free(B.acc); free(B.mod); free(wabs); free(B.f); free(B.node); free(B.lanes_mod);
    free(B.gstart); free(B.gfrom); free(B.gslot); free(B.gweight);
    arr_release(&counts); arr_release(&slots); arr_release(&parents); arr_release(&sizes);
    arr_release(&tp); arr_release(&ts); arr_release(&tw); arr_release(&starts); arr_release(&out);
    return result;
}

/* -- block_sums ----------------------------------------------------------------------------- */

/* Whether every item of a[0..n) lies in [0, bound): one pass without a branch, which the compiler turns
 * into vector instructions (the check costs a few microseconds on the point table's 30,000 indices). */
__attribute__((optimize("O3"))) static int all_below(const int32_t *a, Py_ssize_t n, uint32_t bound)
{
    uint32_t bad = 0;
    for (Py_ssize_t i = 0; i < n; i++) bad |= (uint32_t)a[i] >= bound;
    return bad == 0;
}

/* The products of the factors each column of ``rows`` (cards x n slot indices, int32) names, into out[n];
 * E_INDEX for a slot out of range. */
/* The products of the factors each column of ``rows`` (cards x n slot indices, checked by block_plan) names,
 * into out[n]. */
static void half_products(const uint64_t *fac, const int32_t *r, Py_ssize_t cards, Py_ssize_t n, uint64_t *out)
{
    for (Py_ssize_t i = 0; i < n; i++) out[i] = 1;
    for (Py_ssize_t c = 0; c < cards; c++)
        for (Py_ssize_t i = 0; i < n; i++) out[i] *= fac[r[c * n + i]];
}

/* The sum over entries a..z of weight x orderings, in unsigned 128 bits (block_sums proves it fits): two
 * running sums, so that one product need not wait for the previous add. */
__attribute__((optimize("O3"))) static u128 entry_sum(const uint64_t *w, const int32_t *em, const uint16_t *ord,
                                                       int64_t a, int64_t z)
{
    u128 even = 0, odd = 0;
    int64_t i = a;
    for (; i + 1 < z; i += 2) {
        even += (u128)w[em[i]] * ord[i];
        odd += (u128)w[em[i + 1]] * ord[i + 1];
    }
    if (i < z) even += (u128)w[em[i]] * ord[i];
    return even + odd;
}

/* The dense layout's sums for K blocks, K a constant so that the running sums stay in registers: each
 * multiset's weight made (p1[x[i]] x p2[y[i]]) and spent at once. */
#define DENSE_SUMS(K)                                                                                        \
    __attribute__((optimize("O3"))) static void dense_sums_##K(const uint64_t *p1, const uint64_t *p2,        \
                                                               const int32_t *x, const int32_t *y,            \
                                                               const uint16_t *ord, Py_ssize_t m, u128 *sums) \
    {                                                                                                          \
        u128 acc[K] = {0};                                                                                     \
        for (Py_ssize_t i = 0; i < m; i++) {                                                                   \
            uint64_t wi = p1[x[i]] * p2[y[i]];                                                                 \
            for (int b = 0; b < K; b++) acc[b] += (u128)wi * ord[i * K + b];                                   \
        }                                                                                                      \
        for (int b = 0; b < K; b++) sums[b] = acc[b];                                                          \
    }
DENSE_SUMS(1)
DENSE_SUMS(2)
DENSE_SUMS(3)
DENSE_SUMS(4)
DENSE_SUMS(5)
DENSE_SUMS(6)
DENSE_SUMS(7)
DENSE_SUMS(8)
#undef DENSE_SUMS

/* The most blocks of the dense layout (engine/multiset.py's _DENSE_BLOCKS). */
#define DENSE_MOST 8

static PyObject *u128_to_long(u128 x);

/*
 * A plan of block_sums: one multiset table's entries merged by block (engine/multiset.py's block_counts: the keys
 * a selection of wagers settles alike), shoe-free, every index checked once when it is made and held in memory
 * no Python code can change, so that the sums for each shoe read it unchecked.
 *
 * block_plan(first, first_at, second, second_at, entry_multiset, orderings, block_starts) makes one. A multiset's
 * weight is the product of the factors its cards' slots name, taken in two halves: its first cards' product is
 * column first_at[i] of ``first`` (cards x distinct first halves, int32 slot indices), its last cards' column
 * second_at[i] of ``second`` (the point table's 6,958 multisets have 220 and 829 distinct halves). The table, one
 * of two layouts: sparse, entry_multiset (int32) and orderings (uint16) per merged entry, block b's entries from
 * block_starts[b]; or dense (entry_multiset and block_starts None), orderings a (multisets x blocks) uint16
 * matrix, for at most DENSE_MOST blocks (the main game: three), summed as the weights are made.
 */
typedef struct {
    Py_ssize_t c1, c2, n1, n2, m, k, e;     /* cards per half, distinct halves, multisets, blocks, entries */
    int dense;
    int64_t slots;                          /* 1 + the largest slot index read: the shoe's tokens must reach it */
    int32_t *h1, *h1at, *h2, *h2at, *em;    /* copies, in one allocation with ``ord`` and ``starts`` */
    uint16_t *ord;
    int64_t *starts;
} BlockPlan;

static const char BLOCK_PLAN[] = "exactodds._core.block_plan";

static void block_plan_free(PyObject *capsule)
{
    free(PyCapsule_GetPointer(capsule, BLOCK_PLAN));
}

/* The largest item of a[0..n), or -1 for none. */
static int64_t largest32(const int32_t *a, Py_ssize_t n)
{
    int64_t top = -1;
    for (Py_ssize_t i = 0; i < n; i++) if (a[i] > top) top = a[i];
    return top;
}

static PyObject *block_plan(PyObject *self, PyObject *args)
{
    PyObject *o1, *o1at, *o2, *o2at, *oem, *oord, *ostarts;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &o1, &o1at, &o2, &o2at, &oem, &oord, &ostarts)) return NULL;
    Arr h1 = {0}, h1at = {0}, h2 = {0}, h2at = {0}, em = {0}, ord = {0}, starts = {0};
    PyObject *result = NULL;
    BlockPlan *plan = NULL;
    int code = OK, dense = oem == Py_None && ostarts == Py_None;
    if (arr_get32(o1, &h1, "first") || arr_get32(o1at, &h1at, "first_at")
        || arr_get32(o2, &h2, "second") || arr_get32(o2at, &h2at, "second_at")
        || (!dense && arr_get32(oem, &em, "entry_multiset")) || arr_get16(oord, &ord, "orderings")
        || (!dense && arr_get(ostarts, &starts, 0, "block_starts")))
        goto done;
    Py_ssize_t m = h1at.n;
    Py_ssize_t c1 = h1.view.ndim == 2 ? h1.view.shape[0] : 0, c2 = h2.view.ndim == 2 ? h2.view.shape[0] : 0;
    Py_ssize_t k = dense ? (ord.view.ndim == 2 ? ord.view.shape[1] : -1) : starts.n;
    Py_ssize_t e = dense ? ord.n : em.n;
    if (c1 < 1 || c2 < 1 || c1 + c2 > 16 || h2at.n != m || k < 0
        || (dense && (ord.view.shape[0] != m || k > DENSE_MOST))
        || (!dense && (oem == Py_None || ostarts == Py_None || ord.n != e))) {
        code = E_SHAPE;
        goto fail;
    }
    Py_ssize_t n1 = h1.n / c1, n2 = h2.n / c2;
    /* every index, once: slots and halves in range, each block's entries within the table, in order */
    int64_t low = 0;
    for (Py_ssize_t i = 0; i < h1.n; i++) if (h1.data32[i] < low) low = h1.data32[i];
    for (Py_ssize_t i = 0; i < h2.n; i++) if (h2.data32[i] < low) low = h2.data32[i];
    if (low < 0 || !all_below(h1at.data32, m, (uint32_t)n1) || !all_below(h2at.data32, m, (uint32_t)n2)
        || (!dense && !all_below(em.data32, e, (uint32_t)m)))
        code = E_INDEX;
    for (Py_ssize_t b = 0; code == OK && !dense && b < k; b++) {
        int64_t a = starts.data[b], z = b + 1 < k ? starts.data[b + 1] : e;
        if (a < 0 || z > e || a > z) code = E_INDEX;
    }
    if (code != OK) goto fail;
    size_t i32 = (size_t)(h1.n + m + h2.n + m + (dense ? 0 : e)), i16 = (size_t)ord.n, i64 = (size_t)(dense ? 0 : k);
    plan = malloc(sizeof(BlockPlan) + sizeof(int64_t) * i64 + sizeof(int32_t) * i32 + sizeof(uint16_t) * i16 + 1);
    if (!plan) { code = E_MEMORY; goto fail; }
    plan->c1 = c1; plan->c2 = c2; plan->n1 = n1; plan->n2 = n2; plan->m = m; plan->k = k; plan->e = e;
    plan->dense = dense;
    int64_t top1 = largest32(h1.data32, h1.n), top2 = largest32(h2.data32, h2.n);
    plan->slots = 1 + (top1 > top2 ? top1 : top2);
    plan->starts = (int64_t *)(plan + 1);                  /* int64 first, then int32, then uint16: aligned */
    plan->h1 = (int32_t *)(plan->starts + i64);
    plan->h1at = plan->h1 + h1.n;
    plan->h2 = plan->h1at + m;
    plan->h2at = plan->h2 + h2.n;
    plan->em = plan->h2at + m;
    plan->ord = (uint16_t *)(plan->em + (dense ? 0 : e));
    memcpy(plan->h1, h1.data32, sizeof(int32_t) * (size_t)h1.n);
    memcpy(plan->h1at, h1at.data32, sizeof(int32_t) * (size_t)m);
    memcpy(plan->h2, h2.data32, sizeof(int32_t) * (size_t)h2.n);
    memcpy(plan->h2at, h2at.data32, sizeof(int32_t) * (size_t)m);
    if (!dense) {
        memcpy(plan->em, em.data32, sizeof(int32_t) * (size_t)e);
        memcpy(plan->starts, starts.data, sizeof(int64_t) * (size_t)k);
    }
    memcpy(plan->ord, ord.data16, sizeof(uint16_t) * i16);
    result = PyCapsule_New(plan, BLOCK_PLAN, block_plan_free);
    if (!result) free(plan);
    goto done;
fail:
    raise_code(code, "block_plan");
done:
    arr_release(&h1); arr_release(&h1at); arr_release(&h2); arr_release(&h2at); arr_release(&em);
    arr_release(&ord); arr_release(&starts);
    return result;
}

/*
 * block_sums(tokens, plan): one shoe's counts per block of a plan (block_plan), as a list of Python integers.
 *
 * The shoe: ``tokens`` (a tuple of integers) holds the cards of each token of the table's factor slots (its
 * atoms', then its values'), and last the shoe's size; slot t*6 + o is tokens[t] - o (read as 0 where negative:
 * a multiset that reaches one holds a 0 factor first, so its weight is 0 either way). The tokens must reach
 * every slot the plan reads.
 *
 * Exact by a bound proven before any product, checked with the overflow builtins: with F the largest
 * factor, c the cards per multiset and e the terms, F^c < 2^64 makes every weight fit uint64 unchecked,
 * and F^c x (2^16 - 1) x e < 2^128 (orderings are uint16: a merged entry holds at most a multiset's
 * 6! = 720) makes every term and every partial sum fit unsigned 128 bits. Past the bound the kernel
 * refuses (OverflowError) and the caller counts modulo primes.
 */
static PyObject *block_sums(PyObject *self, PyObject *args)
{
    PyObject *otok, *ocap;
    if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &otok, &PyCapsule_Type, &ocap)) return NULL;
    const BlockPlan *plan = PyCapsule_GetPointer(ocap, BLOCK_PLAN);
    if (!plan) return NULL;                                 /* another capsule: its name says so */
    Py_ssize_t ntok = PyTuple_GET_SIZE(otok);
    if (ntok < 1 || ntok > 1024 || ntok * SLOTS < plan->slots) {
        PyErr_SetString(PyExc_ValueError, "block_sums: tokens: 1 to 1024 counts, reaching every slot of the plan");
        return NULL;
    }
    int64_t tokens[1024];
    for (Py_ssize_t t = 0; t < ntok; t++) {
        int overflow = 0;
        tokens[t] = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(otok, t), &overflow);
        if (overflow || (tokens[t] == -1 && PyErr_Occurred())) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_OverflowError, "block_sums: a token count past 64 bits");
            return NULL;
        }
        if (tokens[t] < 0) {                        /* counts of cards: never below 0 (and t - o never wraps) */
            PyErr_SetString(PyExc_ValueError, "block_sums: a token count below 0");
            return NULL;
        }
    }
    PyObject *result = NULL;
    int code = OK;
    Py_ssize_t m = plan->m, k = plan->k, e = plan->e, slots = ntok * SLOTS;
    uint64_t *fac = malloc(sizeof(uint64_t) * (size_t)slots);
    uint64_t *p1 = malloc(sizeof(uint64_t) * (size_t)(plan->n1 ? plan->n1 : 1));
    uint64_t *p2 = malloc(sizeof(uint64_t) * (size_t)(plan->n2 ? plan->n2 : 1));
    uint64_t *w = plan->dense ? NULL : malloc(sizeof(uint64_t) * (size_t)(m ? m : 1));
    u128 *sums = calloc((size_t)(k ? k : 1), sizeof(u128));
    if (!fac || !p1 || !p2 || (!plan->dense && !w) || !sums) { code = E_MEMORY; goto fail; }
    Py_BEGIN_ALLOW_THREADS
    /* the factor slots, and the bound, proven before any product */
    uint64_t largest = 0, power = 1;
    for (Py_ssize_t t = 0; t < ntok; t++)
        for (int o = 0; o < SLOTS; o++) {
            int64_t x = tokens[t] - o;
            fac[t * SLOTS + o] = x > 0 ? (uint64_t)x : 0;
            if (x > 0 && (uint64_t)x > largest) largest = (uint64_t)x;
        }
    for (Py_ssize_t c = 1; c <= plan->c1 + plan->c2; c++)
        if (__builtin_mul_overflow(power, largest, &power)) code = E_OVERFLOW;
    u128 reach;
    if (code == OK && (__builtin_mul_overflow((u128)power, (u128)UINT16_MAX, &reach)
                       || __builtin_mul_overflow(reach, (u128)(e ? e : 1), &reach)))
        code = E_OVERFLOW;
    if (code == OK) {
        half_products(fac, plan->h1, plan->c1, plan->n1, p1);
        half_products(fac, plan->h2, plan->c2, plan->n2, p2);
        const int32_t *x = plan->h1at, *y = plan->h2at;
        const uint16_t *ord_ = plan->ord;
        if (plan->dense) {
            switch (k) {
            case 0: break;
            case 1: dense_sums_1(p1, p2, x, y, ord_, m, sums); break;
            case 2: dense_sums_2(p1, p2, x, y, ord_, m, sums); break;
            case 3: dense_sums_3(p1, p2, x, y, ord_, m, sums); break;
            case 4: dense_sums_4(p1, p2, x, y, ord_, m, sums); break;
            case 5: dense_sums_5(p1, p2, x, y, ord_, m, sums); break;
            case 6: dense_sums_6(p1, p2, x, y, ord_, m, sums); break;
            case 7: dense_sums_7(p1, p2, x, y, ord_, m, sums); break;
            case 8: dense_sums_8(p1, p2, x, y, ord_, m, sums); break;
            }
        } else {
            for (Py_ssize_t i = 0; i < m; i++) w[i] = p1[x[i]] * p2[y[i]];
            for (Py_ssize_t b = 0; b < k; b++)
                sums[b] = entry_sum(w, plan->em, ord_, plan->starts[b], b + 1 < k ? plan->starts[b + 1] : e);
        }
    }
    Py_END_ALLOW_THREADS
fail:
    if (code != OK) raise_code(code, "block_sums");
    else if ((result = PyList_New(k))) {
        for (Py_ssize_t b = 0; b < k; b++) {
            PyObject *n = u128_to_long(sums[b]);
            if (!n) { Py_CLEAR(result); break; }
            PyList_SET_ITEM(result, b, n);
        }
    }
    free(fac); free(p1); free(p2); free(w); free(sums);
    return result;
}

/* -- category_products ---------------------------------------------------------------------- */

#define CATEGORY_COLUMNS 7      /* every card of the values, each of the four suits, each of the two colours */

/*
 * category_products(flat, first, first_at, second, second_at, out): for every card of a round in one
 * suit, one colour or any (engine/identity.py's all_card_categories), per value multiset the ordered draws
 * of its cards in each column of ``flat`` ((slots x 7) int64: slot value x 7 + cards, the falling factorial
 * of that value's cards of the column), as the product of two half-products: its values 0-4 are column
 * first_at[i] of ``first`` (5 x distinct halves, int32 slot indices), its values 5-9 column second_at[i] of
 * ``second``. out ((multisets x 3) int64) gets each multiset's draws of any suits, the sum over the four
 * suits, the sum over the two colours; with ``modulus`` (a prime below 2^31, ``flat`` its residues), each
 * figure's residue, every product reduced before the next. Every product and sum is checked (an overflow is
 * an error: the caller proves the shoe's counts fit); every index is checked before any is read.
 */
static PyObject *category_products(PyObject *self, PyObject *args)
{
    PyObject *oflat, *o1, *o1at, *o2, *o2at, *oout;
    long long modulus = 0;
    if (!PyArg_ParseTuple(args, "OOOOOO|L", &oflat, &o1, &o1at, &o2, &o2at, &oout, &modulus)) return NULL;
    if (modulus < 0 || modulus >= (1LL << 31)) {
        PyErr_SetString(PyExc_ValueError, "category_products: the modulus must be from 1 to 2^31 - 1 (0: none)");
        return NULL;
    }
    Arr flat = {0}, h1 = {0}, h1at = {0}, h2 = {0}, h2at = {0}, out = {0};
    PyObject *result = NULL;
    int code = OK;
    int64_t *p1 = NULL, *p2 = NULL;
    if (arr_get(oflat, &flat, 0, "flat") || arr_get32(o1, &h1, "first") || arr_get32(o1at, &h1at, "first_at")
        || arr_get32(o2, &h2, "second") || arr_get32(o2at, &h2at, "second_at") || arr_get(oout, &out, 1, "out"))
        goto done;
    Py_ssize_t m = h1at.n, c1 = h1.view.ndim == 2 ? h1.view.shape[0] : 0, c2 = h2.view.ndim == 2 ? h2.view.shape[0] : 0;
    if (flat.n % CATEGORY_COLUMNS || c1 < 1 || c2 < 1 || h2at.n != m || out.n != 3 * m) {
        code = E_SHAPE;
        goto fail;
    }
    Py_ssize_t slots = flat.n / CATEGORY_COLUMNS, n1 = h1.n / c1, n2 = h2.n / c2;
    p1 = malloc(sizeof(int64_t) * (size_t)(n1 ? n1 : 1) * CATEGORY_COLUMNS);
    p2 = malloc(sizeof(int64_t) * (size_t)(n2 ? n2 : 1) * CATEGORY_COLUMNS);
    if (!p1 || !p2) { code = E_MEMORY; goto fail; }
    Py_BEGIN_ALLOW_THREADS
    if (!all_below(h1.data32, h1.n, (uint32_t)slots) || !all_below(h2.data32, h2.n, (uint32_t)slots)
        || !all_below(h1at.data32, m, (uint32_t)n1) || !all_below(h2at.data32, m, (uint32_t)n2))
        code = E_INDEX;
    const Arr *halves[2] = {&h1, &h2};
    int64_t *products[2] = {p1, p2};
    for (int h = 0; code == OK && h < 2; h++) {        /* each distinct half-row's products, per column */
        const Arr *rows = halves[h];
        Py_ssize_t cards = rows->view.shape[0], n = rows->n / cards;
        for (Py_ssize_t i = 0; code == OK && i < n; i++) {
            int64_t *q = products[h] + i * CATEGORY_COLUMNS;
            for (int c = 0; c < CATEGORY_COLUMNS; c++) q[c] = 1;
            for (Py_ssize_t v = 0; v < cards; v++) {
                const int64_t *f = flat.data + (Py_ssize_t)rows->data32[v * n + i] * CATEGORY_COLUMNS;
                for (int c = 0; c < CATEGORY_COLUMNS; c++) {
                    if (__builtin_mul_overflow(q[c], f[c], &q[c])) code = E_OVERFLOW;
                    if (modulus) q[c] %= modulus;     /* residues below 2^31: a product stays below 2^62 */
                }
            }
        }
    }
    for (Py_ssize_t i = 0; code == OK && i < m; i++) {
        const int64_t *a = p1 + (Py_ssize_t)h1at.data32[i] * CATEGORY_COLUMNS;
        const int64_t *b = p2 + (Py_ssize_t)h2at.data32[i] * CATEGORY_COLUMNS;
        int64_t x[CATEGORY_COLUMNS], suit = 0, colour = 0;
        int over = 0;
        for (int c = 0; c < CATEGORY_COLUMNS; c++) {
            over |= __builtin_mul_overflow(a[c], b[c], &x[c]);
            if (modulus) x[c] %= modulus;
        }
        for (int c = 1; c <= 4; c++) over |= __builtin_add_overflow(suit, x[c], &suit);
        over |= __builtin_add_overflow(x[5], x[6], &colour);
        if (over) { code = E_OVERFLOW; break; }
        if (modulus) { suit %= modulus; colour %= modulus; }
        out.data[3 * i] = x[0];
        out.data[3 * i + 1] = suit;
        out.data[3 * i + 2] = colour;
    }
    Py_END_ALLOW_THREADS
fail:
    if (code != OK) raise_code(code, "category_products");
    else result = Py_NewRef(Py_None);
done:
    free(p1); free(p2);
    arr_release(&flat); arr_release(&h1); arr_release(&h1at); arr_release(&h2); arr_release(&h2at); arr_release(&out);
    return result;
}

/* -- walk ----------------------------------------------------------------------------------- */
/*
 * A state of a layer: the automaton's node (what the wager has read: a summary), the round state
 * (totals, cards, the player's third card), and the classes of the cards dealt so far, sorted (at
 * most five: the sixth card always ends the round). The cards left of each class are the shoe's
 * cards of that class (per node: its partition of the 52 identities) less those dealt. Keys are two
 * 64-bit words; a value is the ways to reach the state, in unsigned 128 bits.
 */

#define MAX_DEALT 5
#define MAX_CLASSES 64

typedef struct {
    uint64_t k1, k2;
    u128 ways;
} Entry;

typedef struct {
    Entry *slots;
    size_t cap, used;
} Table;

static const uint64_t EMPTY = UINT64_MAX;

static int table_init(Table *t, size_t cap)
{
    t->slots = malloc(sizeof(Entry) * cap);
    if (!t->slots) return E_MEMORY;
    t->cap = cap;
    t->used = 0;
    for (size_t i = 0; i < cap; i++) t->slots[i].k1 = EMPTY;
    return OK;
}

static inline uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL + (a << 6) + (a >> 2));
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* Add ``ways`` to the entry of (k1, k2), making it if new; E_LIMIT past ``limit`` entries. */
static int table_add(Table *t, uint64_t k1, uint64_t k2, u128 ways, size_t limit)
{
    if (2 * (t->used + 1) > t->cap) {                 /* keep the load at most 1/2 */
        Table bigger;
        if (t->used + 1 > limit) return E_LIMIT;
        if (table_init(&bigger, t->cap * 2)) return E_MEMORY;
        for (size_t i = 0; i < t->cap; i++) {
            Entry *e = &t->slots[i];
            if (e->k1 == EMPTY) continue;
            size_t j = mix(e->k1, e->k2) & (bigger.cap - 1);
            while (bigger.slots[j].k1 != EMPTY) j = (j + 1) & (bigger.cap - 1);
            bigger.slots[j] = *e;
        }
        bigger.used = t->used;
        free(t->slots);
        *t = bigger;
    }
    size_t j = mix(k1, k2) & (t->cap - 1);
    for (;;) {
        Entry *e = &t->slots[j];
        if (e->k1 == EMPTY) {
            e->k1 = k1;
            e->k2 = k2;
            e->ways = ways;
            t->used++;
            return OK;
        }
        if (e->k1 == k1 && e->k2 == k2) {
            e->ways += ways;          /* at most the shoe's sequences: no overflow (see above) */
            return OK;
        }
        j = (j + 1) & (t->cap - 1);
    }
}

/* An add to a table held back (walk_run): its slot prefetched meanwhile, a hint only (the table may grow before). */
typedef struct {
    Table *into;
    uint64_t k1, k2;
    u128 ways;
} Pending;

static inline void pend_add(Pending *p, Table *into, uint64_t k1, uint64_t k2, u128 ways)
{
    p->into = into;
    p->k1 = k1;
    p->k2 = k2;
    p->ways = ways;
    __builtin_prefetch(&into->slots[mix(k1, k2) & (into->cap - 1)], 1);
}

/* (n)_r = n (n - 1) ... (n - r + 1), 0 where n < r. */
static u128 falling(int64_t n, int r)
{
    u128 p = 1;
    for (int i = 0; i < r; i++) p *= (u128)(n - i > 0 ? n - i : 0);
    return p;
}

static PyObject *u128_to_long(u128 x)
{
    if (x >> 64 == 0) return PyLong_FromUnsignedLongLong((unsigned long long)x);
    PyObject *hi = PyLong_FromUnsignedLongLong((unsigned long long)(x >> 64));
    PyObject *lo = PyLong_FromUnsignedLongLong((unsigned long long)x);
    PyObject *sixty_four = PyLong_FromLong(64), *shifted = NULL, *out = NULL;
    if (hi && lo && sixty_four && (shifted = PyNumber_Lshift(hi, sixty_four))) out = PyNumber_Or(shifted, lo);
    Py_XDECREF(hi); Py_XDECREF(lo); Py_XDECREF(sixty_four); Py_XDECREF(shifted);
    return out;
}

/* Inside Py_BEGIN_ALLOW_THREADS: every 65,536 steps, the GIL taken back to let a signal through (E_SIGNAL). */
#define LET_A_SIGNAL_THROUGH(steps, code)                                                                   \
    do {                                                                                                     \
        if ((++(steps) & 0xFFFF) == 0) {                                                                     \
            Py_BLOCK_THREADS                                                                                 \
            if (PyErr_CheckSignals() < 0) (code) = E_SIGNAL;                                                 \
            Py_UNBLOCK_THREADS                                                                               \
        }                                                                                                    \
    } while (0)

/* A state of the walk's layer ``depth``, read from its entry: its node, round state and classes dealt, and where
 * the transitions of its node at the position of its next card start (``off``) among its classes (``first``,
 * ``width``); the arrays ``a`` as walk takes them. */
typedef struct {
    int64_t node, state, off, first, width;
    int n;
    uint8_t dealt[MAX_DEALT];
} Step;

static int step_of(const Entry *e, int depth, const Arr *a, Step *at)
{
    const int64_t *node_offset = a[0].data, *trans_offset = a[3].data, *state_position = a[7].data;
    at->node = (int64_t)(e->k1 & 0xFFFFFFFFu);
    at->state = (int64_t)(e->k1 >> 32);
    at->n = (int)(e->k2 & 7);
    if (at->state < 0 || at->state >= a[7].n || at->n != depth || at->n > MAX_DEALT) return E_INDEX;
    for (int d = 0; d < at->n; d++) at->dealt[d] = (uint8_t)(e->k2 >> (8 * (d + 1)));
    int64_t position = state_position[at->state];
    if (position < 0 || position > 5) return E_INDEX;
    at->off = trans_offset[at->node * 6 + position];
    at->first = node_offset[at->node];
    at->width = node_offset[at->node + 1] - at->first;
    if (at->off < 0 || at->off + at->width > a[4].n) return E_INDEX;
    return OK;
}

/* The eleven arrays of an automaton walk and walk_program take, in their order; -1 with an error set. */
static int walk_arrays(PyObject **o, Arr *a)
{
    static const char *names[11] = {"node_offset", "class_value", "class_count", "trans_offset", "trans_next",
                                    "trans_merge", "merges", "state_position", "state_cards", "state_next",
                                    "state_over"};
    for (int i = 0; i < 11; i++)
        if (arr_get(o[i], &a[i], 0, names[i])) return -1;
    return 0;
}

/* The shapes walk and walk_program check of their automaton's arrays (a[0] to a[10] in their order). */
static int walk_shapes(const Arr *a)
{
    const int64_t *node_offset = a[0].data;
    Py_ssize_t nodes = a[0].n - 1, classes = a[1].n, states = a[7].n, transitions = a[4].n;
    if (nodes < 1 || node_offset[nodes] != classes || a[2].n != classes || a[3].n != nodes * 6
        || a[5].n != transitions || a[8].n != states || a[9].n != states * VALUES || a[10].n != states
        || nodes >= (1LL << 31) || states >= (1 << 16))
        return E_SHAPE;
    for (Py_ssize_t s = 0; s < nodes; s++)
        if (node_offset[s] < 0 || node_offset[s + 1] < node_offset[s] || node_offset[s + 1] - node_offset[s] > MAX_CLASSES)
            return E_SHAPE;
    return OK;
}

/* The key (cards dealt, sorted, per class of the next node) of a state whose ``n`` cards ``dealt`` are joined by
 * one of class ``i``, the classes mapped by the merge at ``map`` (-1: none) into the next node's ``twidth``. */
static int next_dealt(int n, const uint8_t *dealt, int64_t i, int64_t map, const int64_t *merges, Py_ssize_t merged,
                      int64_t twidth, uint64_t *k2)
{
    uint8_t next[MAX_DEALT];
    if (n + 1 > MAX_DEALT) return E_INDEX;
    for (int d = 0; d <= n; d++) {
        int64_t c = d < n ? dealt[d] : i;
        if (map >= 0) {
            if (map + c >= merged) return E_INDEX;
            c = merges[map + c];
        }
        if (c < 0 || c >= twidth) return E_INDEX;
        next[d] = (uint8_t)c;
    }
    for (int d = 1; d <= n; d++)                      /* sorted: the order of the cards does not matter */
        for (int x = d; x > 0 && next[x - 1] > next[x]; x--) {
            uint8_t t = next[x]; next[x] = next[x - 1]; next[x - 1] = t;
        }
    *k2 = (uint64_t)(n + 1);
    for (int d = 0; d <= n; d++) *k2 |= (uint64_t)next[d] << (8 * (d + 1));
    return OK;
}

/*
 * walk(size, nodes_classes, class_value, class_count, trans_offset, trans_next, trans_merge, merges,
 *      state_position, state_cards, state_next, state_over, limit)
 *
 *   size            N, the shoe's cards (N^6 < 2^127 is checked)
 *   node_offset     per node, the offset of its classes in class_value and class_count; node_offset[S] the end
 *   class_value     per (node, class), the point value 0-9 of its cards
 *   class_count     per (node, class), the shoe's cards of that class
 *   trans_offset    per (node, position 0-5), the offset of its transitions in trans_next and
 *                   trans_merge (one per class of the node), or -1 where the walk never goes
 *   trans_next      the node after dealing that class at that position
 *   trans_merge     the offset in merges of the map of the node's classes into the next node's
 *                   classes, or -1 where the classes stay as they are
 *   state_position  per round state, the position 0-5 of the next card (P1 B1 P2 B2 P3 B3), -1 if over
 *   state_cards     per round state, the cards dealt
 *   state_next      per (round state, point value), the state after it
 *   limit           the most entries a layer may hold
 *
 * Returns a list of (final round state, node, count): the ordered 6-card sequences of the shoe that
 * end the round in that state with the wager's summary at that node (the unread cards counted).
 */
/* walk and walk_removals: with ``burnt``, a burn card drawn before the round, its label kept (walk_removals). */
static PyObject *walk_run(PyObject *args, int burnt)
{
    long long size_ll, limit_ll;
    PyObject *o[12] = {NULL};
    if (burnt ? !PyArg_ParseTuple(args, "LOOOOOOOOOOOOL", &size_ll, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                                     &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &limit_ll)
                 : !PyArg_ParseTuple(args, "LOOOOOOOOOOOL", &size_ll, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                                     &o[6], &o[7], &o[8], &o[9], &o[10], &limit_ll))
        return NULL;
    Arr a[12];
    memset(a, 0, sizeof a);
    PyObject *result = NULL;
    int code = OK;
    Table cur = {0}, nxt = {0}, leaves = {0};
    if (walk_arrays(o, a)) goto done;
    if (burnt && arr_get(o[11], &a[11], 0, "burn_label")) goto done;
    const int64_t *label_of = burnt ? a[11].data : NULL;
    const int64_t *node_offset = a[0].data, *class_value = a[1].data, *class_count = a[2].data,
                  *trans_next = a[4].data, *trans_merge = a[5].data, *merges = a[6].data, *state_cards = a[8].data,
                  *state_next = a[9].data, *state_over = a[10].data;
    Py_ssize_t nodes = a[0].n - 1, states = a[7].n, merged = a[6].n;
    int64_t size = size_ll;
    size_t limit = limit_ll < 16 ? 16 : (size_t)limit_ll;
    /* the bound every count below rests on: N^6 < 2^127 */
    {
        u128 p = 1;
        int ok = size >= 0;
        for (int i = 0; ok && i < 6; i++) ok = !__builtin_mul_overflow(p, (u128)size, &p);
        /* with a burn card, 7 cards: N^7 < 2^127 */
        if (burnt) ok = ok && !__builtin_mul_overflow(p, (u128)size, &p);
        if (!ok || (p >> 127)) {
            PyErr_SetString(PyExc_OverflowError, "walk: the shoe is too large for 128-bit counts");
            goto done;
        }
    }
    if ((code = walk_shapes(a)) != OK) goto fail;
    if (burnt) {                                      /* a label (0-255) per class of node 0 */
        if (a[11].n != node_offset[1] || node_offset[1] > MAX_CLASSES) { code = E_SHAPE; goto fail; }
        for (Py_ssize_t i = 0; i < a[11].n; i++)
            if (label_of[i] < -1 || label_of[i] > 255) { code = E_SHAPE; goto fail; }
    }
    if (table_init(&cur, 64) || table_init(&nxt, 64) || table_init(&leaves, 64)) { code = E_MEMORY; goto fail; }

    Py_BEGIN_ALLOW_THREADS
    if (!burnt)
        code = table_add(&cur, 0, 0, 1, limit);        /* node 0, round state 0, nothing dealt */
    for (int64_t i = 0; burnt && code == OK && i < node_offset[1]; i++)   /* or a burn card of each class */
        if (class_count[i] > 0 && label_of[i] >= 0)
            code = table_add(&cur, 0, ((uint64_t)i << 48) | ((uint64_t)label_of[i] << 56), (u128)class_count[i], limit);
    unsigned long steps = 0;
    for (int depth = 0; code == OK && cur.used; depth++) {
        for (size_t slot = 0; code == OK && slot < cur.cap; slot++) {
            Entry *e = &cur.slots[slot];
            if (e->k1 == EMPTY) continue;
            LET_A_SIGNAL_THROUGH(steps, code);
            if (code != OK) break;
            Step at;
            if ((code = step_of(e, depth, a, &at)) != OK) break;
            int64_t state = at.state, off = at.off, first = at.first, width = at.width;
            int n = at.n;
            const uint8_t *dealt = at.dealt;
            /* the unread cards, if this card ends the round (the burn card not among them) */
            u128 tail = falling(size - burnt - n - 1, 6 - n - 1);
            int64_t burn = burnt ? (int64_t)((e->k2 >> 48) & 0xFF) : -1;
            uint64_t label = burnt ? e->k2 >> 56 : 0;
            /* the entries this state adds to, gathered and their slots prefetched before any is added: the adds
             * are cache misses, and so they overlap */
            Pending pend[MAX_CLASSES];
            int pending = 0;
            for (int64_t i = 0; code == OK && i < width; i++) {
                int64_t left = class_count[first + i] - (burn == i);
                for (int d = 0; d < n; d++) left -= dealt[d] == i;
                if (left <= 0) continue;
                int64_t v = class_value[first + i];
                if (v < 0 || v >= VALUES) { code = E_INDEX; break; }
                int64_t after = state_next[state * VALUES + v], to = trans_next[off + i];
                if (after < 0 || after >= states || to < 0 || to >= nodes) { code = E_INDEX; break; }
                u128 ways = e->ways * (u128)left;
                if (state_over[after]) {
                    if (state_cards[after] != n + 1) { code = E_INDEX; break; }
                    pend_add(&pend[pending++], &leaves, (uint64_t)to | ((uint64_t)after << 32), label, ways * tail);
                    continue;
                }
                uint64_t k2;
                int64_t twidth = node_offset[to + 1] - node_offset[to];
                code = next_dealt(n, dealt, i, trans_merge[off + i], merges, merged, twidth, &k2);
                if (code != OK) break;
                if (burnt) {                      /* the burn card's class, mapped as the cards dealt are */
                    int64_t b = burn, map = trans_merge[off + i];
                    if (map >= 0) {
                        if (map + b >= merged) { code = E_INDEX; break; }
                        b = merges[map + b];
                    }
                    if (b < 0 || b >= twidth) { code = E_INDEX; break; }
                    k2 |= ((uint64_t)b << 48) | (label << 56);
                }
                pend_add(&pend[pending++], &nxt, (uint64_t)to | ((uint64_t)after << 32), k2, ways);
            }
            for (int p = 0; code == OK && p < pending; p++)
                code = table_add(pend[p].into, pend[p].k1, pend[p].k2, pend[p].ways, limit);
        }
        if (code != OK) break;
        Table t = cur; cur = nxt; nxt = t;            /* the next layer becomes the current one */
        free(nxt.slots);
        if ((code = table_init(&nxt, 64)) != OK) break;
    }
    Py_END_ALLOW_THREADS
    if (code != OK) goto fail;
    result = PyList_New(0);
    for (size_t slot = 0; result && slot < leaves.cap; slot++) {
        Entry *e = &leaves.slots[slot];
        if (e->k1 == EMPTY) continue;
        PyObject *count = u128_to_long(e->ways), *item = NULL;
        if (count && burnt)
            item = Py_BuildValue("(LLLN)", (long long)(e->k1 >> 32), (long long)(e->k1 & 0xFFFFFFFFu),
                                 (long long)e->k2, count);
        else if (count)
            item = Py_BuildValue("(LLN)", (long long)(e->k1 >> 32), (long long)(e->k1 & 0xFFFFFFFFu), count);
        if (!item || PyList_Append(result, item) < 0) Py_CLEAR(result);
        Py_XDECREF(item);
    }
    goto done;
fail:
    if (code == E_LIMIT)
        PyErr_Format(PyExc_MemoryError, "walk: more than %zu states in one layer", limit);
    else if (code != E_SIGNAL)
        raise_code(code, "walk");
done:
    free(cur.slots); free(nxt.slots); free(leaves.slots);
    for (int i = 0; i < 12; i++) arr_release(&a[i]);
    return result;
}

static PyObject *walk(PyObject *self, PyObject *args)
{
    return walk_run(args, 0);
}

/*
 * walk_removals(size, node_offset, ..., state_over, burn_label, limit)
 *
 *   the walk's arguments, and burn_label: per class of node 0, a label 0-255 (the classes that a renaming of the
 *   automaton's makes one, one label), or -1: no burn card of that class (a batch of labels at a time).
 *
 * A burn card is drawn first, of each class of node 0 its shoe holds, then the round: returns a list of (final
 * round state, node, label of the burn card's class, count), the ordered 7-card sequences (the burn card, then
 * 6). Of those whose burn card is of label l there are sum over its classes K of n_K N(o; shoe less a card of K),
 * and every card of one label leaves the same counts (the walk reads the shoe through its classes): so
 * N(o; shoe less a card of label l) = that count / the cards of label l. The bound: N^7 < 2^127.
 */
static PyObject *walk_removals(PyObject *self, PyObject *args)
{
    return walk_run(args, 1);
}

/* -- walk_program and walk_many: the walk made once, shoe-free, then evaluated for many shoes -- */

/* The walk above, for a batch of shoes that hold no card the union ``class_count`` does not: every state it
 * reaches is numbered, in layer order, and every step from one state to the next is kept as an edge (from,
 * to, the node's class dealt, the cards of that class dealt before it). A shoe's ways of a state are then the
 * sum over its incoming edges of the ways of the state before times (cards of the class in the shoe less those
 * dealt before): one pass over the edges per shoe (walk_many), where the walk hashes every state again. */

typedef struct {
    int32_t *from, *to, *cls, *dealt;
    size_t n, cap;
} Edges;

static int edges_add(Edges *e, int64_t from, int64_t to, int64_t cls, int64_t dealt, size_t limit)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 1024;
        if (e->n >= limit || cap > (size_t)INT32_MAX) return E_LIMIT;
        int32_t *a = realloc(e->from, cap * 4), *b = a ? realloc(e->to, cap * 4) : NULL;
        if (a) e->from = a;
        if (b) e->to = b;
        int32_t *c = b ? realloc(e->cls, cap * 4) : NULL;
        if (c) e->cls = c;
        int32_t *d = c ? realloc(e->dealt, cap * 4) : NULL;
        if (d) e->dealt = d;
        if (!d) return E_MEMORY;
        e->cap = cap;
    }
    if (from > INT32_MAX || to > INT32_MAX || to < INT32_MIN) return E_LIMIT;
    e->from[e->n] = (int32_t)from; e->to[e->n] = (int32_t)to; e->cls[e->n] = (int32_t)cls;
    e->dealt[e->n] = (int32_t)dealt;
    e->n++;
    return OK;
}

/* The number of (k1, k2) in ``t``, numbered from ``*next`` as first met (kept in the entry's ways). */
static int table_number(Table *t, uint64_t k1, uint64_t k2, int64_t *next, size_t limit, int64_t *id)
{
    size_t before = t->used;
    int code = table_add(t, k1, k2, 0, limit);
    if (code != OK) return code;
    size_t j = mix(k1, k2) & (t->cap - 1);
    while (!(t->slots[j].k1 == k1 && t->slots[j].k2 == k2)) j = (j + 1) & (t->cap - 1);
    if (t->used != before) t->slots[j].ways = (u128)(*next)++;
    *id = (int64_t)t->slots[j].ways;
    return OK;
}

static PyObject *bytes_of(const void *p, size_t n)
{
    return PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)n);
}

/*
 * walk_program(node_offset, class_value, class_count, trans_offset, trans_next, trans_merge, merges,
 *              state_position, state_cards, state_next, state_over, limit, edge_limit)
 *
 * The arrays of walk, ``class_count`` the most cards of each class any shoe of the batch holds. Returns
 * (states, from, to, class, dealt, leaves): the states numbered (0 the start), the edges as int32 bytes (``to``
 * -1 - leaf for a step that ends the round), and per leaf (final round state, node). E_LIMIT past ``limit``
 * states in a layer or ``edge_limit`` edges.
 */
static PyObject *walk_program(PyObject *self, PyObject *args)
{
    long long limit_ll, edge_limit_ll;
    PyObject *o[11];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOLL", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &o[9], &o[10], &limit_ll, &edge_limit_ll))
        return NULL;
    Arr a[11];
    memset(a, 0, sizeof a);
    PyObject *result = NULL;
    int code = OK;
    Table cur = {0}, nxt = {0}, leaves = {0};
    Edges E = {0};
    int64_t *leaf_key = NULL;
    if (walk_arrays(o, a)) goto done;
    const int64_t *node_offset = a[0].data, *class_value = a[1].data, *class_count = a[2].data,
                  *trans_next = a[4].data, *trans_merge = a[5].data, *merges = a[6].data, *state_cards = a[8].data,
                  *state_next = a[9].data, *state_over = a[10].data;
    Py_ssize_t nodes = a[0].n - 1, states = a[7].n, merged = a[6].n;
    size_t limit = limit_ll < 16 ? 16 : (size_t)limit_ll, edge_limit = edge_limit_ll < 16 ? 16 : (size_t)edge_limit_ll;
    if ((code = walk_shapes(a)) != OK) goto fail;
    if (table_init(&cur, 64) || table_init(&nxt, 64) || table_init(&leaves, 64)) { code = E_MEMORY; goto fail; }
    int64_t next_state = 0, next_leaf = 0, id;

    Py_BEGIN_ALLOW_THREADS
    code = table_number(&cur, 0, 0, &next_state, limit, &id);      /* the start: state 0 */
    unsigned long steps = 0;
    for (int depth = 0; code == OK && cur.used; depth++) {
        for (size_t slot = 0; code == OK && slot < cur.cap; slot++) {
            Entry *e = &cur.slots[slot];
            if (e->k1 == EMPTY) continue;
            LET_A_SIGNAL_THROUGH(steps, code);
            if (code != OK) break;
            int64_t me = (int64_t)e->ways;
            Step at;
            if ((code = step_of(e, depth, a, &at)) != OK) break;
            int64_t state = at.state, off = at.off, first = at.first, width = at.width;
            int n = at.n;
            const uint8_t *dealt = at.dealt;
            for (int64_t i = 0; code == OK && i < width; i++) {
                int64_t before = 0;
                for (int d = 0; d < n; d++) before += dealt[d] == i;
                if (class_count[first + i] - before <= 0) continue;      /* no shoe of the batch has one left */
                int64_t v = class_value[first + i];
                if (v < 0 || v >= VALUES) { code = E_INDEX; break; }
                int64_t after = state_next[state * VALUES + v], to = trans_next[off + i];
                if (after < 0 || after >= states || to < 0 || to >= nodes) { code = E_INDEX; break; }
                if (state_over[after]) {
                    if (state_cards[after] != n + 1) { code = E_INDEX; break; }
                    code = table_number(&leaves, (uint64_t)to | ((uint64_t)after << 32), 0, &next_leaf, limit, &id);
                    if (code == OK) code = edges_add(&E, me, -1 - id, first + i, before, edge_limit);
                    continue;
                }
                uint64_t k2;
                code = next_dealt(n, dealt, i, trans_merge[off + i], merges, merged,
                                  node_offset[to + 1] - node_offset[to], &k2);
                if (code != OK) break;
                code = table_number(&nxt, (uint64_t)to | ((uint64_t)after << 32), k2, &next_state, limit, &id);
                if (code == OK) code = edges_add(&E, me, id, first + i, before, edge_limit);
            }
        }
        if (code != OK) break;
        Table t = cur; cur = nxt; nxt = t;
        free(nxt.slots);
        if ((code = table_init(&nxt, 64)) != OK) break;
    }
    if (code == OK && !(leaf_key = malloc(sizeof(int64_t) * 2 * (size_t)(next_leaf + 1)))) code = E_MEMORY;
    if (code == OK)
        for (size_t slot = 0; slot < leaves.cap; slot++) {
            Entry *e = &leaves.slots[slot];
            if (e->k1 == EMPTY) continue;
            int64_t l = (int64_t)e->ways;
            leaf_key[2 * l] = (int64_t)(e->k1 >> 32);
            leaf_key[2 * l + 1] = (int64_t)(e->k1 & 0xFFFFFFFFu);
        }
    Py_END_ALLOW_THREADS
    if (code != OK) goto fail;
    result = Py_BuildValue("(LNNNNN)", (long long)next_state, bytes_of(E.from, 4 * E.n), bytes_of(E.to, 4 * E.n),
                           bytes_of(E.cls, 4 * E.n), bytes_of(E.dealt, 4 * E.n),
                           bytes_of(leaf_key, sizeof(int64_t) * 2 * (size_t)next_leaf));
    goto done;
fail:
    if (code == E_LIMIT)
        PyErr_Format(PyExc_MemoryError, "walk_program: more than %zu states in one layer or %zu edges", limit,
                     edge_limit);
    else if (code != E_SIGNAL)
        raise_code(code, "walk_program");
done:
    free(cur.slots); free(nxt.slots); free(leaves.slots);
    free(E.from); free(E.to); free(E.cls); free(E.dealt); free(leaf_key);
    for (int i = 0; i < 11; i++) arr_release(&a[i]);
    return result;
}

/* Shoes walked in blocks of this many at once by walk_many_narrow: a step's arrays read once for the block. */
#define MANY_BLOCK 8

/* walk_many where every shoe's N^6 < 2^64 (checked by the caller): each count of a state is at most the ordered
 * sequences of its cards, N^5, and of a leaf N^6, so 64 bits hold every partial sum (its terms are non-negative);
 * the block's shoes side by side, so that each step is read once for MANY_BLOCK shoes. Into ``out`` (u128). */
__attribute__((target_clones("avx2", "default"), optimize("O3")))
static int walk_many_narrow(Py_ssize_t n_states, Py_ssize_t edges, const int32_t *from, const int32_t *to,
                            const int32_t *cls, const int32_t *dealt, Py_ssize_t n_leaves, const int64_t *leaf_cards,
                            const int64_t *leaf_column, Py_ssize_t n_columns, const int64_t *counts, Py_ssize_t width,
                            const int64_t *sizes, Py_ssize_t shoes, u128 *out)
{
    int code = OK;
    uint64_t *ways = malloc(sizeof(uint64_t) * MANY_BLOCK * (size_t)n_states);
    uint64_t *leafw = malloc(sizeof(uint64_t) * MANY_BLOCK * (size_t)(n_leaves + 1));
    int64_t *cb = malloc(sizeof(int64_t) * MANY_BLOCK * (size_t)(width + 1));
    if (!ways || !leafw || !cb) { free(ways); free(leafw); free(cb); return E_MEMORY; }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s0 = 0; s0 < shoes && code == OK; s0 += MANY_BLOCK) {
        if (s0 && (s0 & 63) == 0) {                       /* let a signal through */
            Py_BLOCK_THREADS
            if (PyErr_CheckSignals() < 0) code = E_SIGNAL;
            Py_UNBLOCK_THREADS
            if (code != OK) break;
        }
        Py_ssize_t nb = shoes - s0 < MANY_BLOCK ? shoes - s0 : MANY_BLOCK;
        for (Py_ssize_t c = 0; c < width; c++)            /* the block's counts per class, side by side */
            for (Py_ssize_t b = 0; b < MANY_BLOCK; b++)
                cb[c * MANY_BLOCK + b] = b < nb ? counts[(s0 + b) * width + c] : 0;
        memset(ways, 0, sizeof(uint64_t) * MANY_BLOCK * (size_t)n_states);
        memset(leafw, 0, sizeof(uint64_t) * MANY_BLOCK * (size_t)(n_leaves + 1));
        for (Py_ssize_t b = 0; b < nb; b++) ways[b] = 1;
        for (Py_ssize_t k = 0; k < edges; k++) {
            const uint64_t *w = ways + (size_t)from[k] * MANY_BLOCK;
            const int64_t *c = cb + (size_t)cls[k] * MANY_BLOCK;
            int64_t d = dealt[k];
            int32_t t = to[k];
            uint64_t *into = t >= 0 ? ways + (size_t)t * MANY_BLOCK : leafw + (size_t)(-1 - (int64_t)t) * MANY_BLOCK;
            for (int b = 0; b < MANY_BLOCK; b++) {
                int64_t left = c[b] - d;
                into[b] += w[b] * (uint64_t)(left > 0 ? left : 0);
            }
        }
        for (Py_ssize_t b = 0; b < nb; b++) {
            int64_t size = sizes[s0 + b];
            for (Py_ssize_t l = 0; l < n_leaves; l++) {
                uint64_t x = leafw[(size_t)l * MANY_BLOCK + b];
                if (!x) continue;
                int64_t cards = leaf_cards[l];
                out[(s0 + b) * n_columns + leaf_column[l]] += (u128)x * falling(size - cards, 6 - (int)cards);
            }
        }
    }
    Py_END_ALLOW_THREADS
    free(ways); free(leafw); free(cb);
    return code;
}

/*
 * walk_many(states, from, to, class, dealt, leaf_cards, leaf_column, columns, class_counts, sizes)
 *
 * A program of walk_program (its arrays int32 but for ``states``, an int; ``leaf_cards`` and ``leaf_column``
 * int64 per leaf: a leaf of 1 to 6 cards, the rest of the six counted by their orderings) for each shoe:
 * ``class_counts`` (shoes x classes, int64) its cards per class of the automaton's nodes, ``sizes`` its cards.
 * Returns per shoe a list of ``columns`` integers: the ordered 6-card sequences whose round ends in a leaf of
 * each column (the unread cards counted). Exact in 128 bits: every
 * count of one shoe is at most N^6 < 2^127, checked per shoe.
 */
static PyObject *walk_many(PyObject *self, PyObject *args)
{
    long long n_states, n_columns;
    PyObject *o[9];
    if (!PyArg_ParseTuple(args, "LOOOOOOLOO", &n_states, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &n_columns,
                          &o[6], &o[7]))
        return NULL;
    Arr from = {0}, to = {0}, cls = {0}, dealt = {0}, leaf_cards = {0}, leaf_column = {0}, counts = {0}, sizes = {0};
    PyObject *result = NULL;
    int code = OK;
    u128 *ways = NULL, *leafw = NULL, *out = NULL;
    if (arr_get32(o[0], &from, "from") || arr_get32(o[1], &to, "to") || arr_get32(o[2], &cls, "class")
        || arr_get32(o[3], &dealt, "dealt") || arr_get(o[4], &leaf_cards, 0, "leaf_cards")
        || arr_get(o[5], &leaf_column, 0, "leaf_column") || arr_get(o[6], &counts, 0, "class_counts")
        || arr_get(o[7], &sizes, 0, "sizes"))
        goto done;
    Py_ssize_t edges = from.n, n_leaves = leaf_cards.n, shoes = sizes.n;
    if (to.n != edges || cls.n != edges || dealt.n != edges || leaf_column.n != n_leaves || n_states < 1
        || n_columns < 0 || (shoes && counts.n % shoes)) {
        code = E_SHAPE;
        goto fail;
    }
    Py_ssize_t width = shoes ? counts.n / shoes : 0;
    for (Py_ssize_t k = 0; k < edges; k++) {             /* every index checked once: edges go forward */
        int32_t f = from.data32[k], t = to.data32[k];
        if (f < 0 || f >= n_states || cls.data32[k] < 0 || cls.data32[k] >= width || dealt.data32[k] < 0
            || (t >= 0 ? (t >= n_states || t <= f) : (-1 - (int64_t)t >= n_leaves))) {
            code = E_INDEX;
            goto fail;
        }
    }
    for (Py_ssize_t l = 0; l < n_leaves; l++)
        if (leaf_cards.data[l] < 1 || leaf_cards.data[l] > 6 || leaf_column.data[l] < 0
            || leaf_column.data[l] >= n_columns) {
            code = E_INDEX;
            goto fail;
        }
    for (Py_ssize_t s = 0; s < shoes; s++) {              /* the bound: N^6 < 2^127 */
        u128 p = 1;
        int ok = sizes.data[s] >= 0;
        for (int i = 0; ok && i < 6; i++) ok = !__builtin_mul_overflow(p, (u128)sizes.data[s], &p);
        if (!ok || (p >> 127)) {
            PyErr_SetString(PyExc_OverflowError, "walk_many: a shoe too large for 128-bit counts");
            goto done;
        }
    }
    int narrow = 1;                                       /* every shoe's N^6 < 2^64: 64-bit ways, a block at once */
    for (Py_ssize_t s = 0; narrow && s < shoes; s++) {
        uint64_t p = 1;
        for (int i = 0; narrow && i < 6; i++) narrow = !__builtin_mul_overflow(p, (uint64_t)sizes.data[s], &p);
    }
    out = calloc((size_t)(shoes * n_columns + 1), sizeof(u128));
    if (!out) { code = E_MEMORY; goto fail; }
    if (narrow) {
        code = walk_many_narrow(n_states, edges, from.data32, to.data32, cls.data32, dealt.data32, n_leaves,
                                leaf_cards.data, leaf_column.data, n_columns, counts.data, width, sizes.data, shoes, out);
        if (code != OK) goto fail;
        goto made;
    }
    ways = malloc(sizeof(u128) * (size_t)n_states);
    leafw = malloc(sizeof(u128) * (size_t)(n_leaves + 1));
    if (!ways || !leafw) { code = E_MEMORY; goto fail; }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < shoes && code == OK; s++) {
        if (s && (s & 63) == 0) {                         /* let a signal through */
            Py_BLOCK_THREADS
            if (PyErr_CheckSignals() < 0) code = E_SIGNAL;
            Py_UNBLOCK_THREADS
            if (code != OK) break;
        }
        const int64_t *c = counts.data + s * width;
        memset(ways, 0, sizeof(u128) * (size_t)n_states);
        memset(leafw, 0, sizeof(u128) * (size_t)(n_leaves + 1));
        ways[0] = 1;
        for (Py_ssize_t k = 0; k < edges; k++) {
            u128 w = ways[from.data32[k]];
            if (!w) continue;
            int64_t left = c[cls.data32[k]] - dealt.data32[k];
            if (left <= 0) continue;
            int32_t t = to.data32[k];
            if (t >= 0) ways[t] += w * (u128)left;
            else leafw[-1 - (int64_t)t] += w * (u128)left;
        }
        int64_t size = sizes.data[s];
        for (Py_ssize_t l = 0; l < n_leaves; l++) {
            if (!leafw[l]) continue;
            int64_t dealt_cards = leaf_cards.data[l];
            out[s * n_columns + leaf_column.data[l]] += leafw[l] * falling(size - dealt_cards, 6 - (int)dealt_cards);
        }
    }
    Py_END_ALLOW_THREADS
    if (code != OK) goto fail;
made:
    result = PyList_New(shoes);
    for (Py_ssize_t s = 0; result && s < shoes; s++) {
        PyObject *row = PyList_New(n_columns);
        for (Py_ssize_t j = 0; row && j < n_columns; j++) {
            PyObject *x = u128_to_long(out[s * n_columns + j]);
            if (!x) { Py_CLEAR(row); break; }
            PyList_SET_ITEM(row, j, x);
        }
        if (!row) { Py_CLEAR(result); break; }
        PyList_SET_ITEM(result, s, row);
    }
    goto done;
fail:
    if (code != E_SIGNAL) raise_code(code, "walk_many");
done:
    free(ways); free(leafw); free(out);
    arr_release(&from); arr_release(&to); arr_release(&cls); arr_release(&dealt); arr_release(&leaf_cards);
    arr_release(&leaf_column); arr_release(&counts); arr_release(&sizes);
    return result;
}

/* -- grouped_sums --------------------------------------------------------------------------- */

/* The items grouped_sums takes at most, less one: its indices are int32, and its bound (see there). */
#define GROUPED_ITEMS ((int64_t)1 << 31)
/* The groups whose integers are formed per release of the GIL, at most: GROUPED_CHUNK, and fewer where their bytes
 * would pass GROUPED_CHUNK_BYTES (one at least). */
#define GROUPED_CHUNK 512
#define GROUPED_CHUNK_BYTES ((size_t)1 << 20)
/* The sums run over 56-bit limbs of the multiples (byte-aligned; the limbs given are 32-bit); a term, an int64 value
 * times a limb, is below 2^63 x 2^56 = 2^119 in size, and GROUPED_RUN of them below 2^126. */
#define LIMB_BITS 56
#define LIMB_MASK (((uint64_t)1 << LIMB_BITS) - 1)
#define GROUPED_RUN 128

/* The 56-bit limbs of the multiple whose 32-bit limbs are row[0..L): limb t is its bits 56t to 56t + 55, read as
 * a window of three 32-bit limbs (56t mod 32 is 0, 8, 16 or 24: the window's 96 bits hold the 56 wanted). */
static void limbs_56(const uint32_t *row, Py_ssize_t L, int64_t *out, Py_ssize_t L56)
{
    for (Py_ssize_t t = 0; t < L56; t++) {
        Py_ssize_t w = LIMB_BITS * t / 32;
        u128 window = (u128)row[w] | (u128)(w + 1 < L ? row[w + 1] : 0) << 32 | (u128)(w + 2 < L ? row[w + 2] : 0) << 64;
        out[t] = (int64_t)((uint64_t)(window >> (LIMB_BITS * t % 32)) & LIMB_MASK);
    }
}

/* x as 8 bytes, little-endian, at p. */
static inline void put64(unsigned char *p, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &x, 8);
#else
    for (int b = 0; b < 8; b++) p[b] = (unsigned char)(x >> (8 * b));
#endif
}

/* t, a limb's sum plus the carry: its low 56 bits at out (8 bytes written; the next limb's, or the top, written
 * after it overwrites the 8th), the carry on: floor(t / 2^56) (GCC's >> of a negative integer extends the sign). */
static inline __int128 carry_on(__int128 t, unsigned char *out)
{
    put64(out, (uint64_t)(u128)t & LIMB_MASK);
    return t >> LIMB_BITS;
}

/* The carry left above the limbs, two's complement in 128 bits, at out. */
static inline void put_top(__int128 carry, unsigned char *out)
{
    put64(out, (uint64_t)(u128)carry);
    put64(out + 8, (uint64_t)((u128)carry >> 64));
}

/* Up to four items' terms at limb j, summed in registers. */
#define TERMS1(j) ((__int128)v0 * r0[j])
#define TERMS2(j) (TERMS1(j) + (__int128)v1 * r1[j])
#define TERMS3(j) (TERMS2(j) + (__int128)v2 * r2[j])
#define TERMS4(j) (TERMS3(j) + (__int128)v3 * r3[j])

/* The sum of items from..to of a group (at most GROUPED_RUN), value[q] x the multiple at u + at[q] (L56 limbs of 56
 * bits), limb by limb into acc: four items at a time, the loop over the limbs the inner one (its length the same for
 * every group: predicted). */
static void grouped_run(const int64_t *value, const int64_t *at, Py_ssize_t from, Py_ssize_t to, const int64_t *u,
                        Py_ssize_t L56, __int128 *acc)
{
    memset(acc, 0, sizeof(__int128) * (size_t)L56);
    Py_ssize_t q = from;
    for (; q + 4 <= to; q += 4) {
        int64_t v0 = value[q], v1 = value[q + 1], v2 = value[q + 2], v3 = value[q + 3];
        const int64_t *r0 = u + at[q], *r1 = u + at[q + 1], *r2 = u + at[q + 2], *r3 = u + at[q + 3];
        for (Py_ssize_t j = 0; j < L56; j++) acc[j] += TERMS4(j);
    }
    for (; q < to; q++) {
        int64_t v0 = value[q];
        const int64_t *r0 = u + at[q];
        for (Py_ssize_t j = 0; j < L56; j++) acc[j] += TERMS1(j);
    }
}

/* The sum of one group's m >= 1 items, value[q] x the multiple at u + at[q], as GROUPED_BYTES(L56) bytes of a
 * two's-complement integer, little-endian, at out: L56 limbs of 7 bytes, then the carry above them in 16. At most
 * four items: each limb's terms summed and carried at once; at most GROUPED_RUN: summed into acc, then carried;
 * more: run by run into acc, each run carried into digits (L56 limbs in [0, 2^56), scratch) and top, then written
 * out. Bounds (see grouped_sums): a run's sum at a limb below 2^126, a carry below 2^71, top below 2^95. */
#define GROUPED_BYTES(L56) (7 * (size_t)(L56) + 16)
static void grouped_one(const int64_t *value, const int64_t *at, Py_ssize_t m, const int64_t *u, Py_ssize_t L56,
                        __int128 *acc, int64_t *digits, unsigned char *out)
{
    __int128 carry = 0;
    if (m <= 4) {
        int64_t v0 = value[0], v1 = 0, v2 = 0, v3 = 0;          /* v = 0 past m: a term of 0 */
        const int64_t *r0 = u + at[0], *r1 = r0, *r2 = r0, *r3 = r0;
        if (m > 1) { v1 = value[1]; r1 = u + at[1]; }
        if (m > 2) { v2 = value[2]; r2 = u + at[2]; }
        if (m > 3) { v3 = value[3]; r3 = u + at[3]; }
        if (m == 1)
            for (Py_ssize_t j = 0; j < L56; j++) carry = carry_on(TERMS1(j) + carry, out + 7 * j);
        else
            for (Py_ssize_t j = 0; j < L56; j++) carry = carry_on(TERMS4(j) + carry, out + 7 * j);
    } else if (m <= GROUPED_RUN) {
        grouped_run(value, at, 0, m, u, L56, acc);
        for (Py_ssize_t j = 0; j < L56; j++) carry = carry_on(acc[j] + carry, out + 7 * j);
    } else {
        __int128 top = 0;
        memset(digits, 0, sizeof(int64_t) * (size_t)L56);
        for (Py_ssize_t r = 0; r < m; r += GROUPED_RUN) {
            grouped_run(value, at, r, m - r < GROUPED_RUN ? m : r + GROUPED_RUN, u, L56, acc);
            carry = 0;
            for (Py_ssize_t j = 0; j < L56; j++) {
                __int128 t = (__int128)digits[j] + acc[j] + carry;     /* below 2^56 + 2^126 + 2^71 */
                digits[j] = (int64_t)((uint64_t)(u128)t & LIMB_MASK);
                carry = t >> LIMB_BITS;
            }
            top += carry;                         /* the carries so far: the sum so far over 2^(56 L56), floored */
        }
        for (Py_ssize_t j = 0; j < L56; j++) put64(out + 7 * j, (uint64_t)digits[j]);
        carry = top;
    }
    put_top(carry, out + 7 * L56);
}
#undef TERMS1
#undef TERMS2
#undef TERMS3
#undef TERMS4

/*
 * grouped_sums(values, kinds, groups, n_groups, limbs): per group g from 0 to n_groups - 1, the exact sum over
 * the items i with groups[i] == g of values[i] x M[kinds[i]], a list of n_groups Python ints (0 for a group
 * with no item). values, kinds and groups are int64, C-contiguous, of one length; limbs is uint32, C-contiguous,
 * of shape (K, L), L >= 1: M[k] = sum over j of limbs[k, j] x 2^(32 j) (engine/grouped.py's Multiples).
 *
 * Exact in signed 128 bits by a bound proven before the first term. The multiples are read as L56 = ceil(32 L / 56)
 * limbs of 56 bits, u[k, t] <= 2^56 - 1; |values[i]| <= 2^63; so every term values[i] x u[k, t] is below 2^119 in
 * size, and a sum of at most GROUPED_RUN = 2^7 of them below 2^126: each group's items are summed limb by limb in
 * __int128 (to 2^127) in runs of at most 2^7 items. A run's sums become 56-bit limbs with a signed carry:
 * t_j = sum_j + carry_(j-1) (+ the limb so far, below 2^56, after the first run), limb_j = t_j mod 2^56, carry_j =
 * floor(t_j / 2^56); carry_(-1) = 0 and |t_j| < 2^126 + 2^56 + |carry_(j-1)|, so by induction |carry_j| <=
 * |t_j| / 2^56 + 1 < 2^70 + 2^16 < 2^71, and no step leaves 128 bits. What is carried past the last limb adds up to floor(S / 2^(56 L56)) for the group's sum S,
 * and |S| < 2^31 x 2^63 x 2^(56 L56) with fewer than 2^31 items (checked: else OverflowError), so below 2^94 + 1.
 * The limbs (7 bytes each) and that top (16 bytes, two's complement) are S's bytes, little-endian, signed, which
 * CPython makes an int exactly (_PyLong_FromByteArray).
 *
 * Every kind and group is checked, item by item in order before any sum, the first out of range an error
 * (ValueError naming it), and each again where it is read to sort the items by group (the arrays may change while
 * the GIL is released: a change is an IndexError, never a read out of range). The groups are summed a chunk (at most
 * GROUPED_CHUNK) at a time with the GIL released, their integers made between chunks. The scratch, no limit beyond what the
 * inputs and the result hold already: the items by group, 16 bytes per item; 8 bytes per group (the list returned
 * holds 8 per group); the 56-bit limbs, 8 x K x L56 bytes (below 1.2 x the 32-bit limbs' 4 x K x L bytes); 24 bytes
 * per 56-bit limb (acc, digits); the bytes of a chunk of groups, at most 1 MiB or one group's GROUPED_BYTES(L56).
 */
static PyObject *grouped_sums(PyObject *self, PyObject *args)
{
    PyObject *ovalues, *okinds, *ogroups, *olimbs;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OOOnO", &ovalues, &okinds, &ogroups, &n, &olimbs)) return NULL;
    Arr values = {0}, kinds = {0}, groups = {0}, limbs = {0};
    PyObject *list = NULL;
    int32_t *start = NULL, *cursor = NULL;
    int64_t *value = NULL, *at = NULL, *u = NULL, *digits = NULL;
    __int128 *acc = NULL;
    unsigned char *bytes = NULL;
    int code = OK;
    if (arr_get(ovalues, &values, 0, "values") || arr_get(okinds, &kinds, 0, "kinds")
        || arr_get(ogroups, &groups, 0, "groups") || arr_get_narrow(olimbs, &limbs, "limbs", 4, "IL", "uint32", 0))
        goto done;
    if (values.view.ndim != 1 || kinds.view.ndim != 1 || groups.view.ndim != 1 || kinds.n != values.n
        || groups.n != values.n || limbs.view.ndim != 2 || limbs.view.shape[1] < 1 || n < 0) {
        PyErr_SetString(PyExc_ValueError, "grouped_sums: values, kinds and groups of one length (1-D), limbs of "
                        "shape (K, L) with L >= 1, n_groups >= 0 are needed");
        goto done;
    }
    Py_ssize_t items = values.n, K = limbs.view.shape[0], L = limbs.view.shape[1];
    Py_ssize_t L56 = (32 * L + LIMB_BITS - 1) / LIMB_BITS;    /* 32 L <= 8 x the limbs' bytes: no overflow */
    if (items >= GROUPED_ITEMS) {
        PyErr_Format(PyExc_OverflowError, "grouped_sums: %zd items, past the bound of its 128-bit sums (2^31 - 1)",
                     items);
        goto done;
    }
    const int64_t *v = values.data, *kd = kinds.data, *gr = groups.data;
    const uint32_t *lm = (const uint32_t *)limbs.view.buf;
    Py_ssize_t bad = -1;
    int64_t bad_kind = 0, bad_group = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < items; i++) {          /* the first item out of range, in order */
        int64_t k = kd[i], g = gr[i];
        if ((uint64_t)k >= (uint64_t)K || (uint64_t)g >= (uint64_t)n) { bad = i; bad_kind = k; bad_group = g; break; }
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        if ((uint64_t)bad_kind >= (uint64_t)K)
            PyErr_Format(PyExc_ValueError, "grouped_sums: kinds[%zd] = %lld is not in [0, %zd)", bad,
                         (long long)bad_kind, K);
        else
            PyErr_Format(PyExc_ValueError, "grouped_sums: groups[%zd] = %lld is not in [0, %zd)", bad,
                         (long long)bad_group, n);
        goto done;
    }
    if (!(list = PyList_New(n))) goto done;
    /* the items by group: group g's values and row offsets (kind x L56) from start[g] to start[g + 1] */
    start = calloc((size_t)n + 1, sizeof(int32_t));  /* n <= PY_SSIZE_T_MAX / 8: PyList_New made n pointers */
    cursor = malloc(sizeof(int32_t) * (size_t)n + 1);
    value = malloc(sizeof(int64_t) * (size_t)items + 1);
    at = malloc(sizeof(int64_t) * (size_t)items + 1);
    u = malloc(sizeof(int64_t) * (size_t)K * (size_t)L56 + 1);     /* K x L56 <= 2 x K x L: the limbs' items */
    acc = malloc(sizeof(__int128) * (size_t)L56);
    digits = malloc(sizeof(int64_t) * (size_t)L56);
    Py_ssize_t chunk = (Py_ssize_t)(GROUPED_CHUNK_BYTES / GROUPED_BYTES(L56));
    chunk = chunk < 1 ? 1 : chunk > GROUPED_CHUNK ? GROUPED_CHUNK : chunk;
    bytes = malloc((size_t)chunk * GROUPED_BYTES(L56));
    if (!start || !cursor || !value || !at || !u || !acc || !digits || !bytes) { code = E_MEMORY; goto fail; }
    char empty[GROUPED_CHUNK];
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < K; k++) limbs_56(lm + k * L, L, u + k * L56, L56);
    for (Py_ssize_t i = 0; i < items; i++) {          /* counted: each group read again, checked again */
        int64_t g = gr[i];
        if ((uint64_t)g >= (uint64_t)n) { code = E_INDEX; break; }
        start[g + 1]++;
    }
    for (Py_ssize_t g = 0; g < n; g++) start[g + 1] += start[g];   /* at most items < 2^31 */
    memcpy(cursor, start, sizeof(int32_t) * (size_t)n);
    for (Py_ssize_t i = 0; code == OK && i < items; i++) {         /* placed: each read again, checked again */
        int64_t g = gr[i], k = kd[i];
        if ((uint64_t)g >= (uint64_t)n || (uint64_t)k >= (uint64_t)K || cursor[g] >= start[g + 1]) {
            code = E_INDEX;
            break;
        }
        value[cursor[g]] = v[i];
        at[cursor[g]++] = k * L56;
    }
    Py_END_ALLOW_THREADS
    for (Py_ssize_t g0 = 0; code == OK && g0 < n; g0 += chunk) {
        Py_ssize_t m = n - g0 < chunk ? n - g0 : chunk;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t c = 0; c < m; c++) {
            int32_t a = start[g0 + c], b = start[g0 + c + 1];
            empty[c] = a == b;
            if (a < b) grouped_one(value + a, at + a, b - a, u, L56, acc, digits, bytes + (size_t)c * GROUPED_BYTES(L56));
        }
        Py_END_ALLOW_THREADS
        for (Py_ssize_t c = 0; c < m; c++) {
            PyObject *x = empty[c] ? PyLong_FromLong(0)
                                   : _PyLong_FromByteArray(bytes + (size_t)c * GROUPED_BYTES(L56), GROUPED_BYTES(L56), 1, 1);
            if (!x) { code = -1; break; }             /* a Python error, set */
            PyList_SET_ITEM(list, g0 + c, x);
        }
    }
fail:
    if (code != OK) {
        if (code > 0) raise_code(code, "grouped_sums");
        Py_CLEAR(list);
    }
done:
    free(start); free(cursor); free(value); free(at); free(u); free(acc); free(digits); free(bytes);
    arr_release(&values); arr_release(&kinds); arr_release(&groups); arr_release(&limbs);
    return list;
}

/* -- round_tally ---------------------------------------------------------------------------- */

/* The rounds round_tally takes at most, less one (its bound, see there). */
#define TALLY_ITEMS ((int64_t)1 << 31)

/* Fixed-width integers of n 64-bit words, little-endian words, two's complement: arithmetic modulo 2^(64 n), exact
 * wherever the true result is below 2^(64 n - 1) in size (round_tally proves it of every result it reads). And
 * redundant ones: n signed 128-bit entries r_j standing for sum_j r_j 2^(64 j), each a sum of at most 2^32 terms in
 * (-2^64, 2^64), so |r_j| < 2^96: added to without carries, made words (red_words) only where read. */

/* a += b. */
static inline void tw_add(uint64_t *a, const uint64_t *b, Py_ssize_t n)
{
    uint64_t c = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        u128 t = (u128)a[j] + b[j] + c;
        a[j] = (uint64_t)t;
        c = (uint64_t)(t >> 64);
    }
}

/* a = -a. */
static inline void tw_neg(uint64_t *a, Py_ssize_t n)
{
    uint64_t c = 1;
    for (Py_ssize_t j = 0; j < n; j++) {
        u128 t = (u128)(uint64_t)~a[j] + c;
        a[j] = (uint64_t)t;
        c = (uint64_t)(t >> 64);
    }
}

/* a *= m (m unsigned), modulo 2^(64 n): the true product where it fits. */
static inline void tw_mul_small(uint64_t *a, uint64_t m, Py_ssize_t n)
{
    uint64_t c = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        u128 t = (u128)a[j] * m + c;
        a[j] = (uint64_t)t;
        c = (uint64_t)(t >> 64);
    }
}

/* The redundant r (e entries, |r_j| < 2^96) as w >= e + 1 words, modulo 2^(64 w): t_j = r_j + c_(j-1), word_j = t_j
 * mod 2^64, c_j = floor(t_j / 2^64) (the shift of a negative __int128 extends its sign); c_(-1) = 0 and
 * |c_j| <= (2^96 + |c_(j-1)|) / 2^64 + 1 < 2^33 by induction; the last carry fills the words above, sign-extended. */
static inline void red_words(const __int128 *r, Py_ssize_t e, uint64_t *out, Py_ssize_t w)
{
    __int128 c = 0;
    for (Py_ssize_t j = 0; j < e; j++) {
        __int128 t = r[j] + c;
        out[j] = (uint64_t)(u128)t;
        c = t >> 64;
    }
    for (Py_ssize_t j = e; j < w; j++) {
        out[j] = (uint64_t)(u128)c;
        c >>= 64;                                 /* 0 or -1 after the first */
    }
}

/* r += s (e entries each). */
static inline void red_add(__int128 *r, const __int128 *s, Py_ssize_t e)
{
    for (Py_ssize_t j = 0; j < e; j++) r[j] += s[j];
}

/* Halves: the sums of v_i's kept as h = 2 E int64 entries r_j standing for sum_j r_j 2^(32 j), each a sum of at most
 * R <= 2^31 - 1 terms in (-2^32, 2^32), so |r_j| <= (2^31 - 1)(2^32 - 1) < 2^63 - 2^32: no overflow; added two
 * entries at a time (GCC's vectors: SSE2 at least). */
typedef int64_t i64x2 __attribute__((vector_size(16)));

/* r += s (h entries each, h even). */
static inline void half_add(int64_t *r, const int64_t *s, Py_ssize_t h)
{
    for (Py_ssize_t j = 0; j < h; j += 2) {
        i64x2 a, b;
        memcpy(&a, r + j, 16);
        memcpy(&b, s + j, 16);
        a += b;
        memcpy(r + j, &a, 16);
    }
}

/* The halves r (h entries, h even) as w >= h / 2 + 1 words, modulo 2^(64 w): t_j = r_j + c_(j-1), its low 32 bits
 * the half, c_j = floor(t_j / 2^32) (GCC's >> of a negative integer extends the sign); c_(-1) = 0 and
 * |c_j| <= (|r_j| + |c_(j-1)|) / 2^32 + 1 < 2^31 + 2 by induction, so |t_j| < 2^63 - 2^32 + 2^31 + 2: all in int64.
 * The last carry fills the words above, sign-extended. */
static inline void half_words(const int64_t *r, Py_ssize_t h, uint64_t *out, Py_ssize_t w)
{
    int64_t c = 0;
    for (Py_ssize_t j = 0; j < h; j += 2) {
        int64_t t = r[j] + c;
        uint64_t lo = (uint32_t)t;
        c = t >> 32;
        t = r[j + 1] + c;
        out[j / 2] = lo | (uint64_t)(uint32_t)t << 32;
        c = t >> 32;
    }
    for (Py_ssize_t j = h / 2; j < w; j++) out[j] = (uint64_t)c;   /* the sign-extension of c: 0 or all ones */
}

/* out[0..2 n) = a[0..n)^2 (a unsigned, its top word nonzero or n = 0), column by column (Comba): column k's cross
 * products a_i a_j, i < j, i + j = k, fewer than n of them each below 2^128, summed in 192 bits (x, xh), doubled, the
 * square a_(k/2)^2 added for k even, then the carry from column k - 1; the column's total is below
 * 2n x 2^128 + 2^128 < 2^192, its low word written, the rest (below 2^128) carried. */
static void tw_square(const uint64_t *a, Py_ssize_t n, uint64_t *out)
{
    u128 carry = 0;
    for (Py_ssize_t k = 0; k + 1 < 2 * n; k++) {
        u128 x = 0;
        uint64_t xh = 0;
        Py_ssize_t i = k - (n - 1) > 0 ? k - (n - 1) : 0;
        for (; i < k - i; i++) {
            u128 p = (u128)a[i] * a[k - i];
            x += p;
            xh += x < p;
        }
        xh = xh << 1 | (uint64_t)(x >> 127);
        x <<= 1;
        if (!(k & 1)) {
            u128 p = (u128)a[k / 2] * a[k / 2];
            x += p;
            xh += x < p;
        }
        x += carry;
        xh += x < carry;
        out[k] = (uint64_t)x;
        carry = x >> 64 | (u128)xh << 64;
    }
    if (n > 0) out[2 * n - 1] = (uint64_t)carry;  /* a^2 < 2^(128 n): the last carry is its top word */
}

/* |x|^2 as w words at sq, x of n words read as signed (|x| < 2^(64 n - 1)), mag scratch of n words; w >= 2 n. */
static void tw_square_signed(const uint64_t *x, Py_ssize_t n, uint64_t *mag, uint64_t *sq, Py_ssize_t w)
{
    memcpy(mag, x, sizeof(uint64_t) * (size_t)n);
    if ((int64_t)mag[n - 1] < 0) tw_neg(mag, n);
    Py_ssize_t top = n;
    while (top > 0 && mag[top - 1] == 0) top--;
    tw_square(mag, top, sq);
    memset(sq + 2 * top, 0, sizeof(uint64_t) * (size_t)(w - 2 * top));
}

/* n words as a Python int (signed), through bytes (8 n, scratch) little-endian. */
static PyObject *tw_long(const uint64_t *a, Py_ssize_t n, unsigned char *bytes)
{
    for (Py_ssize_t j = 0; j < n; j++) put64(bytes + 8 * j, a[j]);
    return _PyLong_FromByteArray(bytes, 8 * (size_t)n, 1, 1);
}

/* How a tally's entry is stored, to make its Python int. */
enum { T_RED, T_HALVES, T_SIGNED_MAG };

/* A list of the n Python ints at a, w entries (or words) apart: redundant (T_RED, w entries, made into w + 1 words,
 * in scratch), halves (T_HALVES, w entries, made into w / 2 + 1 words) or a sign
 * and magnitude (T_SIGNED_MAG: a word 0 or 1, then w - 1 words, made into w words) */
static PyObject *tally_list(const void *a, Py_ssize_t n, Py_ssize_t w, int how, uint64_t *scratch,
                            unsigned char *bytes)
{
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x;
        if (how == T_RED) {
            red_words((const __int128 *)a + i * w, w, scratch, w + 1);
            x = tw_long(scratch, w + 1, bytes);
        } else if (how == T_HALVES) {
            half_words((const int64_t *)a + i * w, w, scratch, w / 2 + 1);
            x = tw_long(scratch, w / 2 + 1, bytes);
        } else {
            const uint64_t *sm = (const uint64_t *)a + i * w;
            memcpy(scratch, sm + 1, sizeof(uint64_t) * (size_t)(w - 1));
            scratch[w - 1] = 0;
            if (sm[0]) tw_neg(scratch, w);
            x = tw_long(scratch, w, bytes);
        }
        if (!x) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, i, x);
    }
    return list;
}

/* The accumulators and scratch of one round_tally. H = 2 E = 2 (LM + 1) halves per sum, WS = LM + 2 words per sum
 * made words, WQ = 2 WS words per square (and redundant entries per sum of squares). */
typedef struct {
    Py_ssize_t H, WS, WQ, n_counts;
    int64_t *shoe_count;                /* the shoe's sums per count, n_counts x H, zero between shoes */
    int64_t *shoe_ahead, *T, *total, *ahead_total;
    int64_t *by_count;                  /* n_counts x H */
    __int128 *delta, *ahead_squares;    /* n_counts x WQ (see tally_shoe); WQ */
    uint64_t *Tw, *mag, *sq, *prev, *by_rounds;
    int64_t *present;                   /* the counts the shoe has rounds of (n_present of them), each once */
    unsigned char *seen;                /* per count: in present */
    Py_ssize_t n_present;
} Tally;

static int desc64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* A shoe of `rounds` rounds ends: its sums taken into the totals, the shoe's accumulators zeroed.
 * threshold_squares[t] = sum over shoes of T_s(t)^2, T_s(t) the shoe's sum over counts >= t, is kept as differences:
 * delta[c] = sum over shoes of T_s(c)^2 - T_s(c + 1)^2 (T_s(n_counts) = 0), nonzero only at counts the shoe has
 * rounds of, and threshold_squares[t] = sum over c >= t of delta[c] (round_tally, at the end). So per shoe, the
 * counts it has, from the highest down: T += the count's sum; square it, add the square to delta[c] and take the
 * previous square from it, word by word (each word's difference in (-2^64, 2^64): one term of delta[c]'s entry per
 * shoe). */
static void tally_shoe(Tally *t, uint64_t rounds)
{
    Py_ssize_t H = t->H, WS = t->WS, WQ = t->WQ, NC = t->n_counts;
    if (NC <= 4 * t->n_present + 64) {            /* few counts: read off the flags, highest first */
        Py_ssize_t q = 0;
        for (Py_ssize_t c = NC - 1; c >= 0; c--)
            if (t->seen[c]) t->present[q++] = c;
    } else if (t->n_present > 1) {
        qsort(t->present, (size_t)t->n_present, sizeof(int64_t), desc64);
    }
    memset(t->T, 0, sizeof(int64_t) * (size_t)H);
    memset(t->prev, 0, sizeof(uint64_t) * (size_t)WQ);
    for (Py_ssize_t q = 0; q < t->n_present; q++) {
        int64_t c = t->present[q];
        int64_t *s = t->shoe_count + c * H;
        t->seen[c] = 0;
        half_add(t->T, s, H);
        half_add(t->by_count + c * H, s, H);
        memset(s, 0, sizeof(int64_t) * (size_t)H);
        half_words(t->T, H, t->Tw, WS);
        tw_square_signed(t->Tw, WS, t->mag, t->sq, WQ);
        __int128 *d = t->delta + c * WQ;
        for (Py_ssize_t j = 0; j < WQ; j++) d[j] += (__int128)t->sq[j] - (__int128)t->prev[j];
        uint64_t *swap = t->prev;
        t->prev = t->sq;
        t->sq = swap;
    }
    t->n_present = 0;
    half_add(t->total, t->T, H);                  /* T is now the shoe's sum S_s, Tw its words */
    tw_mul_small(t->Tw, rounds, WS);
    tw_add(t->by_rounds, t->Tw, WS);
    half_add(t->ahead_total, t->shoe_ahead, H);
    half_words(t->shoe_ahead, H, t->Tw, WS);
    tw_square_signed(t->Tw, WS, t->mag, t->sq, WQ);
    for (Py_ssize_t j = 0; j < WQ; j++) t->ahead_squares[j] += t->sq[j];
    memset(t->shoe_ahead, 0, sizeof(int64_t) * (size_t)H);
}

/* |value| x the multiple at m (LM words) as E = LM + 1 words at mag (each step t = a x m_j + c <= (2^64 - 1)^2 +
 * 2^64 - 1 < 2^128); returns 1 where the product is negative (value < 0 and the product not 0), else 0. */
static inline int tally_value(int64_t value, const uint64_t *m, Py_ssize_t LM, uint64_t *mag)
{
    uint64_t a = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;   /* 2^63 for INT64_MIN: no overflow */
    uint64_t c = 0, any = 0;
    for (Py_ssize_t j = 0; j < LM; j++) {
        u128 t = (u128)a * m[j] + c;
        mag[j] = (uint64_t)t;
        any |= mag[j];
        c = (uint64_t)(t >> 64);
    }
    mag[LM] = c;
    return value < 0 && (any | c) != 0;
}

/* The halves of (-1)^neg x mag (E words) at h (2 E entries, each in (-2^32, 2^32)): x, or (x ^ -1) + 1 = -x. */
static inline void tally_halves(int neg, const uint64_t *mag, Py_ssize_t E, int64_t *h)
{
    int64_t m = -(int64_t)neg;
    for (Py_ssize_t j = 0; j < E; j++) {
        h[2 * j] = ((int64_t)(uint32_t)mag[j] ^ m) - m;
        h[2 * j + 1] = ((int64_t)(mag[j] >> 32) ^ m) - m;
    }
}

/* a += s, b += s, c += s (h entries each, h even; a, b, c distinct arrays, none s). */
static inline void half_add3(int64_t *a, int64_t *b, int64_t *c, const int64_t *s, Py_ssize_t h)
{
    for (Py_ssize_t j = 0; j < h; j += 2) {
        i64x2 x, y;
        memcpy(&x, s + j, 16);
        memcpy(&y, a + j, 16); y += x; memcpy(a + j, &y, 16);
        memcpy(&y, b + j, 16); y += x; memcpy(b + j, &y, 16);
        memcpy(&y, c + j, 16); y += x; memcpy(c + j, &y, 16);
    }
}

/* -1, 0 or 1 as x < y, x == y, x > y, each a sign word (0 or 1, 1 negative, never a negative 0) then e words of
 * magnitude. */
static inline int sm_cmp(const uint64_t *x, const uint64_t *y, Py_ssize_t e)
{
    if (x[0] != y[0]) return x[0] ? -1 : 1;
    int flip = x[0] ? -1 : 1;
    for (Py_ssize_t j = e; j >= 1; j--)
        if (x[j] != y[j]) return x[j] < y[j] ? -flip : flip;
    return 0;
}

/*
 * round_tally(values, kinds, limbs, shoe, n_shoes, count, n_counts, pen, n_pens, place, n_places, ahead): the
 * exposure study's tally of a batch's rounds (engine/grouped.py's round_tally says what each part is): a tuple of
 * (by_count, threshold_squares, total, total_by_rounds, ahead_total, ahead_squares, by_pen, pen_least, pen_most,
 * by_place), lists of Python ints and Python ints. values, kinds, shoe, count, pen, place and ahead are int64,
 * C-contiguous, of one length R; limbs is uint32, C-contiguous, of shape (K, L), L >= 1 (as grouped_sums).
 *
 * Exact by a bound proven before the first round. The multiples are read as LM = ceil(L / 2) words of 64 bits,
 * M < 2^(32 L) <= 2^(64 LM); |values[i]| <= 2^63; so |v_i| = |values[i] x M| < 2^(63 + 32 L), formed as a sign and
 * LM + 1 = E words of magnitude. With R < 2^31 rounds (checked: else OverflowError) any sum of v_i's (by count, pen,
 * place, a shoe's, a shoe's over counts >= t, ahead, the total) is below 2^(94 + 32 L) in size, and Sum_s S_s x
 * rounds_s at most R x Sum_i |v_i| < 2^(125 + 32 L): each fits WS = LM + 2 words (64 LM + 128 bits >= 32 L + 126 + 1
 * for the sign). A square of a sum is below 2^(188 + 64 L), a sum of fewer than 2^31 of them below 2^(219 + 64 L):
 * each fits WQ = 2 WS = 2 LM + 4 words (128 LM + 256 bits >= 64 L + 220). The sums of v_i's are kept as halves
 * (H = 2 E int64 entries, 32 bits apart), every entry a sum of at most R <= 2^31 - 1 terms in (-2^32, 2^32) (a half
 * of one v_i's magnitude, signed), so below 2^63 - 2^32 in size: added without carries, two entries at a time. The
 * sums of squares are kept redundant (WQ __int128 entries, 64 bits apart), every entry a sum of at most 2R terms in
 * (-2^64, 2^64) (a word of a square and of the square before it, once per shoe and count; of a square, once per
 * shoe), so below 2^96: no overflow of 128 bits. Either is made words (half_words, red_words: carries below 2^32)
 * only where a value is read: a shoe's running sums, to square, and the results. Words add and multiply modulo
 * 2^(64 W) (total_by_rounds), so only results need fit: each is a true integer within the bound above, its residue
 * itself. Least and most compare v_i as sign and magnitude, exactly.
 *
 * Every index is checked, round by round in order before any arithmetic, the first out of range an error (ValueError
 * naming the array and item: kinds in [0, K), shoe in [0, n_shoes) and not below the round before's, count, pen
 * and place in their ranges, ahead 0 or 1, in that order for a round), and each again where it is read to count (the
 * arrays may change while the GIL is released: a change is an IndexError, never a read out of range). The GIL is
 * released for the arithmetic, the ints made after. The scratch: the multiples' words (K x LM, as the limbs) and per
 * count, pen and place a few sums' entries (each 16 x E or 16 x WQ bytes); sizes past size_t are MemoryError.
 */
static PyObject *round_tally(PyObject *self, PyObject *args)
{
    PyObject *ovalues, *okinds, *olimbs, *oidx[5];
    Py_ssize_t n_range[5];          /* n_shoes, n_counts, n_pens, n_places, and 2 for ahead */
    if (!PyArg_ParseTuple(args, "OOOOnOnOnOnO", &ovalues, &okinds, &olimbs, &oidx[0], &n_range[0], &oidx[1],
                          &n_range[1], &oidx[2], &n_range[2], &oidx[3], &n_range[3], &oidx[4]))
        return NULL;
    Arr values = {0}, kinds = {0}, limbs = {0}, idx[5];
    memset(idx, 0, sizeof idx);
    PyObject *result = NULL;
    int64_t *halves = NULL;
    __int128 *red = NULL;
    uint64_t *words = NULL;
    int64_t *present = NULL;
    unsigned char *flags = NULL, *bytes = NULL;
    int code = OK;
    static const char *const idx_names[5] = {"shoe", "count", "pen", "place", "ahead"};
    if (arr_get(ovalues, &values, 0, "values") || arr_get(okinds, &kinds, 0, "kinds")
        || arr_get_narrow(olimbs, &limbs, "limbs", 4, "IL", "uint32", 0))
        goto done;
    for (int a = 0; a < 5; a++)
        if (arr_get(oidx[a], &idx[a], 0, idx_names[a])) goto done;
    int shaped = values.view.ndim == 1 && kinds.view.ndim == 1 && kinds.n == values.n && limbs.view.ndim == 2
                 && limbs.view.shape[1] >= 1;
    for (int a = 0; a < 5; a++) shaped = shaped && idx[a].view.ndim == 1 && idx[a].n == values.n;
    for (int a = 0; a < 4; a++) shaped = shaped && n_range[a] >= 0;
    if (!shaped) {
        PyErr_SetString(PyExc_ValueError, "round_tally: values, kinds, shoe, count, pen, place and ahead of one length "
                        "(1-D), limbs of shape (K, L) with L >= 1, n_shoes, n_counts, n_pens and n_places >= 0 are "
                        "needed");
        goto done;
    }
    n_range[4] = 2;
    Py_ssize_t R = values.n, K = limbs.view.shape[0], L = limbs.view.shape[1];
    if (R >= TALLY_ITEMS) {
        PyErr_Format(PyExc_OverflowError, "round_tally: %zd rounds, past the bound of its fixed-width sums (2^31 - 1)",
                     R);
        goto done;
    }
    const int64_t *v = values.data, *kd = kinds.data, *ix[5];
    for (int a = 0; a < 5; a++) ix[a] = idx[a].data;
    const uint32_t *lm = (const uint32_t *)limbs.view.buf;
    Py_ssize_t bad = -1;
    int bad_what = 0;               /* 0: kinds, 1..5: shoe, count, pen, place, ahead out of range; 6: shoe decreases */
    int64_t bad_value = 0, bad_before = 0;
    Py_BEGIN_ALLOW_THREADS
    int64_t last = 0;
    for (Py_ssize_t i = 0; i < R && bad < 0; i++) {          /* the first round out of range, in order */
        int64_t k = kd[i];
        if ((uint64_t)k >= (uint64_t)K) { bad = i; bad_what = 0; bad_value = k; break; }
        for (int a = 0; a < 5; a++) {
            int64_t x = ix[a][i];
            if ((uint64_t)x >= (uint64_t)n_range[a]) { bad = i; bad_what = a + 1; bad_value = x; break; }
            if (a == 0 && i > 0 && x < last) { bad = i; bad_what = 6; bad_value = x; bad_before = last; break; }
            if (a == 0) last = x;
        }
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        if (bad_what == 0)
            PyErr_Format(PyExc_ValueError, "round_tally: kinds[%zd] = %lld is not in [0, %zd)", bad,
                         (long long)bad_value, K);
        else if (bad_what == 6)
            PyErr_Format(PyExc_ValueError, "round_tally: shoe[%zd] = %lld is below shoe[%zd] = %lld (shoe must not "
                         "decrease)", bad, (long long)bad_value, bad - 1, (long long)bad_before);
        else
            PyErr_Format(PyExc_ValueError, "round_tally: %s[%zd] = %lld is not in [0, %zd)", idx_names[bad_what - 1],
                         bad, (long long)bad_value, n_range[bad_what - 1]);
        goto done;
    }
    Py_ssize_t LM = (L + 1) / 2, E = LM + 1, H = 2 * E, WS = LM + 2, WQ = 2 * WS;
    Py_ssize_t NC = n_range[1], NP = n_range[2], NL = n_range[3];
    /* the halves: per count shoe_count and by_count, per pen by_pen, per place by_place (H each), and 5 H loose
     * (shoe_ahead, T, total, ahead_total, the round's). The redundant entries: per count delta (WQ), and ahead_squares
     * (WQ). The words: the multiples (K x LM), per pen least and most (1 + E each), and 4 WS + 2 WQ loose (Tw, mag,
     * by_rounds, the round's sign and magnitude; sq, prev). Each size checked: past size_t is MemoryError, never a
     * wrap. */
    size_t n_halves = 0, n_red = 0, n_words = 0, part, bytes_of;
    int over = 0;
    over |= __builtin_add_overflow(2 * (size_t)NC, (size_t)NP, &part);
    over |= __builtin_add_overflow(part, (size_t)NL, &part);
    over |= __builtin_add_overflow(part, (size_t)5, &part);
    over |= __builtin_mul_overflow(part, (size_t)H, &n_halves);
    over |= __builtin_mul_overflow(n_halves, sizeof(int64_t), &bytes_of);
    over |= __builtin_add_overflow((size_t)NC, (size_t)1, &part);
    over |= __builtin_mul_overflow(part, (size_t)WQ, &n_red);
    over |= __builtin_mul_overflow(n_red, sizeof(__int128), &bytes_of);
    over |= __builtin_mul_overflow((size_t)K, (size_t)LM, &part);
    over |= __builtin_add_overflow(n_words, part, &n_words);
    over |= __builtin_mul_overflow((size_t)NP, (size_t)(2 * (1 + E)), &part);
    over |= __builtin_add_overflow(n_words, part, &n_words);
    over |= __builtin_add_overflow(n_words, (size_t)(4 * WS + 2 * WQ), &n_words);
    over |= __builtin_mul_overflow(n_words, sizeof(uint64_t), &bytes_of);
    if (over) { PyErr_NoMemory(); goto done; }
    halves = calloc(n_halves, sizeof(int64_t));
    red = calloc(n_red, sizeof(__int128));
    words = calloc(n_words, sizeof(uint64_t));
    present = malloc(sizeof(int64_t) * (size_t)NC + 1);          /* NC x 16 bytes counted above: no wrap */
    flags = calloc((size_t)NC + (size_t)NP + 1, 1);
    bytes = malloc(8 * (size_t)(WQ + 1));
    if (!halves || !red || !words || !present || !flags || !bytes) { PyErr_NoMemory(); goto done; }
    Tally t;
    memset(&t, 0, sizeof t);
    t.H = H; t.WS = WS; t.WQ = WQ; t.n_counts = NC;
    int64_t *h = halves;
    t.shoe_count = h; h += (size_t)NC * H;
    t.by_count = h; h += (size_t)NC * H;
    int64_t *by_pen = h; h += (size_t)NP * H;
    int64_t *by_place = h; h += (size_t)NL * H;
    t.shoe_ahead = h; h += H; t.T = h; h += H; t.total = h; h += H; t.ahead_total = h; h += H;
    int64_t *vh = h;                              /* v_i's halves */
    t.delta = red;
    t.ahead_squares = red + (size_t)NC * WQ;
    uint64_t *w = words, *mw = w;
    w += (size_t)K * LM;
    uint64_t *least = w; w += (size_t)NP * (1 + E);
    uint64_t *most = w; w += (size_t)NP * (1 + E);
    t.Tw = w; w += WS; t.mag = w; w += WS; t.by_rounds = w; w += WS;
    uint64_t *sm = w; w += WS;                    /* v_i: a sign word, then E words of magnitude (1 + E = WS) */
    t.sq = w; w += WQ; t.prev = w; w += WQ;
    t.present = present; t.seen = flags;
    unsigned char *pen_seen = flags + NC;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < K; k++)            /* the limbs in pairs: word j is limbs 2j and 2j + 1 */
        for (Py_ssize_t j = 0; j < LM; j++)
            mw[k * LM + j] = (uint64_t)lm[k * L + 2 * j] | (2 * j + 1 < L ? (uint64_t)lm[k * L + 2 * j + 1] << 32 : 0);
    int64_t cur = 0;
    uint64_t rounds = 0;
    for (Py_ssize_t i = 0; i < R; i++) {          /* each index read once, checked again */
        int64_t k = kd[i], s = ix[0][i], c = ix[1][i], b = ix[2][i], p = ix[3][i], a = ix[4][i];
        if ((uint64_t)k >= (uint64_t)K || (uint64_t)s >= (uint64_t)n_range[0] || (uint64_t)c >= (uint64_t)NC
            || (uint64_t)b >= (uint64_t)NP || (uint64_t)p >= (uint64_t)NL || (uint64_t)a > 1 || (i > 0 && s < cur)) {
            code = E_INDEX;
            break;
        }
        if (s != cur && rounds > 0) { tally_shoe(&t, rounds); rounds = 0; }
        cur = s;
        rounds++;
        int neg = tally_value(v[i], mw + k * LM, LM, sm + 1);
        sm[0] = (uint64_t)neg;
        tally_halves(neg, sm + 1, E, vh);
        if (!t.seen[c]) { t.seen[c] = 1; t.present[t.n_present++] = c; }
        half_add3(t.shoe_count + c * H, by_pen + b * H, by_place + p * H, vh, H);
        if (a) half_add(t.shoe_ahead, vh, H);
        uint64_t *lo = least + b * (1 + E), *hi = most + b * (1 + E);
        if (!pen_seen[b]) {
            pen_seen[b] = 1;
            memcpy(lo, sm, sizeof(uint64_t) * (size_t)(1 + E));
            memcpy(hi, sm, sizeof(uint64_t) * (size_t)(1 + E));
        } else if (sm_cmp(sm, lo, E) < 0) {
            memcpy(lo, sm, sizeof(uint64_t) * (size_t)(1 + E));
        } else if (sm_cmp(sm, hi, E) > 0) {
            memcpy(hi, sm, sizeof(uint64_t) * (size_t)(1 + E));
        }
    }
    if (code == OK && rounds > 0) tally_shoe(&t, rounds);
    for (Py_ssize_t c = NC - 2; code == OK && c >= 0; c--)        /* threshold_squares: delta's suffix sums */
        red_add(t.delta + c * WQ, t.delta + (c + 1) * WQ, WQ);
    Py_END_ALLOW_THREADS
    if (code != OK) { raise_code(code, "round_tally"); goto done; }
    if (!(result = PyTuple_New(10))) goto done;
    /* the sums of squares' entries as WQ + 1 words: their values (below 2^(219 + 64 L)) fit; the scratch for them
     * is sq and prev, adjacent (2 WQ words) */
    PyObject *part_of[10] = {NULL};
    uint64_t *wide = t.sq < t.prev ? t.sq : t.prev;
    part_of[0] = tally_list(t.by_count, NC, H, T_HALVES, wide, bytes);
    part_of[1] = part_of[0] ? tally_list(t.delta, NC, WQ, T_RED, wide, bytes) : NULL;
    part_of[2] = part_of[1] ? tally_list(t.total, 1, H, T_HALVES, wide, bytes) : NULL;
    part_of[3] = part_of[2] ? tw_long(t.by_rounds, WS, bytes) : NULL;
    part_of[4] = part_of[3] ? tally_list(t.ahead_total, 1, H, T_HALVES, wide, bytes) : NULL;
    part_of[5] = part_of[4] ? tally_list(t.ahead_squares, 1, WQ, T_RED, wide, bytes) : NULL;
    part_of[6] = part_of[5] ? tally_list(by_pen, NP, H, T_HALVES, wide, bytes) : NULL;
    part_of[7] = part_of[6] ? tally_list(least, NP, 1 + E, T_SIGNED_MAG, wide, bytes) : NULL;
    part_of[8] = part_of[7] ? tally_list(most, NP, 1 + E, T_SIGNED_MAG, wide, bytes) : NULL;
    part_of[9] = part_of[8] ? tally_list(by_place, NL, H, T_HALVES, wide, bytes) : NULL;
    for (int q = 0; q < 10; q++) {                /* total, ahead_total, ahead_squares: a list of one, unwrapped */
        if (part_of[q] && (q == 2 || q == 4 || q == 5)) {
            PyObject *one = PyList_GET_ITEM(part_of[q], 0);
            Py_INCREF(one);
            Py_DECREF(part_of[q]);
            part_of[q] = one;
        }
    }
    for (int q = 0; q < 10; q++) {
        if (!part_of[q]) {                        /* a Python error, set: those made freed */
            for (int u = q + 1; u < 10; u++) Py_XDECREF(part_of[u]);
            Py_CLEAR(result);
            break;
        }
        PyTuple_SET_ITEM(result, q, part_of[q]);
    }
done:
    free(halves); free(red); free(words); free(present); free(flags); free(bytes);
    arr_release(&values); arr_release(&kinds); arr_release(&limbs);
    for (int a = 0; a < 5; a++) arr_release(&idx[a]);
    return result;
}

/* -- the module ----------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"key_sums", key_sums, METH_VARARGS,
     "key_sums(per_multiset, columns, entry_multiset, entry_orderings, key_starts, per_entry, out)\n"
     "Per key and column, the sum over its entries of orderings x per_multiset (x per_entry), into out."},
    {"wide_key_sums", wide_key_sums, METH_VARARGS,
     "wide_key_sums(per_multiset, columns, entry_multiset, entry_orderings, key_starts, out)\n"
     "key_sums for uint64 weights, in 128 bits under a bound it proves: per key and column, into out (uint64)."},
    {"batch_sums", batch_sums, METH_VARARGS,
     "batch_sums(value_counts, slots, parents, level_sizes, term_parent, term_slot, term_weight, column_starts,\n"
     "           out)\n"
     "Per shoe, the multisets' weights (a tree of shared products, the last card per term) times the\n"
     "terms' weights, summed per column, into out."},
    {"block_plan", block_plan, METH_VARARGS,
     "block_plan(first, first_at, second, second_at, entry_multiset, orderings, block_starts)\n"
     "A table's entries merged by block (sparse, or dense where entry_multiset and block_starts are None),\n"
     "every index checked once and copied: the plan block_sums reads."},
    {"block_sums", block_sums, METH_VARARGS,
     "block_sums(tokens, plan)\n"
     "One shoe's counts per block of a plan (block_plan), exact in 128 bits: a list of integers."},
    {"category_products", category_products, METH_VARARGS,
     "category_products(flat, first, first_at, second, second_at, out, modulus=0)\n"
     "Per value multiset, its ordered draws of any suits, summed over the suits, over the colours, into out."},
    {"walk", walk, METH_VARARGS,
     "walk(size, node_offset, class_value, class_count, trans_offset, trans_next, trans_merge, merges,\n"
     "     state_position, state_cards, state_next, state_over, limit)\n"
     "The walk of the deal over an automaton of classes: a list of (final state, node, count)."},
    {"walk_removals", walk_removals, METH_VARARGS,
     "walk_removals(size, node_offset, class_value, class_count, trans_offset, trans_next, trans_merge, merges,\n"
     "              state_position, state_cards, state_next, state_over, burn_label, limit)\n"
     "The walk after a burn card of each class: a list of (final state, node, burn label, count)."},
    {"walk_program", walk_program, METH_VARARGS,
     "walk_program(node_offset, class_value, class_count, trans_offset, trans_next, trans_merge, merges,\n"
     "             state_position, state_cards, state_next, state_over, limit, edge_limit)\n"
     "The walk's states and steps, shoe-free: (states, from, to, class, dealt, leaves), int32 bytes."},
    {"walk_many", walk_many, METH_VARARGS,
     "walk_many(states, from, to, class, dealt, leaf_cards, leaf_column, columns, class_counts, sizes)\n"
     "A walk_program evaluated for many shoes: per shoe, the sequences per column of leaves (exact integers)."},
    {"grouped_sums", grouped_sums, METH_VARARGS,
     "grouped_sums(values, kinds, groups, n_groups, limbs)\n"
     "Per group, the exact sum of values x the multiple its kind names (limbs: uint32, K x L, little-endian\n"
     "32-bit limbs), in 128 bits under a proven bound: a list of n_groups integers."},
    {"round_tally", round_tally, METH_VARARGS,
     "round_tally(values, kinds, limbs, shoe, n_shoes, count, n_counts, pen, n_pens, place, n_places, ahead)\n"
     "A batch's rounds tallied exactly (engine/grouped.py's round_tally) in fixed-width integers under a proven\n"
     "bound: (by_count, threshold_squares, total, total_by_rounds, ahead_total, ahead_squares, by_pen,\n"
     "pen_least, pen_most, by_place)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_core", "exactodds's compiled kernels (see exactodds.engine.native).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    return PyModule_Create(&module);
}
