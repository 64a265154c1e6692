/*
** dwbpi_plan.c -- DepthwiseConv2dNativeBackpropInput: TF's validation in
** TF's order (tf_semantics.md 2.6 and 2.3), kforge's documented extensions
** (NCHW computed natively, unequal row/col strides, true dilation for every
** padding mode, zero-filled output when nothing flows), kernel selection
** and execution. The family's plug-in (kfi_plan_dwbpi / kfi_exec_dwbpi,
** reached through kfg_families); its typed entry point is dwbpi_entry.c.
**
** input_sizes is read at plan time, from its descriptor's host_data (the
** int32 values, as TF keeps this input in host memory).
*/
#include <string.h>

#include "kfi_conv.h"
#include "kfi_dwbpi.h"

enum { DW_SIZES, DW_FILTER, DW_DY };

#define I32_MAX ((int64_t)2147483647)

static const kfi_conv_rules dwbpi_rules = {
  KFG_RULE_DWBPI_STRIDES_LEN, KFG_RULE_DWBPI_STRIDES_BATCH_DEPTH, KFG_RULE_DWBPI_DILATIONS_LEN,
  KFG_RULE_DWBPI_DILATIONS_BATCH_DEPTH, KFG_RULE_DWBPI_EXPLICIT_LEN, KFG_RULE_DWBPI_EXPLICIT_NEGATIVE,
  KFG_RULE_DWBPI_EXPLICIT_BATCH_DEPTH, KFG_RULE_DWBPI_EXPLICIT_NOT_EMPTY, KFG_RULE_DWBPI_STRIDE_POSITIVE,
  KFG_RULE_DWBPI_DILATION_POSITIVE, KFG_RULE_DWBPI_NEGATIVE_OUTPUT,
};

kf_status kfi_plan_dwbpi(kfi_plan *p, const kfi_op_def *od, const kf_attrs *a, const kf_tensor_desc *in,
                         const kf_plan_options *opt, kf_error *err) {
  const kf_tensor_desc *fd = &in[DW_FILTER], *gd = &in[DW_DY];
  kf_dtype T = a->T != KF_DT_INVALID ? a->T : fd->dtype;
  kfi_dwbpi_args *g = KFI_ARGS(p, kfi_dwbpi_args);
  kfi_conv2d cv;
  int32_t key[KFG_DWBPI_KEY_LEN];
  int64_t sizes[4], n, h, w, c, m, oh, ow, kh, kw, sh, sw, dh, dw, numel;
  int64_t pt, pbot, pl, pr, comp_oh, comp_ow;
  int i, ih, iw, ic, nv;
  const int32_t *sv;
  kf_status st;

  /* Op-def constraints: attr values, then input dtypes. */
  if ((st = kfi_conv2d_attr_values(od, a, T, err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(&in[DW_SIZES], "input_sizes", KF_INT32, KFG_RULE_DWBPI_INPUT_DTYPE, err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(fd, "filter", T, KFG_RULE_DWBPI_INPUT_DTYPE, err)) != KF_OK) return st;
  if ((st = kfi_check_dtype(gd, "out_backprop", T, KFG_RULE_DWBPI_INPUT_DTYPE, err)) != KF_OK) return st;

  /* Kernel construction (2.6): strides, dilations (kforge: true dilation,
     so checked like the strides), explicit paddings; indexed by
     data_format (NHWC = N,H,W,C; NCHW = N,C,H,W). */
  if ((st = kfi_conv2d_attrs(a, &dwbpi_rules, &cv, err)) != KF_OK) return st;
  ih = cv.ih;
  iw = cv.iw;
  ic = cv.ic;
  pt = cv.pt;
  pbot = cv.pb;
  pl = cv.pl;
  pr = cv.pr;

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
  /* TF 2.21's order: in_depth between the input and the output bounds. */
  if (c != fd->dims[2]) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_IN_DEPTH);
  if (oh >= I32_MAX) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_TOO_LARGE, "Output rows");
  if (ow >= I32_MAX) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_TOO_LARGE, "Output cols");
  if (gd->dims[ic] >= I32_MAX)
    return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_TOO_LARGE, "Output depth");
  m = fd->dims[3];
  /* c and m are each below 2^31 (int32 value, bounded descriptor): no overflow. */
  if (m * c != gd->dims[ic]) return kfi_fail_rule(err, KF_INVALID_ARGUMENT, KFG_RULE_DWBPI_OUT_DEPTH);
  kh = fd->dims[0];
  kw = fd->dims[1];
  sh = cv.sh;
  sw = cv.sw;
  dh = cv.dh;
  dw = cv.dw;
  if ((st = kfi_conv_window(h, kh, dh, sh, a->padding, &pt, &pbot, &comp_oh, &dwbpi_rules, err)) != KF_OK) return st;
  if ((st = kfi_conv_window(w, kw, dw, sw, a->padding, &pl, &pr, &comp_ow, &dwbpi_rules, err)) != KF_OK) return st;
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
  g->pad_top = kfi_conv_clamp_pad(pt, oh, sh, kh, dh);
  g->pad_left = kfi_conv_clamp_pad(pl, ow, sw, kw, dw);
  g->layout = a->data_format == KF_NHWC ? KFI_CHANNELS_LAST : KFI_CHANNELS_FIRST;
  kfi_cpu_caches(&g->cache);
  g->ahead = kfi_dwbpi_ahead_rule(&g->cache);
  g->wahead = 0; /* fresh outputs: kfi_choices_rule_cold */
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
  return kfi_select(p, KFG_FAMILY_DWBPI, key, opt, err);
}

kf_status kfi_exec_dwbpi(const kfi_plan *p, const void *const *in, void *const *out, void *scratch,
                         kf_error *err) {
  kfi_dwbpi_args g = *KFI_CARGS(p, kfi_dwbpi_args);
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
