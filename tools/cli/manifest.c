/*
** manifest.c -- a reader for the Lua data subset of model manifests
** (manifest.h): a tokenizer, a tree of tables, and the walk that turns
** `instances` into calls.
*/
#include "manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
  int kind;                  /* 0 table, 1 string, 2 number */
  char *key;                 /* NULL: positional */
  char *str;
  long long num;
  struct node **kids;
  int nkids;
} node;

typedef struct lexer {
  const char *s, *path;
  int line;
  char *msg;
  size_t msg_bytes;
  int failed;
} lexer;

static void fail(lexer *l, const char *what) {
  if (!l->failed) snprintf(l->msg, l->msg_bytes, "%s:%d: %s", l->path, l->line, what);
  l->failed = 1;
}

static void skip(lexer *l) {
  for (;;) {
    while (*l->s == ' ' || *l->s == '\t' || *l->s == '\r' || *l->s == '\n') {
      if (*l->s == '\n') l->line++;
      l->s++;
    }
    if (l->s[0] == '-' && l->s[1] == '-') {
      while (*l->s && *l->s != '\n') l->s++;
      continue;
    }
    return;
  }
}

static void free_node(node *n) {
  int i;
  if (!n) return;
  for (i = 0; i < n->nkids; i++) free_node(n->kids[i]);
  free(n->kids);
  free(n->key);
  free(n->str);
  free(n);
}

static char *dup_n(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n), d[n] = 0;
  return d;
}

static node *value(lexer *l);

static node *table(lexer *l) {
  node *t = calloc(1, sizeof *t);
  if (!t) return fail(l, "out of memory"), NULL;
  l->s++; /* { */
  for (;;) {
    char *key = NULL;
    node *v, **k;
    skip(l);
    if (*l->s == '}') { l->s++; return t; }
    if ((*l->s >= 'a' && *l->s <= 'z') || (*l->s >= 'A' && *l->s <= 'Z') || *l->s == '_') {
      const char *b = l->s, *e;
      while ((*l->s >= 'a' && *l->s <= 'z') || (*l->s >= 'A' && *l->s <= 'Z') || (*l->s >= '0' && *l->s <= '9') || *l->s == '_') l->s++;
      e = l->s;
      skip(l);
      if (*l->s != '=') { fail(l, "expected '=' after a key"); break; }
      l->s++;
      key = dup_n(b, (size_t)(e - b));
    }
    if (!(v = value(l))) { free(key); break; }
    v->key = key;
    if (!(k = realloc(t->kids, (size_t)(t->nkids + 1) * sizeof *k))) { free_node(v); fail(l, "out of memory"); break; }
    t->kids = k;
    t->kids[t->nkids++] = v;
    skip(l);
    if (*l->s == ',' || *l->s == ';') l->s++;
    else if (*l->s != '}') { fail(l, "expected ',' or '}'"); break; }
  }
  free_node(t);
  return NULL;
}

static node *value(lexer *l) {
  node *n;
  skip(l);
  if (*l->s == '{') return table(l);
  if (!(n = calloc(1, sizeof *n))) return fail(l, "out of memory"), NULL;
  if (*l->s == '"') {
    char buf[1024];
    size_t k = 0;
    for (l->s++; *l->s && *l->s != '"' && *l->s != '\n'; l->s++) {
      if (*l->s == '\\' && l->s[1]) l->s++;
      if (k + 1 < sizeof buf) buf[k++] = *l->s;
    }
    if (*l->s != '"') { free(n); return fail(l, "unterminated string"), NULL; }
    l->s++;
    n->kind = 1;
    n->str = dup_n(buf, k);
    return n;
  }
  if (*l->s == '-' || (*l->s >= '0' && *l->s <= '9')) {
    char *end;
    n->kind = 2;
    n->num = strtoll(l->s, &end, 10);
    if (end == l->s || *end == '.' || *end == 'e') { free(n); return fail(l, "expected an integer"), NULL; }
    l->s = end;
    return n;
  }
  free(n);
  fail(l, "expected a string, an integer or a table");
  return NULL;
}

static node *field(const node *t, const char *key) {
  int i;
  for (i = 0; t && t->kind == 0 && i < t->nkids; i++)
    if (t->kids[i]->key && !strcmp(t->kids[i]->key, key)) return t->kids[i];
  return NULL;
}

static int ints(const node *t, int64_t *out, int max) {
  int i;
  if (!t || t->kind != 0 || t->nkids > max) return -1;
  for (i = 0; i < t->nkids; i++) {
    if (t->kids[i]->kind != 2) return -1;
    out[i] = t->kids[i]->num;
  }
  return t->nkids;
}

static int instance(const node *in, kfc_call *c, char *why, size_t n) {
  const node *name = field(in, "name"), *op = field(in, "op"), *attrs = field(in, "attrs"), *inputs = field(in, "inputs"),
             *values = field(in, "values");
  int i, j;
  memset(c, 0, sizeof *c);
  if (!name || name->kind != 1 || !op || op->kind != 1 || !inputs || inputs->kind != 0)
    return snprintf(why, n, "an instance needs name, op and inputs"), -1;
  snprintf(c->name, sizeof c->name, "%s", name->str);
  snprintf(c->op, sizeof c->op, "%s", op->str);
  for (i = 0; attrs && i < attrs->nkids; i++) {
    const node *a = attrs->kids[i];
    if (!a->key || a->kind != 1 || c->num_attrs == KFC_MAX_ATTRS) return snprintf(why, n, "%s: bad attrs", c->name), -1;
    snprintf(c->attr_name[c->num_attrs], sizeof c->attr_name[0], "%s", a->key);
    snprintf(c->attr_value[c->num_attrs++], sizeof c->attr_value[0], "%s", a->str);
  }
  for (i = 0; i < inputs->nkids; i++) {
    const node *x = inputs->kids[i], *v = field(values, x->key ? x->key : "");
    int64_t vals[KFC_MAX_DIMS];
    if (!x->key || c->num_inputs == KFC_MAX_IO || (c->rank[c->num_inputs] = ints(x, c->dims[c->num_inputs], KFC_MAX_DIMS)) < 0)
      return snprintf(why, n, "%s: bad inputs", c->name), -1;
    snprintf(c->input_name[c->num_inputs], sizeof c->input_name[0], "%s", x->key);
    c->num_values[c->num_inputs] = v ? ints(v, vals, KFC_MAX_DIMS) : -1;
    if (v && c->num_values[c->num_inputs] < 0) return snprintf(why, n, "%s: bad values", c->name), -1;
    for (j = 0; v && j < c->num_values[c->num_inputs]; j++) c->values[c->num_inputs][j] = (int32_t)vals[j];
    c->num_inputs++;
  }
  return 0;
}

int kfc_manifest_read(const char *path, kfc_call **calls, int *n, char *msg, size_t msg_bytes) {
  FILE *f = fopen(path, "rb");
  char *text = NULL;
  long size;
  lexer l;
  node *root = NULL, *inst;
  int i, rc = -1;
  *calls = NULL;
  *n = 0;
  if (!f) return snprintf(msg, msg_bytes, "cannot read %s", path), -1;
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1)) &&
      fread(text, 1, (size_t)size, f) == (size_t)size)
    text[size] = 0;
  else {
    free(text);
    text = NULL;
  }
  fclose(f);
  if (!text) return snprintf(msg, msg_bytes, "cannot read %s", path), -1;
  memset(&l, 0, sizeof l);
  l.s = text, l.path = path, l.line = 1, l.msg = msg, l.msg_bytes = msg_bytes;
  skip(&l);
  if (strncmp(l.s, "return", 6) != 0) fail(&l, "expected 'return {' (a model manifest)");
  else {
    l.s += 6;
    skip(&l);
    if (*l.s != '{') fail(&l, "expected '{'");
    else root = table(&l);
  }
  inst = root ? field(root, "instances") : NULL;
  if (root && (!inst || inst->kind != 0)) fail(&l, "no instances table");
  if (!l.failed && inst && (*calls = calloc((size_t)inst->nkids + 1, sizeof **calls))) {
    char why[256];
    rc = 0;
    for (i = 0; i < inst->nkids && rc == 0; i++)
      if (instance(inst->kids[i], &(*calls)[i], why, sizeof why) != 0) {
        snprintf(msg, msg_bytes, "%s: instance %d: %s", path, i + 1, why);
        rc = -1;
      }
    *n = rc == 0 ? inst->nkids : 0;
    if (rc) free(*calls), *calls = NULL;
  }
  free_node(root);
  free(text);
  return rc;
}
