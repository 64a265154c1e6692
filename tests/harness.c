/*
** harness.c -- see harness.h.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kfi_kernel.h"

static int passed, failed;

int th_check(int cond, const char *fmt, ...) {
  static int verbose = -1;
  va_list ap;
  if (verbose < 0) verbose = getenv("TH_VERBOSE") && strcmp(getenv("TH_VERBOSE"), "1") == 0;
  if (cond) passed++; else failed++;
  if (!cond || verbose) {
    fputs(cond ? "ok - " : "FAIL - ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
  }
  return cond;
}

int th_done(void) {
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

void th_seed(th_rng *r, uint64_t seed) { r->s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull; }

uint64_t th_next(th_rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545F4914F6CDD1Dull;
}

double th_uniform(th_rng *r, double lo, double hi) {
  return lo + (hi - lo) * (double)(th_next(r) >> 11) * 0x1p-53;
}

int64_t th_int(th_rng *r, int64_t lo, int64_t hi) {
  return lo + (int64_t)(th_next(r) % (uint64_t)(hi - lo + 1));
}

double th_round(kf_dtype t, double v) {
  switch (t) {
    case KF_HALF: return kfi_f16_to_f32(kfi_f32_to_f16((float)v));
    case KF_BFLOAT16: return kfi_bf16_to_f32(kfi_f32_to_bf16((float)v));
    case KF_FLOAT: return (float)v;
    default: return v;
  }
}

void th_store(kf_dtype t, void *buf, size_t i, double v) {
  switch (t) {
    case KF_HALF: ((uint16_t *)buf)[i] = kfi_f32_to_f16((float)v); break;
    case KF_BFLOAT16: ((uint16_t *)buf)[i] = kfi_f32_to_bf16((float)v); break;
    case KF_FLOAT: ((float *)buf)[i] = (float)v; break;
    case KF_DOUBLE: ((double *)buf)[i] = v; break;
    case KF_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    default: break;
  }
}

double th_load(kf_dtype t, const void *buf, size_t i) {
  switch (t) {
    case KF_HALF: return kfi_f16_to_f32(((const uint16_t *)buf)[i]);
    case KF_BFLOAT16: return kfi_bf16_to_f32(((const uint16_t *)buf)[i]);
    case KF_FLOAT: return ((const float *)buf)[i];
    case KF_DOUBLE: return ((const double *)buf)[i];
    case KF_INT32: return ((const int32_t *)buf)[i];
    default: return NAN;
  }
}

double th_rel_err(kf_dtype t, const void *got, const double *want, size_t n, double floor) {
  double mx = floor, e = 0;
  size_t i;
  for (i = 0; i < n; i++)
    if (fabs(want[i]) > mx) mx = fabs(want[i]);
  for (i = 0; i < n; i++) {
    double d = fabs(th_load(t, got, i) - want[i]);
    if (!(d <= e)) e = d; /* NaN propagates */
  }
  return n ? e / mx : 0.0;
}

double th_tol(kf_dtype t) {
  switch (t) {
    case KF_HALF: return 2e-3;
    case KF_BFLOAT16: return 2e-2;
    case KF_FLOAT: return 1e-5;
    case KF_DOUBLE: return 1e-10;
    default: return 0;
  }
}

kf_tensor_desc th_desc(kf_dtype t, int rank, const int64_t *dims) {
  kf_tensor_desc d;
  int i;
  memset(&d, 0, sizeof d);
  d.dtype = t;
  d.rank = rank;
  for (i = 0; i < rank && i < KF_MAX_RANK; i++) d.dims[i] = dims[i];
  return d;
}
