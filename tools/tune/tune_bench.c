/*
** tune_bench.c -- the timing harness of the tuner (tools/tune.lua).
**   tune_bench cpu                               the CPU key: arch:isas:uarch
**   tune_bench KERNEL REF REPS bngrad T FMT MODE N H W C
**   tune_bench KERNEL REF REPS dwbpi T FMT K S M N H W C
** Runs KERNEL (forced by name) on the shape REPS times after warm-up and
** prints "median_ns mad_ns work rel_err": work is bytes moved (bngrad) or
** flops (dwbpi) per call; rel_err compares the outputs with kernel REF (the
** spec-default variant), so a candidate that computes something else is
** caught before it can win.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kforge.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int cpu_key(void) {
  unsigned isas = kf_cpu_isas(), b;
  char uarch[64] = "generic";
  const char *arch = "unknown";
  int first = 1;
#if defined(__x86_64__)
  unsigned a, bx, c, d;
  char vendor[13];
  arch = "x86_64";
  if (__get_cpuid(0, &a, &bx, &c, &d)) {
    memcpy(vendor, &bx, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &c, 4);
    vendor[12] = 0;
    if (__get_cpuid(1, &a, &bx, &c, &d)) {
      unsigned fam = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
      if (fam == 0xf) fam += (a >> 20) & 0xff;
      if (fam == 0x6 || fam >= 0xf) model |= ((a >> 16) & 0xf) << 4;
      snprintf(uarch, sizeof uarch, "%s-%u-%u", vendor, fam, model);
    }
  }
#elif defined(__aarch64__)
  arch = "aarch64";
#endif
  printf("%s:", arch);
  for (b = 1; b <= 8; b <<= 1)
    if (isas & b) {
      printf("%s%s", first ? "" : "+", kf_isa_name(b));
      first = 0;
    }
  printf(":%s\n", uarch);
  return 0;
}

typedef struct problem {
  kf_op op;
  kf_attrs a;
  kf_tensor_desc in[6];
  int nin;
  int32_t sizes[4];
  double work;
} problem;

static int setup(problem *p, char **v, int n) {
  memset(p, 0, sizeof *p);
  if (n == 8 && strcmp(v[0], "bngrad") == 0) {
    int64_t N = atoll(v[4]), H = atoll(v[5]), W = atoll(v[6]), C = atoll(v[7]);
    int last = strcmp(v[2], "NHWC") == 0, i;
    p->op = KF_OP_FUSED_BATCH_NORM_GRAD_V3;
    kf_attrs_init(p->op, &p->a);
    if (kf_attrs_set(p->op, &p->a, "T", v[1], NULL) || kf_attrs_set(p->op, &p->a, "data_format", v[2], NULL) ||
        kf_attrs_set(p->op, &p->a, "is_training", strcmp(v[3], "train") == 0 ? "true" : "false", NULL))
      return 0;
    p->nin = 6;
    p->in[0].dtype = p->in[1].dtype = p->a.T;
    p->in[0].rank = p->in[1].rank = 4;
    p->in[0].dims[0] = N;
    p->in[0].dims[1] = last ? H : C;
    p->in[0].dims[2] = last ? W : H;
    p->in[0].dims[3] = last ? C : W;
    memcpy(p->in[1].dims, p->in[0].dims, sizeof p->in[0].dims);
    for (i = 2; i < 6; i++) {
      p->in[i].dtype = KF_FLOAT;
      p->in[i].rank = 1;
      p->in[i].dims[0] = C;
    }
    /* two passes: read x and dy twice, write x_backprop once */
    p->work = (double)(N * H * W * C) * (double)kf_dtype_size(p->a.T) * 5.0;
    return 1;
  }
  if (n == 10 && strcmp(v[0], "dwbpi") == 0) {
    int64_t K = atoll(v[3]), S = atoll(v[4]), M = atoll(v[5]), N = atoll(v[6]), H = atoll(v[7]), W = atoll(v[8]),
            C = atoll(v[9]), OH = (H + S - 1) / S, OW = (W + S - 1) / S;
    int last = strcmp(v[2], "NHWC") == 0;
    char strides[32];
    p->op = KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT;
    kf_attrs_init(p->op, &p->a);
    snprintf(strides, sizeof strides, last ? "1,%lld,%lld,1" : "1,1,%lld,%lld", (long long)S, (long long)S);
    if (kf_attrs_set(p->op, &p->a, "T", v[1], NULL) || kf_attrs_set(p->op, &p->a, "data_format", v[2], NULL) ||
        kf_attrs_set(p->op, &p->a, "strides", strides, NULL) || kf_attrs_set(p->op, &p->a, "padding", "SAME", NULL))
      return 0;
    p->nin = 3;
    p->sizes[0] = (int32_t)N;
    p->sizes[1] = (int32_t)(last ? H : C);
    p->sizes[2] = (int32_t)(last ? W : H);
    p->sizes[3] = (int32_t)(last ? C : W);
    p->in[0].dtype = KF_INT32;
    p->in[0].rank = 1;
    p->in[0].dims[0] = 4;
    p->in[0].host_data = p->sizes;
    p->in[1].dtype = p->in[2].dtype = p->a.T;
    p->in[1].rank = p->in[2].rank = 4;
    p->in[1].dims[0] = K; p->in[1].dims[1] = K; p->in[1].dims[2] = C; p->in[1].dims[3] = M;
    p->in[2].dims[0] = N;
    p->in[2].dims[1] = last ? OH : C * M;
    p->in[2].dims[2] = last ? OW : OH;
    p->in[2].dims[3] = last ? C * M : OW;
    p->work = 2.0 * (double)(N * OH * OW * C * M * K * K);
    return 1;
  }
  return 0;
}

static int64_t count(const kf_tensor_desc *d) {
  int64_t n = 1;
  int i;
  for (i = 0; i < d->rank; i++) n *= d->dims[i];
  return n;
}

static double as_double(const void *p, kf_dtype t, int64_t i) {
  switch (t) {
    case KF_HALF: return kf_half_to_float(((const uint16_t *)p)[i]);
    case KF_BFLOAT16: return kf_bfloat16_to_float(((const uint16_t *)p)[i]);
    case KF_FLOAT: return ((const float *)p)[i];
    case KF_DOUBLE: return ((const double *)p)[i];
    default: return 0;
  }
}

/* Plans kernel name on p and runs it; outputs into out[]. */
static int run(const problem *p, const char *name, void **in, void **out, int reps, double *med, double *mad) {
  kf_plan plan;
  kf_plan_options o;
  kf_error e;
  double *t = malloc(sizeof(double) * (size_t)(reps > 0 ? reps : 1));
  void *scratch;
  size_t sb;
  int i;
  memset(&o, 0, sizeof o);
  o.kernel = name;
  if (kf_plan_op(&plan, p->op, &p->a, p->in, p->nin, &o, &e) != KF_OK) {
    fprintf(stderr, "tune_bench: %s: %s\n", name, e.message);
    free(t);
    return 0;
  }
  for (i = 0; i < kf_plan_num_outputs(&plan); i++) {
    const kf_tensor_desc *d = kf_plan_output_desc(&plan, i);
    size_t bytes = (size_t)count(d) * kf_dtype_size(d->dtype);
    out[i] = bytes ? calloc(1, bytes) : NULL;
  }
  sb = kf_plan_scratch_bytes(&plan);
  scratch = sb ? malloc(sb) : NULL;
  for (i = 0; i < 2; i++) kf_execute(&plan, (const void *const *)in, out, scratch, sb, &e); /* warm-up */
  for (i = 0; i < reps; i++) {
    double t0 = now_ns();
    kf_execute(&plan, (const void *const *)in, out, scratch, sb, &e);
    t[i] = now_ns() - t0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  *med = reps ? t[reps / 2] : 0;
  for (i = 0; i < reps; i++) t[i] = fabs(t[i] - *med);
  qsort(t, (size_t)reps, sizeof *t, cmp);
  *mad = reps ? t[reps / 2] : 0;
  free(t);
  free(scratch);
  return kf_plan_num_outputs(&plan);
}

int main(int argc, char **argv) {
  problem p;
  void *in[6] = { 0 }, *out[6] = { 0 }, *ref[6] = { 0 };
  double med, mad, rm, rmad, err = 0, mx = 1e-30;
  int reps, i, nout;
  uint64_t s = 88172645463325252ull;
  if (argc == 2 && strcmp(argv[1], "cpu") == 0) return cpu_key();
  if (argc < 5 || !setup(&p, argv + 4, argc - 4)) {
    fprintf(stderr, "usage: tune_bench cpu | KERNEL REF REPS (bngrad T FMT MODE N H W C | dwbpi T FMT K S M N H W C)\n");
    return 2;
  }
  reps = atoi(argv[3]);
  for (i = 0; i < p.nin; i++) {
    int64_t n = count(&p.in[i]), k;
    size_t es = kf_dtype_size(p.in[i].dtype);
    if (p.in[i].host_data) { in[i] = (void *)p.in[i].host_data; continue; }
    in[i] = malloc((size_t)(n ? n : 1) * es);
    for (k = 0; k < n; k++) {
      float v;
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      v = (float)(s >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
      if (p.op == KF_OP_FUSED_BATCH_NORM_GRAD_V3 && i == 4) v = v * 0.5f + 1.0f; /* variance > 0 */
      if (p.in[i].dtype == KF_HALF) ((uint16_t *)in[i])[k] = kf_float_to_half(v);
      else if (p.in[i].dtype == KF_BFLOAT16) ((uint16_t *)in[i])[k] = kf_float_to_bfloat16(v);
      else if (p.in[i].dtype == KF_DOUBLE) ((double *)in[i])[k] = v;
      else ((float *)in[i])[k] = v;
    }
  }
  if (!run(&p, argv[2], in, ref, 1, &rm, &rmad)) return 1;
  if (!(nout = run(&p, argv[1], in, out, reps, &med, &mad))) return 1;
  {
    /* outputs 0 (and for bngrad 1, 2) against the reference variant */
    kf_plan plan;
    kf_plan_options o;
    memset(&o, 0, sizeof o);
    o.kernel = argv[2];
    kf_plan_op(&plan, p.op, &p.a, p.in, p.nin, &o, NULL);
    for (i = 0; i < (p.op == KF_OP_FUSED_BATCH_NORM_GRAD_V3 ? 3 : 1); i++) {
      const kf_tensor_desc *d = kf_plan_output_desc(&plan, i);
      int64_t n = count(d), k;
      for (k = 0; k < n; k++) {
        double a = as_double(ref[i], d->dtype, k), b = as_double(out[i], d->dtype, k);
        if (fabs(a) > mx) mx = fabs(a);
        if (!(fabs(a - b) <= err)) err = fabs(a - b);
      }
    }
  }
  printf("%.0f %.0f %.6g %.3g\n", med, mad, p.work, err / mx);
  for (i = 0; i < 6; i++) {
    if (i >= p.nin || !p.in[i].host_data) free(in[i]);
    free(out[i]);
    free(ref[i]);
  }
  return 0;
}
