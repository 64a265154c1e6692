/*
** test_bngrad.c -- FusedBatchNormGrad{,V2,V3} against the double-precision
** reference: every version, dtype, data format, mode and every kernel of the
** registry that serves the configuration (specialized, generic, forced by
** name), on shapes chosen for their edges: C=1, odd C (channel-tile tails),
** N*H*W=1, H!=W, empty tensors, 5-D, row blocks and planes longer than one
** partial-sum block, inconsistent statistics.
** In place (kforge.h: x_backprop may be y_backprop's buffer): every run
** above is repeated with x_backprop written over a copy of y_backprop and
** must give the same bits; check_in_place_threaded does the same for every
** specialized kernel (the generic one is serial) on shapes large enough for
** the threaded path (and, for the x86 SIMD kernels, for streaming stores),
** run serially and on 3 threads. The few-rows plan (channel blocks) must
** give the bits of the rows plan; the AVX2 bfloat16 conversions those of
** kf_float_to_bfloat16 and kf_bfloat16_to_float.
** aarch64.sh: TH_FILTER=__neon (under qemu, only the NEON kernels' cases;
** the portable C ones run on x86 and in the Cortex-M images).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "th_pool.h"
#include "ref/bngrad_ref.h"

/* The AVX2 kernels' bfloat16 conversions (runtime/kfi_simd_avx2.h),
   compiled here for AVX2 as the kernels are, run where the CPU has it. */
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#include "kfi_kernel.h"
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#endif
#define KV_T KV_T_BF16
#include "kfi_simd_avx2.h"
/* 8 floats (bit patterns) narrowed to bfloat16; 8 bfloat16 widened. */
static void avx2_bf16_narrow(const uint32_t bits[8], uint16_t narrow[8]) {
  float f[8];
  memcpy(f, bits, sizeof f);
  kv_st(narrow, kv_ldf(f));
}
static void avx2_bf16_widen(const uint16_t h[8], uint32_t wide[8]) {
  float f[8];
  kv_stf(f, kv_ld(h));
  memcpy(wide, f, sizeof f);
}
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#define HAVE_AVX2_BF16 1
#endif

typedef struct { int rank; int64_t d[5]; } shape;

static const shape shapes4[] = {
  { 4, { 2, 3, 5, 8 } },   { 4, { 1, 1, 1, 1 } },   { 4, { 1, 1, 1, 13 } }, { 4, { 3, 2, 7, 1 } },
  { 4, { 2, 5, 3, 17 } },  { 4, { 1, 4, 6, 24 } },  { 4, { 2, 19, 17, 9 } }, { 4, { 1, 50, 50, 3 } },
  { 4, { 0, 3, 3, 5 } },   { 4, { 2, 0, 3, 5 } },   { 4, { 2, 3, 3, 0 } },
};
static const shape shapes5[] = {
  { 5, { 2, 3, 4, 5, 6 } }, { 5, { 1, 1, 1, 1, 3 } }, { 5, { 1, 2, 3, 1, 11 } }, { 5, { 1, 0, 2, 2, 4 } },
};

static const char *const fmt_names[] = { "NHWC", "NCHW", "NDHWC", "NCDHW" };
#define MAX_KERNELS 4096
static int coverage[MAX_KERNELS];

typedef struct {
  int version;
  kf_dtype T;
  kf_data_format fmt;
  int training;
  float epsilon;
  shape sh;
} config;

static void describe(const config *c, char *buf, size_t n) {
  int i, k;
  k = snprintf(buf, n, "V%d T=%s %s %s eps=%g shape=[", c->version, kf_dtype_name(c->T), fmt_names[c->fmt],
               c->training ? "train" : "infer", (double)c->epsilon);
  for (i = 0; i < c->sh.rank && k > 0 && (size_t)k < n; i++)
    k += snprintf(buf + k, n - (size_t)k, i ? ",%lld" : "%lld", (long long)c->sh.d[i]);
  if (k > 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, "]");
}

/* A copy of n bytes, 64-byte aligned (streaming stores need vector alignment). */
static void *aligned_copy(const void *src, size_t n) {
  void *p = aligned_alloc(64, (n + 63) / 64 * 64);
  if (p && n) memcpy(p, src, n);
  return p;
}

/* Executes plan with x_backprop written over a copy of y_backprop (ins[0]),
   the one aliasing kforge.h allows; true when all three outputs equal
   dx/ds/dof bit for bit. */
static int same_in_place(const kf_plan *plan, const void *const *ins, size_t dy_bytes, const void *dx,
                         const float *ds, const float *dof, int64_t c, kf_error *err) {
  void *buf = aligned_copy(ins[0], dy_bytes);
  float *ds2 = malloc((size_t)c * 4 + 1), *dof2 = malloc((size_t)c * 4 + 1);
  size_t scratch_n = kf_plan_scratch_bytes(plan);
  void *scratch = scratch_n ? malloc(scratch_n) : NULL;
  const void *in2[6];
  void *outs[5];
  int ok;
  memcpy(in2, ins, sizeof in2);
  in2[0] = buf;
  outs[0] = buf; outs[1] = ds2; outs[2] = dof2; outs[3] = NULL; outs[4] = NULL;
  ok = buf && kf_execute(plan, in2, outs, scratch, scratch_n, err) == KF_OK &&
       memcmp(buf, dx, dy_bytes) == 0 && memcmp(ds2, ds, (size_t)c * 4) == 0 && memcmp(dof2, dof, (size_t)c * 4) == 0;
  free(buf); free(ds2); free(dof2); free(scratch);
  return ok;
}

static kf_op op_of(int version) {
  return version == 1 ? KF_OP_FUSED_BATCH_NORM_GRAD
                      : version == 2 ? KF_OP_FUSED_BATCH_NORM_GRAD_V2 : KF_OP_FUSED_BATCH_NORM_GRAD_V3;
}

/* Runs one configuration with the given plan options; checks against ref.
   The data comes from the configuration's own seed: every kernel run on a
   configuration sees the same data, whatever ran before. */
static void run(const config *cf, const kf_plan_options *opt, const char *how) {
  const int last = cf->fmt == KF_NHWC || cf->fmt == KF_NDHWC;
  const int r = cf->sh.rank;
  const kf_op op = op_of(cf->version);
  int64_t n = cf->sh.d[0], c = last ? cf->sh.d[r - 1] : cf->sh.d[1], s = 1, numel, i;
  kf_tensor_desc in[6];
  kf_attrs at;
  kf_plan plan;
  kf_error err = {0};
  kf_status st;
  th_rng rng[1];
  char what[200];
  size_t es = kf_dtype_size(cf->T), scratch_n;
  void *dy, *x, *dx, *scratch;
  float *scale, *mean, *var, *dscale, *doffset, rs3[7] = { 0 };
  double *rdy, *rx, *rscale, *rmean, *rvar, *rdx, *rdscale, *rdoffset, *l1_dy = NULL, *l1_dyxh = NULL;
  const void *ins[6];
  void *outs[5];
  int64_t cdim[1];

  describe(cf, what, sizeof what);
  th_seed_case(rng, "test_bngrad %s", what);
  if (!th_case("test_bngrad %s %s %s", what, how, opt && opt->kernel ? opt->kernel : "")) return;
  for (i = last ? 1 : 2; i < (last ? r - 1 : r); i++) s *= cf->sh.d[i];
  numel = n * c * s;
  /* +1: malloc(0) may return NULL, which the API treats as "no buffer". */
  dy = malloc((size_t)numel * es + 1);
  x = malloc((size_t)numel * es + 1);
  dx = malloc((size_t)numel * es + 1);
  rdy = malloc((size_t)numel * sizeof(double) + 1);
  rx = malloc((size_t)numel * sizeof(double) + 1);
  rdx = malloc((size_t)numel * sizeof(double) + 1);
  scale = malloc((size_t)c * 4 + 1); mean = malloc((size_t)c * 4 + 1); var = malloc((size_t)c * 4 + 1);
  dscale = malloc((size_t)c * 4 + 1); doffset = malloc((size_t)c * 4 + 1);
  rscale = malloc((size_t)c * 8 + 1); rmean = malloc((size_t)c * 8 + 1); rvar = malloc((size_t)c * 8 + 1);
  rdscale = malloc((size_t)c * 8 + 1); rdoffset = malloc((size_t)c * 8 + 1);
  for (i = 0; i < numel; i++) {
    rdy[i] = th_round(cf->T, th_uniform(rng, -2, 2));
    rx[i] = th_round(cf->T, th_uniform(rng, -2, 3));
    th_store(cf->T, dy, (size_t)i, rdy[i]);
    th_store(cf->T, x, (size_t)i, rx[i]);
  }
  for (i = 0; i < c; i++) { /* statistics need not match x: the kernel uses what it is given */
    scale[i] = (float)th_uniform(rng, -1.5, 1.5);
    mean[i] = (float)th_uniform(rng, -1, 1);
    var[i] = (float)th_uniform(rng, 0.05, 2);
    rscale[i] = scale[i]; rmean[i] = mean[i]; rvar[i] = var[i];
    dscale[i] = doffset[i] = NAN;
  }
  ref_bngrad(last, cf->training, n, c, s, cf->epsilon, rdy, rx, rscale, rmean, rvar, rdx, rdscale, rdoffset);
  l1_dy = calloc((size_t)c + 1, sizeof *l1_dy);
  l1_dyxh = calloc((size_t)c + 1, sizeof *l1_dyxh);
  for (i = 0; i < numel; i++) { /* the L1 norms of the two sums' terms */
    int64_t ch = last ? i % c : (i / s) % c;
    l1_dy[ch] += fabs(rdy[i]);
    l1_dyxh[ch] += fabs(rdy[i] * (rx[i] - rmean[ch]) / sqrt(rvar[ch] + (double)cf->epsilon));
  }

  kf_attrs_init(op, &at);
  at.T = cf->T;
  at.data_format = cf->fmt;
  at.is_training = cf->training;
  at.epsilon = cf->epsilon;
  cdim[0] = c;
  in[0] = th_desc(cf->T, r, cf->sh.d);
  in[1] = in[0];
  in[2] = th_desc(cf->version == 1 ? cf->T : KF_FLOAT, 1, cdim);
  in[3] = in[2];
  in[4] = in[2];
  cdim[0] = 7;
  in[5] = th_desc(KF_FLOAT, 1, cdim);
  if (opt && opt->kernel) {
    switch (th_plan_forced(&plan, op, &at, in, cf->version == 3 ? 6 : 5, opt, &err)) {
      case TH_PLANNED: th_check(1, "%s %s: plan: ", what, how); break;
      case TH_OTHER_CONFIG: goto out; /* that kernel serves other configurations */
      case TH_NOT_HERE:
        th_skip("%s %s %s: %s", what, how, opt->kernel, err.message);
        goto out;
      default:
        th_check(0, "%s %s %s: plan: %s (%s)", what, how, opt->kernel, err.message, err.rule);
        goto out;
    }
  } else {
    st = kf_plan_op(&plan, op, &at, in, cf->version == 3 ? 6 : 5, opt, &err);
    if (!th_check(st == KF_OK, "%s %s: plan: %s", what, how, st == KF_OK ? "" : err.message)) goto out;
  }
  {
    const kf_tensor_desc *o0 = kf_plan_output_desc(&plan, 0), *o3 = kf_plan_output_desc(&plan, 3),
                         *o4 = kf_plan_output_desc(&plan, 4), *o1 = kf_plan_output_desc(&plan, 1);
    th_check(kf_plan_num_outputs(&plan) == 5 && o0 && o0->rank == r && o0->dtype == cf->T &&
               memcmp(o0->dims, cf->sh.d, sizeof(int64_t) * (size_t)r) == 0 && o1 && o1->rank == 1 &&
               o1->dims[0] == c && o1->dtype == KF_FLOAT && o3 && o3->rank == 1 && o3->dims[0] == 0 &&
               o4 && o4->rank == 1 && o4->dims[0] == 0 && o4->dtype == KF_FLOAT,
             "%s %s: output shapes (x_backprop like x, [C], [C], [0], [0])", what, how);
  }
  if (opt && opt->kernel) {
    int ki = kf_plan_kernel_index(&plan);
    if (ki >= 0 && ki < MAX_KERNELS) coverage[ki]++;
  }
  scratch_n = kf_plan_scratch_bytes(&plan);
  scratch = scratch_n ? malloc(scratch_n) : NULL; /* exact size: ASan catches overruns */
  ins[0] = dy; ins[1] = x; ins[2] = scale; ins[3] = mean; ins[4] = var; ins[5] = rs3;
  outs[0] = dx; outs[1] = dscale; outs[2] = doffset; outs[3] = NULL; outs[4] = NULL;
  st = kf_execute(&plan, ins, outs, scratch, scratch_n, &err);
  free(scratch);
  if (!th_check(st == KF_OK, "%s %s: execute: %s", what, how, st == KF_OK ? "" : err.message)) goto out;
  {
    /* Reductions are float (U) for every T; dx is rounded to T once. */
    double e_dx = th_rel_err(cf->T, dx, rdx, (size_t)numel, 1e-6);
    double e_sc = th_sum_err(dscale, rdscale, l1_dyxh, c) * 1e-5;
    double e_of = th_sum_err(doffset, rdoffset, l1_dy, c) * 1e-5;
    double tol = th_tol(cf->T), ftol = th_tol(KF_FLOAT);
    th_check(e_dx <= tol && e_sc <= ftol && e_of <= ftol,
             "%s %s [%s]: rel err x_backprop %.2e (tol %.0e), scale_backprop %.2e, offset_backprop %.2e (tol %.0e)",
             what, how, kf_plan_kernel_name(&plan), e_dx, tol, e_sc, e_of, ftol);
  }
  if (numel > 0)
    th_check(same_in_place(&plan, ins, (size_t)numel * es, dx, dscale, doffset, c, &err),
             "%s %s [%s]: x_backprop over y_backprop's buffer gives the same bits", what, how,
             kf_plan_kernel_name(&plan));
out:
  free(dy); free(x); free(dx); free(rdy); free(rx); free(rdx);
  free(scale); free(mean); free(var); free(dscale); free(doffset);
  free(rscale); free(rmean); free(rvar); free(rdscale); free(rdoffset);
  free(l1_dy); free(l1_dyxh);
}

static void run_all_ways(const config *cf) {
  kf_plan_options opt;
  int k;
  run(cf, NULL, "selected");
  memset(&opt, 0, sizeof opt);
  opt.generic_only = 1;
  run(cf, &opt, "generic_only");
  for (k = -1; (k = th_next_kernel(kf_op_family(op_of(cf->version)), k)) >= 0;) {
    memset(&opt, 0, sizeof opt);
    opt.kernel = th_kernel(k)->name;
    run(cf, &opt, "forced");
  }
}

/* Edge cases from each specialized kernel's metadata (forced): C at its
   vector length VL - 1, VL, VL + 1, and rows around its partial-sum block B
   (B - 1, B, B + 1, 2B + 1): rows = N x H x W with N = 1, H = 1. */
static void check_edges(void) {
  int k;
  for (k = -1; (k = th_next_kernel("bngrad", k)) >= 0;) {
    const kf_kernel_info *ki = th_kernel(k);
    const int vl = kf_kernel_lanes(k), b = kf_kernel_block(k, "rows");
    const int64_t cs[3] = { vl - 1, vl, vl + 1 }, rows[4] = { b - 1, b, b + 1, 2 * b + 1 };
    const char *layout = th_key(ki, "layout"), *mode = th_key(ki, "mode");
    kf_plan_options opt;
    int a, w;
    if (ki->generic || !layout || !mode) continue;
    memset(&opt, 0, sizeof opt);
    opt.kernel = ki->name;
    for (a = 0; a < 3; a++)
      for (w = 0; w < 4; w++) {
        config cf;
        const int last = strcmp(layout, "nhwc") == 0;
        if (cs[a] < 1 || rows[w] < 1) continue;
        cf.version = 3; cf.T = th_key_dtype(ki); cf.training = strcmp(mode, "train") == 0; cf.epsilon = 0.001f;
        cf.fmt = last ? KF_NHWC : KF_NCHW;
        cf.sh.rank = 4;
        cf.sh.d[0] = 1; cf.sh.d[last ? 1 : 2] = 1; cf.sh.d[last ? 2 : 3] = rows[w]; cf.sh.d[last ? 3 : 1] = cs[a];
        run(&cf, &opt, "edge");
      }
  }
}

/* ---- in place, threaded ---- */

/* Every specialized kernel of the registry (forced), V3, on shapes above PAR_MIN
   elements (the kernels run smaller ones on the calling thread): odd sizes,
   several tasks, channel tails, [N, C] channels first; for the x86 SIMD
   training kernels of float and half also x_backprop of at least NT_MIN
   bytes and vector-aligned, so that pass 2 uses streaming stores (NCHW
   planes of odd length: unaligned plane heads). The serial run with separate buffers is the reference:
   in place, serial and on 3 threads, must give its bits. */
static void check_in_place_threaded(void) {
  static const kf_dtype ts[] = { KF_HALF, KF_BFLOAT16, KF_FLOAT };
  /* dims in NHWC order (channels first uses N, C, H, W of the same sizes) */
  /* the last: C dividing a vector's lanes (pass 1's run), several tasks, an odd row count */
  static const int64_t shapes[4][4] = { { 3, 17, 19, 293 }, { 257, 1, 1, 1031 }, { 0, 31, 33, 64 }, { 9, 61, 67, 8 } };
  const int nthreads = th_pool3.num_threads;
  int t, f, m, sh, k;
  for (t = 0; t < 3; t++)
    for (f = 0; f < 2; f++)
      for (m = 0; m < 2; m++)
        for (sh = 0; sh < 4; sh++) {
          const kf_dtype T = ts[t];
          const size_t es = kf_dtype_size(T);
          int64_t d[4], cd[1], numel, c, i;
          kf_attrs at;
          kf_tensor_desc in[6];
          th_rng rng[1];
          void *dy, *x;
          float *scale, *mean, *var, rs3[1] = { 0 };
          const void *ins[6];
          char what[160];
          /* streaming stores: x86 SIMD only, pass 2 of training only; bfloat16
             streams as half does (16-bit stores): seconds saved under ASan */
          if (sh == 2 && (!(kf_cpu_isas() & (KF_ISA_AVX2 | KF_ISA_AVX512)) || !m || T == KF_BFLOAT16))
            continue;
          memcpy(d, shapes[sh], sizeof d);
          /* the streaming shape: N such that x_backprop is >= 8 MiB (NT_MIN) */
          if (d[0] == 0) d[0] = es == 4 ? 33 : 65;
          c = d[3];
          if (f == 1) { /* NCHW: N, C, H, W */
            int64_t h = d[1], w = d[2];
            d[1] = c; d[2] = h; d[3] = w;
          }
          numel = d[0] * d[1] * d[2] * d[3];
          snprintf(what, sizeof what, "in place threaded T=%s %s %s [%lld,%lld,%lld,%lld]", kf_dtype_name(T),
                   f ? "NCHW" : "NHWC", m ? "train" : "infer", (long long)d[0], (long long)d[1], (long long)d[2],
                   (long long)d[3]);
          th_seed_case(rng, "test_bngrad %s", what);
          dy = aligned_alloc(64, ((size_t)numel * es + 63) / 64 * 64);
          x = malloc((size_t)numel * es);
          scale = malloc((size_t)c * 4); mean = malloc((size_t)c * 4); var = malloc((size_t)c * 4);
          /* a random block of 65521 elements (prime: its repeats fall on
             other channels), repeated: generating millions costs seconds */
          for (i = 0; i < numel && i < 65521; i++) {
            th_store(T, dy, (size_t)i, th_uniform(rng, -2, 2));
            th_store(T, x, (size_t)i, th_uniform(rng, -2, 3));
          }
          for (; i < numel; i += 65521) {
            const int64_t len = numel - i < 65521 ? numel - i : 65521;
            memcpy((char *)dy + (size_t)i * es, dy, (size_t)len * es);
            memcpy((char *)x + (size_t)i * es, x, (size_t)len * es);
          }
          for (i = 0; i < c; i++) {
            scale[i] = (float)th_uniform(rng, -1.5, 1.5);
            mean[i] = (float)th_uniform(rng, -1, 1);
            var[i] = (float)th_uniform(rng, 0.05, 2);
          }
          kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
          at.T = T;
          at.data_format = f ? KF_NCHW : KF_NHWC;
          at.is_training = m;
          at.epsilon = 0.001f;
          in[0] = th_desc(T, 4, d);
          in[1] = in[0];
          cd[0] = c;
          in[2] = th_desc(KF_FLOAT, 1, cd);
          in[3] = in[4] = in[2];
          cd[0] = 0;
          in[5] = th_desc(KF_FLOAT, 1, cd);
          ins[0] = dy; ins[1] = x; ins[2] = scale; ins[3] = mean; ins[4] = var; ins[5] = rs3;
          for (k = -1; (k = th_next_kernel("bngrad", k)) >= 0;) {
            const char *name = th_kernel(k)->name;
            kf_plan_options opt;
            kf_plan plan;
            kf_error err = {0};
            void *dx, *outs[5], *scratch;
            float *ds, *dof;
            size_t scratch_n;
            int ok;
            if (!th_case("test_bngrad %s %s", what, name)) continue;
            if (th_kernel(k)->generic)
              continue; /* serial whatever the pool: run in place on every shape of run() */
            if (sh == 2 && !(th_kernel_isa(name) & (KF_ISA_AVX2 | KF_ISA_AVX512)))
              continue; /* streaming stores: x86 SIMD only; elsewhere the shape adds nothing */
            memset(&opt, 0, sizeof opt);
            opt.kernel = name;
            switch (th_plan_forced(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err)) {
              case TH_PLANNED: break;
              case TH_OTHER_CONFIG:
              case TH_NOT_HERE: continue; /* other configurations; ISAs not here (test_bngrad's runs report them) */
              default:
                th_check(0, "%s %s: plan: %s (%s)", what, name, err.message, err.rule);
                continue;
            }
            dx = aligned_alloc(64, ((size_t)numel * es + 63) / 64 * 64);
            ds = malloc((size_t)c * 4);
            dof = malloc((size_t)c * 4);
            scratch_n = kf_plan_scratch_bytes(&plan);
            scratch = scratch_n ? malloc(scratch_n) : NULL;
            outs[0] = dx; outs[1] = ds; outs[2] = dof; outs[3] = NULL; outs[4] = NULL;
            ok = kf_execute(&plan, ins, outs, scratch, scratch_n, &err) == KF_OK;
            free(scratch);
            th_check(ok && same_in_place(&plan, ins, (size_t)numel * es, dx, ds, dof, c, &err),
                     "%s [%s]: in place, serial: the same bits as separate buffers", what, name);
            opt.threads = &th_pool3;
            if (ok && th_plan_forced(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err) == TH_PLANNED)
              th_check(same_in_place(&plan, ins, (size_t)numel * es, dx, ds, dof, c, &err),
                       "%s [%s]: in place, %d threads: the same bits as separate buffers, serial", what, name,
                       nthreads);
            else
              th_check(0, "%s [%s]: threaded plan or serial run failed: %s", what, name, err.message);
            free(dx); free(ds); free(dof);
          }
          free(dy); free(x); free(scale); free(mean); free(var);
        }
}

/* ---- buffer offsets ---- */

/* Where the caller's buffers start must not change a bit of the result:
   every specialized kernel (forced), with caches simulated small
   (KFORGE_LLC) so that channels-last pass 1 sweeps whole rows and pass 2
   streams, runs with all buffers 64-byte aligned, then with dy, x and dx
   at other offsets (the same one, as numpy's 16 bytes, and dx apart from
   dy) and the scratch and per-channel arrays off their alignment too. */
static void check_offsets(void) {
  static const kf_dtype ts[] = { KF_HALF, KF_BFLOAT16, KF_FLOAT };
  /* NHWC dims; C a whole number of vectors (the sweep runs from dy's vector
     boundary) and not, and C dividing a vector's lanes (pass 1's run); N*H*W
     above BLOCK rows so that a task has blocks */
  static const int64_t shapes[5][4] = { { 2, 17, 19, 64 }, { 3, 11, 13, 40 }, { 1, 300, 1, 48 }, { 2, 17, 19, 8 }, { 3, 11, 13, 16 } };
  static const size_t offs[4][2] = { { 4, 4 }, { 16, 16 }, { 32, 32 }, { 16, 48 } }; /* dy and x, dx */
  int t, f, m, sh, k, o;
  setenv("KFORGE_LLC", "64K", 1);
  for (t = 0; t < 3; t++)
    for (f = 0; f < 2; f++)
      for (m = 0; m < 2; m++)
        for (sh = 0; sh < 5; sh++) {
          const kf_dtype T = ts[t];
          const size_t es = kf_dtype_size(T);
          int64_t d[4], cd[1], numel, c, i;
          size_t bytes;
          kf_attrs at;
          kf_tensor_desc in[6];
          th_rng rng[1];
          char *dy0, *x0, what[160];
          float *per;
          memcpy(d, shapes[sh], sizeof d);
          c = d[3];
          if (f == 1) { /* NCHW: N, C, H, W */
            int64_t h = d[1], w = d[2];
            d[1] = c; d[2] = h; d[3] = w;
          }
          numel = d[0] * d[1] * d[2] * d[3];
          bytes = (size_t)numel * es;
          snprintf(what, sizeof what, "offsets T=%s %s %s [%lld,%lld,%lld,%lld]", kf_dtype_name(T),
                   f ? "NCHW" : "NHWC", m ? "train" : "infer", (long long)d[0], (long long)d[1], (long long)d[2],
                   (long long)d[3]);
          th_seed_case(rng, "test_bngrad %s", what);
          dy0 = malloc(bytes);
          x0 = malloc(bytes);
          per = malloc((size_t)c * 3 * sizeof(float)); /* scale, mean, var */
          for (i = 0; i < numel; i++) {
            th_store(T, dy0, (size_t)i, th_uniform(rng, -2, 2));
            th_store(T, x0, (size_t)i, th_uniform(rng, -2, 3));
          }
          for (i = 0; i < c; i++) {
            per[i] = (float)th_uniform(rng, -1.5, 1.5);
            per[c + i] = (float)th_uniform(rng, -1, 1);
            per[2 * c + i] = (float)th_uniform(rng, 0.05, 2);
          }
          kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
          at.T = T;
          at.data_format = f ? KF_NCHW : KF_NHWC;
          at.is_training = m;
          at.epsilon = 0.001f;
          in[0] = th_desc(T, 4, d);
          in[1] = in[0];
          cd[0] = c;
          in[2] = th_desc(KF_FLOAT, 1, cd);
          in[3] = in[4] = in[2];
          cd[0] = 0;
          in[5] = th_desc(KF_FLOAT, 1, cd);
          for (k = -1; (k = th_next_kernel("bngrad", k)) >= 0;) {
            const char *name = th_kernel(k)->name;
            kf_plan_options opt;
            kf_plan plan;
            kf_error err = {0};
            char *ref = NULL;
            if (th_kernel(k)->generic || !th_case("test_bngrad %s %s", what, name)) continue;
            memset(&opt, 0, sizeof opt);
            opt.kernel = name;
            switch (th_plan_forced(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err)) {
              case TH_PLANNED: break;
              case TH_OTHER_CONFIG:
              case TH_NOT_HERE: continue;
              default:
                th_check(0, "%s %s: plan: %s (%s)", what, name, err.message, err.rule);
                continue;
            }
            for (o = -1; o < 4; o++) {
              /* o = -1: everything 64-byte aligned, the reference */
              const size_t od = o < 0 ? 0 : offs[o][0], ox = o < 0 ? 0 : offs[o][1], op = o < 0 ? 0 : 4;
              const size_t scratch_n = kf_plan_scratch_bytes(&plan), outn = bytes + 2 * (size_t)c * sizeof(float);
              char *bdy = aligned_alloc(64, (bytes + 127) / 64 * 64), *bx = aligned_alloc(64, (bytes + 127) / 64 * 64);
              char *bdx = aligned_alloc(64, (bytes + 127) / 64 * 64), *bper = aligned_alloc(64, (c * 20 + 127) / 64 * 64);
              char *bs = aligned_alloc(64, (scratch_n + 127) / 64 * 64), *got = malloc(outn);
              float *scale = (float *)(bper + op), *mean = scale + c, *var = mean + c, *ds = var + c, *dof = ds + c;
              const void *ins[6];
              void *outs[5];
              float rs3[1] = { 0 };
              int ok;
              memcpy(bdy + od, dy0, bytes);
              memcpy(bx + od, x0, bytes);
              memcpy(scale, per, (size_t)c * 3 * sizeof(float));
              ins[0] = bdy + od; ins[1] = bx + od; ins[2] = scale; ins[3] = mean; ins[4] = var; ins[5] = rs3;
              outs[0] = bdx + ox; outs[1] = ds; outs[2] = dof; outs[3] = NULL; outs[4] = NULL;
              ok = kf_execute(&plan, ins, outs, scratch_n ? bs + op : NULL, scratch_n, &err) == KF_OK;
              memcpy(got, bdx + ox, bytes);
              memcpy(got + bytes, ds, 2 * (size_t)c * sizeof(float));
              if (o < 0)
                ref = got;
              else {
                th_check(ok && ref && memcmp(ref, got, outn) == 0,
                         "%s [%s]: dy and x %zu bytes past a 64-byte boundary, dx %zu: the bits of the aligned run%s%s",
                         what, name, od, ox, ok ? "" : ": ", ok ? "" : err.message);
                free(got);
              }
              free(bdy); free(bx); free(bdx); free(bper); free(bs);
            }
            free(ref);
          }
          free(dy0); free(x0); free(per);
        }
  unsetenv("KFORGE_LLC");
}

/* ---- the few-rows plan ---- */

/* Runs plan on one thread (or three) into dx (x_backprop), ds, dof; with
   in_place, dx starts as a copy of dy and is passed as y_backprop too. */
static int columns_run(const kf_plan *plan, const void *dy, const void *x, const float *per, int64_t c, size_t bytes,
                       int in_place, void *dx, float *ds, float *dof, kf_error *err) {
  const size_t sb = kf_plan_scratch_bytes(plan);
  void *scratch = malloc(sb ? sb : 1);
  const void *ins[6];
  void *outs[5];
  float rs3[1] = { 0 };
  int ok;
  if (in_place) memcpy(dx, dy, bytes);
  ins[0] = in_place ? dx : dy; ins[1] = x; ins[2] = per; ins[3] = per + c; ins[4] = per + 2 * c; ins[5] = rs3;
  outs[0] = dx; outs[1] = ds; outs[2] = dof; outs[3] = NULL; outs[4] = NULL;
  ok = kf_execute(plan, ins, outs, scratch, sb, err) == KF_OK;
  free(scratch);
  return ok;
}

/* Knob variants (the tuner's kernels, named <kernel>__<isa>_<tag><value>...)
   with a fixed task grain (t) or pass 1 always sweeping (w2) split the rows
   plan's sums their own way; the few-rows plan's bits then differ from it,
   as two plans may (docs/tuning.md). */
static int rows_order_is_rule(const char *name) {
  const char *s = strstr(name, "__");
  for (s = s ? strchr(s + 2, '_') : NULL; s; s = strchr(s + 1, '_'))
    if ((s[1] == 't' && s[2] >= '1' && s[2] <= '9') || (s[1] == 'w' && s[2] == '2')) return 0;
  return 1;
}

/* Training over at most BLOCK rows of many channels, whose dy, x and dx
   exceed half the L2, runs both passes per channel block (the few-rows
   plan). Its sums add in the rows plan's order, so every specialized
   kernel (forced) must give the bits of the rows plan on one task (a
   simulated 64 MiB L2, where the data fit and all rows are one task) under
   simulated L2s of 512 KiB (Zen 3), 1 MiB (Zen 5) and 2 MiB (Emerald
   Rapids), serially, on three threads (a block is a task) and in place;
   and x_backprop must match the float64 reference. A knob variant whose
   rows plan sums in its own order must give, under each L2, the bits of
   its serial run on three threads and in place, and match the reference. */
static void check_columns(void) {
  static const kf_dtype ts[] = { KF_HALF, KF_BFLOAT16, KF_FLOAT };
  static const int64_t shapes[2][2] = { { 64, 2048 }, { 48, 1300 } }; /* rows, C: C a whole number of vectors and not */
  static const char *const l2s[3] = { "512K", "1M", "2M" };
  int t, f, sh, k, li, way;
  setenv("KFORGE_L1D", "48K", 1); /* the same sub-blocks of rows in every plan */
  setenv("KFORGE_LLC", "64M", 1); /* no sweep */
  for (t = 0; t < 3; t++)
    for (f = 0; f < 2; f++)
      for (sh = 0; sh < 2; sh++) {
        const kf_dtype T = ts[t];
        const size_t es = kf_dtype_size(T);
        const int64_t M = shapes[sh][0], c = shapes[sh][1], numel = M * c;
        const size_t bytes = (size_t)numel * es;
        int64_t d[4], cd[1], i;
        kf_attrs at;
        kf_tensor_desc in[6];
        th_rng rng[1];
        char *dy = malloc(bytes), *x = malloc(bytes), what[160];
        float *per = malloc((size_t)c * 3 * sizeof(float));
        double *rdy = malloc((size_t)numel * sizeof(double)), *rx = malloc((size_t)numel * sizeof(double));
        double *rdx = malloc((size_t)numel * sizeof(double)), *rp = malloc((size_t)c * 5 * sizeof(double));
        d[0] = M; d[1] = f ? c : 1; d[2] = 1; d[3] = f ? 1 : c;
        snprintf(what, sizeof what, "few rows T=%s %s [%lld,%lld,%lld,%lld]", kf_dtype_name(T), f ? "NCHW" : "NHWC",
                 (long long)d[0], (long long)d[1], (long long)d[2], (long long)d[3]);
        th_seed_case(rng, "test_bngrad %s", what);
        for (i = 0; i < numel; i++) {
          rdy[i] = th_round(T, th_uniform(rng, -2, 2));
          rx[i] = th_round(T, th_uniform(rng, -2, 3));
          th_store(T, dy, (size_t)i, rdy[i]);
          th_store(T, x, (size_t)i, rx[i]);
        }
        for (i = 0; i < c; i++) {
          rp[i] = per[i] = (float)th_uniform(rng, -1.5, 1.5);
          rp[c + i] = per[c + i] = (float)th_uniform(rng, -1, 1);
          rp[2 * c + i] = per[2 * c + i] = (float)th_uniform(rng, 0.05, 2);
        }
        ref_bngrad(1, 1, M, c, 1, 0.001f, rdy, rx, rp, rp + c, rp + 2 * c, rdx, rp + 3 * c, rp + 4 * c);
        kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
        at.T = T;
        at.data_format = f ? KF_NCHW : KF_NHWC;
        at.is_training = 1;
        at.epsilon = 0.001f;
        in[0] = th_desc(T, 4, d);
        in[1] = in[0];
        cd[0] = c;
        in[2] = th_desc(KF_FLOAT, 1, cd);
        in[3] = in[4] = in[2];
        cd[0] = 0;
        in[5] = th_desc(KF_FLOAT, 1, cd);
        for (k = -1; (k = th_next_kernel("bngrad", k)) >= 0;) {
          const char *name = th_kernel(k)->name;
          const size_t outn = bytes + 2 * (size_t)c * sizeof(float);
          char *ref = malloc(outn), *got = malloc(outn);
          kf_plan_options opt;
          kf_plan plan;
          kf_error err = {0};
          if (th_kernel(k)->generic || !th_case("test_bngrad %s %s", what, name)) { free(ref); free(got); continue; }
          memset(&opt, 0, sizeof opt);
          opt.kernel = name;
          setenv("KFORGE_L2", "64M", 1);
          switch (th_plan_forced(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err)) {
            case TH_PLANNED: break;
            case TH_OTHER_CONFIG:
            case TH_NOT_HERE: free(ref); free(got); continue;
            default:
              th_check(0, "%s %s: plan: %s (%s)", what, name, err.message, err.rule);
              free(ref); free(got);
              continue;
          }
          if (!th_check(columns_run(&plan, dy, x, per, c, bytes, 0, ref, (float *)(ref + bytes),
                                    (float *)(ref + bytes) + c, &err),
                        "%s [%s]: the rows plan on one task runs (%s)", what, name, err.message)) {
            free(ref); free(got);
            continue;
          }
          th_check(th_rel_err(T, ref, rdx, (size_t)numel, 1e-6) <= th_tol(T), "%s [%s]: x_backprop vs float64 reference",
                   what, name);
          for (li = 0; li < 3; li++) {
            setenv("KFORGE_L2", l2s[li], 1);
            for (way = 0; way < 3; way++) { /* serial, three threads, in place */
              int ok;
              opt.threads = way == 1 ? &th_pool3 : NULL;
              ok = kf_plan_op(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err) == KF_OK &&
                   columns_run(&plan, dy, x, per, c, bytes, way == 2, got, (float *)(got + bytes), (float *)(got + bytes) + c,
                               &err);
              if (ok && way == 0 && !rows_order_is_rule(name)) { /* this L2's serial run is the reference */
                th_check(th_rel_err(T, got, rdx, (size_t)numel, 1e-6) <= th_tol(T),
                         "%s [%s] L2 %s: x_backprop vs float64 reference", what, name, l2s[li]);
                memcpy(ref, got, outn);
              }
              th_check(ok && memcmp(ref, got, outn) == 0, "%s [%s] L2 %s %s: the bits of %s%s%s", what, name, l2s[li],
                       way == 0 ? "serial" : way == 1 ? "3 threads" : "in place",
                       rows_order_is_rule(name) ? "the rows plan on one task" : "its serial run", ok ? "" : ": ",
                       ok ? "" : err.message);
            }
          }
          free(ref);
          free(got);
        }
        free(dy); free(x); free(per); free(rdy); free(rx); free(rdx); free(rp);
      }
  unsetenv("KFORGE_L1D");
  unsetenv("KFORGE_L2");
  unsetenv("KFORGE_LLC");
}

/* ---- the channel-block plan (channels first) ---- */

/* Training, channels first, where the LLC is over 64 times the L2 (a
   simulated 300 MiB LLC) and dy, x and dx exceed half the L2: both passes
   per block of channels. Each plane's sums and the tree over the images
   are the planes plan's, so every specialized kernel (forced) must give
   the planes plan's bits (a simulated 4 MiB LLC: never channel blocks)
   under simulated L2s of 128 KiB, 256 KiB and 1 MiB (blocks of 1 to 18
   channels, a last one partial; 6x40x9x11 fits half of 1 MiB: the planes
   plan), serially, on three threads (8x64x24x24 is over PAR_MIN) and in
   place; and x_backprop must match the float64 reference. */
static void check_channel_blocks(void) {
  static const kf_dtype ts[] = { KF_HALF, KF_BFLOAT16, KF_FLOAT };
  static const int64_t shapes[2][4] = { { 6, 40, 9, 11 }, { 8, 64, 24, 24 } }; /* odd planes; whole vectors */
  static const char *const l2s[3] = { "128K", "256K", "1M" };
  int t, sh, k, li, way;
  for (t = 0; t < 3; t++)
    for (sh = 0; sh < 2; sh++) {
      const kf_dtype T = ts[t];
      const size_t es = kf_dtype_size(T);
      const int64_t *d = shapes[sh], n = d[0], c = d[1], s = d[2] * d[3], numel = n * c * s;
      const size_t bytes = (size_t)numel * es;
      int64_t cd[1], i;
      kf_attrs at;
      kf_tensor_desc in[6];
      th_rng rng[1];
      char *dy = malloc(bytes), *x = malloc(bytes), what[160];
      float *per = malloc((size_t)c * 3 * sizeof(float));
      double *rdy = malloc((size_t)numel * sizeof(double)), *rx = malloc((size_t)numel * sizeof(double));
      double *rdx = malloc((size_t)numel * sizeof(double)), *rp = malloc((size_t)c * 5 * sizeof(double));
      snprintf(what, sizeof what, "channel blocks T=%s NCHW [%lld,%lld,%lld,%lld]", kf_dtype_name(T), (long long)d[0],
               (long long)d[1], (long long)d[2], (long long)d[3]);
      th_seed_case(rng, "test_bngrad %s", what);
      for (i = 0; i < numel; i++) {
        rdy[i] = th_round(T, th_uniform(rng, -2, 2));
        rx[i] = th_round(T, th_uniform(rng, -2, 3));
        th_store(T, dy, (size_t)i, rdy[i]);
        th_store(T, x, (size_t)i, rx[i]);
      }
      for (i = 0; i < c; i++) {
        rp[i] = per[i] = (float)th_uniform(rng, -1.5, 1.5);
        rp[c + i] = per[c + i] = (float)th_uniform(rng, -1, 1);
        rp[2 * c + i] = per[2 * c + i] = (float)th_uniform(rng, 0.05, 2);
      }
      ref_bngrad(0, 1, n, c, s, 0.001f, rdy, rx, rp, rp + c, rp + 2 * c, rdx, rp + 3 * c, rp + 4 * c);
      kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
      at.T = T;
      at.data_format = KF_NCHW;
      at.is_training = 1;
      at.epsilon = 0.001f;
      in[0] = th_desc(T, 4, d);
      in[1] = in[0];
      cd[0] = c;
      in[2] = th_desc(KF_FLOAT, 1, cd);
      in[3] = in[4] = in[2];
      cd[0] = 0;
      in[5] = th_desc(KF_FLOAT, 1, cd);
      for (k = -1; (k = th_next_kernel("bngrad", k)) >= 0;) {
        const char *name = th_kernel(k)->name;
        const size_t outn = bytes + 2 * (size_t)c * sizeof(float);
        char *ref = malloc(outn), *got = malloc(outn);
        kf_plan_options opt;
        kf_plan plan;
        kf_error err = {0};
        if (th_kernel(k)->generic || !th_case("test_bngrad %s %s", what, name)) { free(ref); free(got); continue; }
        memset(&opt, 0, sizeof opt);
        opt.kernel = name;
        setenv("KFORGE_L2", "256K", 1);
        setenv("KFORGE_LLC", "4M", 1);
        switch (th_plan_forced(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err)) {
          case TH_PLANNED: break;
          case TH_OTHER_CONFIG:
          case TH_NOT_HERE: free(ref); free(got); continue;
          default:
            th_check(0, "%s %s: plan: %s (%s)", what, name, err.message, err.rule);
            free(ref); free(got);
            continue;
        }
        if (!th_check(columns_run(&plan, dy, x, per, c, bytes, 0, ref, (float *)(ref + bytes), (float *)(ref + bytes) + c,
                                  &err),
                      "%s [%s]: the planes plan runs (%s)", what, name, err.message)) {
          free(ref); free(got);
          continue;
        }
        th_check(th_rel_err(T, ref, rdx, (size_t)numel, 1e-6) <= th_tol(T), "%s [%s]: x_backprop vs float64 reference",
                 what, name);
        setenv("KFORGE_LLC", "300M", 1);
        for (li = 0; li < 3; li++) {
          setenv("KFORGE_L2", l2s[li], 1);
          for (way = 0; way < 3; way++) { /* serial, three threads, in place */
            int ok;
            opt.threads = way == 1 ? &th_pool3 : NULL;
            ok = kf_plan_op(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err) == KF_OK &&
                 columns_run(&plan, dy, x, per, c, bytes, way == 2, got, (float *)(got + bytes), (float *)(got + bytes) + c,
                             &err);
            th_check(ok && memcmp(ref, got, outn) == 0, "%s [%s] L2 %s %s: the planes plan's bits%s%s", what, name, l2s[li],
                     way == 0 ? "serial" : way == 1 ? "3 threads" : "in place", ok ? "" : ": ", ok ? "" : err.message);
          }
        }
        free(ref);
        free(got);
      }
      free(dy); free(x); free(per); free(rdy); free(rx); free(rdx); free(rp);
    }
  unsetenv("KFORGE_L2");
  unsetenv("KFORGE_LLC");
}

/* The default set has a specialization for every (T, layout, mode). */
static void check_selection(void) {
  static const kf_dtype ts[] = { KF_HALF, KF_BFLOAT16, KF_FLOAT };
  int t, f, m;
  for (t = 0; t < 3; t++)
    for (f = 0; f < 4; f++)
      for (m = 0; m < 2; m++) {
        kf_attrs at;
        kf_plan p1, p2;
        kf_plan_options g;
        kf_tensor_desc in[6];
        int64_t d[5] = { 2, 3, 4, 5, 6 }, cd[1];
        int r = f >= 2 ? 5 : 4;
        cd[0] = f == 0 || f == 2 ? d[r - 1] : d[1];
        kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
        at.T = ts[t];
        at.data_format = (kf_data_format)f;
        at.is_training = m;
        in[0] = th_desc(ts[t], r, d);
        in[1] = in[0];
        in[2] = th_desc(KF_FLOAT, 1, cd);
        in[3] = in[4] = in[5] = in[2];
        memset(&g, 0, sizeof g);
        g.generic_only = 1;
        if (kf_plan_op(&p1, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, NULL, NULL) != KF_OK ||
            kf_plan_op(&p2, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &g, NULL) != KF_OK) {
          th_check(0, "selection: plan failed for T=%s %s", kf_dtype_name(ts[t]), fmt_names[f]);
          continue;
        }
        th_check(kf_plan_kernel_index(&p1) >= 0 && !th_kernel(kf_plan_kernel_index(&p1))->generic &&
                   kf_plan_kernel_index(&p2) >= 0 && th_kernel(kf_plan_kernel_index(&p2))->generic,
                 "selection: T=%s %s %s runs specialized %s (generic is %s)", kf_dtype_name(ts[t]), fmt_names[f],
                 m ? "train" : "infer", kf_plan_kernel_name(&p1), kf_plan_kernel_name(&p2));
      }
}

/* x_backprop of consistent statistics with N*H*W = 1 is 0 (TF's formula). */
static void check_single_position(void) {
  float x[3] = { 0.5f, -1.25f, 2.0f }, dy[3] = { 0.3f, -0.7f, 1.1f }, scale[3] = { 1, 2, 3 };
  float var[3] = { 0, 0, 0 }, dx[3], ds[3], dof[3];
  kf_attrs at;
  kf_error err = {0};
  kf_tensor_desc d;
  int64_t dims[4] = { 1, 1, 1, 3 };
  char scratch[1024]; /* the kernels pad their coefficient arrays by a vector */
  kf_status st;
  kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD, &at);
  at.epsilon = 0.001f;
  d = th_desc(KF_FLOAT, 4, dims);
  st = kf_fused_batch_norm_grad(1, &at, &d, dy, x, scale, x, var, dx, ds, dof, scratch, sizeof scratch, &err);
  th_check(st == KF_OK && fabsf(dx[0]) < 1e-6f && fabsf(dx[1]) < 1e-6f && fabsf(dx[2]) < 1e-6f &&
             ds[0] == 0.0f && dof[1] == dy[1],
           "N*H*W=1 with its own statistics: x_backprop 0, offset_backprop = dy (%s)", st ? err.message : "ok");
}

/* The AVX2 bfloat16 conversions against the reference ones
   (kf_float_to_bfloat16, kf_bfloat16_to_float), bit for bit: every upper
   half (sign, exponent, the kept mantissa: zeros, denormals, Inf, every
   NaN) with the lower halves where rounding turns: 0, 1, just below, at
   and above the tie, 0xffff, and two more. */
static void check_avx2_bf16(void) {
#ifdef HAVE_AVX2_BF16
  static const uint32_t lows[8] = { 0, 1, 0x7fff, 0x8000, 0x8001, 0xffff, 0x1234, 0xc000 };
  uint32_t hi, bits[8], wide[8], bad_n = 0, bad_w = 0, first = 0;
  uint16_t narrow[8];
  int i;
  if (!(kf_cpu_isas() & KF_ISA_AVX2)) {
    th_skip("AVX2 bfloat16 conversions: this CPU (or KFORGE_ISA) has no AVX2");
    return;
  }
  for (hi = 0; hi < 0x10000; hi++) {
    for (i = 0; i < 8; i++) bits[i] = hi << 16 | lows[i];
    avx2_bf16_narrow(bits, narrow);
    for (i = 0; i < 8; i++) {
      float f;
      memcpy(&f, &bits[i], sizeof f);
      if (narrow[i] != kf_float_to_bfloat16(f) && bad_n++ == 0) first = bits[i];
    }
  }
  for (hi = 0; hi < 0x10000; hi += 8) {
    for (i = 0; i < 8; i++) narrow[i] = (uint16_t)(hi + (uint32_t)i);
    avx2_bf16_widen(narrow, wide);
    for (i = 0; i < 8; i++) {
      const float g = kf_bfloat16_to_float(narrow[i]);
      uint32_t want;
      memcpy(&want, &g, sizeof want);
      bad_w += wide[i] != want;
    }
  }
  th_check(bad_n == 0, "AVX2 float -> bfloat16: every upper half with 8 lower halves as kf_float_to_bfloat16 (%u differ, "
                       "the first 0x%08x)", (unsigned)bad_n, (unsigned)first);
  th_check(bad_w == 0, "AVX2 bfloat16 -> float: all 65536 patterns as kf_bfloat16_to_float (%u differ)", (unsigned)bad_w);
#else
  th_skip("AVX2 bfloat16 conversions: not an x86-64 build");
#endif
}

/* A NaN in one channel's dy poisons that channel's sums only. */
static void check_nan_isolation(void) {
  float x[8], dy[8], scale[2] = { 1, 1 }, mean[2] = { 0, 0 }, var[2] = { 1, 1 }, dx[8], ds[2], dof[2];
  kf_attrs at;
  kf_tensor_desc d;
  int64_t dims[4] = { 1, 2, 2, 2 };
  char scratch[1024];
  int i;
  for (i = 0; i < 8; i++) { x[i] = (float)i * 0.25f; dy[i] = 1.0f - (float)i * 0.1f; }
  dy[2] = NAN; /* channel 0 */
  kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V2, &at);
  d = th_desc(KF_FLOAT, 4, dims);
  kf_fused_batch_norm_grad(2, &at, &d, dy, x, scale, mean, var, dx, ds, dof, scratch, sizeof scratch, NULL);
  th_check(isnan(ds[0]) && isnan(dof[0]) && isnan(dx[0]) && !isnan(ds[1]) && !isnan(dof[1]) && !isnan(dx[1]),
           "NaN in channel 0 of y_backprop poisons channel 0 only");
}

int main(void) {
  int v, t, f, m, k, e;
  static const kf_dtype ts[] = { KF_HALF, KF_BFLOAT16, KF_FLOAT };
  static const float eps[] = { 0.0001f, 0.5f };
  for (v = 1; v <= 3; v++)
    for (t = 0; t < 3; t++) {
      if (v == 1 && ts[t] != KF_FLOAT) continue;
      for (f = 0; f < (v == 3 ? 4 : 2); f++)
        for (m = 0; m < 2; m++) {
          const shape *list = f >= 2 ? shapes5 : shapes4;
          int count = f >= 2 ? (int)(sizeof shapes5 / sizeof shapes5[0]) : (int)(sizeof shapes4 / sizeof shapes4[0]);
          for (k = 0; k < count; k++)
            for (e = 0; e < 2; e++) {
              config cf;
              if (e == 1 && k % 3 != 0) continue; /* the second epsilon on a few shapes */
              cf.version = v;
              cf.T = ts[t];
              cf.fmt = (kf_data_format)f;
              cf.training = m;
              cf.epsilon = eps[e];
              cf.sh = list[k];
              run_all_ways(&cf);
            }
          if (v >= 2) { /* 5-D tensors with a 2-D format name: TF's kernel views them the same way */
            config cf;
            cf.version = v; cf.T = ts[t]; cf.fmt = (kf_data_format)f; cf.training = m; cf.epsilon = 0.001f;
            cf.sh = shapes5[0];
            run(&cf, NULL, "5-D with 2-D format");
          }
        }
    }
  th_case_end();
  for (k = -1; (k = th_next_kernel(kf_op_family(KF_OP_FUSED_BATCH_NORM_GRAD), k)) >= 0 && k < MAX_KERNELS;) {
    const char *name = th_kernel(k)->name;
    if (th_kernel_runnable(name))
      th_check(coverage[k] > 0, "kernel %s was exercised (%d runs)", name, coverage[k]);
    else
      th_skip("kernel %s was exercised: its ISA %s does not run here", name, kf_isa_name(th_kernel_isa(name)));
  }
  check_edges();
  check_in_place_threaded();
  th_case_end();
  check_offsets();
  th_case_end();
  check_columns();
  th_case_end();
  check_channel_blocks();
  th_case_end();
  check_selection();
  check_single_position();
  check_nan_isolation();
  check_avx2_bf16();
  return th_done();
}
