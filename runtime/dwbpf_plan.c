/*
** dwbpf_plan.c -- DepthwiseConv2dNativeBackpropFilter: TF 2.21's validation
** in TF's order (docs/semantics_dwbpf.md), kforge's documented extensions
** (NCHW computed natively, unequal row/col strides, true dilation, zeros
** for an empty batch), kernel selection and execution.
**
** filter_sizes is read at plan time, from its descriptor's host_data (the
** int32 values, as TF keeps this input in host memory).
*/
#include <string.h>

#include "kfi.h"
#include "kfi_conv.h"
#include "kfi_dwbpf.h"

enum { BF_INPUT, BF_SIZES, BF_DY };

#define I32_MAX ((int64_t)2147483647)

static const kfi_conv_rules bf_rules = {
  KFG_RULE_DWBPF_STRIDES_LEN, KFG_RULE_DWBPF_STRIDES_BATCH_DEPTH, KFG_RULE_DWBPF_DILATIONS_LEN,
  KFG_RULE_DWBPF_DILATIONS_BATCH_DEPTH, KFG_RULE_DWBPF_EXPLICIT_LEN, KFG_RULE_DWBPF_EXPLICIT_NEGATIVE,
  KFG_RULE_DWBPF_EXPLICIT_BATCH_DEPTH, KFG_RULE_DWBPF_EXPLICIT_NOT_EMPTY, KFG_RULE_DWBPF_STRIDE_POSITIVE,
  KFG_RULE_DWBPF_DILATION_POSITIVE, KFG_RULE_DWBPF_NEGATIVE_OUTPUT,
};

kf_status kfi_plan_dwbpf(kfi_plan *p, const kfi_op_def *od, const kf_attrs *a, const kf_tensor_desc *in,
                         const kf_plan_options *opt, kf_error *err) {
  const kf_tensor_desc *xd = &in[BF_INPUT], *gd = &in[BF_DY];
  kf_dtype T = a->T != KF_DT_INVALID ? a->T : xd->dtype;
  kfi_dwbpf_args *g = KFI_ARGS(p, kfi_dwbpf_args);
  kfi_conv2d cv;
  int32_t key[KFG_DWBPF_KEY_LEN];
  int64_t fs[4], n, h, w, c, m, oh, ow, kh, kw, numel, prod;
  int64_t pt, pbot, pl, pr, comp_oh, comp_ow;
  int i, nv;
  const int32_t *sv;
  kf_status st;

  /* Op-def constraints: attr values, then input dtypes. */
  if ((st = kfi_conv2d_attr_values(od, a, T, err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(xd, "input", T, KFG_RULE_DWBPF_INPUT_DTYPE, err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(&in[BF_SIZES], "filter_sizes", KF_INT32, KFG_RULE_DWBPF_INPUT_DTYPE, err)) != KF_OK)
    return st;
  if ((st = kfi_check_dtype(gd, "out_backprop", T, KFG_RULE_DWBPF_INPUT_DTYPE, err)) != KF_OK) return st;

  /* Kernel construction: strides, (kforge) dilations, CheckValidPadding.
     TF's CPU kernel also requires strides[H] == strides[W]; kforge computes
     unequal strides (documented extension), so that check is not applied. */
  if ((st = kfi_conv2d_attrs(a, &bf_rules, &cv, err)) != KF_OK) return st;
  pt = cv.pt;
  pbot = cv.pb;
  pl = cv.pl;
  pr = cv.pr;

  /* Compute: filter_sizes (values in host_data). */
  if (in[BF_SIZES].rank != 1)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_FILTER_SIZES_RANK, in[BF_SIZES].rank);
  sv = (const int32_t *)in[BF_SIZES].host_data;
  if (!sv && in[BF_SIZES].dims[0] > 0)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "api.host_data",
                    "filter_sizes must carry its values in host_data when planning");
  nv = (int)in[BF_SIZES].dims[0]; /* <= KF_MAX_ELEMENTS: checked by kf_plan_op */
  /* TF builds the filter shape dim by dim (TensorShape::AddDimWithStatus):
     each value >= 0, and the element count must not overflow int64. */
  prod = 1;
  for (i = 0; i < nv; i++) {
    if (sv[i] < 0) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_FILTER_SIZES_NEGATIVE, i);
    if (sv[i] > 0 && prod > INT64_MAX / sv[i])
      return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_FILTER_SIZES_OVERFLOW, (long long)prod,
                           (long long)sv[i]);
    prod *= sv[i];
  }
  /* EXTRACT_AND_VERIFY_DIMENSIONS("DepthwiseConv2DBackpropFilter") */
  if (xd->rank != 4) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_INPUT_RANK);
  if (nv != 4) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_FILTER_RANK);
  for (i = 0; i < 4; i++) fs[i] = sv[i];
  if (gd->rank != 4) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_OUT_BACKPROP_RANK);
  if (xd->dims[0] != gd->dims[0]) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_BATCH);
  n = xd->dims[0];
  h = xd->dims[cv.ih];
  w = xd->dims[cv.iw];
  c = xd->dims[cv.ic];
  oh = gd->dims[cv.ih];
  ow = gd->dims[cv.iw];
  /* FastBoundsCheck(x, INT32_MAX): x < INT32_MAX; TF 2.21's messages carry no label. */
  if (h >= I32_MAX) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_TOO_LARGE, "Input rows");
  if (w >= I32_MAX) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_TOO_LARGE, "Input cols");
  if (oh >= I32_MAX) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_TOO_LARGE, "Output rows");
  if (ow >= I32_MAX) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_TOO_LARGE, "Output cols");
  if (c != fs[2]) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_IN_DEPTH);
  m = fs[3];
  if (gd->dims[cv.ic] >= I32_MAX)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_TOO_LARGE, "Output depth");
  /* c and m are int32 values: no overflow. */
  if (m * c != gd->dims[cv.ic]) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_OUT_DEPTH);
  kh = fs[0];
  kw = fs[1];
  if ((st = kfi_conv_window(h, kh, cv.dh, cv.sh, a->padding, &pt, &pbot, &comp_oh, &bf_rules, err)) != KF_OK) return st;
  if ((st = kfi_conv_window(w, kw, cv.dw, cv.sw, a->padding, &pl, &pr, &comp_ow, &bf_rules, err)) != KF_OK) return st;
  if (oh != comp_oh)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_ROWS_MISMATCH, (long long)oh, (long long)comp_oh);
  if (ow != comp_ow)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPF_COLS_MISMATCH, (long long)ow, (long long)comp_ow);

  /* Allocate the output (TF: shape filter_sizes, dtype T). */
  memset(&p->outputs[0], 0, sizeof p->outputs[0]);
  p->outputs[0].dtype = T;
  p->outputs[0].rank = 4;
  for (i = 0; i < 4; i++) p->outputs[0].dims[i] = fs[i];
  numel = kfi_num_elements(&p->outputs[0]);
  if (numel < 0) /* beyond KF_MAX_ELEMENTS: where TF's allocation would fail */
    return kfi_fail_rule(err, KF_TOO_LARGE, KFG_RULE_DWBPF_TOO_LARGE, "Filter element count");

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
  g->sh = cv.sh;
  g->sw = cv.sw;
  g->dh = cv.dh;
  g->dw = cv.dw;
  g->pad_top = kfi_conv_clamp_pad(pt, oh, cv.sh, kh, cv.dh);
  g->pad_left = kfi_conv_clamp_pad(pl, ow, cv.sw, kw, cv.dw);
  g->layout = a->data_format == KF_NHWC ? KFI_CHANNELS_LAST : KFI_CHANNELS_FIRST;
  g->llc = kfi_cpu_llc_bytes();
  {
    kfi_caches caches;
    kfi_cpu_caches(&caches);
    g->l1d = caches.l1d; /* the NHWC kernels' wide walker: its reused rows must fit */
    g->l2 = caches.l2;   /* the sweep's prefetching */
  }
  g->flat = kfi_dwbpf_flat_rule(g);
  g->span = kfi_dwbpf_span_rule(g, (int64_t)kf_dtype_size(T));
  g->rows = kfi_dwbpf_rows_rule(g, (int64_t)kf_dtype_size(T));
  g->next = kfi_dwbpf_next_rule(g, (int64_t)kf_dtype_size(T));
  if (numel == 0) return KF_OK; /* nothing to write */

  /* An empty out_backprop (TF returns the output uninitialised, and on CPU
     with NCHW refuses nothing) still selects a kernel: it writes the zeros
     the math gives. Every value below fits int32. */
  key[KFG_DWBPF_KEY_T] = (int32_t)T;
  key[KFG_DWBPF_KEY_LAYOUT] = g->layout;
  key[KFG_DWBPF_KEY_KH] = (int32_t)kh;
  key[KFG_DWBPF_KEY_KW] = (int32_t)kw;
  key[KFG_DWBPF_KEY_SH] = (int32_t)cv.sh;
  key[KFG_DWBPF_KEY_SW] = (int32_t)cv.sw;
  key[KFG_DWBPF_KEY_DH] = (int32_t)cv.dh;
  key[KFG_DWBPF_KEY_DW] = (int32_t)cv.dw;
  key[KFG_DWBPF_KEY_DM] = (int32_t)m;
  return kfi_select(p, KFG_FAMILY_DWBPF, key, opt, err);
}

kf_status kfi_exec_dwbpf(const kfi_plan *p, const void *const *in, void *const *out, void *scratch, kf_error *err) {
  kfi_dwbpf_args g = *KFI_ARGS(p, const kfi_dwbpf_args);
  if (!p->kernel) return KF_OK; /* empty output */
  /* Inputs of 0 elements may be NULL (kf_execute hands a dummy). */
  if (!in[BF_INPUT] && g.n * g.h * g.w * g.c > 0)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "input input must not be NULL");
  if (!in[BF_DY] && g.n * g.oh * g.ow * g.c * g.m > 0)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "input out_backprop must not be NULL");
  g.x = in[BF_INPUT];
  g.dy = in[BF_DY];
  g.dw_out = out[0];
  g.scratch = scratch;
  p->kernel->run(&g, &p->par);
  return KF_OK;
}
