/*
** test_caches.c -- the cache-derived variants on CPUs other than this one.
** Plans size their blocking, task grain and streaming stores from the L1d,
** L2 and last-level caches the runtime detects; KFORGE_L1D, KFORGE_L2 and
** KFORGE_LLC simulate other CPUs: a Zen 3 core (32K/512K/32M), an Intel
** Emerald Rapids core (48K/2M/300M) and tiny caches (4K/16K/64K) under
** which every kernel that can streams, chunks its channels and (batch
** norm) sweeps its rows. Every batch-norm and depthwise input-gradient
** SIMD kernel this CPU runs (forced by its registry name) computes each
** case with x_backprop/dx at 0, 16 and 4 bytes past a 4 KiB boundary
** (TF's, numpy's and an element-aligned start no vector boundary meets,
** so the peeled heads and tails run), serially and on three threads:
** checked against the float64 reference, bitwise equal across threads,
** and with the guard bytes around the output untouched.
** First, the warm streaming threshold (kf_stream.c): its rule from the
** measured times, KFORGE_STREAM, and one measurement per process shared
** by threads that plan at once and redone by a child forked before it.
*/
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kfi.h"
#include "ref/bngrad_ref.h"
#include "ref/dwbpi_ref.h"
#include "th_pool.h"

#define DWBPI KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT

typedef struct { const char *name, *l1d, *l2, *llc; } cpu_desc;

static const cpu_desc cpus[] = {
  { "zen3", "32K", "512K", "32M" },
  { "intel-emr", "48K", "2M", "300M" },
  { "tiny", "4K", "16K", "64K" },
};

static const size_t offsets[] = { 0, 16, 4 };

static int simd_kernel(int k) {
  return !th_kernel(k)->generic && (th_kernel(k)->isa & (KF_ISA_AVX2 | KF_ISA_AVX512 | KF_ISA_NEON));
}

/* ---- batch norm -------------------------------------------------------- */

typedef struct { int64_t n, h, w, c; } bn_shape;

/* 1.1 MB f32: streams under every LLC below it; C = 293: tiles, a tail and
   odd rows; C = 64 with 16-byte offsets: a head and a tail a row; NCHW
   planes of 61 */
static const bn_shape bn_shapes[] = { { 2, 11, 43, 293 }, { 4, 33, 31, 64 }, { 3, 1, 61, 200 } };

static void bn_case(int k, const cpu_desc *cpu, const bn_shape *sh, kf_data_format fmt, int training) {
  const kf_kernel_info *ki = th_kernel(k);
  const kf_dtype T = th_key_dtype(ki);
  const int last = fmt == KF_NHWC;
  const int64_t n = sh->n, c = sh->c, s = sh->h * sh->w, numel = n * c * s;
  const size_t es = kf_dtype_size(T), bytes = (size_t)numel * es;
  int64_t dims[4], cd[1], i;
  kf_attrs at;
  kf_tensor_desc in[6];
  kf_plan_options opt;
  kf_plan plan;
  kf_error err = {0};
  void *dy, *x;
  float scale[512], mean[512], var[512], ds[2][512], dof[2][512];
  double *rdy, *rx, *rdx, rsc[512], rm[512], rv[512], rds[512], rdo[512];
  unsigned char *dx[2];
  th_rng rng[1];
  size_t oi;
  char what[200];

  if (T == KF_DT_INVALID || strcmp(th_key(ki, "layout"), last ? "nhwc" : "nchw") != 0 ||
      strcmp(th_key(ki, "mode"), training ? "train" : "infer") != 0)
    return;
  dims[0] = n;
  if (last) dims[1] = sh->h, dims[2] = sh->w, dims[3] = c;
  else dims[1] = c, dims[2] = sh->h, dims[3] = sh->w;
  kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
  at.T = T;
  at.data_format = fmt;
  at.is_training = training;
  at.epsilon = 0.001f;
  in[0] = th_desc(T, 4, dims);
  in[1] = in[0];
  cd[0] = c;
  in[2] = th_desc(KF_FLOAT, 1, cd);
  in[3] = in[4] = in[5] = in[2];
  memset(&opt, 0, sizeof opt);
  opt.kernel = ki->name;
  snprintf(what, sizeof what, "%s %s [%lld,%lld,%lld,%lld] on %s caches", ki->name, last ? "NHWC" : "NCHW",
           (long long)dims[0], (long long)dims[1], (long long)dims[2], (long long)dims[3], cpu->name);
  switch (th_plan_forced(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err)) {
    case TH_PLANNED: break;
    case TH_OTHER_CONFIG: return;
    case TH_NOT_HERE: th_skip("%s: %s", what, err.message); return;
    default: th_check(0, "%s: plan: %s (%s)", what, err.message, err.rule); return;
  }
  th_seed_case(rng, "test_caches bn T=%s %s %s [%lld,%lld,%lld,%lld]", kf_dtype_name(T), last ? "NHWC" : "NCHW",
               training ? "train" : "infer", (long long)dims[0], (long long)dims[1], (long long)dims[2],
               (long long)dims[3]);
  dy = malloc(bytes), x = malloc(bytes);
  rdy = malloc((size_t)numel * sizeof(double)), rx = malloc((size_t)numel * sizeof(double));
  rdx = malloc((size_t)numel * sizeof(double));
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
  ref_bngrad(last, training, n, c, s, 0.001f, rdy, rx, rsc, rm, rv, rdx, rds, rdo);
  for (oi = 0; oi < sizeof offsets / sizeof offsets[0]; oi++) {
    void *bases[2] = { NULL, NULL };
    int t, ok = 1;
    for (t = 0; t < 2; t++) { /* serial, then three threads */
      const void *ins[6] = { dy, x, scale, mean, var, var };
      void *outs[5], *scratch;
      size_t sb;
      opt.threads = t ? &th_pool3 : NULL;
      dx[t] = th_guarded(bytes, offsets[oi], &bases[t]);
      if (!th_check(dx[t] && kf_plan_op(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err) == KF_OK,
                    "%s: plan", what)) {
        ok = 0;
        break;
      }
      sb = kf_plan_scratch_bytes(&plan);
      scratch = malloc(sb ? sb : 1);
      memset(scratch, 0x5a, sb ? sb : 1);
      outs[0] = dx[t], outs[1] = ds[t], outs[2] = dof[t], outs[3] = outs[4] = NULL;
      ok &= th_check(kf_execute(&plan, ins, outs, scratch, sb, &err) == KF_OK, "%s: execute", what);
      free(scratch);
    }
    if (ok) {
      const double e = th_rel_err(T, dx[0], rdx, (size_t)numel, 1e-6);
      /* the sums' bound of test_parallel (docs/testing.md) */
      double *l1d = calloc((size_t)c, sizeof(double)), *l1s = calloc((size_t)c, sizeof(double)), esc, eof;
      for (i = 0; i < numel; i++) {
        const int64_t ch = last ? i % c : (i / s) % c;
        l1d[ch] += fabs(rdy[i]);
        l1s[ch] += fabs(rdy[i] * (rx[i] - rm[ch]) / sqrt(rv[ch] + 0.001));
      }
      esc = th_sum_err(ds[0], rds, l1s, c) * 1e-5;
      eof = th_sum_err(dof[0], rdo, l1d, c) * 1e-5;
      free(l1d), free(l1s);
      th_check(e <= th_tol(T) && esc <= th_tol(KF_FLOAT) && eof <= th_tol(KF_FLOAT),
               "%s, dx +%zu: vs float64 reference: x_backprop %.2e, scale_backprop %.2e, offset_backprop %.2e", what,
               offsets[oi], e, esc, eof);
      th_check(th_guards_intact(dx[0], bytes) && th_guards_intact(dx[1], bytes),
               "%s, dx +%zu: nothing written outside x_backprop", what, offsets[oi]);
      th_check(memcmp(dx[0], dx[1], bytes) == 0 && memcmp(ds[0], ds[1], (size_t)c * 4) == 0 &&
                   memcmp(dof[0], dof[1], (size_t)c * 4) == 0,
               "%s, dx +%zu: three threads bitwise identical to serial", what, offsets[oi]);
    }
    free(bases[0]), free(bases[1]);
  }
  free(dy), free(x), free(rdy), free(rx), free(rdx);
}

/* ---- depthwise input gradient ------------------------------------------ */

typedef struct { int kh, kw, sh, sw, dm; int64_t n, h, w, c; } dw_case;

/* C = 64 and 80: streamable (whole vectors) with heads at 16-byte offsets;
   C = 35: tails only; a wide C that tiny caches cut into chunks */
static const dw_case dw_cases[] = {
  { 3, 3, 1, 1, 1, 2, 23, 19, 64 }, { 3, 3, 2, 2, 1, 2, 21, 17, 80 }, { 5, 5, 1, 1, 1, 1, 13, 11, 35 },
  { 3, 3, 1, 1, 2, 1, 15, 13, 32 }, { 3, 3, 1, 1, 1, 1, 9, 10, 400 },
};

static int64_t same_out(int64_t in, int64_t k, int64_t s, int64_t *pad) {
  const int64_t out = (in + s - 1) / s, total = (out - 1) * s + k - in;
  *pad = (total < 0 ? 0 : total) / 2;
  return out;
}

static void dw_run(int k, const cpu_desc *cpu, const dw_case *dc) {
  const kf_kernel_info *ki = th_kernel(k);
  const kf_dtype T = th_key_dtype(ki);
  ref_dwbpi_conf cf;
  int64_t dims[4], i;
  int32_t sizes[4];
  int kh, kw, sh, sw, dh, dwv, dm;
  size_t es, nf, ng, nx, oi;
  kf_tensor_desc in[3];
  kf_attrs a;
  kf_plan plan;
  kf_plan_options opt;
  kf_error err = {0};
  char buf[64], what[200];
  void *f, *g;
  double *rf, *rg, *rdx;
  th_rng rng[1];

  if (T == KF_DT_INVALID || strcmp(th_key(ki, "layout"), "nhwc") != 0 || !th_key_int(ki, "kh", &kh) ||
      !th_key_int(ki, "kw", &kw) || !th_key_int(ki, "sh", &sh) || !th_key_int(ki, "sw", &sw) ||
      !th_key_int(ki, "dh", &dh) || !th_key_int(ki, "dw", &dwv) || !th_key_int(ki, "dm", &dm))
    return;
  if (kh != dc->kh || kw != dc->kw || sh != dc->sh || sw != dc->sw || dh != 1 || dwv != 1 || dm != dc->dm) return;
  memset(&cf, 0, sizeof cf);
  cf.n = dc->n, cf.h = dc->h, cf.w = dc->w, cf.c = dc->c, cf.m = dm;
  cf.kh = kh, cf.kw = kw, cf.sh = sh, cf.sw = sw, cf.dh = 1, cf.dw = 1;
  cf.oh = same_out(cf.h, kh, sh, &cf.pad_top);
  cf.ow = same_out(cf.w, kw, sw, &cf.pad_left);
  es = kf_dtype_size(T);
  nf = (size_t)(kh * kw * cf.c * dm), ng = (size_t)(cf.n * cf.oh * cf.ow * cf.c * dm);
  nx = (size_t)(cf.n * cf.h * cf.w * cf.c);
  kf_attrs_init(DWBPI, &a);
  kf_attrs_set(DWBPI, &a, "padding", "SAME", NULL);
  snprintf(buf, sizeof buf, "1,%d,%d,1", sh, sw);
  kf_attrs_set(DWBPI, &a, "strides", buf, NULL);
  sizes[0] = (int32_t)cf.n, sizes[1] = (int32_t)cf.h, sizes[2] = (int32_t)cf.w, sizes[3] = (int32_t)cf.c;
  dims[0] = 4;
  in[0] = th_desc(KF_INT32, 1, dims);
  in[0].host_data = sizes;
  dims[0] = kh, dims[1] = kw, dims[2] = cf.c, dims[3] = dm;
  in[1] = th_desc(T, 4, dims);
  dims[0] = cf.n, dims[1] = cf.oh, dims[2] = cf.ow, dims[3] = cf.c * dm;
  in[2] = th_desc(T, 4, dims);
  memset(&opt, 0, sizeof opt);
  opt.kernel = ki->name;
  snprintf(what, sizeof what, "%s [%lld,%lld,%lld,%lld] on %s caches", ki->name, (long long)cf.n, (long long)cf.h,
           (long long)cf.w, (long long)cf.c, cpu->name);
  switch (th_plan_forced(&plan, DWBPI, &a, in, 3, &opt, &err)) {
    case TH_PLANNED: break;
    case TH_NOT_HERE: th_skip("%s: %s", what, err.message); return;
    default: th_check(0, "%s: plan: %s (%s)", what, err.message, err.rule); return;
  }
  th_seed_case(rng, "test_caches dw T=%s k%dx%d s%dx%d m%d [%lld,%lld,%lld,%lld]", kf_dtype_name(T), kh, kw, sh, sw,
               dm, (long long)cf.n, (long long)cf.h, (long long)cf.w, (long long)cf.c);
  f = malloc(nf * es), g = malloc(ng * es);
  rf = malloc(nf * sizeof(double)), rg = malloc(ng * sizeof(double)), rdx = malloc(nx * sizeof(double));
  for (i = 0; i < (int64_t)nf; i++) rf[i] = th_round(T, th_uniform(rng, -1, 1)), th_store(T, f, (size_t)i, rf[i]);
  for (i = 0; i < (int64_t)ng; i++) rg[i] = th_round(T, th_uniform(rng, -1, 1)), th_store(T, g, (size_t)i, rg[i]);
  ref_dwbpi(&cf, rf, rg, rdx);
  for (oi = 0; oi < sizeof offsets / sizeof offsets[0]; oi++) {
    void *bases[2] = { NULL, NULL };
    unsigned char *dx[2];
    int t, ok = 1;
    for (t = 0; t < 2; t++) {
      const void *ins[3] = { NULL, f, g };
      void *outs[1], *scratch;
      size_t sb;
      opt.threads = t ? &th_pool3 : NULL;
      dx[t] = th_guarded(nx * es, offsets[oi], &bases[t]);
      if (!th_check(dx[t] && kf_plan_op(&plan, DWBPI, &a, in, 3, &opt, &err) == KF_OK, "%s: plan", what)) {
        ok = 0;
        break;
      }
      sb = kf_plan_scratch_bytes(&plan);
      scratch = sb ? malloc(sb) : NULL;
      outs[0] = dx[t];
      ok &= th_check(kf_execute(&plan, ins, outs, scratch, sb, &err) == KF_OK, "%s: execute", what);
      free(scratch);
    }
    if (ok) {
      const double e = th_rel_err(T, dx[0], rdx, nx, 1e-6);
      th_check(e <= th_tol(T), "%s, dx +%zu: vs float64 reference %.2e", what, offsets[oi], e);
      th_check(th_guards_intact(dx[0], nx * es) && th_guards_intact(dx[1], nx * es),
               "%s, dx +%zu: nothing written outside dx", what, offsets[oi]);
      th_check(memcmp(dx[0], dx[1], nx * es) == 0, "%s, dx +%zu: three threads bitwise identical to serial", what,
               offsets[oi]);
    }
    free(bases[0]), free(bases[1]);
  }
  free(f), free(g), free(rf), free(rg), free(rdx);
}

/* ---- the warm streaming threshold --------------------------------------- */

/* A batch-norm plan's "stream=N" (the rule's threshold), -1 if it failed. */
/* The rule's plan of a float training NHWC batch norm of n x hw x hw x c. */
static kf_status bn_plan(int64_t n, int64_t hw, int64_t c, kf_plan *plan, kf_error *err) {
  int64_t d4[4] = { n, hw, hw, c }, d1[1] = { c };
  kf_tensor_desc in[6];
  kf_attrs at;
  int i;
  kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
  at.T = KF_FLOAT;
  at.is_training = 1;
  in[0] = in[1] = th_desc(KF_FLOAT, 4, d4);
  for (i = 2; i < 6; i++) in[i] = th_desc(KF_FLOAT, 1, d1);
  return kf_plan_op(plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, NULL, err);
}

static int64_t bn_stream(kf_error *err) {
  kf_plan plan;
  char buf[300];
  const char *w;
  if (bn_plan(2, 4, 16, &plan, err) != KF_OK) return -1;
  w = strstr(kf_plan_choices(&plan, buf, sizeof buf), " stream=");
  return w ? strtoll(w + 8, NULL, 10) : -1;
}

/* The kernel the rule plans for a float training NHWC batch norm of n x 8 x 8 x c. */
static const char *bn_kernel(int64_t n, int64_t c, kf_plan *plan) {
  kf_error err = {0};
  return bn_plan(n, 8, c, plan, &err) == KF_OK ? kf_plan_kernel_name(plan) : "(no plan)";
}

/* Batch norm's rule across ISAs: where dy, x and dx exceed half the LLC
   and the channels are wider than one AVX-512 tile (64), the AVX2 kernel
   runs instead of the AVX-512 one; within a tile, or with the data in the
   LLC, the best ISA's. The LLC is simulated; on a CPU without AVX-512 every
   plan is its best ISA's. */
static void bn_isa_rule(void) {
  const int avx512 = (kf_cpu_isas() & KF_ISA_AVX512) != 0;
  kf_plan p64, p128, pnear;
  const char *k64, *k128, *knear;
  char top[128];
  if (!th_case("batch norm: the AVX2 kernel where the data are far and wider than one AVX-512 tile")) return;
  setenv("KFORGE_LLC", "1M", 1); /* 8 x 8 x 8 x c floats, three tensors: 0.8 MB at 128 channels */
  k64 = bn_kernel(8, 64, &p64);
  snprintf(top, sizeof top, "%s", k64);
  k128 = bn_kernel(8, 128, &p128);
  setenv("KFORGE_LLC", "1G", 1);
  knear = bn_kernel(8, 128, &pnear);
  unsetenv("KFORGE_LLC");
  th_check(!strcmp(knear, top), "128 channels in the LLC: the best ISA's kernel, as at 64 (%s, %s)", knear, top);
  if (avx512) {
    th_check(strstr(top, "__avx512") != NULL, "64 channels, far: the AVX-512 kernel (%s)", top);
    th_check(strstr(k128, "__avx2") != NULL, "128 channels, far: the AVX2 kernel (%s)", k128);
  } else
    th_check(!strcmp(k128, top), "no AVX-512 here: 128 channels far take the best ISA's kernel too (%s)", k128);
  th_case_end();
}

static void *plan_in_thread(void *arg) {
  kf_error err = {0};
  *(int64_t *)arg = bn_stream(&err);
  return NULL;
}

#if defined(__x86_64__) && defined(__linux__)
#define MEASURES 1
#else
#define MEASURES 0
#endif

static void stream_threshold(void) {
  /* ordinary past the L2, streamed, ordinary within it (same bytes) */
  static const struct { double plain, streamed, near; int pays; } verdicts[] = {
    { 100, 80, 50, 2 },  { 100, 125, 50, 2 }, { 100, 126, 50, 1 }, { 100, 80, 51, 1 },  { 100, 200, 100, 1 },
    { 100, 201, 50, 0 }, { 100, 500, 50, 0 }, { 100, 80, -1, 1 },  { 0, 80, 50, 0 },    { 100, -1, 50, 0 },
  };
  const kfi_caches zen5 = { 48 << 10, 1 << 20, 32 << 20, 0 }, emr = { 48 << 10, 2 << 20, (int64_t)300 << 20, 0 },
                   tiny = { 4 << 10, 16 << 10, 64 << 10, 0 }, big_l2 = { 48 << 10, 16 << 20, 64 << 20, 0 };
  const int64_t want = (int64_t)3 << 20;
  double tp, ts, tn, cost;
  int64_t got, t[3];
  pthread_t th[3];
  kf_error err = {0};
  size_t i;
  int v, status = -1;
  pid_t child;
  if (!th_case("warm streaming threshold")) return;
  for (i = 0; i < sizeof verdicts / sizeof verdicts[0]; i++)
    th_check(kfi_stream_pays(verdicts[i].plain, verdicts[i].streamed, verdicts[i].near) == verdicts[i].pays,
             "streamed %g ns against ordinary %g ns (%g within the L2): streaming %s", verdicts[i].streamed,
             verdicts[i].plain, verdicts[i].near,
             verdicts[i].pays == 2 ? "keeps pace" : verdicts[i].pays ? "pays" : "does not pay");
  th_check(kfi_stream_threshold(&zen5, 2) == 512 << 10 && kfi_stream_threshold(&zen5, 1) == 2 << 20 &&
               kfi_stream_threshold(&zen5, 0) == 8 << 20,
           "1M L2, 32M LLC: from 512 KiB where streaming keeps pace, 2 MiB where it pays, else 8 MiB");
  th_check(kfi_stream_threshold(&emr, 2) == 1 << 20 && kfi_stream_threshold(&emr, 1) == 4 << 20 &&
               kfi_stream_threshold(&emr, 0) == (int64_t)75 << 20,
           "2M L2, 300M LLC: from 1 MiB where streaming keeps pace, 4 MiB where it pays, else 75 MiB");
  th_check(kfi_stream_threshold(&tiny, 1) == 16 << 10 && kfi_stream_threshold(&tiny, 2) == 8 << 10 &&
               kfi_stream_threshold(&big_l2, 1) == 16 << 20 && kfi_stream_threshold(&big_l2, 2) == 8 << 20,
           "never above a quarter of the LLC (64K LLC: 16 KiB, 8 at pace; 16M L2, 64M LLC: 16 MiB, 8 at pace)");

  /* Before any plan measured: a child forked now measures in its own
     process (where anything is measured: x86-64 Linux). */
  if ((child = fork()) == 0)
    _exit(bn_stream(&err) > 0 && (kfi_stream_calibration(&tp, &ts, &tn, &cost) > 0) == MEASURES ? 0 : 1);
  th_check(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "a forked child plans%s on its own", MEASURES ? " and measures" : "");

  setenv("KFORGE_STREAM", "3M", 1);
  th_check(bn_stream(&err) == want, "KFORGE_STREAM=3M: the rule streams from 3 MiB");
  th_check(kfi_stream_calibration(&tp, &ts, &tn, &cost) == 0, "KFORGE_STREAM set: nothing measured");
  setenv("KFORGE_STREAM", "fast", 1);
  { /* the plan first: the order in which a call's arguments are evaluated is unspecified */
    const int64_t fails = bn_stream(&err) == -1;
    th_check(fails && !strcmp(err.rule, "env.stream"), "KFORGE_STREAM=fast: plan fails (%s)",
             fails ? err.rule : "it did not");
  }
  setenv("KFORGE_STREAM", " auto ", 1);

  /* Three threads plan at once: one measures, all get its threshold. */
  for (i = 0; i < 3; i++) t[i] = -1;
  for (i = 0; i < 3; i++) pthread_create(&th[i], NULL, plan_in_thread, &t[i]);
  for (i = 0; i < 3; i++) pthread_join(th[i], NULL);
  unsetenv("KFORGE_STREAM");
  got = bn_stream(&err);
  v = kfi_stream_calibration(&tp, &ts, &tn, &cost);
  th_check(t[0] == got && t[1] == got && t[2] == got, "three threads planning at once: one threshold (%lld)",
           (long long)got);
#if MEASURES
  {
    kfi_caches c;
    kfi_cpu_caches(&c);
    th_check(v >= 1 && v <= 3, "measured once on x86-64 (verdict %d)", v);
    th_check(got == kfi_stream_threshold(&c, v - 1), "the rule's threshold follows the verdict (%lld)", (long long)got);
    th_check(v == 1 + kfi_stream_pays(tp, ts, tn), "the verdict follows the times");
    printf("streaming stores on this CPU: a copy into a warm buffer of twice the L2 took %.0f ns ordinary "
           "(%.2fx one within the L2), %.0f ns streamed (%.2fx): %s; warm threshold %lld KiB; measured in %.2f ms\n",
           tp, tn > 0 ? tp / tn : 0, ts, tp > 0 ? ts / tp : 0, v == 3 ? "streaming keeps pace" : v == 2 ? "streaming pays" : "it does not",
           (long long)(got >> 10), cost / 1e6);
  }
#else
  th_check(v == 0, "nothing measured where no kernel streams (verdict %d)", v);
#endif
  th_case_end();
}

int main(void) {
  size_t ci, si;
  int k, nbn = 0, ndw = 0;
  stream_threshold();
  bn_isa_rule();
  for (ci = 0; ci < sizeof cpus / sizeof cpus[0]; ci++) {
    setenv("KFORGE_L1D", cpus[ci].l1d, 1);
    setenv("KFORGE_L2", cpus[ci].l2, 1);
    setenv("KFORGE_LLC", cpus[ci].llc, 1);
    for (k = -1; (k = th_next_kernel("bngrad", k)) >= 0;) {
      if (!simd_kernel(k) || !th_kernel_runnable(th_kernel(k)->name)) continue;
      nbn += ci == 0;
      for (si = 0; si < sizeof bn_shapes / sizeof bn_shapes[0]; si++) {
        bn_case(k, &cpus[ci], &bn_shapes[si], KF_NHWC, 1);
        bn_case(k, &cpus[ci], &bn_shapes[si], KF_NCHW, 1);
        bn_case(k, &cpus[ci], &bn_shapes[si], KF_NHWC, 0);
      }
    }
    for (k = -1; (k = th_next_kernel("dwbpi", k)) >= 0;) {
      if (!simd_kernel(k) || !th_kernel_runnable(th_kernel(k)->name)) continue;
      for (si = 0; si < sizeof dw_cases / sizeof dw_cases[0]; si++) dw_run(k, &cpus[ci], &dw_cases[si]);
      ndw += ci == 0;
    }
  }
  unsetenv("KFORGE_L1D");
  unsetenv("KFORGE_L2");
  unsetenv("KFORGE_LLC");
  if (nbn == 0 && ndw == 0) th_skip("this CPU runs no SIMD kernel (scalar only, or KFORGE_ISA=scalar)");
  printf("%d batch-norm and %d depthwise input SIMD kernels this CPU runs, on %zu simulated caches\n", nbn, ndw,
         sizeof cpus / sizeof cpus[0]);
  return th_done();
}
