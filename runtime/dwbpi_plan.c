/*
** dwbpi_plan.c -- DepthwiseConv2dNativeBackpropInput: TF's validation in
** TF's order (tf_semantics.md 2.6 and 2.3), kforge's documented extensions
** (NCHW computed natively, unequal row/col strides, true dilation for every
** padding mode, zero-filled output when nothing flows), kernel selection,
** execution and the typed entry point.
**
** input_sizes is read at plan time, from its descriptor's host_data (the
** int32 values, as TF keeps this input in host memory);
** kf_depthwise_conv2d_backprop_input builds that descriptor itself.
*/
#include <string.h>

#include "kfi.h"

enum { DW_SIZES, DW_FILTER, DW_DY };

static const char *const dw_format_names[] = { "NHWC", "NCHW" };
static const char *const padding_names[] = { "SAME", "VALID", "EXPLICIT" };

#define I32_MAX ((int64_t)2147483647)

/* GetWindowedOutputSizeVerbose (tf_semantics.md 2.3) with true dilation:
   the effective filter size (k-1)*d+1 is used for every padding mode.
   pb/pa are the explicit paddings (EXPLICIT) and are replaced by the SAME
   paddings. All arithmetic is int64 and cannot overflow: in < 2^31,
   k <= KF_MAX_ELEMENTS, s and d <= INT_MAX, and explicit paddings of any
   size saturate (the computed size then exceeds every valid out_backprop
   size, so the mismatch rule reports it). */
static kf_status window(int64_t in, int64_t k, int64_t d, int64_t s, kf_padding pad, int64_t *pb, int64_t *pa,
                        int64_t *out, kf_error *err) {
  int64_t eff, num;
  if (s <= 0) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_STRIDE_POSITIVE, (long long)s);
  if (d < 1) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_DILATION_POSITIVE, (long long)d);
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
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_NEGATIVE_OUTPUT, (long long)*out, (long long)in,
                         (long long)eff, (long long)s);
  return KF_OK;
}

/* The forward padding before the first row only matters up to the point
   where no filter tap reaches the input any more; clamping it there keeps
   every kernel index far from int64 overflow without changing the result. */
static int64_t clamp_pad(int64_t pad, int64_t out, int64_t s, int64_t k, int64_t d) {
  int64_t reach;
  if (out <= 0 || k <= 0) return 0; /* nothing flows: any value is right */
  reach = (out - 1) * s + (k - 1) * d; /* largest oy*s + fy*d */
  return pad > reach ? reach + 1 : pad;
}

kf_status kfi_plan_dwbpi(kfi_plan *p, kf_op op, const kf_attrs *a, const kf_tensor_desc *in,
                         const kf_plan_options *opt, kf_error *err) {
  const kfi_op_def *od = kfi_op_def_of(op);
  const kf_tensor_desc *fd = &in[DW_FILTER], *gd = &in[DW_DY];
  kf_dtype T = a->T != KF_DT_INVALID ? a->T : fd->dtype;
  kfi_dwbpi_args *g = &p->args.dwbpi;
  int32_t key[KFG_DWBPI_KEY_LEN];
  int64_t sizes[4], n, h, w, c, m, oh, ow, kh, kw, sh, sw, dh, dw, numel;
  int64_t pt = 0, pbot = 0, pl = 0, pr = 0, comp_oh, comp_ow;
  int i, nhwc, ih, iw, ic, nv;
  const int32_t *sv;
  kf_status st;

  /* Op-def constraints: attr values, then input dtypes. */
  if ((st = kfi_check_attr_value(od, "T", kf_dtype_name(T), err)) != KF_OK) return st;
  if ((unsigned)a->data_format >= 4)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.format", "Invalid data format");
  if ((st = kfi_check_attr_value(od, "data_format",
                                 a->data_format == KF_NDHWC ? "NDHWC" : a->data_format == KF_NCDHW ? "NCDHW"
                                                                        : dw_format_names[a->data_format],
                                 err)) != KF_OK)
    return st;
  if ((unsigned)a->padding >= 3)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "attr.missing", "NodeDef missing attr 'padding' (SAME, VALID or EXPLICIT)");
  if ((st = kfi_check_attr_value(od, "padding", padding_names[a->padding], err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(&in[DW_SIZES], "input_sizes", KF_INT32, KFG_RULE_DWBPI_INPUT_DTYPE, err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(fd, "filter", T, KFG_RULE_DWBPI_INPUT_DTYPE, err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(gd, "out_backprop", T, KFG_RULE_DWBPI_INPUT_DTYPE, err)) != KF_OK) return st;

  /* Kernel construction (2.6). Strides, dilations and paddings are indexed
     by data_format: NHWC = N,H,W,C; NCHW = N,C,H,W. */
  nhwc = a->data_format == KF_NHWC;
  ih = nhwc ? 1 : 2;
  iw = nhwc ? 2 : 3;
  ic = nhwc ? 3 : 1;
  if (a->num_strides != 4) /* -1: unset (the attr is required) */
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_STRIDES_LEN);
  /* TF's CPU kernel also requires strides[H] == strides[W] ("Current
     implementation only supports equal length strides in the row and column
     dimensions."). kforge computes unequal strides (tf_semantics.md policy),
     so that check is deliberately not applied. */
  if (a->strides[0] != 1 || a->strides[ic] != 1)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_STRIDES_BATCH_DEPTH);
  /* kforge: true dilation (TF's kernel ignores the attr), so it is checked
     like the strides. */
  if (a->num_dilations != 4) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_DILATIONS_LEN);
  if (a->dilations[0] != 1 || a->dilations[ic] != 1)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_DILATIONS_BATCH_DEPTH);
  /* CheckValidPadding (2.3). */
  if (a->padding == KF_EXPLICIT) {
    if (a->num_explicit_paddings != 8)
      return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_EXPLICIT_LEN, a->num_explicit_paddings);
    for (i = 0; i < 8; i++)
      if (a->explicit_paddings[i] < 0) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_EXPLICIT_NEGATIVE);
    if (a->explicit_paddings[0] || a->explicit_paddings[1] || a->explicit_paddings[2 * ic] ||
        a->explicit_paddings[2 * ic + 1])
      return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_EXPLICIT_BATCH_DEPTH);
    pt = a->explicit_paddings[2 * ih];
    pbot = a->explicit_paddings[2 * ih + 1];
    pl = a->explicit_paddings[2 * iw];
    pr = a->explicit_paddings[2 * iw + 1];
  } else if (a->num_explicit_paddings != 0) {
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_EXPLICIT_NOT_EMPTY);
  }

  /* Compute (2.6): input_sizes, whose values are in host_data. */
  if (in[DW_SIZES].rank != 1)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_INPUT_SIZES_RANK, in[DW_SIZES].rank);
  sv = (const int32_t *)in[DW_SIZES].host_data;
  if (!sv && in[DW_SIZES].dims[0] > 0)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "api.host_data",
                    "input_sizes must carry its values in host_data when planning");
  nv = (int)in[DW_SIZES].dims[0]; /* <= KF_MAX_ELEMENTS: checked by kf_plan_op */
  for (i = 0; i < nv; i++)
    if (sv[i] < 0) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_INPUT_SIZES_NEGATIVE, i);
  /* EXTRACT_AND_VERIFY_DIMENSIONS("DepthwiseConv2DBackpropInput") */
  if (in[DW_SIZES].dims[0] != 4) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_INPUT_RANK);
  for (i = 0; i < 4; i++) sizes[i] = sv[i];
  if (fd->rank != 4) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_FILTER_RANK);
  if (gd->rank != 4) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_OUT_BACKPROP_RANK);
  if (sizes[0] != gd->dims[0]) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_BATCH);
  n = sizes[0];
  h = sizes[ih];
  w = sizes[iw];
  c = sizes[ic];
  oh = gd->dims[ih];
  ow = gd->dims[iw];
  /* TF's FastBoundsCheck(x, INT32_MAX): x < INT32_MAX. input_sizes values
     are int32 already, so only INT32_MAX itself fails the input checks. */
  if (h >= I32_MAX) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_TOO_LARGE, "Input rows");
  if (w >= I32_MAX) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_TOO_LARGE, "Input cols");
  if (oh >= I32_MAX) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_TOO_LARGE, "Output rows");
  if (ow >= I32_MAX) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_TOO_LARGE, "Output cols");
  if (gd->dims[ic] >= I32_MAX)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_TOO_LARGE, "Output depth");
  if (c != fd->dims[2]) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_IN_DEPTH);
  m = fd->dims[3];
  /* c and m are each below 2^31 (int32 value, bounded descriptor): no overflow. */
  if (m * c != gd->dims[ic]) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_OUT_DEPTH);
  kh = fd->dims[0];
  kw = fd->dims[1];
  sh = a->strides[ih];
  sw = a->strides[iw];
  dh = a->dilations[ih];
  dw = a->dilations[iw];
  if ((st = window(h, kh, dh, sh, a->padding, &pt, &pbot, &comp_oh, err)) != KF_OK) return st;
  if ((st = window(w, kw, dw, sw, a->padding, &pl, &pr, &comp_ow, err)) != KF_OK) return st;
  if (oh != comp_oh)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_ROWS_MISMATCH, (long long)oh, (long long)comp_oh);
  if (ow != comp_ow)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_COLS_MISMATCH, (long long)ow, (long long)comp_ow);

  /* Allocate the output (TF: shape input_sizes, dtype T). */
  memset(&p->outputs[0], 0, sizeof p->outputs[0]);
  p->outputs[0].dtype = T;
  p->outputs[0].rank = 4;
  for (i = 0; i < 4; i++) p->outputs[0].dims[i] = sizes[i];
  numel = kfi_num_elements(&p->outputs[0]);
  if (numel < 0) /* beyond KF_MAX_ELEMENTS: where TF's allocation would fail */
    return kfi_fail_rule(err, KF_TOO_LARGE, KFG_RULE_DWBPI_TOO_LARGE, "Input element count");

  memset(g, 0, sizeof *g);
  g->n = n;
  g->h = h;
  g->w = w;
  g->c = c;
  g->m = m;
  g->oh = oh;
  g->ow = ow;
  g->kh = kh;
  g->kw = kw;
  g->sh = sh;
  g->sw = sw;
  g->dh = dh;
  g->dw = dw;
  g->pad_top = clamp_pad(pt, oh, sh, kh, dh);
  g->pad_left = clamp_pad(pl, ow, sw, kw, dw);
  g->layout = nhwc ? KFI_CHANNELS_LAST : KFI_CHANNELS_FIRST;
  if (numel == 0) return KF_OK; /* TF returns the empty output before anything else */

  /* Every value below fits int32: dims are bounded by KF_MAX_ELEMENTS and
     strides/dilations are int. A depth multiplier of 0 (no gradient flows,
     output all zeros: kforge fills it, TF leaves it uninitialised), filter
     sizes, strides or dilations outside the specialization axes select the
     generic kernel, which writes every output element. */
  key[KFG_DWBPI_KEY_T] = (int32_t)T;
  key[KFG_DWBPI_KEY_LAYOUT] = g->layout;
  key[KFG_DWBPI_KEY_KH] = (int32_t)kh;
  key[KFG_DWBPI_KEY_KW] = (int32_t)kw;
  key[KFG_DWBPI_KEY_SH] = (int32_t)sh;
  key[KFG_DWBPI_KEY_SW] = (int32_t)sw;
  key[KFG_DWBPI_KEY_DH] = (int32_t)dh;
  key[KFG_DWBPI_KEY_DW] = (int32_t)dw;
  key[KFG_DWBPI_KEY_DM] = (int32_t)m;
  p->kernel = kfi_select(KFG_FAMILY_DWBPI, key, opt, err);
  if (!p->kernel) return err ? err->status : KF_NO_KERNEL;
  p->scratch_bytes = p->kernel->scratch(g);
  return KF_OK;
}

kf_status kfi_exec_dwbpi(const kfi_plan *p, const void *const *in, void *const *out, void *scratch,
                         kf_error *err) {
  kfi_dwbpi_args g = p->args.dwbpi;
  if (!p->kernel) return KF_OK; /* empty output */
  /* Inputs of 0 elements (depth multiplier 0, empty out_backprop) may be NULL. */
  if (!in[DW_FILTER] && g.kh * g.kw * g.c * g.m > 0)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "input filter must not be NULL");
  if (!in[DW_DY] && g.n * g.oh * g.ow * g.c * g.m > 0)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "input out_backprop must not be NULL");
  g.filter = in[DW_FILTER];
  g.dy = in[DW_DY];
  g.dx = out[0];
  g.scratch = scratch;
  p->kernel->run(&g, &p->par);
  return KF_OK;
}

kf_status kf_depthwise_conv2d_backprop_input(const kf_attrs *attrs, const int32_t input_sizes[4],
                                             const kf_tensor_desc *filter_desc, const void *filter,
                                             const kf_tensor_desc *out_backprop_desc,
                                             const void *out_backprop, void *output,
                                             void *scratch, size_t scratch_bytes, kf_error *err) {
  kf_plan plan;
  kf_tensor_desc in[3];
  const void *inputs[3];
  void *outputs[1];
  kf_status st;
  if (!input_sizes || !filter_desc || !out_backprop_desc)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "input_sizes and the descriptors must not be NULL");
  memset(&in[DW_SIZES], 0, sizeof in[DW_SIZES]);
  in[DW_SIZES].dtype = KF_INT32;
  in[DW_SIZES].rank = 1;
  in[DW_SIZES].dims[0] = 4;
  in[DW_SIZES].host_data = input_sizes;
  in[DW_FILTER] = *filter_desc;
  in[DW_DY] = *out_backprop_desc;
  st = kf_plan_op(&plan, KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, attrs, in, 3, NULL, err);
  if (st != KF_OK) return st;
  inputs[DW_SIZES] = input_sizes;
  inputs[DW_FILTER] = filter;
  inputs[DW_DY] = out_backprop;
  outputs[0] = output;
  return kf_execute(&plan, inputs, outputs, scratch, scratch_bytes, err);
}
