/*
** tune_bench.c -- the timing harness of the tuner (tools/tune.lua).
**   tune_bench cpu                               the CPU key: arch:isas:uarch
**   tune_bench KERNEL REF REPS WORK OP [--attr NAME=VALUE]... --input NAME=DTYPE:D0,D1,...
**              [--values NAME=V0,V1,...] [--positive NAME]...
** Runs KERNEL (forced by name) on the call (an op with its attrs and
** inputs, as `kforge plan` takes them: the tuner's case files
** tools/tune/cases/<family>.lua write them) REPS times after warm-up and
** prints "median_ns mad_ns work rel_err": work is WORK (bytes moved or
** flops per call, from the case); rel_err compares every output with
** kernel REF's (the spec-default variant), so a candidate that computes
** something else is caught before it can win. Inputs are uniform in
** [-1, 1), those named by --positive in [0.5, 1.5) (variances). Nothing
** here names an op.
** Every buffer sits at an offset from a 4 KiB boundary that real callers
** give: the candidate is timed with all of them at 64 bytes (TensorFlow's
** allocator) and at 16 (numpy, malloc), and the slower median is printed,
** so no knob wins by one alignment alone (docs/tuning.md).
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

/* bytes at off bytes past a 4 KiB boundary, zeroed; tfree releases it */
static void *talloc(size_t bytes, size_t off) {
  void *p = NULL;
  if (posix_memalign(&p, 4096, bytes + off + 64) != 0 || !p) {
    fprintf(stderr, "tune_bench: out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  memset(p, 0, bytes + off + 64);
  return (char *)p + off;
}

static void tfree(void *q, size_t off) {
  if (q) free((char *)q - off);
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

#define MAX_IO 8
#define MAX_VALUES 64

typedef struct problem {
  kf_op op;
  kf_attrs a;
  kf_tensor_desc in[MAX_IO];
  int nin;
  int positive[MAX_IO];
  int32_t values[MAX_IO][MAX_VALUES];
  double work;
} problem;

/* "D0,D1,..." (possibly empty) into out[]; the count, or -1. */
static int parse_ints(const char *s, int64_t *out, int max) {
  int n = 0;
  if (!*s) return 0;
  for (;;) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || n == max) return -1;
    out[n++] = (int64_t)v;
    if (*end == '\0') return n;
    if (*end != ',') return -1;
    s = end + 1;
  }
}

/* The input of p's op named by v up to its '='; -1 (and a message) if none. */
static int input_of(const problem *p, const char *v, const char *eq) {
  int k;
  for (k = 0; k < p->nin; k++) {
    const char *nm = kf_op_input_name(p->op, k);
    if (strlen(nm) == (size_t)(eq - v) && memcmp(nm, v, (size_t)(eq - v)) == 0) return k;
  }
  fprintf(stderr, "tune_bench: %s has no input '%.*s'\n", kf_op_name(p->op), (int)(eq - v), v);
  return -1;
}

/* v[0] = WORK, v[1] = OP, then options. */
static int setup(problem *p, char **v, int n) {
  int i, have[MAX_IO] = { 0 };
  memset(p, 0, sizeof *p);
  if (n < 2) return 0;
  p->work = atof(v[0]);
  p->op = kf_op_from_name(v[1]);
  if (p->op == KF_OP_INVALID) {
    fprintf(stderr, "tune_bench: unknown op '%s'\n", v[1]);
    return 0;
  }
  p->nin = kf_op_num_inputs(p->op);
  if (p->nin < 0 || p->nin > MAX_IO) return 0;
  kf_attrs_init(p->op, &p->a);
  for (i = 2; i < n; i++) {
    const char *o = v[i], *a = i + 1 < n ? v[i + 1] : "", *eq = strchr(a, '=');
    int k;
    if (strcmp(o, "--positive") == 0) {
      for (k = 0; k < p->nin && strcmp(kf_op_input_name(p->op, k), a) != 0; k++) {}
      if (k == p->nin) {
        fprintf(stderr, "tune_bench: %s has no input '%s'\n", kf_op_name(p->op), a);
        return 0;
      }
      p->positive[k] = 1;
      i++;
      continue;
    }
    if (!eq || eq == a) {
      fprintf(stderr, "tune_bench: %s needs NAME=VALUE, got '%s'\n", o, a);
      return 0;
    }
    i++;
    if (strcmp(o, "--attr") == 0) {
      char name[64];
      kf_error e;
      if ((size_t)(eq - a) >= sizeof name) return 0;
      memcpy(name, a, (size_t)(eq - a));
      name[eq - a] = '\0';
      if (kf_attrs_set(p->op, &p->a, name, eq + 1, &e) != KF_OK) {
        fprintf(stderr, "tune_bench: %s\n", e.message);
        return 0;
      }
    } else if (strcmp(o, "--input") == 0) {
      const char *colon = strchr(eq + 1, ':');
      char dt[32];
      if ((k = input_of(p, a, eq)) < 0) return 0;
      if (!colon || (size_t)(colon - (eq + 1)) >= sizeof dt) return 0;
      memcpy(dt, eq + 1, (size_t)(colon - (eq + 1)));
      dt[colon - (eq + 1)] = '\0';
      p->in[k].dtype = kf_dtype_from_name(dt);
      p->in[k].rank = parse_ints(colon + 1, p->in[k].dims, KF_MAX_RANK);
      if (p->in[k].dtype == KF_DT_INVALID || p->in[k].rank < 0) {
        fprintf(stderr, "tune_bench: --input %s: expected DTYPE:D0,D1,...\n", a);
        return 0;
      }
      have[k] = 1;
    } else if (strcmp(o, "--values") == 0) {
      int64_t vs[MAX_VALUES];
      int m, j;
      if ((k = input_of(p, a, eq)) < 0 || (m = parse_ints(eq + 1, vs, MAX_VALUES)) < 0) return 0;
      for (j = 0; j < m; j++) p->values[k][j] = (int32_t)vs[j];
      p->in[k].host_data = p->values[k];
    } else {
      fprintf(stderr, "tune_bench: unknown option '%s'\n", o);
      return 0;
    }
  }
  for (i = 0; i < p->nin; i++)
    if (!have[i]) {
      fprintf(stderr, "tune_bench: missing --input %s=DTYPE:DIMS\n", kf_op_input_name(p->op, i));
      return 0;
    }
  return 1;
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

/* Plans kernel name on p and runs it; outputs into out[], allocated at
   off bytes past a 4 KiB boundary. */
static int run(const problem *p, const char *name, void **in, void **out, size_t off, int reps, double *med,
               double *mad) {
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
    out[i] = bytes ? talloc(bytes, off) : NULL;
  }
  sb = kf_plan_scratch_bytes(&plan);
  scratch = sb ? talloc(sb, 64) : NULL;
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
  tfree(scratch, 64);
  return kf_plan_num_outputs(&plan);
}

int main(int argc, char **argv) {
  problem p;
  void *in[MAX_IO] = { 0 }, *in16[MAX_IO] = { 0 }, *out[MAX_IO] = { 0 }, *out16[MAX_IO] = { 0 }, *ref[MAX_IO] = { 0 };
  double med, mad, med16, mad16, rm, rmad, err = 0, mx = 1e-30;
  int reps, i, nout;
  uint64_t s = 88172645463325252ull;
  if (argc == 2 && strcmp(argv[1], "cpu") == 0) return cpu_key();
  if (argc < 6 || !setup(&p, argv + 4, argc - 4)) {
    fprintf(stderr, "usage: tune_bench cpu | KERNEL REF REPS WORK OP [--attr NAME=VALUE]... "
                    "--input NAME=DTYPE:D0,D1,... [--values NAME=V0,...] [--positive NAME]...\n");
    return 2;
  }
  reps = atoi(argv[3]);
  for (i = 0; i < p.nin; i++) {
    int64_t n = count(&p.in[i]), k;
    size_t es = kf_dtype_size(p.in[i].dtype);
    if (p.in[i].host_data) { in[i] = in16[i] = (void *)p.in[i].host_data; continue; }
    in[i] = talloc((size_t)(n ? n : 1) * es, 64);
    for (k = 0; k < n; k++) {
      float v;
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      v = (float)(s >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
      if (p.positive[i]) v = v * 0.5f + 1.0f;
      if (p.in[i].dtype == KF_HALF) ((uint16_t *)in[i])[k] = kf_float_to_half(v);
      else if (p.in[i].dtype == KF_BFLOAT16) ((uint16_t *)in[i])[k] = kf_float_to_bfloat16(v);
      else if (p.in[i].dtype == KF_DOUBLE) ((double *)in[i])[k] = v;
      else if (p.in[i].dtype == KF_INT32) ((int32_t *)in[i])[k] = 0;
      else ((float *)in[i])[k] = v;
    }
    in16[i] = talloc((size_t)(n ? n : 1) * es, 16);
    memcpy(in16[i], in[i], (size_t)n * es);
  }
  if (!run(&p, argv[2], in, ref, 64, 1, &rm, &rmad)) return 1;
  if (!(nout = run(&p, argv[1], in, out, 64, reps, &med, &mad))) return 1;
  if (!run(&p, argv[1], in16, out16, 16, reps, &med16, &mad16)) return 1;
  if (med16 > med) med = med16, mad = mad16; /* the slower alignment */
  {
    /* every output against the reference variant's */
    kf_plan plan;
    kf_plan_options o;
    memset(&o, 0, sizeof o);
    o.kernel = argv[2];
    kf_plan_op(&plan, p.op, &p.a, p.in, p.nin, &o, NULL);
    for (i = 0; i < nout && i < MAX_IO; i++) {
      const kf_tensor_desc *d = kf_plan_output_desc(&plan, i);
      int64_t n = count(d), k;
      for (k = 0; k < n; k++) {
        double a = as_double(ref[i], d->dtype, k), b = as_double(out[i], d->dtype, k),
               b16 = as_double(out16[i], d->dtype, k);
        if (fabs(a) > mx) mx = fabs(a);
        if (!(fabs(a - b) <= err)) err = fabs(a - b);
        if (!(fabs(a - b16) <= err)) err = fabs(a - b16);
      }
    }
  }
  printf("%.0f %.0f %.6g %.3g\n", med, mad, p.work, err / mx);
  for (i = 0; i < MAX_IO; i++) {
    if (i >= p.nin || !p.in[i].host_data) tfree(in[i], 64), tfree(in16[i], 16);
    tfree(out[i], 64);
    tfree(out16[i], 16);
    tfree(ref[i], 64);
  }
  return 0;
}
