/*
** bench_call_overhead.c -- the C side of bench/bench_py_overhead.py: the time
** of one kf_execute of a cached plan of FusedBatchNormGradV3 on [1,4,4,8]
** float (NHWC, is_training), the call the Python figures are compared with.
** Built by bench_py_overhead.py against the installed package's kforge.h and
** libkforge.so. Prints "c_execute_ns <median ns per call>".
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kforge.h"

#define C 8
#define N (1 * 4 * 4 * C)

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  static float dy[N], x[N], dx[N], scale[C], mean[C], var[C], sb[C], ob[C];
  static unsigned char scratch[1 << 16];
  kf_tensor_desc d[6] = {
    { KF_FLOAT, 4, { 1, 4, 4, C }, NULL }, { KF_FLOAT, 4, { 1, 4, 4, C }, NULL },
    { KF_FLOAT, 1, { C }, NULL }, { KF_FLOAT, 1, { C }, NULL }, { KF_FLOAT, 1, { C }, NULL },
    { KF_FLOAT, 1, { 0 }, NULL } };
  const void *in[6];
  void *out[5];
  kf_attrs attrs;
  kf_plan plan;
  kf_error err;
  double med[15];
  long iters = argc > 1 ? atol(argv[1]) : 200000, i;
  int r;
  for (i = 0; i < N; i++) { dy[i] = (float)(i % 7) - 3.0f; x[i] = (float)(i % 5) * 0.5f; }
  for (i = 0; i < C; i++) { scale[i] = 1.0f; mean[i] = 0.5f; var[i] = 1.0f; }
  in[0] = dy; in[1] = x; in[2] = scale; in[3] = mean; in[4] = var; in[5] = NULL;
  out[0] = dx; out[1] = sb; out[2] = ob; out[3] = NULL; out[4] = NULL;
  kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &attrs);
  if (kf_plan_op(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &attrs, d, 6, NULL, &err) != KF_OK) {
    fprintf(stderr, "plan: %s (%s)\n", err.message, err.rule);
    return 1;
  }
  if (kf_plan_scratch_bytes(&plan) > sizeof scratch) return 1;
  for (r = 0; r < 15; r++) {
    double t0 = now_ns();
    for (i = 0; i < iters; i++)
      if (kf_execute(&plan, in, out, scratch, sizeof scratch, &err) != KF_OK) return 1;
    med[r] = (now_ns() - t0) / (double)iters;
  }
  qsort(med, 15, sizeof med[0], cmp);
  printf("kernel %s\nc_execute_ns %.1f\n", kf_plan_kernel_name(&plan), med[7]);
  return 0;
}
