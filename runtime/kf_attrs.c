/*
** kf_attrs.c -- attribute defaults and text parsing, driven by the op
** tables generated from the specs (names, kinds, defaults, allowed values).
*/
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kfi.h"

/* Parses "1,2,2,1" (possibly empty): stores at most max values, counts all
   (TF's length rules read the count of a list of any length). 0: not a
   list of int64 values. *has_wide, *wide: the first value outside int32. */
static int parse_list(const char *s, int64_t *out, int max, int *n, int *has_wide, int64_t *wide) {
  *n = 0;
  *has_wide = 0;
  if (*s == 0) return 1;
  for (;;) {
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (end == s || errno || *n == INT32_MAX) return 0;
    if (*n < max) out[*n] = v;
    if (!*has_wide && (v < INT32_MIN || v > INT32_MAX)) {
      *has_wide = 1;
      *wide = v;
    }
    (*n)++;
    if (*end == 0) return 1;
    if (*end != ',') return 0;
    s = end + 1;
  }
}

static int is_allowed(const kfi_attr_def *d, const char *v) {
  int i;
  if (!d->allowed) return 1;
  for (i = 0; i < d->num_allowed; i++)
    if (strcmp(d->allowed[i], v) == 0) return 1;
  return 0;
}

/* TF's op-def message: string values are quoted, type names are not
   ("Value for attr 'T' of half is not in the list of allowed values: float"). */
static kf_status not_allowed(const kfi_attr_def *d, const char *v, kf_error *err) {
  const char *q = d->kind == KFI_ATTR_TYPE ? "" : "\"";
  char list[160];
  size_t k = 0, ql = strlen(q);
  int i;
  list[0] = 0;
  for (i = 0; i < d->num_allowed; i++) {
    size_t l = strlen(d->allowed[i]);
    if (k + l + 5 >= sizeof list) break;
    if (i) { memcpy(list + k, ", ", 2); k += 2; }
    memcpy(list + k, q, ql);
    k += ql;
    memcpy(list + k, d->allowed[i], l);
    k += l;
    memcpy(list + k, q, ql);
    k += ql;
    list[k] = 0;
  }
  return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.allowed",
                  "Value for attr '%s' of %s%.40s%s is not in the list of allowed values: %s", d->name, q, v, q, list);
}

static const kfi_attr_def *find_attr(const kfi_op_def *od, const char *name) {
  int i;
  for (i = 0; i < od->num_attrs; i++)
    if (strcmp(od->attrs[i].name, name) == 0) return &od->attrs[i];
  return NULL;
}

kf_status kfi_check_attr_value(const kfi_op_def *od, const char *name, const char *value, kf_error *err) {
  const kfi_attr_def *d = find_attr(od, name);
  if (d && !is_allowed(d, value)) return not_allowed(d, value, err);
  return KF_OK;
}

/* The enum value of a string attr's text, or -1. */
static int enum_value(const kfi_attr_field *f, const char *v) {
  int i;
  for (i = 0; i < f->num_names; i++)
    if (strcmp(f->names[i], v) == 0) return i;
  return -1;
}

/* Stores v in a field of size bytes: an int, or an enum, whose size the
   ABI decides (AAPCS bare-metal targets use short enums: 1 byte). */
static void store_sized(void *at, size_t size, int64_t v) {
  if (size == 1) { int8_t x = (int8_t)v; memcpy(at, &x, 1); }
  else if (size == 2) { int16_t x = (int16_t)v; memcpy(at, &x, 2); }
  else if (size == 4) { int32_t x = (int32_t)v; memcpy(at, &x, 4); }
  else if (size == 8) memcpy(at, &v, 8);
}

static void store_int(const kfi_attr_def *d, kf_attrs *a, int v) {
  store_sized((char *)a + d->field.offset, d->field.size, v);
}

kf_status kf_attrs_set(kf_op op, kf_attrs *a, const char *name, const char *value, kf_error *err) {
  const kfi_op_def *od = kfi_op_def_of(op);
  const kfi_attr_def *d;
  const kfi_attr_field *f;
  int64_t vals[KF_MAX_RANK * 2];
  int n, i;
  if (!od) return kfi_fail(err, KF_INVALID_ARGUMENT, "op.unknown", "unknown op");
  if (!a || !name || !value) return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.null", "attrs, name and value must not be NULL");
  d = find_attr(od, name);
  if (!d) return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.unknown", "%s has no attr named '%.40s'", od->name, name);
  if (!is_allowed(d, value)) return not_allowed(d, value, err);
  f = &d->field; /* where the value goes (size 0: validated, not stored) */
  switch (d->kind) {
    case KFI_ATTR_TYPE: {
      kf_dtype t = kf_dtype_from_name(value);
      if (t == KF_DT_INVALID) return not_allowed(d, value, err);
      store_sized((char *)a + f->offset, f->size, (int64_t)t);
      return KF_OK;
    }
    case KFI_ATTR_FLOAT: {
      char *end;
      float v;
      /* Any literal strtof reads, rounded to float as TF's Python-to-attr
         conversion rounds it: underflow gives a denormal or 0, overflow
         gives +-inf (TF 2.21 accepts epsilon=1e-40, 1e-50 and 1e40 alike),
         so ERANGE is no syntax error. */
      v = strtof(value, &end);
      if (end == value || *end)
        return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.syntax", "attr '%s': expected a float, got \"%.40s\"", name, value);
      if (f->size == sizeof v) memcpy((char *)a + f->offset, &v, sizeof v);
      return KF_OK;
    }
    case KFI_ATTR_BOOL:
      if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0) store_int(d, a, 1);
      else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0) store_int(d, a, 0);
      else return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.syntax", "attr '%s': expected true or false, got \"%.40s\"", name, value);
      return KF_OK;
    case KFI_ATTR_STRING:
      if (f->names) {
        int v = enum_value(f, value);
        if (v < 0) return not_allowed(d, value, err);
        store_int(d, a, v);
      }
      return KF_OK;
    case KFI_ATTR_INT_LIST: {
      int stored, has_wide;
      int64_t wide = 0;
      if (!parse_list(value, vals, KF_MAX_RANK * 2, &n, &has_wide, &wide))
        return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.syntax",
                        "attr '%s': expected a comma-separated list of integers, got \"%.40s\"", name, value);
      if (!f->size) return KF_OK;
      stored = n < f->max ? n : f->max;
      if (stored > KF_MAX_RANK * 2) stored = KF_MAX_RANK * 2;
      /* TF reads int fields as vector<int32>: a value outside is its
         GetAttr error, before any rule reads the list. */
      if (f->size < sizeof(int64_t) && has_wide)
        return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.range", "Attr %s has value %lld out of range for an int32",
                        name, (long long)wide);
      /* A list longer than the field keeps its count (the length rules
         report it as TF does) and its first values. */
      for (i = 0; i < stored; i++) store_sized((char *)a + f->offset + (size_t)i * f->size, f->size, vals[i]);
      memcpy((char *)a + f->count_offset, &n, sizeof n);
      return KF_OK;
    }
  }
  return KF_OK;
}

/* TF's defaults for the op; a required attr without a default is marked
   unset (a list: count -1; an enum: its INVALID value, one past the
   names), so the planner reports it as TF reports a missing attr. */
void kf_attrs_init(kf_op op, kf_attrs *a) {
  const kfi_op_def *od = kfi_op_def_of(op);
  int i;
  if (!a) return;
  memset(a, 0, sizeof *a);
  a->T = KF_DT_INVALID;
  if (!od) return;
  for (i = 0; i < od->num_attrs; i++) {
    const kfi_attr_def *d = &od->attrs[i];
    if (d->def && strcmp(d->name, "T") != 0) {
      kf_attrs_set(op, a, d->name, d->def, NULL);
    } else if (d->required && d->field.size) {
      if (d->kind == KFI_ATTR_INT_LIST) {
        int unset = -1;
        memcpy((char *)a + d->field.count_offset, &unset, sizeof unset);
      } else if (d->kind == KFI_ATTR_STRING && d->field.names) {
        store_int(d, a, d->field.num_names);
      }
    }
  }
}
