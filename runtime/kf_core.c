/*
** kf_core.c -- names, sizes, error reporting and shape helpers.
*/
#include <stdarg.h>
#include <string.h>

#include "kfi.h"

const char *kf_status_name(kf_status s) {
  switch (s) {
    case KF_OK: return "OK";
    case KF_INVALID_ARGUMENT: return "InvalidArgument";
    case KF_UNIMPLEMENTED: return "Unimplemented";
    case KF_NO_KERNEL: return "NoKernel";
    case KF_SCRATCH_TOO_SMALL: return "ScratchTooSmall";
    case KF_TOO_LARGE: return "TooLarge";
  }
  return "Unknown";
}

/* ORDER kf_dtype */
static const struct { const char *name; size_t size; } dtypes[] = {
  { "invalid", 0 }, { "half", 2 }, { "bfloat16", 2 }, { "float", 4 }, { "double", 8 }, { "int32", 4 },
};

const char *kf_dtype_name(kf_dtype t) {
  return (unsigned)t < sizeof dtypes / sizeof dtypes[0] ? dtypes[t].name : "invalid";
}

size_t kf_dtype_size(kf_dtype t) {
  return (unsigned)t < sizeof dtypes / sizeof dtypes[0] ? dtypes[t].size : 0;
}

kf_dtype kf_dtype_from_name(const char *name) {
  size_t i;
  if (!name) return KF_DT_INVALID;
  for (i = 1; i < sizeof dtypes / sizeof dtypes[0]; i++)
    if (strcmp(name, dtypes[i].name) == 0) return (kf_dtype)i;
  return KF_DT_INVALID;
}

float kf_half_to_float(uint16_t h) { return kfi_f16_to_f32(h); }
uint16_t kf_float_to_half(float f) { return kfi_f32_to_f16(f); }
float kf_bfloat16_to_float(uint16_t b) { return kfi_bf16_to_f32(b); }
uint16_t kf_float_to_bfloat16(float f) { return kfi_f32_to_bf16(f); }

static void fill(kf_error *err, kf_status st, const char *rule, const char *fmt, va_list ap) {
  if (!err) return;
  err->status = st;
  err->rule = rule;
  kfi_vformat(err->message, sizeof err->message, fmt, ap);
}

kf_status kfi_fail(kf_error *err, kf_status st, const char *rule, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fill(err, st, rule ? rule : "", fmt, ap);
  va_end(ap);
  return st;
}

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
kf_status kfi_fail_rule(kf_error *err, kf_status st, int rule, ...) {
  va_list ap;
  va_start(ap, rule);
  /* The format comes from the spec (kfg_rules); its arguments are checked
     by the rule's callers and tests (each rule has a negative test). */
  fill(err, st, kfg_rules[rule].id, kfg_rules[rule].message, ap);
  va_end(ap);
  return st;
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

kf_status kfi_check_dtype(const kf_tensor_desc *d, const char *name, kf_dtype want, int rule, kf_error *err) {
  if (d->dtype == want) return KF_OK;
  return kfi_fail_rule(err, KF_INVALID_ARGUMENT, rule, name, kf_dtype_name(want), kf_dtype_name(d->dtype));
}

const char *kfi_shape_str(const kf_tensor_desc *d, char *buf, size_t n) {
  size_t k = 0;
  int i;
  if (n == 0) return buf;
  buf[k++] = '[';
  for (i = 0; d && i < d->rank && i < KF_MAX_RANK && k < n; i++) {
    int w = kfi_format(buf + k, n - k, i ? ",%lld" : "%lld", (long long)d->dims[i]);
    if (w < 0) break;
    k += (size_t)w;
  }
  if (k + 2 <= n) {
    buf[k++] = ']';
    buf[k] = 0;
  } else {
    buf[n - 1] = 0;
  }
  return buf;
}

int64_t kfi_num_elements(const kf_tensor_desc *d) {
  int64_t n = 1;
  int i;
  if (!d || d->rank < 0 || d->rank > KF_MAX_RANK) return -1;
  for (i = 0; i < d->rank; i++) {
    /* every dim is bounded too, even in a tensor of 0 elements: planners
       multiply dims (c * m, ...) and rely on each being <= 2^31 - 1 */
    if (d->dims[i] < 0 || d->dims[i] > KF_MAX_ELEMENTS) return -1;
    if (d->dims[i] == 0) n = 0;
  }
  if (n == 0) return 0;
  for (i = 0; i < d->rank; i++) {
    if (d->dims[i] > KF_MAX_ELEMENTS / n) return -1;
    n *= d->dims[i];
  }
  return n;
}

/* ---- op table queries ---- */
const kfi_op_def *kfi_op_def_of(kf_op op) {
  int i;
  for (i = 0; i < kfg_op_count; i++)
    if (kfg_ops[i].op == op) return &kfg_ops[i];
  return NULL;
}

kf_op kf_op_from_name(const char *name) {
  int i;
  if (!name) return KF_OP_INVALID;
  for (i = 0; i < kfg_op_count; i++)
    if (strcmp(kfg_ops[i].name, name) == 0) return kfg_ops[i].op;
  return KF_OP_INVALID;
}

const char *kf_op_name(kf_op op) {
  const kfi_op_def *d = kfi_op_def_of(op);
  return d ? d->name : NULL;
}

int kf_op_num_inputs(kf_op op) {
  const kfi_op_def *d = kfi_op_def_of(op);
  return d ? d->num_inputs : 0;
}

int kf_op_num_outputs(kf_op op) {
  const kfi_op_def *d = kfi_op_def_of(op);
  return d ? d->num_outputs : 0;
}

const char *kf_op_input_name(kf_op op, int i) {
  const kfi_op_def *d = kfi_op_def_of(op);
  return d && i >= 0 && i < d->num_inputs ? d->inputs[i].name : NULL;
}

const char *kf_op_output_name(kf_op op, int i) {
  const kfi_op_def *d = kfi_op_def_of(op);
  return d && i >= 0 && i < d->num_outputs ? d->outputs[i].name : NULL;
}

int kf_op_output_in_place_of(kf_op op, int i) {
  const kfi_op_def *d = kfi_op_def_of(op);
  return d && i >= 0 && i < d->num_outputs ? d->outputs[i].in_place_of : -1;
}

int kf_op_num_attrs(kf_op op) {
  const kfi_op_def *d = kfi_op_def_of(op);
  return d ? d->num_attrs : 0;
}

const char *kf_op_attr_name(kf_op op, int i) {
  const kfi_op_def *d = kfi_op_def_of(op);
  return d && i >= 0 && i < d->num_attrs ? d->attrs[i].name : NULL;
}

const char *kf_op_attr_default(kf_op op, int i) {
  const kfi_op_def *d = kfi_op_def_of(op);
  return d && i >= 0 && i < d->num_attrs ? d->attrs[i].def : NULL;
}

/* ---- the kernel set ---- */
