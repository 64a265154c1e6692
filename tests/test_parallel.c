/*
** test_parallel.c -- every batch-norm gradient kernel of the registry,
** forced by name, run serially and through a real thread pool (Debian's
** pthreadpool) with 1, 2, 3 and 4 threads: outputs must be bitwise
** identical, whatever the pool does. Shapes have odd sizes (channel tails,
** partial row blocks, planes that are not a multiple of the vector width),
** are large enough to take the parallel path (kernels run small problems on
** the calling thread) and wide enough to use every channel tile; the serial
** result is also checked against the double-precision reference.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthreadpool.h>

#include "harness.h"
#include "ref/bngrad_ref.h"

/* Workers sleep between calls (YIELD_WORKERS): spinning, the 4-thread pool
   took the cores from the serial references between calls (three quarters
   of the test's CPU time on 2 cores). */
static void pool_for(void *pool, kf_task_fn task, void *ctx, size_t n) {
  pthreadpool_parallelize_1d((pthreadpool_t)pool, (pthreadpool_task_1d_t)task, ctx, n, PTHREADPOOL_FLAG_YIELD_WORKERS);
}

typedef struct { int64_t d[4]; } shape4; /* dims in data_format order */

static const shape4 shapes[] = {
  { { 3, 17, 19, 293 } },   /* 284k elements: every tile width and a channel tail */
  { { 6, 131, 133, 3 } },   /* tiny C, many rows */
  { { 2, 9, 7, 2051 } },    /* wide C: several full tiles */
  { { 257, 1, 1, 1031 } },  /* NCHW with one spatial position: [N, C] */
  { { 1, 5, 7, 9 } },       /* small: runs serially */
};

static const kf_dtype types[] = { KF_HALF, KF_BFLOAT16, KF_FLOAT };

static void one(const char *kname, kf_dtype T, kf_data_format fmt, int training, const shape4 *sh,
                pthreadpool_t pools[5]) {
  const int last = fmt == KF_NHWC;
  const int64_t n = sh->d[0], c = last ? sh->d[3] : sh->d[1];
  const int64_t s = last ? sh->d[1] * sh->d[2] : sh->d[2] * sh->d[3];
  const int64_t numel = n * c * s;
  const size_t es = kf_dtype_size(T);
  kf_attrs at;
  kf_tensor_desc in[6];
  kf_plan_options opt;
  kf_plan plan;
  kf_error err = {0};
  kf_threads th;
  kf_status st;
  void *dy, *x, *dx[6];
  float *scale, *mean, *var, *ds[6], *dof[6];
  double *rdy, *rx, *rsc, *rm, *rv, *rdx, *rds, *rdo;
  int64_t i, cd[1];
  int k, nt;
  th_rng rng[1];
  char what[256];

  snprintf(what, sizeof what, "%s T=%s %s %s [%lld,%lld,%lld,%lld]%s", kname, kf_dtype_name(T),
           last ? "NHWC" : "NCHW", training ? "train" : "infer", (long long)sh->d[0], (long long)sh->d[1],
           (long long)sh->d[2], (long long)sh->d[3], getenv("KFORGE_LLC") ? " KFORGE_LLC=64K" : "");
  /* The case's own data: seeded from the configuration and shape (not the
     kernel, so every kernel of a configuration gets the same data). */
  th_seed_case(rng, "test_parallel T=%s %s %s [%lld,%lld,%lld,%lld]", kf_dtype_name(T), last ? "NHWC" : "NCHW",
               training ? "train" : "infer", (long long)sh->d[0], (long long)sh->d[1], (long long)sh->d[2],
               (long long)sh->d[3]);
  kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
  at.T = T;
  at.data_format = fmt;
  at.is_training = training;
  at.epsilon = 0.001f;
  in[0] = th_desc(T, 4, sh->d);
  in[1] = in[0];
  cd[0] = c;
  in[2] = th_desc(KF_FLOAT, 1, cd);
  in[3] = in[4] = in[5] = in[2];
  memset(&opt, 0, sizeof opt);
  opt.kernel = kname;
  switch (th_plan_forced(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err)) {
    case TH_PLANNED: th_check(1, "%s: plan: ", what); break;
    case TH_OTHER_CONFIG: return; /* the kernel serves another configuration */
    case TH_NOT_HERE: th_skip("%s: %s", what, err.message); return;
    default: th_check(0, "%s: plan: %s (%s)", what, err.message, err.rule); return;
  }

  dy = malloc((size_t)numel * es);
  x = malloc((size_t)numel * es);
  rdy = malloc((size_t)numel * sizeof(double));
  rx = malloc((size_t)numel * sizeof(double));
  rdx = malloc((size_t)numel * sizeof(double));
  scale = malloc((size_t)c * 4); mean = malloc((size_t)c * 4); var = malloc((size_t)c * 4);
  rsc = malloc((size_t)c * 8); rm = malloc((size_t)c * 8); rv = malloc((size_t)c * 8);
  rds = malloc((size_t)c * 8); rdo = malloc((size_t)c * 8);
  for (i = 0; i < numel; i++) {
    rdy[i] = th_round(T, th_uniform(rng, -2, 2));
    rx[i] = th_round(T, th_uniform(rng, -2, 3));
    th_store(T, dy, (size_t)i, rdy[i]);
    th_store(T, x, (size_t)i, rx[i]);
  }
  for (i = 0; i < c; i++) {
    rsc[i] = scale[i] = (float)th_uniform(rng, -1.5, 1.5);
    rm[i] = mean[i] = (float)th_uniform(rng, -1, 1);
    rv[i] = var[i] = (float)th_uniform(rng, 0.05, 2);
  }
  ref_bngrad(last, training, n, c, s, 0.001, rdy, rx, rsc, rm, rv, rdx, rds, rdo);

  /* run 0: serial (no pool); runs 1..4: pools of 1..4 threads */
  for (nt = 0; nt <= 4; nt++) {
    size_t sb;
    void *scratch;
    const void *ins[6];
    void *outs[5];
    dx[nt] = malloc((size_t)numel * es);
    ds[nt] = malloc((size_t)c * 4);
    dof[nt] = malloc((size_t)c * 4);
    memset(dx[nt], 0xa5, (size_t)numel * es);
    if (nt > 0) {
      th.parallel_for = pool_for;
      th.pool = pools[nt];
      th.num_threads = nt;
      opt.threads = &th;
    } else {
      opt.threads = NULL;
    }
    st = kf_plan_op(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err);
    if (!th_check(st == KF_OK, "%s: plan with %d threads", what, nt)) continue;
    sb = kf_plan_scratch_bytes(&plan);
    scratch = malloc(sb ? sb : 1);
    memset(scratch, 0x5a, sb ? sb : 1); /* stale scratch must not matter */
    ins[0] = dy; ins[1] = x; ins[2] = scale; ins[3] = mean; ins[4] = var; ins[5] = var;
    outs[0] = dx[nt]; outs[1] = ds[nt]; outs[2] = dof[nt]; outs[3] = NULL; outs[4] = NULL;
    st = kf_execute(&plan, ins, outs, scratch, sb, &err);
    free(scratch);
    th_check(st == KF_OK, "%s: execute with %d threads", what, nt);
  }
  {
    double e_dx = th_rel_err(T, dx[0], rdx, (size_t)numel, 1e-6);
    /* the documented bound (docs/testing.md): 1e-5 of max |want| plus 1e-6
       of each channel's sum of |terms|, as in test_bngrad */
    double *l1d = calloc((size_t)c, sizeof(double)), *l1s = calloc((size_t)c, sizeof(double));
    double e_sc, e_of;
    for (i = 0; i < numel; i++) {
      const int64_t ch = last ? i % c : (i / s) % c;
      l1d[ch] += fabs(rdy[i]);
      l1s[ch] += fabs(rdy[i] * (rx[i] - rm[ch]) / sqrt(rv[ch] + 0.001));
    }
    e_sc = th_sum_err(ds[0], rds, l1s, c) * 1e-5;
    e_of = th_sum_err(dof[0], rdo, l1d, c) * 1e-5;
    free(l1d), free(l1s);
    th_check(e_dx <= th_tol(T) && e_sc <= th_tol(KF_FLOAT) && e_of <= th_tol(KF_FLOAT),
             "%s: serial vs reference: x_backprop %.2e, scale_backprop %.2e, offset_backprop %.2e", what, e_dx, e_sc,
             e_of);
  }
  for (nt = 1; nt <= 4; nt++) {
    k = memcmp(dx[0], dx[nt], (size_t)numel * es) == 0 && memcmp(ds[0], ds[nt], (size_t)c * 4) == 0 &&
        memcmp(dof[0], dof[nt], (size_t)c * 4) == 0;
    th_check(k, "%s: %d threads bitwise identical to serial", what, nt);
  }
  for (nt = 0; nt <= 4; nt++) { free(dx[nt]); free(ds[nt]); free(dof[nt]); }
  free(dy); free(x); free(rdy); free(rx); free(rdx);
  free(scale); free(mean); free(var); free(rsc); free(rm); free(rv); free(rds); free(rdo);
}

int main(void) {
  pthreadpool_t pools[5];
  int k, t, f, m, si, nt, llc;
  pools[0] = NULL;
  for (nt = 1; nt <= 4; nt++) pools[nt] = pthreadpool_create((size_t)nt);
  /* Twice: with the cache this CPU has (these shapes fit: channel tiles),
     and with KFORGE_LLC=64K, which makes the SIMD kernels sweep whole rows
     in pass 1 wherever C is wider than two tiles (templates/bngrad/core.c.in). */
  for (llc = 0; llc < 2; llc++) {
    if (llc) setenv("KFORGE_LLC", "64K", 1);
    for (k = -1; (k = th_next_kernel(kf_op_family(KF_OP_FUSED_BATCH_NORM_GRAD_V3), k)) >= 0;) {
      const char *name = th_kernel(k)->name;
      if (llc && !(th_kernel(k)->isa & (KF_ISA_AVX2 | KF_ISA_AVX512 | KF_ISA_NEON))) continue; /* only these sweep */
      for (t = 0; t < 3; t++)
        for (f = 0; f < 2; f++)
          for (m = 0; m < 2; m++)
            for (si = 0; si < (int)(sizeof shapes / sizeof shapes[0]); si++)
              one(name, types[t], f ? KF_NCHW : KF_NHWC, m, &shapes[si], pools);
    }
  }
  unsetenv("KFORGE_LLC");
  for (nt = 1; nt <= 4; nt++) pthreadpool_destroy(pools[nt]);
  return th_done();
}
