/*
** call.c -- parses one call of an op from the CLI's words (call.h).
*/
#include "call.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *kfc_message(kf_status st, const kf_error *err) {
  return err->message[0] ? err->message : kf_status_name(st);
}

const char *kfc_input_list(kf_op op, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; i < kf_op_num_inputs(op) && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, i ? ", %s" : "%s", kf_op_input_name(op, i));
  return buf;
}

int kfc_split(char *line, char **words, int max) {
  char *p = line;
  int n = 0;
  while (n < max) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (!*p) break;
    words[n++] = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
    if (*p) *p++ = '\0';
  }
  return n;
}

/* Parses "D0,D1,..." (possibly empty) into out[]; returns the count or -1. */
static int parse_ints(const char *s, int64_t *out, int max) {
  int n = 0;
  if (!*s) return 0;
  for (;;) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno || n == max) return -1;
    out[n++] = (int64_t)v;
    if (*end == '\0') return n;
    if (*end != ',') return -1;
    s = end + 1;
  }
}

int kfc_call_parse(int argc, char **argv, int first, kfc_call *c, char *msg, size_t msglen, const char **rule) {
  int have[KFC_MAX_IO] = { 0 };
  kf_error err;
  int nin, i;
  memset(c, 0, sizeof *c);
  *rule = "usage";
  if (first >= argc || strncmp(argv[first], "--", 2) == 0) {
    snprintf(msg, msglen, "missing <OpName> (try 'kforge help')");
    return 1;
  }
  c->op = kf_op_from_name(argv[first]);
  if (c->op == KF_OP_INVALID) {
    snprintf(msg, msglen, "unknown op '%s' (see 'kforge ops')", argv[first]);
    return 1;
  }
  nin = kf_op_num_inputs(c->op);
  if (nin < 0 || nin > KFC_MAX_IO) {
    snprintf(msg, msglen, "internal: op %s has %d inputs", argv[first], nin);
    return 1;
  }
  c->num_inputs = nin;
  kf_attrs_init(c->op, &c->attrs);
  for (i = first + 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL, *eq;
    int k;
    if (strcmp(a, "--name") == 0) {
      if (!v) {
        snprintf(msg, msglen, "--name needs a label");
        return 1;
      }
      snprintf(c->name, sizeof c->name, "%s", v);
      i++;
      continue;
    }
    if (strcmp(a, "--attr") != 0 && strcmp(a, "--input") != 0 && strcmp(a, "--values") != 0) {
      snprintf(msg, msglen, "unknown option '%s' (try 'kforge help')", a);
      return 1;
    }
    eq = v ? strchr(v, '=') : NULL;
    if (!eq || eq == v) {
      snprintf(msg, msglen, "%s needs NAME=VALUE, got '%s'", a, v ? v : "");
      return 1;
    }
    i++;
    if (strcmp(a, "--attr") == 0) {
      char name[64];
      size_t len = (size_t)(eq - v);
      if (len >= sizeof name) {
        snprintf(msg, msglen, "--attr: name too long: '%s'", v);
        return 1;
      }
      memcpy(name, v, len);
      name[len] = '\0';
      memset(&err, 0, sizeof err);
      kf_status st = kf_attrs_set(c->op, &c->attrs, name, eq + 1, &err);
      if (st != KF_OK) {
        snprintf(msg, msglen, "%s", kfc_message(st, &err));
        *rule = err.rule ? err.rule : "";
        return 1;
      }
      continue;
    }
    for (k = 0; k < nin; k++) {
      const char *nm = kf_op_input_name(c->op, k);
      if (strlen(nm) == (size_t)(eq - v) && memcmp(nm, v, (size_t)(eq - v)) == 0) break;
    }
    if (k == nin) {
      char names[512];
      snprintf(msg, msglen, "%s has no input '%.*s' (its inputs: %s)", kf_op_name(c->op), (int)(eq - v), v,
               kfc_input_list(c->op, names, sizeof names));
      return 1;
    }
    if (strcmp(a, "--input") == 0) {
      const char *colon = strchr(eq + 1, ':');
      char dt[32];
      size_t len = colon ? (size_t)(colon - (eq + 1)) : 0;
      if (!colon || len == 0 || len >= sizeof dt) {
        snprintf(msg, msglen, "--input needs NAME=DTYPE:D0,D1,..., got '%s'", v);
        return 1;
      }
      memcpy(dt, eq + 1, len);
      dt[len] = '\0';
      c->in[k].dtype = kf_dtype_from_name(dt);
      c->in[k].rank = parse_ints(colon + 1, c->in[k].dims, KF_MAX_RANK);
      if (c->in[k].dtype == KF_DT_INVALID || c->in[k].rank < 0) {
        snprintf(msg, msglen, "--input %s: expected DTYPE:D0,D1,... (DTYPE: half, bfloat16, float, double, int32)", v);
        return 1;
      }
      have[k] = 1;
    } else {
      int64_t vs[KFC_MAX_VALUES];
      int n = parse_ints(eq + 1, vs, KFC_MAX_VALUES), j;
      if (n < 0) {
        snprintf(msg, msglen, "--values %s: expected up to %d integers, comma separated", v, KFC_MAX_VALUES);
        return 1;
      }
      for (j = 0; j < n; j++) c->values[k][j] = (int32_t)vs[j];
      c->in[k].host_data = c->values[k];
    }
  }
  for (i = 0; i < nin; i++)
    if (!have[i]) {
      snprintf(msg, msglen, "missing --input %s=DTYPE:DIMS", kf_op_input_name(c->op, i));
      return 1;
    }
  return 0;
}
