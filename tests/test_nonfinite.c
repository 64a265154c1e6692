/*
** test_nonfinite.c -- NaN and Inf propagate exactly as TF's formulas say
** (tf_semantics.md 1.6, 1.7 and 2.6), in every kernel: the specialized ones
** (8-channel tiles, 256-row blocks, unrolled depthwise) and the generic one.
**
** Batch norm, per channel c (training):
**   offset_bp[c] = sum dy;  scale_bp[c] = sum dy*(x-mean)*rsqrt(var+eps);
**   dx = scale*rsqrt(var+eps) * (dy - mean(dy) - (x-mean)*rsqrt(var+eps)^2 * mean(dy*(x-mean)))
** so a NaN in dy of channel c poisons offset_bp[c], scale_bp[c] and all of
** channel c's dx, and nothing of any other channel; an Inf in x poisons
** scale_bp[c] and channel c's dx but not offset_bp[c]; a NaN in var poisons
** scale_bp[c] and channel c's dx but not offset_bp[c]. Frozen statistics
** (is_training=false): dx = dy*scale*rsqrt(var+eps) does not involve x, so a
** NaN in dy poisons one dx element (plus offset_bp[c], scale_bp[c]), an Inf
** in x only scale_bp[c].
**
** Depthwise input gradient: a NaN in out_backprop reaches exactly the input
** positions it scatters to (its channel, every filter tap that lands in the
** input), because NaN * w is NaN even for w = 0; every other element stays
** finite.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int finite_at(kf_dtype t, const void *buf, size_t i) { return isfinite(th_load(t, buf, i)); }
static int nan_at(kf_dtype t, const void *buf, size_t i) { return isnan(th_load(t, buf, i)); }

/* ------------------------------------------------------------ batch norm */

typedef enum { DY_NAN, X_INF, VAR_NAN } bn_case;
static const char *const case_names[] = { "NaN in dy", "Inf in x", "NaN in var" };

/* Runs one batch-norm gradient with one poisoned value in channel pc and
   checks which outputs are non-finite. */
static void bn_one(kf_op op, kf_dtype t, kf_data_format fmt, int rank, const int64_t *dims, int training,
                   int generic, bn_case what) {
  static const char *const fmt_names[] = { "NHWC", "NCHW", "NDHWC", "NCDHW" };
  int last = fmt == KF_NHWC || fmt == KF_NDHWC;
  int64_t c = last ? dims[rank - 1] : dims[1], numel = 1, cd[1], pc, pi, i, s = 1;
  kf_tensor_desc in[6];
  kf_attrs a;
  kf_plan plan;
  kf_plan_options opt;
  kf_error err = {0};
  const void *ins[6];
  void *outs[5];
  void *dy, *x, *dx, *scratch;
  float *scale, *mean, *var, *dscale, *doff;
  size_t es = kf_dtype_size(t), sb;
  kf_status st;
  char what_s[200], dims_s[80];
  int ok, k, w;
  th_rng rng[1];

  for (k = 0; k < rank; k++) numel *= dims[k];
  for (k = last ? 1 : 2; k < (last ? rank - 1 : rank); k++) s *= dims[k];
  snprintf(what_s, sizeof what_s, "%s %s %s %s rank %d %s%s: %s", kf_op_name(op), kf_dtype_name(t), fmt_names[fmt],
           training ? "train" : "infer", rank, generic ? "generic_only" : "selected", "", case_names[what]);
  for (k = 0, w = 0; k < rank && w >= 0 && (size_t)w < sizeof dims_s; k++)
    w += snprintf(dims_s + w, sizeof dims_s - (size_t)w, k ? ",%lld" : "[%lld", (long long)dims[k]);
  th_seed_case(rng, "test_nonfinite %s %s]", what_s, dims_s); /* the case's own data */
  kf_attrs_init(op, &a);
  a.data_format = fmt;
  a.is_training = training;
  a.epsilon = 0.001f;
  cd[0] = c;
  in[0] = th_desc(t, rank, dims);
  in[1] = in[0];
  in[2] = th_desc(KF_FLOAT, 1, cd);
  in[3] = in[2];
  in[4] = in[2];
  in[5] = th_desc(KF_FLOAT, 1, cd);
  memset(&opt, 0, sizeof opt);
  opt.generic_only = generic;
  st = kf_plan_op(&plan, op, &a, in, op == KF_OP_FUSED_BATCH_NORM_GRAD_V3 ? 6 : 5, &opt, &err);
  if (!th_check(st == KF_OK, "%s: plan (%s)", what_s, st == KF_OK ? "" : err.message)) return;
  sb = kf_plan_scratch_bytes(&plan);
  dy = malloc((size_t)numel * es), x = malloc((size_t)numel * es), dx = malloc((size_t)numel * es);
  scale = malloc((size_t)c * 4), mean = malloc((size_t)c * 4), var = malloc((size_t)c * 4);
  dscale = malloc((size_t)c * 4), doff = malloc((size_t)c * 4);
  scratch = sb ? malloc(sb) : NULL;
  for (i = 0; i < numel; i++) {
    th_store(t, dy, (size_t)i, th_uniform(rng, 0.1, 1.0) * (th_next(rng) & 1 ? 1 : -1));
    th_store(t, x, (size_t)i, th_uniform(rng, -2, 2));
  }
  for (i = 0; i < c; i++) {
    scale[i] = (float)th_uniform(rng, 0.5, 1.5);
    mean[i] = (float)th_uniform(rng, -0.1, 0.1) + 0.0123f; /* x - mean never exactly 0 in practice */
    var[i] = (float)th_uniform(rng, 0.5, 2);
  }
  /* the poisoned channel and element (index in the [n, s, c] / [n, c, s] view) */
  pc = (int64_t)(th_next(rng) % (uint64_t)c);
  {
    int64_t n = (int64_t)(th_next(rng) % (uint64_t)dims[0]), sp = (int64_t)(th_next(rng) % (uint64_t)s);
    pi = last ? (n * s + sp) * c + pc : (n * c + pc) * s + sp;
  }
  if (what == DY_NAN) th_store(t, dy, (size_t)pi, NAN);
  if (what == X_INF) th_store(t, x, (size_t)pi, INFINITY);
  if (what == VAR_NAN) var[pc] = NAN;
  ins[0] = dy, ins[1] = x, ins[2] = scale, ins[3] = mean, ins[4] = var, ins[5] = var;
  outs[0] = dx, outs[1] = dscale, outs[2] = doff, outs[3] = NULL, outs[4] = NULL;
  st = kf_execute(&plan, ins, outs, scratch, sb, &err);
  if (th_check(st == KF_OK, "%s: execute", what_s)) {
    /* per-channel gradients */
    ok = 1;
    for (i = 0; i < c; i++) {
      int poisoned = i == pc;
      int want_scale_bad = poisoned;
      int want_off_bad = poisoned && what == DY_NAN;
      if (isfinite(dscale[i]) == want_scale_bad || isfinite(doff[i]) == want_off_bad) ok = 0;
      if (poisoned && what != X_INF && (!isnan(dscale[i]) || (want_off_bad && !isnan(doff[i])))) ok = 0;
    }
    th_check(ok, "%s: scale/offset backprop non-finite exactly in channel %lld (offset: %s)", what_s,
             (long long)pc, what == DY_NAN ? "yes" : "no");
    /* x_backprop */
    ok = 1;
    for (i = 0; i < numel && ok; i++) {
      int64_t ch = last ? i % c : (i / s) % c;
      int want_bad;
      if (training) want_bad = ch == pc;
      else want_bad = (what == DY_NAN && i == pi) || (what == VAR_NAN && ch == pc);
      if (finite_at(t, dx, (size_t)i) == want_bad) ok = 0;
      if (want_bad && what != X_INF && !nan_at(t, dx, (size_t)i)) ok = 0;
    }
    th_check(ok, "%s: x_backprop non-finite exactly where TF's formula says (element %lld)", what_s,
             (long long)(i - 1));
  }
  free(dy), free(x), free(dx), free(scale), free(mean), free(var), free(dscale), free(doff), free(scratch);
}

static void batch_norm(void) {
  static const int64_t d4[4] = { 2, 3, 4, 11 }, d4c[4] = { 2, 11, 3, 4 }, big[4] = { 2, 16, 17, 9 },
                       bigc[4] = { 2, 9, 16, 17 }, d5[5] = { 2, 2, 3, 2, 10 }, d5c[5] = { 2, 10, 2, 3, 2 };
  static const kf_dtype ts[3] = { KF_FLOAT, KF_HALF, KF_BFLOAT16 };
  int t, training, generic, what;
  for (t = 0; t < 3; t++)
    for (training = 0; training < 2; training++)
      for (generic = 0; generic < 2; generic++)
        for (what = 0; what < 3; what++) {
          kf_op op = KF_OP_FUSED_BATCH_NORM_GRAD_V3;
          bn_one(op, ts[t], KF_NHWC, 4, d4, training, generic, (bn_case)what);
          bn_one(op, ts[t], KF_NCHW, 4, d4c, training, generic, (bn_case)what);
          bn_one(op, ts[t], KF_NHWC, 4, big, training, generic, (bn_case)what);
          bn_one(op, ts[t], KF_NCHW, 4, bigc, training, generic, (bn_case)what);
          bn_one(op, ts[t], KF_NDHWC, 5, d5, training, generic, (bn_case)what);
          bn_one(op, ts[t], KF_NCDHW, 5, d5c, training, generic, (bn_case)what);
          if (t == 0) bn_one(KF_OP_FUSED_BATCH_NORM_GRAD, ts[t], KF_NHWC, 4, d4, training, generic, (bn_case)what);
        }
}

/* ------------------------------------------------------------ depthwise */

static kf_tensor_desc desc4(kf_dtype t, int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t dims[4];
  dims[0] = a, dims[1] = b, dims[2] = c, dims[3] = d;
  return th_desc(t, 4, dims);
}

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t d, int same, int64_t *pad) {
  int64_t eff = (k - 1) * d + 1, out, total;
  if (!same) {
    *pad = 0;
    return (in - eff + s) / s;
  }
  out = (in + s - 1) / s;
  total = (out - 1) * s + eff - in;
  if (total < 0) total = 0;
  *pad = total / 2;
  return out;
}

/* One depthwise input gradient with a non-finite value at one out_backprop
   position; checks the set of non-finite dx elements. */
static void dw_one(kf_dtype t, int nchw, int same, int64_t k, int64_t s, int64_t d, int64_t m, int generic,
                   int use_inf) {
  const int64_t n = 2, h = 9, w = 8, c = 3;
  int64_t pt, pl, oh = out_size(h, k, s, d, same, &pt), ow = out_size(w, k, s, d, same, &pl);
  int64_t cm = c * m, i, b, iy, ix, ch, fy, fx, pb, poy, pox, pk;
  int32_t sizes[4];
  kf_tensor_desc in[3];
  kf_attrs a;
  kf_plan plan;
  kf_plan_options opt;
  kf_error err = {0};
  const void *ins[3];
  void *outs[1];
  void *f, *g, *dx, *scratch;
  size_t es = kf_dtype_size(t), sb, nf = (size_t)(k * k * cm), ng = (size_t)(n * oh * ow * cm),
         nx = (size_t)(n * h * w * c);
  char buf[64], what_s[200];
  kf_status st;
  int ok;
  th_rng rng[1];

  snprintf(what_s, sizeof what_s, "depthwise %s %s %s k%lld s%lld d%lld m%lld %s: %s in out_backprop",
           kf_dtype_name(t), nchw ? "NCHW" : "NHWC", same ? "SAME" : "VALID", (long long)k, (long long)s,
           (long long)d, (long long)m, generic ? "generic_only" : "selected", use_inf ? "Inf" : "NaN");
  th_seed_case(rng, "test_nonfinite %s", what_s); /* the case's own data */
  kf_attrs_init(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &a);
  kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &a, "data_format", nchw ? "NCHW" : "NHWC", NULL);
  kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &a, "padding", same ? "SAME" : "VALID", NULL);
  snprintf(buf, sizeof buf, nchw ? "1,1,%lld,%lld" : "1,%lld,%lld,1", (long long)s, (long long)s);
  kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &a, "strides", buf, NULL);
  snprintf(buf, sizeof buf, nchw ? "1,1,%lld,%lld" : "1,%lld,%lld,1", (long long)d, (long long)d);
  kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &a, "dilations", buf, NULL);
  if (nchw) sizes[0] = (int32_t)n, sizes[1] = (int32_t)c, sizes[2] = (int32_t)h, sizes[3] = (int32_t)w;
  else sizes[0] = (int32_t)n, sizes[1] = (int32_t)h, sizes[2] = (int32_t)w, sizes[3] = (int32_t)c;
  {
    int64_t four[1] = { 4 };
    in[0] = th_desc(KF_INT32, 1, four);
    in[0].host_data = sizes;
  }
  in[1] = desc4(t, k, k, c, m);
  in[2] = nchw ? desc4(t, n, cm, oh, ow) : desc4(t, n, oh, ow, cm);
  memset(&opt, 0, sizeof opt);
  opt.generic_only = generic;
  st = kf_plan_op(&plan, KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &a, in, 3, &opt, &err);
  if (!th_check(st == KF_OK, "%s: plan (%s)", what_s, st == KF_OK ? "" : err.message)) return;
  sb = kf_plan_scratch_bytes(&plan);
  f = malloc(nf * es), g = malloc(ng * es), dx = malloc(nx * es), scratch = sb ? malloc(sb) : NULL;
  for (i = 0; i < (int64_t)nf; i++) th_store(t, f, (size_t)i, (th_next(rng) % 4 == 0) ? 0.0 : th_uniform(rng, -1, 1));
  for (i = 0; i < (int64_t)ng; i++) th_store(t, g, (size_t)i, th_uniform(rng, -1, 1));
  /* the poisoned out_backprop element (b, oy, ox, k) */
  pb = (int64_t)(th_next(rng) % (uint64_t)n);
  poy = (int64_t)(th_next(rng) % (uint64_t)oh);
  pox = (int64_t)(th_next(rng) % (uint64_t)ow);
  pk = (int64_t)(th_next(rng) % (uint64_t)cm);
  if (use_inf) /* Inf * 0 is NaN: keep the filter nonzero for this channel */
    for (i = 0; i < k * k; i++)
      if (th_load(t, f, (size_t)(i * cm + pk)) == 0) th_store(t, f, (size_t)(i * cm + pk), 0.5);
  th_store(t, g, (size_t)(nchw ? ((pb * cm + pk) * oh + poy) * ow + pox : ((pb * oh + poy) * ow + pox) * cm + pk),
           use_inf ? INFINITY : NAN);
  ins[0] = NULL, ins[1] = f, ins[2] = g;
  outs[0] = dx;
  st = kf_execute(&plan, ins, outs, scratch, sb, &err);
  if (th_check(st == KF_OK, "%s: execute", what_s)) {
    ok = 1;
    for (b = 0; b < n; b++)
      for (iy = 0; iy < h; iy++)
        for (ix = 0; ix < w; ix++)
          for (ch = 0; ch < c; ch++) {
            int hit = 0;
            size_t at = (size_t)(nchw ? ((b * c + ch) * h + iy) * w + ix : ((b * h + iy) * w + ix) * c + ch);
            if (b == pb && ch == pk / m)
              for (fy = 0; fy < k; fy++)
                for (fx = 0; fx < k; fx++)
                  if (iy + pt - fy * d == poy * s && ix + pl - fx * d == pox * s) hit = 1;
            if (finite_at(t, dx, at) == hit || (hit && !use_inf && !nan_at(t, dx, at))) ok = 0;
          }
    th_check(ok, "%s: dx non-finite exactly at the positions it scatters to", what_s);
  }
  free(f), free(g), free(dx), free(scratch);
}

static void depthwise(void) {
  static const kf_dtype ts[4] = { KF_FLOAT, KF_DOUBLE, KF_HALF, KF_BFLOAT16 };
  static const int64_t ks[3] = { 1, 3, 5 };
  int t, nchw, same, ki, s, d, m, generic, use_inf;
  for (t = 0; t < 4; t++)
    for (nchw = 0; nchw < 2; nchw++)
      for (same = 0; same < 2; same++)
        for (ki = 0; ki < 3; ki++)
          for (s = 1; s <= 2; s++)
            for (m = 1; m <= 2; m++)
              for (generic = 0; generic < 2; generic++)
                for (use_inf = 0; use_inf < 2; use_inf++)
                  for (d = 1; d <= 2; d++)
                    if (!(d == 2 && ks[ki] == 5)) dw_one(ts[t], nchw, same, ks[ki], s, d, m, generic, use_inf);
}

int main(void) {
  batch_norm();
  depthwise();
  return th_done();
}
