/*
** test_consistency.c -- one answer per input, whatever kernel runs. Every
** kernel that serves a configuration and that this CPU runs (each ISA
** variant, specialized and generic; forced by name) gets the same
** degenerate inputs, and must give what the generic kernel gives (TF's
** formulas written plainly, tf_semantics.md 1.6, 1.7, 2.4): NaN exactly
** where it has NaN, Inf exactly where it has Inf and with the same sign,
** finite values within the dtype's tolerance. Each kernel run through a
** 3-thread pool must match its serial run bit for bit.
**
** Channels carry one degenerate property each (channel c gets case
** c % NCASE): var + eps = 0, negative, denormal (with epsilon = 0), Inf or
** NaN statistics, NaN and +-Inf in x, y_backprop and scale, zero scale,
** values near the half and bfloat16 maxima; depthwise: NaN and Inf in
** filter and out_backprop, values near the dtype's maximum. Inputs whose
** result would depend on the summation order (a partial sum overflowing in
** one order and not another) are avoided by construction: near-maximum
** channels overflow every product or none. NaN sign bits are not compared:
** IEEE 754 leaves them unspecified (x86 makes negative default NaNs).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "th_pool.h"

/* The families of the two ops, from the op (kf_op_family), and the label of
   runs through generic_only (no kernel forced). */
#define BN_FAMILY kf_op_family(KF_OP_FUSED_BATCH_NORM_GRAD_V3)
#define DW_FAMILY kf_op_family(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT)
#define GENERIC "generic_only"

static double tmax(kf_dtype t) {
  switch (t) {
    case KF_HALF: return 65504.0;
    case KF_BFLOAT16: return 3.3895313892515355e38;
    case KF_FLOAT: return 3.4028234663852886e38;
    default: return 1.7976931348623157e308;
  }
}

/* got against base (n elements of dtype t; element i belongs to channel
   chan[i]): same NaN positions, same Inf positions and signs, finite values
   within tol of the channel's largest finite |base| (or of l1[channel], the
   sum of the |terms| a reduction added, where the result may cancel).
   Returns 1 when equal. */
static int same_answer(kf_dtype t, const void *base, const void *got, size_t n, const int64_t *chan, int64_t nchan,
                       double tol, const double *l1, char *why, size_t whylen) {
  double *scale = calloc((size_t)nchan, sizeof(double));
  size_t i;
  int ok = 1;
  for (i = 0; i < n; i++) {
    const double b = th_load(t, base, i);
    if (l1) scale[chan[i]] = l1[chan[i]];
    else if (isfinite(b) && fabs(b) > scale[chan[i]]) scale[chan[i]] = fabs(b);
  }
  for (i = 0; i < n && ok; i++) {
    const double b = th_load(t, base, i), g = th_load(t, got, i);
    if (isnan(b) != isnan(g) || isinf(b) != isinf(g) || (isinf(b) && (b > 0) != (g > 0))) {
      snprintf(why, whylen, "element %zu (channel %lld): %g, generic %g", i, (long long)chan[i], g, b);
      ok = 0;
    } else if (isfinite(b) && fabs(g - b) > tol * (scale[chan[i]] > 1e-30 ? scale[chan[i]] : 1e-30)) {
      snprintf(why, whylen, "element %zu (channel %lld): %.9g, generic %.9g (tol %.0e of %.3g)", i,
               (long long)chan[i], g, b, tol, scale[chan[i]]);
      ok = 0;
    }
  }
  free(scale);
  return ok;
}

/* ------------------------------------------------------------ batch norm */

enum { BN_NORMAL, BN_VAR_ZERO, BN_VAR_NEG, BN_VAR_DENORMAL, BN_VAR_INF, BN_VAR_NAN, BN_MEAN_NAN, BN_MEAN_INF,
       BN_DY_NAN, BN_DY_INF, BN_DY_BOTH_INF, BN_X_NAN, BN_X_INF, BN_X_NEG_INF, BN_SCALE_NAN, BN_SCALE_INF,
       BN_SCALE_ZERO, BN_NEAR_MAX, BN_NCASE };

typedef struct bn_out { void *dx; float *ds, *dof; } bn_out;

/* Plans op with kernel kname (NULL: the generic one); 0 when not applicable. */
static int bn_run(const char *kname, const kf_attrs *at, const kf_tensor_desc *in, const void *const *ins,
                  bn_out *o, int threaded, const char *what) {
  kf_plan_options opt;
  kf_plan plan;
  kf_error err = {0};
  kf_status st = KF_NO_KERNEL;
  size_t sb;
  void *scratch, *outs[5];
  memset(&opt, 0, sizeof opt);
  memset(&err, 0, sizeof err);
  opt.kernel = kname;
  opt.generic_only = kname == NULL;
  if (threaded) opt.threads = &th_pool3;
  if (!kname) st = kf_plan_op(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, at, in, 6, &opt, &err);
  else
    switch (th_plan_forced(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, at, in, 6, &opt, &err)) {
      case TH_OTHER_CONFIG: return 0;
      case TH_NOT_HERE:
        if (!threaded) th_skip("%s %s: needs an ISA this CPU lacks", what, kname);
        return 0;
      case TH_REFUSED: st = KF_NO_KERNEL; break;
      case TH_PLANNED: st = KF_OK; break;
    }
  if (!th_check(st == KF_OK, "%s %s: plan: %s", what, kname ? kname : GENERIC, err.message)) return 0;
  sb = kf_plan_scratch_bytes(&plan);
  scratch = malloc(sb ? sb : 1);
  memset(scratch, 0x7f, sb ? sb : 1); /* stale scratch (here: NaN patterns) must not matter */
  outs[0] = o->dx, outs[1] = o->ds, outs[2] = o->dof, outs[3] = NULL, outs[4] = NULL;
  st = kf_execute(&plan, ins, outs, scratch, sb, &err);
  free(scratch);
  return th_check(st == KF_OK, "%s %s: execute: %s", what, kname ? kname : GENERIC, err.message);
}

static void bn_config(kf_dtype T, kf_data_format fmt, int training, const int64_t *dims, float eps) {
  const int last = fmt == KF_NHWC;
  const int64_t N = dims[0], C = last ? dims[3] : dims[1], S = last ? dims[1] * dims[2] : dims[2] * dims[3];
  const int64_t M = N * S, numel = M * C;
  const size_t es = kf_dtype_size(T);
  const double big = tmax(T);
  void *dy = malloc((size_t)numel * es), *x = malloc((size_t)numel * es);
  float *scale = malloc((size_t)C * 4), *mean = malloc((size_t)C * 4), *var = malloc((size_t)C * 4);
  int64_t *chan = malloc((size_t)numel * sizeof(int64_t)), *cidx = malloc((size_t)C * sizeof(int64_t));
  double *l1d = calloc((size_t)C, sizeof(double)), *l1s = calloc((size_t)C, sizeof(double));
  bn_out base, got, par;
  kf_attrs at;
  kf_tensor_desc in[6];
  const void *ins[6];
  int64_t i, c, cd[1] = { C };
  char what[200], why[200];
  int k;
  th_rng r;

  snprintf(what, sizeof what, "bngrad T=%s %s %s [%lld,%lld,%lld,%lld] eps=%g", kf_dtype_name(T),
           last ? "NHWC" : "NCHW", training ? "train" : "infer", (long long)dims[0], (long long)dims[1],
           (long long)dims[2], (long long)dims[3], (double)eps);
  th_seed(&r, th_fnv1a(what));
  for (c = 0; c < C; c++) {
    cidx[c] = c;
    scale[c] = (float)th_uniform(&r, 0.5, 1.5);
    mean[c] = (float)th_uniform(&r, -0.5, 0.5);
    var[c] = (float)th_uniform(&r, 0.5, 1.5);
  }
  for (i = 0; i < numel; i++) {
    /* element i: channel c, position j within the channel */
    const int64_t cc = last ? i % C : (i / S) % C, j = last ? i / C : (i / (C * S)) * S + i % S;
    const int kase = (int)(cc % BN_NCASE);
    double g = th_uniform(&r, -1, 1), xv = th_uniform(&r, -1, 2);
    chan[i] = cc;
    if (kase == BN_VAR_ZERO && (cc / BN_NCASE) % 2 == 1) { /* products of one sign: +inf, not NaN */
      g = th_uniform(&r, 0.5, 1.0);
      xv = th_uniform(&r, 1.0, 2.0); /* the mean is within [-0.5, 0.5] */
    }
    if (kase == BN_NEAR_MAX) {
      /* one sign of dy, so sums of dy overflow (or not) in any order; x of
         both signs far from the mean: for bfloat16/float every dy*(x-mean)
         overflows, giving +-Inf terms of both signs (NaN in any order);
         half's maximum is small enough for float to hold every sum */
      g = big * th_uniform(&r, 0.9, 1.0);
      xv = big * th_uniform(&r, 0.9, 1.0) * (th_next(&r) & 1 ? 1 : -1);
    }
    if (j == M / 2) {
      if (kase == BN_DY_NAN) g = NAN;
      if (kase == BN_DY_INF || kase == BN_DY_BOTH_INF) g = INFINITY;
      if (kase == BN_X_NAN) xv = NAN;
      if (kase == BN_X_INF) xv = INFINITY;
      if (kase == BN_X_NEG_INF) xv = -INFINITY;
    }
    if (j == M / 3 && kase == BN_DY_BOTH_INF) g = -INFINITY;
    th_store(T, dy, (size_t)i, g);
    th_store(T, x, (size_t)i, xv);
  }
  for (c = 0; c < C; c++) {
    switch ((int)(c % BN_NCASE)) {
      case BN_VAR_ZERO: var[c] = -eps; break; /* var + eps == 0 exactly */
      case BN_VAR_NEG: var[c] = -eps - 0.25f; break;
      case BN_VAR_DENORMAL: var[c] = eps == 0.0f ? 1e-40f : var[c]; break;
      case BN_VAR_INF: var[c] = INFINITY; break;
      case BN_VAR_NAN: var[c] = NAN; break;
      case BN_MEAN_NAN: mean[c] = NAN; break;
      case BN_MEAN_INF: mean[c] = -INFINITY; break;
      case BN_SCALE_NAN: scale[c] = NAN; break;
      case BN_SCALE_INF: scale[c] = INFINITY; break;
      case BN_SCALE_ZERO: scale[c] = c % 2 ? 0.0f : -0.0f; break;
      case BN_NEAR_MAX: mean[c] = 0.0f; scale[c] = 1e-3f; break;
      default: break;
    }
  }
  for (i = 0; i < numel; i++) { /* the |terms| of offset_backprop and scale_backprop */
    const int64_t cc = chan[i];
    const double g = th_load(T, dy, (size_t)i), t2 = g * (th_load(T, x, (size_t)i) - mean[cc]) / sqrt(var[cc] + eps);
    if (isfinite(g)) l1d[cc] += fabs(g);
    if (isfinite(t2)) l1s[cc] += fabs(t2);
  }
  kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
  at.T = T;
  at.data_format = fmt;
  at.is_training = training;
  at.epsilon = eps;
  in[0] = th_desc(T, 4, dims);
  in[1] = in[0];
  in[2] = th_desc(KF_FLOAT, 1, cd);
  in[3] = in[4] = in[5] = in[2];
  ins[0] = dy, ins[1] = x, ins[2] = scale, ins[3] = mean, ins[4] = var, ins[5] = var;
  base.dx = malloc((size_t)numel * es), base.ds = malloc((size_t)C * 4), base.dof = malloc((size_t)C * 4);
  got.dx = malloc((size_t)numel * es), got.ds = malloc((size_t)C * 4), got.dof = malloc((size_t)C * 4);
  par.dx = malloc((size_t)numel * es), par.ds = malloc((size_t)C * 4), par.dof = malloc((size_t)C * 4);

  if (bn_run(NULL, &at, in, ins, &base, 0, what))
    for (k = -1; (k = th_next_kernel(BN_FAMILY, k)) >= 0;) {
      const char *kn = th_kernel(k)->name;
      if (!bn_run(kn, &at, in, ins, &got, 0, what)) continue;
      th_check(same_answer(T, base.dx, got.dx, (size_t)numel, chan, C, th_tol(T), NULL, why, sizeof why),
               "%s %s: x_backprop as the generic kernel's: %s", what, kn, why);
      th_check(same_answer(KF_FLOAT, base.ds, got.ds, (size_t)C, cidx, C, 1e-6, l1s, why, sizeof why),
               "%s %s: scale_backprop as the generic kernel's: %s", what, kn, why);
      th_check(same_answer(KF_FLOAT, base.dof, got.dof, (size_t)C, cidx, C, 1e-6, l1d, why, sizeof why),
               "%s %s: offset_backprop as the generic kernel's: %s", what, kn, why);
      if (bn_run(kn, &at, in, ins, &par, 1, what))
        th_check(memcmp(par.dx, got.dx, (size_t)numel * es) == 0 && memcmp(par.ds, got.ds, (size_t)C * 4) == 0 &&
                     memcmp(par.dof, got.dof, (size_t)C * 4) == 0,
                 "%s %s: 3 threads bitwise identical to serial", what, kn);
    }
  free(dy), free(x), free(scale), free(mean), free(var), free(chan), free(cidx), free(l1d), free(l1s);
  free(base.dx), free(base.ds), free(base.dof), free(got.dx), free(got.ds), free(got.dof);
  free(par.dx), free(par.ds), free(par.dof);
}

static void batch_norm(void) {
  /* dims in data_format order: C = 37 (tiles and a tail), and a shape
     large enough for the threaded path (kernels run small ones serially) */
  static const int64_t nhwc[2][4] = { { 2, 3, 5, 37 }, { 4, 48, 48, 37 } };
  static const int64_t nchw[2][4] = { { 2, 37, 3, 5 }, { 4, 37, 48, 48 } };
  static const kf_dtype ts[3] = { KF_FLOAT, KF_HALF, KF_BFLOAT16 };
  static const float epss[2] = { 0.001f, 0.0f };
  int t, f, m, s, e;
  for (t = 0; t < 3; t++)
    for (f = 0; f < 2; f++)
      for (m = 0; m < 2; m++)
        for (s = 0; s < 2; s++)
          for (e = 0; e < 2; e++) bn_config(ts[t], f ? KF_NCHW : KF_NHWC, m, f ? nchw[s] : nhwc[s], epss[e]);
}

/* The reported case: shape 1x1x2x1, x = [2, -1], dy = [1, 1], scale 1,
   mean 0, var = -1e-4 with epsilon 1e-4 (var + eps = 0). TF 2.21 gives
   x_backprop [-inf, inf], scale_backprop NaN, offset_backprop 2; the AVX2
   and scalar kernels once gave scale_backprop = inf. Every kernel, every
   layout (NCHW 1x1x1x2 is the same data), both thread paths. */
static void reported_case(void) {
  static const int64_t nhwc[4] = { 1, 1, 2, 1 }, nchw[4] = { 1, 1, 1, 2 };
  const float x[2] = { 2, -1 }, dy[2] = { 1, 1 }, one = 1, zero = 0, var = -1e-4f;
  kf_attrs at;
  kf_tensor_desc in[6];
  const void *ins[6];
  int64_t cd[1] = { 1 };
  int f, k, th, first;
  kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
  at.epsilon = 1e-4f;
  in[2] = th_desc(KF_FLOAT, 1, cd);
  in[3] = in[4] = in[5] = in[2];
  ins[0] = dy, ins[1] = x, ins[2] = &one, ins[3] = &zero, ins[4] = &var, ins[5] = &var;
  for (f = 0; f < 2; f++) {
    at.data_format = f ? KF_NCHW : KF_NHWC;
    in[0] = in[1] = th_desc(KF_FLOAT, 4, f ? nchw : nhwc);
    for (first = 1, k = -1; first || k >= 0; first = 0, k = th_next_kernel(BN_FAMILY, k)) {
      const char *kn = first ? NULL : th_kernel(k)->name; /* NULL: generic_only */
      float dx[2], ds, dof;
      bn_out o;
      o.dx = dx, o.ds = &ds, o.dof = &dof;
      for (th = 0; th < 2; th++)
        if (bn_run(kn, &at, in, ins, &o, th, f ? "reported case NCHW" : "reported case NHWC"))
          th_check(isinf(dx[0]) && dx[0] < 0 && isinf(dx[1]) && dx[1] > 0 && isnan(ds) && dof == 2.0f,
                   "reported case %s, %s%s: x_backprop [%g, %g], scale_backprop %g, offset_backprop %g (TF: [-inf, "
                   "inf], nan, 2)", f ? "NCHW" : "NHWC", kn ? kn : GENERIC, th ? ", 3 threads" : "",
                   (double)dx[0], (double)dx[1], (double)ds, (double)dof);
    }
  }
}

/* Found by the TF differential suite: var + eps = 0 with products of one
   sign. x = [1, 2, 3], dy = 1, mean 0, var 0, epsilon 0 (NCHW [1,1,1,3],
   NHWC [1,1,3,1]): TF 2.21 gives x_backprop [-inf, -inf, -inf],
   scale_backprop +inf, offset_backprop 3; the AVX2 NCHW kernel once gave
   NaN (its plane tail added 0 * (0 * inf) for the lanes past the plane). */
static void one_sign_case(void) {
  static const int64_t nhwc[4] = { 1, 1, 3, 1 }, nchw[4] = { 1, 1, 1, 3 };
  const float x[3] = { 1, 2, 3 }, dy[3] = { 1, 1, 1 }, one = 1, zero = 0;
  kf_attrs at;
  kf_tensor_desc in[6];
  const void *ins[6];
  int64_t cd[1] = { 1 };
  int f, k, th, first;
  kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
  at.epsilon = 0.0f;
  in[2] = th_desc(KF_FLOAT, 1, cd);
  in[3] = in[4] = in[5] = in[2];
  ins[0] = dy, ins[1] = x, ins[2] = &one, ins[3] = &zero, ins[4] = &zero, ins[5] = &zero;
  for (f = 0; f < 2; f++) {
    at.data_format = f ? KF_NCHW : KF_NHWC;
    in[0] = in[1] = th_desc(KF_FLOAT, 4, f ? nchw : nhwc);
    for (first = 1, k = -1; first || k >= 0; first = 0, k = th_next_kernel(BN_FAMILY, k)) {
      const char *kn = first ? NULL : th_kernel(k)->name; /* NULL: generic_only */
      float dx[3], ds, dof;
      bn_out o;
      o.dx = dx, o.ds = &ds, o.dof = &dof;
      for (th = 0; th < 2; th++)
        if (bn_run(kn, &at, in, ins, &o, th, f ? "one-sign case NCHW" : "one-sign case NHWC"))
          th_check(isinf(dx[0]) && dx[0] < 0 && isinf(dx[1]) && dx[1] < 0 && isinf(dx[2]) && dx[2] < 0 &&
                       isinf(ds) && ds > 0 && dof == 3.0f,
                   "one-sign case %s, %s%s: x_backprop [%g, %g, %g], scale_backprop %g, offset_backprop %g (TF: "
                   "-inf x3, inf, 3)", f ? "NCHW" : "NHWC", kn ? kn : GENERIC, th ? ", 3 threads" : "",
                   (double)dx[0], (double)dx[1], (double)dx[2], (double)ds, (double)dof);
    }
  }
}

/* ------------------------------------------------------------ depthwise */

enum { DW_NORMAL, DW_FILTER_NAN, DW_FILTER_INF, DW_DY_NAN, DW_DY_BOTH_INF, DW_NEAR_MAX, DW_NCASE };

static int dw_run(const char *kname, const kf_attrs *at, const kf_tensor_desc *in, const void *const *ins, void *dx,
                  int threaded, const char *what) {
  kf_plan_options opt;
  kf_plan plan;
  kf_error err = {0};
  kf_status st = KF_NO_KERNEL;
  size_t sb;
  void *scratch, *outs[1];
  memset(&opt, 0, sizeof opt);
  memset(&err, 0, sizeof err);
  opt.kernel = kname;
  opt.generic_only = kname == NULL;
  if (threaded) opt.threads = &th_pool3;
  if (!kname) st = kf_plan_op(&plan, KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, at, in, 3, &opt, &err);
  else
    switch (th_plan_forced(&plan, KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, at, in, 3, &opt, &err)) {
      case TH_OTHER_CONFIG: return 0;
      case TH_NOT_HERE:
        if (!threaded) th_skip("%s %s: needs an ISA this CPU lacks", what, kname);
        return 0;
      case TH_REFUSED: st = KF_NO_KERNEL; break;
      case TH_PLANNED: st = KF_OK; break;
    }
  if (!th_check(st == KF_OK, "%s %s: plan: %s", what, kname ? kname : GENERIC, err.message)) return 0;
  sb = kf_plan_scratch_bytes(&plan);
  scratch = malloc(sb ? sb : 1);
  outs[0] = dx;
  st = kf_execute(&plan, ins, outs, scratch, sb, &err);
  free(scratch);
  return th_check(st == KF_OK, "%s %s: execute: %s", what, kname ? kname : GENERIC, err.message);
}

static void dw_config(kf_dtype T, int nchw, int same, int64_t k, int64_t s, int64_t m) {
  const int64_t n = 2, h = 12, w = 13, c = 13, cm = c * m; /* odd and even interiors */
  const int64_t eff = k, oh = same ? (h + s - 1) / s : (h - eff + s) / s, ow = same ? (w + s - 1) / s : (w - eff + s) / s;
  const size_t es = kf_dtype_size(T), nf = (size_t)(k * k * cm), ng = (size_t)(n * oh * ow * cm),
               nx = (size_t)(n * h * w * c);
  const double big = tmax(T) * 0.9;
  void *f = malloc(nf * es), *g = malloc(ng * es), *base = malloc(nx * es), *got = malloc(nx * es),
       *par = malloc(nx * es);
  int64_t *chan = malloc(nx * sizeof(int64_t)), dims[4], i;
  int32_t sizes[4];
  kf_attrs at;
  kf_tensor_desc in[3];
  const void *ins[3];
  char what[200], why[200], buf[64];
  th_rng r;
  int kk;

  snprintf(what, sizeof what, "depthwise T=%s %s %s k%lld s%lld m%lld", kf_dtype_name(T), nchw ? "NCHW" : "NHWC",
           same ? "SAME" : "VALID", (long long)k, (long long)s, (long long)m);
  th_seed(&r, th_fnv1a(what));
  /* filter [k, k, c, m]: channel (i / m) % c */
  for (i = 0; i < (int64_t)nf; i++) {
    const int64_t ch = (i / m) % c, tap = i / cm;
    const int kase = (int)(ch % DW_NCASE);
    double v = th_next(&r) % 4 == 0 ? 0.0 : th_uniform(&r, -1, 1);
    if (kase == DW_NEAR_MAX) v = th_uniform(&r, -1, 1) / (double)(k * k * m); /* sums stay below the maximum */
    if (tap == (k * k) / 2 && i % m == 0) {
      if (kase == DW_FILTER_NAN) v = NAN;
      if (kase == DW_FILTER_INF) v = -INFINITY;
    }
    th_store(T, f, (size_t)i, v);
  }
  /* out_backprop: channel (i / m) % c of the c*m axis */
  for (i = 0; i < (int64_t)ng; i++) {
    const int64_t q = nchw ? (i / (oh * ow)) % cm : i % cm, pos = nchw ? i % (oh * ow) : (i / cm) % (oh * ow);
    const int kase = (int)((q / m) % c % DW_NCASE);
    double v = th_uniform(&r, -1, 1);
    if (kase == DW_NEAR_MAX) v = big * th_uniform(&r, 0.5, 1.0) * (th_next(&r) & 1 ? 1 : -1);
    if (kase == DW_DY_NAN && pos == 7) v = NAN;
    if (kase == DW_DY_BOTH_INF && pos == 5) v = INFINITY;
    if (kase == DW_DY_BOTH_INF && pos == 6) v = -INFINITY;
    th_store(T, g, (size_t)i, v);
  }
  for (i = 0; i < (int64_t)nx; i++) chan[i] = nchw ? (i / (h * w)) % c : i % c;

  kf_attrs_init(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &at);
  kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &at, "data_format", nchw ? "NCHW" : "NHWC", NULL);
  kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &at, "padding", same ? "SAME" : "VALID", NULL);
  snprintf(buf, sizeof buf, nchw ? "1,1,%lld,%lld" : "1,%lld,%lld,1", (long long)s, (long long)s);
  kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &at, "strides", buf, NULL);
  at.T = T;
  if (nchw) sizes[0] = (int32_t)n, sizes[1] = (int32_t)c, sizes[2] = (int32_t)h, sizes[3] = (int32_t)w;
  else sizes[0] = (int32_t)n, sizes[1] = (int32_t)h, sizes[2] = (int32_t)w, sizes[3] = (int32_t)c;
  dims[0] = 4;
  in[0] = th_desc(KF_INT32, 1, dims);
  in[0].host_data = sizes;
  dims[0] = k, dims[1] = k, dims[2] = c, dims[3] = m;
  in[1] = th_desc(T, 4, dims);
  if (nchw) dims[0] = n, dims[1] = cm, dims[2] = oh, dims[3] = ow;
  else dims[0] = n, dims[1] = oh, dims[2] = ow, dims[3] = cm;
  in[2] = th_desc(T, 4, dims);
  ins[0] = NULL, ins[1] = f, ins[2] = g;

  if (dw_run(NULL, &at, in, ins, base, 0, what))
    for (kk = -1; (kk = th_next_kernel(DW_FAMILY, kk)) >= 0;) {
      const char *kn = th_kernel(kk)->name;
      if (!dw_run(kn, &at, in, ins, got, 0, what)) continue;
      th_check(same_answer(T, base, got, nx, chan, c, th_tol(T), NULL, why, sizeof why),
               "%s %s: input gradient as the generic kernel's: %s", what, kn, why);
      if (dw_run(kn, &at, in, ins, par, 1, what))
        th_check(memcmp(par, got, nx * es) == 0, "%s %s: 3 threads bitwise identical to serial", what, kn);
    }
  free(f), free(g), free(base), free(got), free(par), free(chan);
}

static void depthwise(void) {
  static const kf_dtype ts[4] = { KF_FLOAT, KF_DOUBLE, KF_HALF, KF_BFLOAT16 };
  int t, nchw, same, ki, s, m;
  for (t = 0; t < 4; t++)
    for (nchw = 0; nchw < 2; nchw++)
      for (same = 0; same < 2; same++)
        for (ki = 3; ki <= 5; ki += 2)
          for (s = 1; s <= 2; s++)
            for (m = 1; m <= 2; m++) dw_config(ts[t], nchw, same, ki, s, m);
}

int main(void) {
  reported_case();
  one_sign_case();
  batch_norm();
  depthwise();
  return th_done();
}
