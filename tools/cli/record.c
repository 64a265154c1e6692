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

/* A Lua string literal of s in dst[n]: '"' and '\\' escaped, control
   characters as \ddd (an attr text may hold one: strtof skips leading
   blanks, "\n1e-3" included). -1 when it does not fit (never truncated). */
static int quote(char *dst, size_t n, const char *s) {
  size_t k = 0;
  if (n < 3) return -1;
  dst[k++] = '"';
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (k + 6 >= n) return -1;
    if (c < 0x20 || c == 0x7f) {
      k += (size_t)snprintf(dst + k, n - k, "\\%03u", c);
      continue;
    }
    if (c == '"' || c == '\\') dst[k++] = '\\';
    dst[k++] = (char)c;
  }
  dst[k++] = '"';
  dst[k] = 0;
  return 0;
}

/* ---- the old manifest must be what --record writes: Lua data only ---- */
/* A tiny parser of the subset the writer emits: "--" comment lines, then
   `return` and one table of `name = value` / value fields (values: strings
   with \" \\ \ddd escapes and no raw control characters, integers,
   tables), then the end of the text. Appending to anything else would make
   a file the model loader cannot read. */
typedef struct lua_in {
  const char *p, *end;
  int depth;
} lua_in;

static void lua_ws(lua_in *in) {
  while (in->p < in->end) {
    if (*in->p == ' ' || *in->p == '\n' || *in->p == '\t') in->p++;
    else if (in->end - in->p >= 2 && in->p[0] == '-' && in->p[1] == '-')
      while (in->p < in->end && *in->p != '\n') in->p++;
    else break;
  }
}

static int lua_ident(lua_in *in) {
  const char *q = in->p;
  while (q < in->end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_' ||
                         (q > in->p && *q >= '0' && *q <= '9')))
    q++;
  if (q == in->p) return 0;
  in->p = q;
  return 1;
}

/* What a table may hold: the manifest (name, summary, instances), the
   list of instances (positional), an instance (name, op, attrs, inputs,
   values), or anything (attrs, inputs, values, dims). */
enum lua_kind { L_TOP, L_LIST, L_INSTANCE, L_ANY };

static int lua_value(lua_in *in, enum lua_kind kind);

static int lua_string(lua_in *in) {
  if (in->p >= in->end || *in->p != '"') return 0;
  for (in->p++; in->p < in->end; in->p++) {
    unsigned char c = (unsigned char)*in->p;
    if (c == '"') { in->p++; return 1; }
    if (c < 0x20 || c == 0x7f) return 0;
    if (c == '\\') {
      if (++in->p >= in->end) return 0;
      if (*in->p >= '0' && *in->p <= '9') {
        if (in->end - in->p < 3 || !(in->p[1] >= '0' && in->p[1] <= '9') || !(in->p[2] >= '0' && in->p[2] <= '9'))
          return 0;
        in->p += 2;
      } else if (*in->p != '"' && *in->p != '\\') {
        return 0;
      }
    }
  }
  return 0;
}

static int key_is(const char *k, size_t n, const char *want) { return strlen(want) == n && memcmp(k, want, n) == 0; }

/* The key's bit among the kind's keys; 0: not allowed there. */
static unsigned key_bit(enum lua_kind kind, const char *k, size_t n) {
  static const char *const top[] = { "name", "summary", "instances", NULL };
  static const char *const inst[] = { "name", "op", "attrs", "inputs", "values", NULL };
  const char *const *keys = kind == L_TOP ? top : kind == L_INSTANCE ? inst : NULL;
  if (kind == L_ANY) return 1;
  for (unsigned i = 0; keys && keys[i]; i++)
    if (key_is(k, n, keys[i])) return 1u << i;
  return 0;
}

static int lua_table(lua_in *in, enum lua_kind kind) {
  unsigned seen = 0;
  if (in->p >= in->end || *in->p != '{' || ++in->depth > 8) return 0;
  in->p++;
  for (;;) {
    lua_ws(in);
    if (in->p < in->end && *in->p == '}') {
      in->p++;
      in->depth--;
      /* the keys the model loader needs: instances; an instance's name, op, inputs */
      return kind == L_TOP ? (seen & 4u) != 0 : kind == L_INSTANCE ? (seen & 11u) == 11u : 1;
    }
    const char *key = in->p;
    enum lua_kind child = L_ANY;
    if (lua_ident(in)) {
      unsigned bit = key_bit(kind, key, (size_t)(in->p - key));
      if (!bit || (kind != L_ANY && (seen & bit))) return 0; /* unknown or repeated key */
      seen |= bit;
      if (kind == L_TOP && bit == 4u) child = L_LIST;
      lua_ws(in);
      if (in->p < in->end && *in->p == '=') in->p++;
      else return 0; /* a bare name is no value here */
      lua_ws(in);
    } else if (kind == L_TOP || kind == L_INSTANCE) {
      return 0; /* positional values only in lists */
    } else if (kind == L_LIST) {
      child = L_INSTANCE;
      in->p = key;
    }
    if (!lua_value(in, child)) return 0;
    lua_ws(in);
    if (in->p < in->end && *in->p == ',') { in->p++; continue; }
    if (in->p < in->end && *in->p == '}') continue;
    return 0;
  }
}

static int lua_value(lua_in *in, enum lua_kind kind) {
  if (in->p >= in->end) return 0;
  if (*in->p == '{') return lua_table(in, kind);
  if (kind != L_ANY) return 0; /* a manifest, a list, an instance: tables */
  if (*in->p == '"') return lua_string(in);
  const char *q = in->p;
  if (*q == '-') q++;
  if (q >= in->end || !(*q >= '0' && *q <= '9')) return 0;
  while (q < in->end && *q >= '0' && *q <= '9') q++;
  in->p = q;
  return 1;
}

static int valid_manifest(const char *text, size_t len) {
  lua_in in = { text, text + len, 0 };
  lua_ws(&in);
  if (in.end - in.p < 6 || memcmp(in.p, "return", 6) != 0) return 0;
  in.p += 6;
  lua_ws(&in);
  if (!lua_table(&in, L_TOP)) return 0;
  lua_ws(&in);
  return in.p == in.end;
}

static void dims_text(char *dst, size_t n, const int64_t *dims, int rank) {
  size_t k = 0;
  if (rank == 0) { snprintf(dst, n, "{}"); return; }
  k += (size_t)snprintf(dst, n, "{ ");
  for (int i = 0; i < rank && k < n; i++)
    k += (size_t)snprintf(dst + k, n - k, i ? ", %lld" : "%lld", (long long)dims[i]);
  if (k < n) snprintf(dst + k, n - k, " }");
}

int record_check_name(const char *name, char *err, size_t errlen) {
  if (strlen(name) > RECORD_MAX_NAME) {
    snprintf(err, errlen, "--record-name is %zu bytes long, over the limit of %d", strlen(name), RECORD_MAX_NAME);
    return -1;
  }
  for (const char *c = name; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) {
      snprintf(err, errlen, "--record-name must not contain control characters (byte 0x%02x)", (unsigned char)*c);
      return -1;
    }
  return 0;
}

/* The new manifest text: old (oldlen bytes, NULL for a new file) plus this
   call's instance. path names the file in messages and a new manifest. */
int record_text(const char *path, const char *old, size_t oldlen, const char *instance, kf_op op,
                const char *const *kv, int nkv, kf_dtype T, const kf_tensor_desc *in, const npy_array *in_data,
                int nin, char **text, size_t *textlen, char *err, size_t errlen) {
  char *b = NULL, line[4096], q[2048], tmp[512];
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
    if (!valid_manifest(old, oldlen)) {
      snprintf(err, errlen, "%s is not a manifest written by --record (not Lua data: edited or corrupt); "
               "nothing appended", path);
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
  if (record_check_name(instance, err, errlen) != 0) goto fail;
  if (quote(q, sizeof q, instance)) goto too_long;
  snprintf(line, sizeof line, "    { name = %s, op = \"%s\",\n      attrs = { ", q, kf_op_name(op));
  if (add(&b, &len, &cap, line)) goto oom;
  first = 1;
  for (int i = 0; i < kf_op_num_attrs(op); i++) {
    const char *name = kf_op_attr_name(op, i), *v;
    v = strcmp(name, "T") == 0 ? kf_dtype_name(T) : given(kv, nkv, name);
    if (!v) v = kf_op_attr_default(op, i);
    if (!v) continue;
    if (quote(q, sizeof q, v)) goto too_long;
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
  goto fail;
too_long:
  snprintf(err, errlen, "an --attr value or --record-name is too long to record (over %d bytes escaped)", 2048 - 3);
fail:
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
