/*
** harness.c -- see harness.h.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kfi.h" /* kfg_registry: each kernel's ISA, family and key */

static int passed, failed, skipped;

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

void th_skip(const char *fmt, ...) {
  va_list ap;
  const char *v = getenv("TH_VERBOSE");
  skipped++;
  if (v && strcmp(v, "1") == 0) {
    fputs("skip - ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
  }
}

int th_done(void) {
  if (skipped) {
    unsigned isas = kf_cpu_isas(), b;
    const char *cap = getenv("KFORGE_ISA");
    printf("%d cases not applicable here: kernels of an ISA this CPU does not run (it runs", skipped);
    for (b = 1; b <= KF_ISA_AVX512; b <<= 1)
      if (isas & b) printf(" %s", kf_isa_name(b));
    if (cap && *cap) printf(", capped by KFORGE_ISA=%s", cap);
    printf("); TH_VERBOSE=1 lists them\n");
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}

/* ------------------------------------------------------------ kernels */

static int registry_index(const char *name) {
  int i;
  if (!name) return -1;
  for (i = 0; i < kfg_registry_count; i++)
    if (strcmp(kfg_registry[i].name, name) == 0) return i;
  return -1;
}

unsigned th_kernel_isa(const char *name) {
  int i = registry_index(name);
  return i < 0 ? 0 : kfg_registry[i].isa;
}

int th_kernel_runnable(const char *name) { return (th_kernel_isa(name) & kf_cpu_isas()) != 0; }

int th_kernel_best_here(const char *name) {
  const unsigned isas = kf_cpu_isas();
  int i = registry_index(name), j;
  const kfi_kernel *k;
  if (i < 0 || !(kfg_registry[i].isa & isas)) return 0;
  k = &kfg_registry[i];
  for (j = 0; j < kfg_registry_count; j++) {
    const kfi_kernel *v = &kfg_registry[j];
    if (v->family == k->family && v->generic == k->generic && (v->isa & isas) && v->isa > k->isa &&
        memcmp(v->key, k->key, sizeof v->key) == 0)
      return 0;
  }
  return 1;
}

th_forced th_plan_forced(kf_plan *plan, kf_op op, const kf_attrs *attrs, const kf_tensor_desc *in, int n,
                         const kf_plan_options *opt, kf_error *err) {
  const unsigned allowed = kf_cpu_isas() & (opt && opt->isas ? opt->isas : ~0u);
  const kfi_kernel *k;
  kf_error local;
  kf_status st;
  int i;
  if (!err) err = &local;
  memset(err, 0, sizeof *err);
  err->rule = "";
  st = kf_plan_op(plan, op, attrs, in, n, opt, err);
  if (st == KF_OK) return TH_PLANNED;
  if (st != KF_NO_KERNEL || !opt || !opt->kernel || !err->rule) return TH_REFUSED;
  if (strcmp(err->rule, "kernel.mismatch") == 0) return TH_OTHER_CONFIG;
  if (strcmp(err->rule, "kernel.isa") != 0 || (i = registry_index(opt->kernel)) < 0) return TH_REFUSED;
  k = &kfg_registry[i];
  if (k->isa & kf_cpu_isas()) return TH_REFUSED; /* this CPU runs it: not the "not available here" case */
  /* Does the kernel serve this call at all? Ask a variant this CPU runs. */
  for (i = 0; i < kfg_registry_count; i++) {
    const kfi_kernel *v = &kfg_registry[i];
    kf_plan_options o = *opt;
    kf_plan p;
    kf_error e;
    if (v->family != k->family || v->generic != k->generic || !(v->isa & allowed) ||
        memcmp(v->key, k->key, sizeof v->key) != 0)
      continue;
    o.kernel = v->name;
    memset(&e, 0, sizeof e);
    e.rule = "";
    st = kf_plan_op(&p, op, attrs, in, n, &o, &e);
    if (st == KF_OK) return TH_NOT_HERE;
    if (st == KF_NO_KERNEL && e.rule && strcmp(e.rule, "kernel.mismatch") == 0) return TH_OTHER_CONFIG;
    *err = e;
    return TH_REFUSED;
  }
  return TH_NOT_HERE; /* no variant runs here to ask: the ISA refusal stands */
}

/* ------------------------------------------------------------ data */

void th_seed(th_rng *r, uint64_t seed) { r->s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull; }

uint64_t th_fnv1a(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t th_seed_case(th_rng *r, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  uint64_t seed;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  seed = th_fnv1a(buf);
  th_seed(r, seed);
  return seed;
}

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

double th_sum_err(const float *got, const double *want, const double *l1, int64_t c) {
  double mx = 1e-6, e = 0;
  int64_t i;
  for (i = 0; i < c; i++)
    if (fabs(want[i]) > mx) mx = fabs(want[i]);
  for (i = 0; i < c; i++) {
    double r = fabs((double)got[i] - want[i]) / (1e-5 * mx + 1e-6 * l1[i]);
    if (!(r <= e)) e = r;
  }
  return e;
}
