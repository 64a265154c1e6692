/*
** kf_conv.c -- convolution geometry shared by the convolution families
** (kfi_conv.h).
*/
#include "kfi_conv.h"

kf_status kfi_conv2d_attr_values(const kfi_op_def *od, const kf_attrs *a, kf_dtype T, kf_error *err) {
  kf_status st;
  if ((st = kfi_check_attr_value(od, "T", kf_dtype_name(T), err)) != KF_OK) return st;
  if ((unsigned)a->data_format >= KF_FORMAT_INVALID)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.format", "Invalid data format");
  if ((st = kfi_check_attr_value(od, "data_format", kfg_enum_data_format[a->data_format], err)) != KF_OK) return st;
  if ((unsigned)a->padding >= KF_PADDING_INVALID)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.missing", "NodeDef missing attr 'padding' (SAME, VALID or EXPLICIT)");
  return kfi_check_attr_value(od, "padding", kfg_enum_padding[a->padding], err);
}

kf_status kfi_conv2d_attrs(const kf_attrs *a, const kfi_conv_rules *r, kfi_conv2d *g, kf_error *err) {
  const int nhwc = a->data_format == KF_NHWC;
  int i;
  g->ih = nhwc ? 1 : 2;
  g->iw = nhwc ? 2 : 3;
  g->ic = nhwc ? 3 : 1;
  g->pt = g->pb = g->pl = g->pr = 0;
  if (a->num_strides != 4) /* -1: unset (the attr is required) */
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, r->strides_len);
  if (a->strides[0] != 1 || a->strides[g->ic] != 1)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, r->strides_batch_depth);
  if (a->num_dilations != 4) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, r->dilations_len);
  if (a->dilations[0] != 1 || a->dilations[g->ic] != 1)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, r->dilations_batch_depth);
  /* CheckValidPadding (2.3). */
  if (a->padding == KF_EXPLICIT) {
    if (a->num_explicit_paddings != 8)
      return kfi_fail_rule(err, KF_INVALID_ARGUMENT, r->explicit_len, a->num_explicit_paddings);
    for (i = 0; i < 8; i++)
      if (a->explicit_paddings[i] < 0) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, r->explicit_negative);
    if (a->explicit_paddings[0] || a->explicit_paddings[1] || a->explicit_paddings[2 * g->ic] ||
        a->explicit_paddings[2 * g->ic + 1])
      return kfi_fail_rule(err, KF_INVALID_ARGUMENT, r->explicit_batch_depth);
    g->pt = a->explicit_paddings[2 * g->ih];
    g->pb = a->explicit_paddings[2 * g->ih + 1];
    g->pl = a->explicit_paddings[2 * g->iw];
    g->pr = a->explicit_paddings[2 * g->iw + 1];
  } else if (a->num_explicit_paddings != 0) {
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, r->explicit_not_empty);
  }
  g->sh = a->strides[g->ih];
  g->sw = a->strides[g->iw];
  g->dh = a->dilations[g->ih];
  g->dw = a->dilations[g->iw];
  return KF_OK;
}

/* All arithmetic is int64 and cannot overflow: in < 2^31, k <=
   KF_MAX_ELEMENTS, s and d <= INT_MAX, and explicit paddings of any size
   saturate (the computed size then exceeds every valid size, so the
   caller's mismatch rule reports it). */
kf_status kfi_conv_window(int64_t in, int64_t k, int64_t d, int64_t s, kf_padding pad, int64_t *pb, int64_t *pa,
                          int64_t *out, const kfi_conv_rules *r, kf_error *err) {
  int64_t eff, num;
  if (s <= 0) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, r->stride_positive, (long long)s);
  if (d < 1) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, r->dilation_positive, (long long)d);
  eff = (k - 1) * d + 1;
  switch (pad) {
    case KF_SAME: {
      int64_t total;
      *out = (in + s - 1) / s;
      total = (*out - 1) * s + eff - in;
      if (total < 0) total = 0;
      *pb = total / 2;
      *pa = total - *pb;
      return KF_OK;
    }
    case KF_VALID:
      *pb = *pa = 0;
      num = in - eff + s;
      break;
    default: /* EXPLICIT: pb, pa >= 0 (checked) */
      num = in - eff + s; /* in [-2^62, 2^32] */
      if (*pb > INT64_MAX / 4 || *pa > INT64_MAX / 4 || num > INT64_MAX / 4) num = INT64_MAX; /* saturate */
      else num += *pb + *pa;
      break;
  }
  *out = num / s; /* C++ truncation toward zero, as TF: -s < num < 0 gives 0 */
  if (*out < 0)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, r->negative_output, (long long)*out, (long long)in, (long long)eff,
                         (long long)s);
  return KF_OK;
}

int64_t kfi_conv_clamp_pad(int64_t pad, int64_t out, int64_t s, int64_t k, int64_t d) {
  int64_t reach;
  if (out <= 0 || k <= 0) return 0; /* nothing flows: any value is right */
  reach = (out - 1) * s + (k - 1) * d; /* largest oy*s + fy*d */
  return pad > reach ? reach + 1 : pad;
}
