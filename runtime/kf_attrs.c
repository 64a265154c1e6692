/*
** kf_attrs.c -- attribute defaults and text parsing, driven by the op
** tables generated from the specs (names, kinds, defaults, allowed values).
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kfi.h"

static kf_data_format format_of(const char *s) {
  if (strcmp(s, "NHWC") == 0) return KF_NHWC;
  if (strcmp(s, "NCHW") == 0) return KF_NCHW;
  if (strcmp(s, "NDHWC") == 0) return KF_NDHWC;
  if (strcmp(s, "NCDHW") == 0) return KF_NCDHW;
  return KF_FORMAT_INVALID;
}

static kf_padding padding_of(const char *s) {
  if (strcmp(s, "SAME") == 0) return KF_SAME;
  if (strcmp(s, "VALID") == 0) return KF_VALID;
  if (strcmp(s, "EXPLICIT") == 0) return KF_EXPLICIT;
  return KF_PADDING_INVALID;
}

/* Parses "1,2,2,1" (possibly empty) into at most max values. */
static int parse_list(const char *s, int64_t *out, int max, int *n) {
  *n = 0;
  if (*s == 0) return 1;
  for (;;) {
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (end == s || errno || v < -2147483648LL || v > 2147483647LL) return 0;
    if (*n >= max) return 0;
    out[(*n)++] = v;
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

kf_status kf_attrs_set(kf_op op, kf_attrs *a, const char *name, const char *value, kf_error *err) {
  const kfi_op_def *od = kfi_op_def_of(op);
  const kfi_attr_def *d;
  int64_t vals[KF_MAX_RANK * 2];
  int n, i;
  if (!od) return kfi_fail(err, KF_INVALID_ARGUMENT, "op.unknown", "unknown op");
  if (!a || !name || !value) return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.null", "attrs, name and value must not be NULL");
  d = find_attr(od, name);
  if (!d) return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.unknown", "%s has no attr named '%.40s'", od->name, name);
  if (!is_allowed(d, value)) return not_allowed(d, value, err);
  switch (d->kind) {
    case KFI_ATTR_TYPE: {
      kf_dtype t = kf_dtype_from_name(value);
      if (t == KF_DT_INVALID) return not_allowed(d, value, err);
      if (strcmp(name, "T") == 0) a->T = t; /* U is always float: nothing to store */
      return KF_OK;
    }
    case KFI_ATTR_FLOAT: {
      char *end;
      float f;
      /* Any literal strtof reads, rounded to float as TF's Python-to-attr
         conversion rounds it: underflow gives a denormal or 0, overflow
         gives +-inf (TF 2.21 accepts epsilon=1e-40, 1e-50 and 1e40 alike),
         so ERANGE is no syntax error. */
      f = strtof(value, &end);
      if (end == value || *end)
        return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.syntax", "attr '%s': expected a float, got \"%.40s\"", name, value);
      a->epsilon = f;
      return KF_OK;
    }
    case KFI_ATTR_BOOL:
      if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0) a->is_training = 1;
      else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0) a->is_training = 0;
      else return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.syntax", "attr '%s': expected true or false, got \"%.40s\"", name, value);
      return KF_OK;
    case KFI_ATTR_STRING:
      if (strcmp(name, "data_format") == 0) {
        a->data_format = format_of(value);
        if (a->data_format == KF_FORMAT_INVALID) return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.format", "Invalid data format");
      } else if (strcmp(name, "padding") == 0) {
        a->padding = padding_of(value);
        if (a->padding == KF_PADDING_INVALID) return not_allowed(d, value, err);
      }
      return KF_OK;
    case KFI_ATTR_INT_LIST:
      if (!parse_list(value, vals, KF_MAX_RANK * 2, &n))
        return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.syntax",
                        "attr '%s': expected a comma-separated list of at most %d integers, got \"%.40s\"",
                        name, KF_MAX_RANK * 2, value);
      if (strcmp(name, "explicit_paddings") == 0) {
        for (i = 0; i < n; i++) a->explicit_paddings[i] = vals[i];
        a->num_explicit_paddings = n;
        return KF_OK;
      }
      if (n > KF_MAX_RANK)
        return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.syntax", "attr '%s': more than %d values", name, KF_MAX_RANK);
      if (strcmp(name, "strides") == 0) {
        for (i = 0; i < n; i++) a->strides[i] = (int)vals[i];
        a->num_strides = n;
      } else if (strcmp(name, "dilations") == 0) {
        for (i = 0; i < n; i++) a->dilations[i] = (int)vals[i];
        a->num_dilations = n;
      }
      return KF_OK;
  }
  return KF_OK;
}

void kf_attrs_init(kf_op op, kf_attrs *a) {
  const kfi_op_def *od = kfi_op_def_of(op);
  int i;
  if (!a) return;
  memset(a, 0, sizeof *a);
  a->T = KF_DT_INVALID;
  a->data_format = KF_NHWC;
  a->padding = KF_PADDING_INVALID; /* required where it exists */
  a->num_strides = -1;             /* required where it exists */
  if (!od) return;
  for (i = 0; i < od->num_attrs; i++) {
    const kfi_attr_def *d = &od->attrs[i];
    if (d->def && strcmp(d->name, "T") != 0) kf_attrs_set(op, a, d->name, d->def, NULL);
  }
}
