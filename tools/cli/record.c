/*
** record.c -- see record.h. The text is the canonical manifest format that
** generator/model.lua writes: one instance per entry, attrs in TF order
** (given values as given, the others at their defaults), inputs in TF order.
** record_text builds the new text; record_stage reads the current file under
** the transaction's lock and stages the new one; txn_commit puts it in place.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

#define FOOTER "  },\n}\n"

/* Appends s to the growing buffer b (len, cap); returns 0 or -1. */
static int add(char **b, size_t *len, size_t *cap, const char *s) {
  size_t n = strlen(s);
  if (*len + n + 1 > *cap) {
    size_t c = (*cap ? *cap : 4096);
    while (*len + n + 1 > c) c *= 2;
    char *nb = realloc(*b, c);
    if (!nb) return -1;
    *b = nb;
    *cap = c;
  }
  memcpy(*b + *len, s, n + 1);
  *len += n;
  return 0;
}

static const char *given(const char *const *kv, int nkv, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < nkv; i++)
    if (strncmp(kv[i], name, n) == 0 && kv[i][n] == '=') return kv[i] + n + 1;
  return NULL;
}

/* A Lua string literal (the values are attr texts: no control characters). */
static void quote(char *dst, size_t n, const char *s) {
  size_t k = 0;
  if (n < 3) { if (n) dst[0] = 0; return; }
  dst[k++] = '"';
  for (; *s && k + 3 < n; s++) {
    if (*s == '"' || *s == '\\') dst[k++] = '\\';
    dst[k++] = *s;
  }
  dst[k++] = '"';
  dst[k] = 0;
}

static void dims_text(char *dst, size_t n, const int64_t *dims, int rank) {
  size_t k = 0;
  if (rank == 0) { snprintf(dst, n, "{}"); return; }
  k += (size_t)snprintf(dst, n, "{ ");
  for (int i = 0; i < rank && k < n; i++)
    k += (size_t)snprintf(dst + k, n - k, i ? ", %lld" : "%lld", (long long)dims[i]);
  if (k < n) snprintf(dst + k, n - k, " }");
}

/* The new manifest text: old (oldlen bytes, NULL for a new file) plus this
   call's instance. path names the file in messages and a new manifest. */
int record_text(const char *path, const char *old, size_t oldlen, const char *instance, kf_op op,
                const char *const *kv, int nkv, kf_dtype T, const kf_tensor_desc *in, const npy_array *in_data,
                int nin, char **text, size_t *textlen, char *err, size_t errlen) {
  char *b = NULL, line[1024], q[512], tmp[512];
  size_t len = 0, cap = 0;
  int first;
  *text = NULL;
  *textlen = 0;
  if (old) { /* an existing manifest: everything before its footer */
    size_t fl = strlen(FOOTER);
    if (oldlen < fl || memcmp(old + oldlen - fl, FOOTER, fl) != 0 || memchr(old, 0, oldlen)) {
      snprintf(err, errlen, "%s is not a manifest written by --record (no closing '%s')", path, "  },\\n}");
      return -1;
    }
    if (!(b = malloc(oldlen + 1))) goto oom;
    memcpy(b, old, oldlen - fl);
    len = oldlen - fl;
    b[len] = 0;
    cap = oldlen + 1;
  } else {
    /* A new manifest, named after the file. */
    const char *base = strrchr(path, '/');
    char name[128];
    size_t k = 0;
    base = base ? base + 1 : path;
    for (; *base && *base != '.' && k + 1 < sizeof name; base++)
      name[k++] = (*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') ||
                  (*base >= '0' && *base <= '9') ? *base : '_';
    name[k] = 0;
    if (!k || (name[0] >= '0' && name[0] <= '9')) snprintf(name, sizeof name, "recorded");
    snprintf(line, sizeof line, "-- Recorded by `kforge run --record`: the calls of one run, as a model manifest.\n"
             "return {\n  name = \"%s\",\n  summary = \"Recorded by kforge run --record.\",\n  instances = {\n", name);
    if (add(&b, &len, &cap, line)) goto oom;
  }
  quote(q, sizeof q, instance);
  snprintf(line, sizeof line, "    { name = %s, op = \"%s\",\n      attrs = { ", q, kf_op_name(op));
  if (add(&b, &len, &cap, line)) goto oom;
  first = 1;
  for (int i = 0; i < kf_op_num_attrs(op); i++) {
    const char *name = kf_op_attr_name(op, i), *v;
    v = strcmp(name, "T") == 0 ? kf_dtype_name(T) : given(kv, nkv, name);
    if (!v) v = kf_op_attr_default(op, i);
    if (!v) continue;
    quote(q, sizeof q, v);
    snprintf(line, sizeof line, "%s%s = %s", first ? "" : ", ", name, q);
    if (add(&b, &len, &cap, line)) goto oom;
    first = 0;
  }
  if (add(&b, &len, &cap, " },\n      inputs = { ")) goto oom;
  for (int i = 0; i < nin; i++) {
    dims_text(tmp, sizeof tmp, in[i].dims, in[i].rank);
    snprintf(line, sizeof line, "%s%s = %s", i ? ", " : "", kf_op_input_name(op, i), tmp);
    if (add(&b, &len, &cap, line)) goto oom;
  }
  if (add(&b, &len, &cap, " }")) goto oom;
  first = 1;
  for (int i = 0; i < nin; i++) {
    if (in[i].dtype != KF_INT32) continue;
    int64_t vals[KF_MAX_RANK];
    int n = (int)(in_data[i].count < KF_MAX_RANK ? in_data[i].count : KF_MAX_RANK);
    for (int k = 0; k < n; k++) vals[k] = ((const int32_t *)in_data[i].data)[k];
    dims_text(tmp, sizeof tmp, vals, n);
    snprintf(line, sizeof line, "%s%s = %s", first ? ",\n      values = { " : ", ", kf_op_input_name(op, i), tmp);
    if (add(&b, &len, &cap, line)) goto oom;
    first = 0;
  }
  if (!first && add(&b, &len, &cap, " }")) goto oom;
  if (add(&b, &len, &cap, " },\n" FOOTER)) goto oom;
  *text = b;
  *textlen = len;
  return 0;
oom:
  snprintf(err, errlen, "out of memory while recording");
  free(b);
  return -1;
}

typedef struct text_ctx {
  const char *text;
  size_t len;
  const char *path;
} text_ctx;

static int write_text(FILE *f, void *ctx, char *err, size_t errlen) {
  const text_ctx *c = ctx;
  if (fwrite(c->text, 1, c->len, f) == c->len) return 0;
  snprintf(err, errlen, "%s: write error: %s", c->path, strerror(errno));
  return -1;
}

int record_stage(txn *t, int dir, const char *name, const char *path, const char *instance, kf_op op,
                 const char *const *kv, int nkv, kf_dtype T, const kf_tensor_desc *in, const npy_array *in_data,
                 int nin, char *err, size_t errlen) {
  char *old = NULL, *text = NULL;
  size_t len = 0, cap = 0, textlen;
  struct stat st;
  int rc = -1, fd = openat(txn_dirfd(t, dir), name, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno != ENOENT) {
    snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
    return -1;
  }
  if (fd >= 0) { /* read under the directory's lock: no concurrent append is lost */
    if (fstat(fd, &st) != 0) {
      snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
      goto done;
    }
    if (S_ISDIR(st.st_mode)) {
      snprintf(err, errlen, "%s is a directory", path);
      goto done;
    }
    for (;;) {
      ssize_t got;
      if (cap - len < 4096) {
        char *nb = realloc(old, cap = 2 * cap + 65536);
        if (!nb) {
          snprintf(err, errlen, "out of memory while recording");
          goto done;
        }
        old = nb;
      }
      if ((got = read(fd, old + len, cap - len)) == 0) break;
      if (got < 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        goto done;
      }
      len += (size_t)got;
    }
  }
  if (record_text(path, fd >= 0 ? old : NULL, len, instance, op, kv, nkv, T, in, in_data, nin, &text, &textlen, err,
                  errlen) == 0) {
    text_ctx c = { text, textlen, path };
    rc = txn_file(t, dir, name, write_text, &c, err, errlen);
  }
done:
  if (fd >= 0) close(fd);
  free(old);
  free(text);
  return rc;
}
