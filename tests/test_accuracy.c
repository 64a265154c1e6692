/*
** test_accuracy.c -- long reductions: every batch-norm gradient kernel of
** the registry (forced by name; the generic ones too) on channels of 10^7
** elements, against sums in double. The data have a non-zero mean, so the
** sums grow to ~10^7, where a plain running float sum loses every term it
** adds (ulp(2^24) = 2): the test first shows that such a sum misses the
** bound by orders of magnitude, so the bound can fail.
**
** Bound (docs/testing.md): |scale_backprop - exact| and |offset_backprop -
** exact| <= 1e-6 * sum of |terms| (float has eps = 6e-8; blocks of <= 512
** terms and pairwise block sums keep the error near a few eps), and
** x_backprop within the dtype's usual tolerance of max |expected|.
**
** run.sh: optimized builds only (channels of 10^7 elements: minutes under
** ASan, finding nothing the other tests miss). run.sh: no capped reruns.
** aarch64.sh: not under qemu (its double references over 10^7 elements
** alone take over ten minutes emulated; the NEON kernels' sums are checked
** at test sizes by test_bngrad and test_consistency there).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define BOUND 1e-6

typedef struct layout_case {
  kf_data_format fmt;
  int64_t d[4]; /* dims in data_format order */
} layout_case;

/* 10^7 elements per channel: one channel (the vector tail path), and for
   NCHW also two channels of two planes each (the per-plane path and the
   reduction over planes). Then channels last with C wider than every ISA's
   register tile (AVX-512: 64 channels), the path that sweeps whole rows
   (SWEEP) in blocks: 2 x 10^5 elements per channel, where a running float
   sum already misses the bound. */
#define CMAX 72
static const layout_case cases[] = {
  { KF_NHWC, { 1, 1, 10000000, 1 } },
  { KF_NCHW, { 1, 1, 1, 10000000 } },
  { KF_NCHW, { 2, 2, 1, 5000000 } },
  { KF_NHWC, { 1, 1, 200000, CMAX } },
};

/* Neumaier-compensated double sum. */
typedef struct { double s, c; } csum;
static void cadd(csum *a, double v) {
  double t = a->s + v;
  a->c += fabs(a->s) >= fabs(v) ? (a->s - t) + v : (v - t) + a->s;
  a->s = t;
}

static int64_t at(int last, int64_t c, int64_t C, int64_t S, int64_t j) {
  /* element j (= n * S + s) of channel c */
  return last ? j * C + c : (j / S) * C * S + c * S + j % S;
}

static void run_case(const layout_case *lc, kf_dtype T) {
  const int last = lc->fmt == KF_NHWC;
  const int64_t N = lc->d[0], C = last ? lc->d[3] : lc->d[1];
  const int64_t S = last ? lc->d[1] * lc->d[2] : lc->d[2] * lc->d[3], M = N * S, numel = M * C;
  const size_t es = kf_dtype_size(T);
  void *dy = malloc((size_t)numel * es), *x = malloc((size_t)numel * es), *dx = malloc((size_t)numel * es);
  float scale[CMAX], mean[CMAX], var[CMAX], ds[CMAX], dof[CMAX];
  double eoff[CMAX], esc[CMAX], l1off[CMAX], l1sc[CMAX], sx2[CMAX];
  double *edx = malloc((size_t)numel * sizeof(double));
  const float eps = 0.001f;
  th_rng r;
  int64_t i, c;
  int k, mode;
  char what[160];

  th_seed(&r, 0x5eed0000u + (uint64_t)(lc - cases) * 16u + (uint64_t)T);
  for (i = 0; i < numel; i++) { /* positive-mean dy, x around a shifted mean */
    th_store(T, dy, (size_t)i, th_uniform(&r, 0.25, 1.75));
    th_store(T, x, (size_t)i, th_uniform(&r, -0.5, 2.5));
  }
  for (c = 0; c < C; c++) {
    scale[c] = (float)th_uniform(&r, 0.5, 1.5);
    mean[c] = (float)th_uniform(&r, 0.5, 1.0);
    var[c] = (float)th_uniform(&r, 0.5, 1.0);
  }

  for (mode = 0; mode < 2; mode++) {
    th_case_end(); /* the references' own checks belong to no kernel's case */
    /* the exact results, from the rounded inputs, in double */
    for (c = 0; c < C; c++) {
      const double k0 = 1.0 / sqrt((double)var[c] + (double)eps);
      csum so = { 0, 0 }, sx = { 0, 0 };
      double ao = 0, ax = 0, dym, m2;
      for (i = 0; i < M; i++) {
        const int64_t e = at(last, c, C, S, i);
        const double g = th_load(T, dy, (size_t)e), xc = th_load(T, x, (size_t)e) - mean[c];
        cadd(&so, g);
        cadd(&sx, g * xc);
        ao += fabs(g);
        ax += fabs(g * xc);
      }
      eoff[c] = so.s + so.c;
      sx2[c] = sx.s + sx.c;
      esc[c] = sx2[c] * k0;
      l1off[c] = ao;
      l1sc[c] = ax * k0;
      dym = eoff[c] / (double)M;
      m2 = sx2[c] / (double)M;
      for (i = 0; i < M; i++) {
        const int64_t e = at(last, c, C, S, i);
        const double g = th_load(T, dy, (size_t)e), xc = th_load(T, x, (size_t)e) - mean[c];
        edx[e] = mode ? scale[c] * k0 * ((g - dym) - xc * k0 * k0 * m2) : g * scale[c] * k0;
      }
    }
    if (T == KF_FLOAT && mode == 1 && (lc == cases || C > 1)) {
      /* the bound can fail: a running float sum of the same dy misses it */
      float run = 0.0f;
      for (i = 0; i < M; i++) run += ((const float *)dy)[at(last, 0, C, S, i)];
      th_check(fabs(run - eoff[0]) > (C > 1 ? 2 : 10) * BOUND * l1off[0],
               "a running float sum misses the bound (error %.2e of sum |dy|, bound %.0e)",
               fabs(run - eoff[0]) / l1off[0], BOUND);
    }
    for (k = -1; (k = th_next_kernel(kf_op_family(KF_OP_FUSED_BATCH_NORM_GRAD_V3), k)) >= 0;) {
      const char *name = th_kernel(k)->name;
      kf_attrs at_;
      kf_tensor_desc in[6];
      kf_plan_options opt;
      kf_plan plan;
      kf_error err = {0};
      kf_status st;
      int64_t cd[1] = { C };
      size_t sb;
      void *scratch;
      const void *ins[6];
      void *outs[5];
      double worst_o = 0, worst_s = 0, edx_err;
      snprintf(what, sizeof what, "%s %s %s [%lld,%lld,%lld,%lld]", name, mode ? "train" : "infer",
               lc->fmt == KF_NHWC ? "NHWC" : "NCHW", (long long)lc->d[0], (long long)lc->d[1],
               (long long)lc->d[2], (long long)lc->d[3]);
      if (!th_case("test_accuracy %s", what)) continue; /* TH_FILTER */
      kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at_);
      at_.T = T;
      at_.data_format = lc->fmt;
      at_.is_training = mode;
      at_.epsilon = eps;
      in[0] = th_desc(T, 4, lc->d);
      in[1] = in[0];
      in[2] = th_desc(KF_FLOAT, 1, cd);
      in[3] = in[4] = in[5] = in[2];
      memset(&opt, 0, sizeof opt);
      opt.kernel = name;
      switch (th_plan_forced(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at_, in, 6, &opt, &err)) {
        case TH_OTHER_CONFIG: continue;
        case TH_NOT_HERE: th_skip("%s: needs an ISA this CPU lacks", what); continue;
        case TH_REFUSED: th_check(0, "%s: plan: %s", what, err.message); continue;
        case TH_PLANNED: break;
      }
      sb = kf_plan_scratch_bytes(&plan);
      scratch = malloc(sb ? sb : 1);
      ins[0] = dy; ins[1] = x; ins[2] = scale; ins[3] = mean; ins[4] = var; ins[5] = var;
      outs[0] = dx; outs[1] = ds; outs[2] = dof; outs[3] = NULL; outs[4] = NULL;
      st = kf_execute(&plan, ins, outs, scratch, sb, &err);
      free(scratch);
      if (!th_check(st == KF_OK, "%s: execute: %s", what, err.message)) continue;
      for (c = 0; c < C; c++) {
        const double eo = fabs(dof[c] - eoff[c]) / l1off[c], es_ = fabs(ds[c] - esc[c]) / l1sc[c];
        worst_o = eo > worst_o ? eo : worst_o;
        worst_s = es_ > worst_s ? es_ : worst_s;
      }
      edx_err = th_rel_err(T, dx, edx, (size_t)numel, 1e-6);
      th_check(worst_o <= BOUND && worst_s <= BOUND && edx_err <= th_tol(T),
               "%s: offset_backprop %.2e, scale_backprop %.2e of sum |terms| (bound %.0e); x_backprop %.2e (tol %.0e)",
               what, worst_o, worst_s, BOUND, edx_err, th_tol(T));
    }
  }
  free(dy); free(x); free(dx); free(edx);
}

int main(void) {
  static const kf_dtype types[] = { KF_FLOAT, KF_HALF, KF_BFLOAT16 };
  size_t li, ti;
  for (li = 0; li < sizeof cases / sizeof cases[0]; li++)
    for (ti = 0; ti < sizeof types / sizeof types[0]; ti++) run_case(&cases[li], types[ti]);
  return th_done();
}
