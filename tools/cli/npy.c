/*
** npy.c -- strict .npy reader/writer; see npy.h.
**
** The reader takes the file in three steps (prefix, header, data) so it
** never reads more than the header promises plus one probe byte, and it
** allocates the data separately (malloc alignment suits every dtype, which
** a data offset inside the file would not guarantee for odd headers).
*/
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if defined(__GNUC__) || defined(__clang__)
#define NPY_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define NPY_PRINTF(f, a)
#endif

static const unsigned char MAGIC[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

static const struct {
  npy_dtype t;
  char kind; /* 'f', 'i', 'u' */
  int size;
} DTYPES[] = {
    {NPY_F2, 'f', 2}, {NPY_F4, 'f', 4}, {NPY_F8, 'f', 8},
    {NPY_I4, 'i', 4}, {NPY_U2, 'u', 2}, {NPY_U1, 'u', 1},
};
#define NDTYPES (sizeof DTYPES / sizeof DTYPES[0])

size_t npy_dtype_size(npy_dtype t) {
  for (size_t i = 0; i < NDTYPES; i++)
    if (DTYPES[i].t == t) return (size_t)DTYPES[i].size;
  return 0;
}

const char *npy_dtype_descr(npy_dtype t) {
  switch (t) {
  case NPY_F2: return "<f2";
  case NPY_F4: return "<f4";
  case NPY_F8: return "<f8";
  case NPY_I4: return "<i4";
  case NPY_U2: return "<u2";
  case NPY_U1: return "|u1";
  default: return NULL;
  }
}

static int host_is_little_endian(void) {
  uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

NPY_PRINTF(4, 5)
static int fail(char *err, size_t errlen, const char *name, const char *fmt, ...) {
  if (err && errlen) {
    int n = snprintf(err, errlen, "%s: ", name);
    if (n >= 0 && (size_t)n < errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  return -1;
}

/* ------------------------------------------------------------ header parser */

typedef struct parser {
  const char *p, *end, *start;
  const char *name;
  char *err;
  size_t errlen;
} parser;

static void skip_ws(parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static size_t off(const parser *ps) { return (size_t)(ps->p - ps->start); }

static int is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A Python string literal without escapes ('...' or "..."), into out. */
static int parse_string(parser *ps, char *out, size_t outlen, const char *what) {
  if (ps->p >= ps->end || (*ps->p != '\'' && *ps->p != '"'))
    return fail(ps->err, ps->errlen, ps->name,
                "malformed header: expected a quoted %s at header offset %zu", what, off(ps));
  char q = *ps->p++;
  size_t n = 0;
  for (;;) {
    if (ps->p >= ps->end)
      return fail(ps->err, ps->errlen, ps->name, "malformed header: unterminated string");
    char c = *ps->p++;
    if (c == q) break;
    if (c == '\\')
      return fail(ps->err, ps->errlen, ps->name,
                  "malformed header: escape sequences in strings are not supported");
    if (c == '\n' || c == '\r') /* Python: a quoted string ends on its line */
      return fail(ps->err, ps->errlen, ps->name,
                  "malformed header: unterminated string (line break at header offset %zu)",
                  off(ps) - 1);
    if (n + 1 >= outlen)
      return fail(ps->err, ps->errlen, ps->name, "malformed header: %s is too long", what);
    out[n++] = c;
  }
  out[n] = '\0';
  return 0;
}

static int parse_descr(parser *ps, npy_array *a) {
  char s[64];
  if (ps->p < ps->end && (*ps->p == '[' || *ps->p == '{'))
    return fail(ps->err, ps->errlen, ps->name,
                "unsupported dtype: structured arrays are not supported");
  if (parse_string(ps, s, sizeof s, "'descr' value") != 0) return -1;
  /* byte order: '<' little, '=' native (we only run on little-endian
     hosts), '|' not applicable (only valid for 1-byte types), '>' big. */
  char order = s[0];
  const char *rest = s;
  if (order == '<' || order == '=' || order == '|' || order == '>') rest = s + 1;
  else order = 0; /* no byte order character: native */
  for (size_t i = 0; i < NDTYPES; i++) {
    char want[8];
    snprintf(want, sizeof want, "%c%d", DTYPES[i].kind, DTYPES[i].size);
    if (strcmp(rest, want) != 0) continue;
    if (order == '>' && DTYPES[i].size > 1)
      return fail(ps->err, ps->errlen, ps->name,
                  "big-endian data ('%s') is not supported; save it little-endian "
                  "(e.g. a.astype('<%s'))", s, want);
    if (order == '|' && DTYPES[i].size > 1)
      return fail(ps->err, ps->errlen, ps->name,
                  "invalid dtype '%s': '|' (no byte order) is only valid for 1-byte types", s);
    a->dtype = DTYPES[i].t;
    return 0;
  }
  return fail(ps->err, ps->errlen, ps->name,
              "unsupported dtype '%s' (supported: <f2, <f4, <f8, <i4, <u2, |u1)", s);
}

static int parse_bool(parser *ps, int *out) {
  size_t left = (size_t)(ps->end - ps->p);
  int v = -1;
  size_t n = 0;
  if (left >= 4 && memcmp(ps->p, "True", 4) == 0) v = 1, n = 4;
  else if (left >= 5 && memcmp(ps->p, "False", 5) == 0) v = 0, n = 5;
  if (v < 0 || (n < left && is_ident(ps->p[n])))
    return fail(ps->err, ps->errlen, ps->name,
                "malformed header: 'fortran_order' must be True or False (at header offset %zu)",
                off(ps));
  ps->p += n;
  *out = v;
  return 0;
}

/* A non-negative Python int literal (with the optional 'L' suffix that
   NumPy under Python 2 wrote). */
static int parse_dim(parser *ps, int64_t *out) {
  if (ps->p < ps->end && *ps->p == '-') {
    const char *q = ps->p + 1;
    while (q < ps->end && *q >= '0' && *q <= '9') q++;
    return fail(ps->err, ps->errlen, ps->name, "negative dimension %.*s in shape",
                (int)(q - ps->p), ps->p);
  }
  if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
    return fail(ps->err, ps->errlen, ps->name,
                "malformed header: expected a dimension in 'shape' at header offset %zu", off(ps));
  if (*ps->p == '0' && ps->p + 1 < ps->end && ps->p[1] >= '0' && ps->p[1] <= '9')
    return fail(ps->err, ps->errlen, ps->name,
                "malformed header: dimension with a leading zero in 'shape'");
  int64_t v = 0;
  while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
    int d = *ps->p++ - '0';
    if (v > (INT64_MAX - d) / 10)
      return fail(ps->err, ps->errlen, ps->name, "dimension in 'shape' overflows 64 bits");
    v = v * 10 + d;
  }
  if (ps->p < ps->end && (*ps->p == 'L' || *ps->p == 'l')) ps->p++;
  if (ps->p < ps->end && is_ident(*ps->p))
    return fail(ps->err, ps->errlen, ps->name,
                "malformed header: bad dimension in 'shape' at header offset %zu", off(ps));
  *out = v;
  return 0;
}

static int parse_shape(parser *ps, npy_array *a) {
  if (ps->p >= ps->end || *ps->p != '(')
    return fail(ps->err, ps->errlen, ps->name,
                "malformed header: 'shape' must be a tuple such as (2, 3) at header offset %zu",
                off(ps));
  ps->p++;
  skip_ws(ps);
  int rank = 0, commas = 0;
  while (ps->p < ps->end && *ps->p != ')') {
    int64_t d = 0;
    if (parse_dim(ps, &d) != 0) return -1;
    if (rank == NPY_MAX_RANK)
      return fail(ps->err, ps->errlen, ps->name, "rank exceeds the maximum of %d",
                  NPY_MAX_RANK);
    a->dims[rank++] = d;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ps->p++, commas++;
      skip_ws(ps);
    } else if (ps->p < ps->end && *ps->p != ')') {
      return fail(ps->err, ps->errlen, ps->name,
                  "malformed header: expected ',' or ')' in 'shape' at header offset %zu",
                  off(ps));
    }
  }
  if (ps->p >= ps->end)
    return fail(ps->err, ps->errlen, ps->name, "malformed header: unterminated 'shape' tuple");
  ps->p++; /* ')' */
  if (rank == 1 && commas == 0) /* Python: (3) is the int 3, not a tuple */
    return fail(ps->err, ps->errlen, ps->name,
                "malformed header: 'shape' (%lld) is not a tuple (1-D shapes are written (%lld,))",
                (long long)a->dims[0], (long long)a->dims[0]);
  a->rank = rank;
  return 0;
}

/* The dict, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (3,), }
   followed by spaces and the final newline. Keys in any order. */
static int parse_dict(parser *ps, npy_array *a) {
  int seen[3] = {0, 0, 0}; /* descr, fortran_order, shape */
  static const char *const KEYS[3] = {"descr", "fortran_order", "shape"};
  skip_ws(ps);
  if (ps->p >= ps->end || *ps->p != '{')
    return fail(ps->err, ps->errlen, ps->name, "malformed header: not a Python dict (no '{')");
  ps->p++;
  for (;;) {
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') break;
    char key[32];
    if (parse_string(ps, key, sizeof key, "key") != 0) return -1;
    int k = -1;
    for (int i = 0; i < 3; i++)
      if (strcmp(key, KEYS[i]) == 0) k = i;
    if (k < 0)
      return fail(ps->err, ps->errlen, ps->name, "malformed header: unexpected key '%s'", key);
    if (seen[k])
      return fail(ps->err, ps->errlen, ps->name, "malformed header: duplicate key '%s'", key);
    seen[k] = 1;
    skip_ws(ps);
    if (ps->p >= ps->end || *ps->p != ':')
      return fail(ps->err, ps->errlen, ps->name, "malformed header: expected ':' after key '%s'",
                  key);
    ps->p++;
    skip_ws(ps);
    int fortran = 0;
    if (k == 0 && parse_descr(ps, a) != 0) return -1;
    if (k == 1) {
      if (parse_bool(ps, &fortran) != 0) return -1;
      if (fortran)
        return fail(ps->err, ps->errlen, ps->name,
                    "fortran_order True (column-major) is not supported; save a C-order array "
                    "(np.ascontiguousarray)");
    }
    if (k == 2 && parse_shape(ps, a) != 0) return -1;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ps->p++;
      continue;
    }
    if (ps->p < ps->end && *ps->p == '}') break;
    return fail(ps->err, ps->errlen, ps->name,
                "malformed header: expected ',' or '}' after the value of '%s'", key);
  }
  ps->p++; /* '}' */
  for (int i = 0; i < 3; i++)
    if (!seen[i])
      return fail(ps->err, ps->errlen, ps->name, "malformed header: missing key '%s'", KEYS[i]);
  skip_ws(ps);
  if (ps->p != ps->end)
    return fail(ps->err, ps->errlen, ps->name,
                "malformed header: unexpected text after the dict at header offset %zu", off(ps));
  return 0;
}

/* Validates the header text (hlen bytes) and fills a's dtype, shape, sizes. */
static int parse_header(const char *name, const char *h, size_t hlen, npy_array *a, char *err,
                        size_t errlen) {
  if (hlen == 0) return fail(err, errlen, name, "malformed header: empty header");
  for (size_t i = 0; i < hlen; i++) {
    unsigned char c = (unsigned char)h[i];
    if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c >= 0x7f)
      return fail(err, errlen, name, "malformed header: invalid byte 0x%02x at header offset %zu",
                  c, i);
  }
  if (h[hlen - 1] != '\n')
    return fail(err, errlen, name, "malformed header: does not end with a newline");
  parser ps = {h, h + hlen, h, name, err, errlen};
  if (parse_dict(&ps, a) != 0) return -1;
  /* element count: 0 if any dim is 0 (no overflow possible), else checked */
  int64_t count = 1;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] == 0) count = 0;
  for (int i = 0; count != 0 && i < a->rank; i++) {
    if (count > INT64_MAX / a->dims[i])
      return fail(err, errlen, name, "element count of the shape overflows 64 bits");
    count *= a->dims[i];
  }
  if (count > NPY_MAX_ELEMENTS)
    return fail(err, errlen, name, "element count %lld exceeds the maximum of %lld",
                (long long)count, (long long)NPY_MAX_ELEMENTS);
  size_t es = npy_dtype_size(a->dtype);
  if ((uint64_t)count > SIZE_MAX / es)
    return fail(err, errlen, name, "array does not fit in memory on this host");
  a->count = count;
  a->nbytes = (size_t)count * es;
  return 0;
}

/* ------------------------------------------------------------ reader */

void npy_free(npy_array *a) {
  if (!a) return;
  free(a->buf_);
  memset(a, 0, sizeof *a);
}

struct npy_file {
  FILE *f;
  const char *path;
  int regular;
  uint64_t size;           /* a regular file's size */
  size_t data_off;         /* where the data starts */
  unsigned char extra[12]; /* data bytes read with the prefix */
  size_t nextra;
};

void npy_close(npy_file *nf) {
  if (!nf) return;
  if (nf->f) fclose(nf->f);
  free(nf);
}

int npy_open(const char *path, npy_array *out, npy_file **file, char *err, size_t errlen) {
  npy_array a;
  memset(&a, 0, sizeof a);
  memset(out, 0, sizeof *out);
  *file = NULL;
  if (!host_is_little_endian()) return fail(err, errlen, path, "big-endian hosts are not supported");
  npy_file *nf = calloc(1, sizeof *nf);
  if (!nf) return fail(err, errlen, path, "out of memory");
  nf->path = path;
  nf->f = fopen(path, "rb");
  if (!nf->f) {
    fail(err, errlen, path, "cannot open: %s", strerror(errno));
    free(nf);
    return -1;
  }
  FILE *f = nf->f;
  char *hdr = NULL;
  int rc = -1;
  struct stat st;
  if (fstat(fileno(f), &st) == 0) nf->regular = S_ISREG(st.st_mode);
  else memset(&st, 0, sizeof st);
  nf->size = nf->regular && st.st_size >= 0 ? (uint64_t)st.st_size : 0;
  if (S_ISDIR(st.st_mode)) {
    fail(err, errlen, path, "is a directory, not a .npy file");
    goto done;
  }
  unsigned char pre[12];
  size_t n = fread(pre, 1, sizeof pre, f);
  if (ferror(f)) {
    fail(err, errlen, path, "read error: %s", strerror(errno));
    goto done;
  }
  if (n == 0) {
    fail(err, errlen, path, "empty file, not a .npy file");
    goto done;
  }
  if (n < 6 || memcmp(pre, MAGIC, 6) != 0) {
    fail(err, errlen, path, "not a .npy file (bad magic string)");
    goto done;
  }
  if (n < 8) {
    fail(err, errlen, path, "truncated before the format version");
    goto done;
  }
  if (pre[6] < 1 || pre[6] > 3 || pre[7] != 0) {
    fail(err, errlen, path, "unsupported .npy format version %u.%u (supported: 1.0, 2.0, 3.0)",
         pre[6], pre[7]);
    goto done;
  }
  size_t ls = pre[6] == 1 ? 2 : 4; /* width of the little-endian header length */
  if (n < 8 + ls) {
    fail(err, errlen, path, "truncated before the header length");
    goto done;
  }
  size_t hlen = ls == 2 ? (size_t)pre[8] | (size_t)pre[9] << 8
                        : (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
                              (size_t)pre[11] << 24;
  if (hlen > NPY_MAX_HEADER) {
    fail(err, errlen, path, "header length %zu exceeds the limit of %d bytes", hlen,
         NPY_MAX_HEADER);
    goto done;
  }
  hdr = malloc(hlen + 1);
  if (!hdr) {
    fail(err, errlen, path, "out of memory");
    goto done;
  }
  /* header bytes already in pre (v1.0 reads 2 of them with the prefix) */
  size_t have = n - (8 + ls);
  if (have > hlen) have = hlen;
  memcpy(hdr, pre + 8 + ls, have);
  size_t got = have + fread(hdr + have, 1, hlen - have, f);
  if (got < hlen) {
    fail(err, errlen, path, "truncated header (header length is %zu bytes, file has %zu)", hlen,
         got);
    goto done;
  }
  if (parse_header(path, hdr, hlen, &a, err, errlen) != 0) goto done;
  /* data bytes read with pre (only when the header is shorter than 2 bytes,
     which parse_header rejects, so none in practice) */
  nf->nextra = n - (8 + ls) - have;
  memcpy(nf->extra, pre + 8 + ls + have, nf->nextra);
  nf->data_off = 8 + ls + hlen;
  *out = a;
  *file = nf;
  nf = NULL;
  rc = 0;
done:
  free(hdr);
  npy_close(nf);
  return rc;
}

int npy_read_data(npy_file *nf, npy_array *out, char *err, size_t errlen) {
  npy_array a = *out;
  const char *path = nf->path;
  FILE *f = nf->f;
  int rc = -1;
  size_t got;
  a.buf_ = NULL;
  a.data = NULL;
  /* A header may promise far more data than the file holds: check a
     regular file's size before allocating, so a few bytes cannot make us
     allocate gigabytes. (Other files are read in growing chunks below.) */
  if (nf->regular) {
    uint64_t left = nf->size > nf->data_off ? nf->size - nf->data_off : 0;
    if (left < a.nbytes) {
      fail(err, errlen, path, "truncated data (shape needs %zu bytes, file has %zu)", a.nbytes,
           (size_t)left);
      goto done;
    }
  }
  size_t cap = nf->regular || a.nbytes <= ((size_t)1 << 20) ? a.nbytes : ((size_t)1 << 20);
  a.buf_ = malloc(cap ? cap : 1);
  if (!a.buf_) {
    fail(err, errlen, path, "out of memory for %zu bytes of data", a.nbytes);
    goto done;
  }
  if (nf->nextra > a.nbytes) {
    fail(err, errlen, path, "trailing garbage after the array data");
    goto done;
  }
  memcpy(a.buf_, nf->extra, nf->nextra);
  got = nf->nextra;
  while (got < a.nbytes) {
    if (got == cap) { /* grow (non-regular files only) */
      size_t ncap = cap > a.nbytes / 2 ? a.nbytes : cap * 2;
      void *nb = realloc(a.buf_, ncap);
      if (!nb) {
        fail(err, errlen, path, "out of memory for %zu bytes of data", a.nbytes);
        goto done;
      }
      a.buf_ = nb;
      cap = ncap;
    }
    size_t r = fread((char *)a.buf_ + got, 1, cap - got, f);
    got += r;
    if (r == 0) break;
  }
  if (ferror(f)) {
    fail(err, errlen, path, "read error: %s", strerror(errno));
    goto done;
  }
  if (got < a.nbytes) {
    fail(err, errlen, path, "truncated data (shape needs %zu bytes, file has %zu)", a.nbytes, got);
    goto done;
  }
  if (fgetc(f) != EOF) {
    fail(err, errlen, path, "trailing garbage after the array data (file is longer than its "
                            "header says)");
    goto done;
  }
  if (ferror(f)) {
    fail(err, errlen, path, "read error: %s", strerror(errno));
    goto done;
  }
  a.data = a.buf_;
  *out = a;
  a.buf_ = NULL;
  rc = 0;
done:
  free(a.buf_);
  if (rc != 0) memset(out, 0, sizeof *out);
  npy_close(nf);
  return rc;
}

int npy_read(const char *path, npy_array *out, char *err, size_t errlen) {
  npy_file *nf;
  if (npy_open(path, out, &nf, err, errlen) != 0) return -1;
  return npy_read_data(nf, out, err, errlen);
}

/* The same checks and messages as npy_read, on bytes in memory. */
int npy_parse(const char *name, const unsigned char *bytes, size_t size, npy_array *out,
              char *err, size_t errlen) {
  npy_array a;
  memset(&a, 0, sizeof a);
  if (!out) return fail(err, errlen, name, "no output array");
  memset(out, 0, sizeof *out);
  if (!host_is_little_endian()) return fail(err, errlen, name, "big-endian hosts are not supported");
  if (!bytes && size) return fail(err, errlen, name, "no data");
  if (size == 0) return fail(err, errlen, name, "empty file, not a .npy file");
  if (size < 6 || memcmp(bytes, MAGIC, 6) != 0)
    return fail(err, errlen, name, "not a .npy file (bad magic string)");
  if (size < 8) return fail(err, errlen, name, "truncated before the format version");
  if (bytes[6] < 1 || bytes[6] > 3 || bytes[7] != 0)
    return fail(err, errlen, name,
                "unsupported .npy format version %u.%u (supported: 1.0, 2.0, 3.0)", bytes[6],
                bytes[7]);
  size_t ls = bytes[6] == 1 ? 2 : 4;
  if (size < 8 + ls) return fail(err, errlen, name, "truncated before the header length");
  size_t hlen = ls == 2 ? (size_t)bytes[8] | (size_t)bytes[9] << 8
                        : (size_t)bytes[8] | (size_t)bytes[9] << 8 | (size_t)bytes[10] << 16 |
                              (size_t)bytes[11] << 24;
  if (hlen > NPY_MAX_HEADER)
    return fail(err, errlen, name, "header length %zu exceeds the limit of %d bytes", hlen,
                NPY_MAX_HEADER);
  size_t avail = size - (8 + ls);
  if (avail < hlen)
    return fail(err, errlen, name,
                "truncated header (header length is %zu bytes, file has %zu)", hlen, avail);
  if (parse_header(name, (const char *)bytes + 8 + ls, hlen, &a, err, errlen) != 0) return -1;
  avail -= hlen;
  if (avail < a.nbytes)
    return fail(err, errlen, name, "truncated data (shape needs %zu bytes, file has %zu)",
                a.nbytes, avail);
  if (avail > a.nbytes)
    return fail(err, errlen, name, "trailing garbage after the array data (file is longer than "
                                   "its header says)");
  a.buf_ = malloc(a.nbytes ? a.nbytes : 1);
  if (!a.buf_) return fail(err, errlen, name, "out of memory for %zu bytes of data", a.nbytes);
  if (a.nbytes) memcpy(a.buf_, bytes + 8 + ls + hlen, a.nbytes);
  a.data = a.buf_;
  *out = a;
  return 0;
}

/* ------------------------------------------------------------ writer */

size_t npy_header(npy_dtype t, int rank, const int64_t *dims, char *buf, size_t bufsize) {
  const char *descr = npy_dtype_descr(t);
  if (!descr || rank < 0 || rank > NPY_MAX_RANK || bufsize < 10) return 0;
  /* the dict exactly as numpy.save's repr() of it; keys sorted */
  char d[512];
  size_t n = (size_t)snprintf(d, sizeof d, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                              descr);
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0) return 0;
    n += (size_t)snprintf(d + n, sizeof d - n, i ? ", %lld" : "%lld", (long long)dims[i]);
  }
  n += (size_t)snprintf(d + n, sizeof d - n, rank == 1 ? ",), }" : "), }");
  /* numpy adds spare room so the first axis can grow in place: 21 minus the
     digits of dims[0] */
  if (rank > 0) {
    char num[32];
    int digits = snprintf(num, sizeof num, "%lld", (long long)dims[0]);
    for (int i = digits; i < 21; i++) d[n++] = ' ';
  }
  /* then pad with spaces + '\n' so magic(6)+version(2)+len(2)+header is a
     multiple of 64; numpy pads a full 64 when already aligned */
  size_t hlen = n + 1;
  size_t pad = 64 - ((10 + hlen) % 64);
  size_t total = 10 + hlen + pad;
  if (total > bufsize || hlen + pad > 0xffff) return 0;
  memcpy(buf, MAGIC, 6);
  buf[6] = 1, buf[7] = 0;
  buf[8] = (char)((hlen + pad) & 0xff), buf[9] = (char)((hlen + pad) >> 8);
  memcpy(buf + 10, d, n);
  memset(buf + 10 + n, ' ', pad);
  buf[total - 1] = '\n';
  return total;
}

int npy_write_fp(FILE *f, const char *name, npy_dtype t, int rank, const int64_t *dims,
                 const void *data, char *err, size_t errlen) {
  if (!host_is_little_endian()) return fail(err, errlen, name, "big-endian hosts are not supported");
  char hdr[1024];
  size_t hn = npy_header(t, rank, dims, hdr, sizeof hdr);
  if (hn == 0) return fail(err, errlen, name, "cannot write: invalid dtype or shape");
  uint64_t count = 1;
  for (int i = 0; i < rank; i++)
    if (dims[i] == 0) count = 0; /* then no product can overflow */
  for (int i = 0; i < rank && count; i++) {
    if (count > UINT64_MAX / (uint64_t)dims[i])
      return fail(err, errlen, name, "cannot write: element count overflows");
    count *= (uint64_t)dims[i];
  }
  size_t es = npy_dtype_size(t);
  if (count > SIZE_MAX / es) return fail(err, errlen, name, "cannot write: array too large");
  size_t nbytes = (size_t)count * es;
  if (nbytes && !data) return fail(err, errlen, name, "cannot write: no data");
  if (fwrite(hdr, 1, hn, f) != hn || (nbytes && fwrite(data, 1, nbytes, f) != nbytes) ||
      fflush(f) != 0)
    return fail(err, errlen, name, "write error: %s", strerror(errno));
  return 0;
}

int npy_write(const char *path, npy_dtype t, int rank, const int64_t *dims, const void *data,
              char *err, size_t errlen) {
  FILE *f = fopen(path, "wb");
  if (!f) return fail(err, errlen, path, "cannot create: %s", strerror(errno));
  int rc = npy_write_fp(f, path, t, rank, dims, data, err, errlen);
  if (fclose(f) != 0 && rc == 0) rc = fail(err, errlen, path, "write error: %s", strerror(errno));
  if (rc != 0) remove(path);
  return rc;
}
