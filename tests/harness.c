/*
** harness.c -- see harness.h.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int passed, failed, skipped, filtered_cases, filtered_checks;

/* The current case of this thread: its label and whether TH_FILTER keeps it. */
static _Thread_local char case_label[512];
static _Thread_local int case_open, case_kept = 1;

static const char *th_filter(void) {
  const char *f = getenv("TH_FILTER");
  return f && *f ? f : NULL;
}

static void open_case(const char *fmt, va_list ap) {
  const char *f = th_filter();
  vsnprintf(case_label, sizeof case_label, fmt, ap);
  case_open = 1;
  case_kept = !f || strstr(case_label, f) != NULL;
  if (!case_kept) filtered_cases++;
}

int th_case(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  open_case(fmt, ap);
  va_end(ap);
  return case_kept;
}

int th_selected(void) { return case_kept; }

void th_case_end(void) {
  case_open = 0;
  case_kept = 1;
  case_label[0] = 0;
}

int th_check(int cond, const char *fmt, ...) {
  static int verbose = -1;
  const char *f = th_filter();
  char msg[1024];
  va_list ap;
  msg[0] = 0;
  if (verbose < 0) verbose = getenv("TH_VERBOSE") && strcmp(getenv("TH_VERBOSE"), "1") == 0;
  /* Formatted only when it is read: a passing check's arguments may name
     what a successful call left unset (kf_error is filled on error only). */
  if (!cond || verbose || (!case_open && f)) {
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
  }
  if (case_open ? !case_kept : f && !strstr(msg, f)) {
    filtered_checks++;
    return cond; /* not counted, but callers go on as they would */
  }
  if (cond) passed++; else failed++;
  if (!cond || verbose) {
    if (case_open) printf("%s - [%s] %s\n", cond ? "ok" : "FAIL", case_label, msg);
    else printf("%s - %s\n", cond ? "ok" : "FAIL", msg);
  }
  return cond;
}

void th_skip(const char *fmt, ...) {
  va_list ap;
  const char *v = getenv("TH_VERBOSE");
  if (!case_kept) return; /* TH_FILTER: not this run's */
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
    for (b = 1; b && strcmp(kf_isa_name(b), "unknown") != 0; b <<= 1) /* every ISA the runtime names */
      if (isas & b) printf(" %s", kf_isa_name(b));
    if (cap && *cap) printf(", capped by KFORGE_ISA=%s", cap);
    printf("); TH_VERBOSE=1 lists them\n");
  }
  if (th_filter())
    printf("TH_FILTER=%s: %d cases and %d checks filtered out\n", th_filter(), filtered_cases, filtered_checks);
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}

/* ------------------------------------------------------------ kernels */

#define TH_MAX_KERNELS 8192
static kf_kernel_info infos[TH_MAX_KERNELS];
static int num_infos = -1;

static void load_infos(void) {
  int i, n = kf_kernel_count();
  if (num_infos >= 0) return;
  if (n > TH_MAX_KERNELS) n = TH_MAX_KERNELS;
  for (i = 0; i < n; i++)
    if (kf_kernel_info_of(i, &infos[i]) != KF_OK) break;
  num_infos = i;
}

const kf_kernel_info *th_kernel(int i) {
  load_infos();
  return i >= 0 && i < num_infos ? &infos[i] : NULL;
}

int th_kernel_index(const char *name) {
  int i;
  load_infos();
  if (!name) return -1;
  for (i = 0; i < num_infos; i++)
    if (strcmp(infos[i].name, name) == 0) return i;
  return -1;
}

int th_kernel_in(int i, const char *family) {
  const kf_kernel_info *k = th_kernel(i);
  return k && family && strcmp(k->family, family) == 0;
}

int th_next_kernel(const char *family, int i) {
  load_infos();
  for (i = i < 0 ? 0 : i + 1; i < num_infos; i++)
    if (th_kernel_in(i, family)) return i;
  return -1;
}

const char *th_key(const kf_kernel_info *k, const char *axis) {
  int a;
  if (!k) return NULL;
  for (a = 0; a < k->num_keys && a < KF_MAX_KEY; a++)
    if (strcmp(k->key_name[a], axis) == 0) return k->key_value[a];
  return NULL;
}

int th_key_int(const kf_kernel_info *k, const char *axis, int *v) {
  const char *s = th_key(k, axis);
  char *end;
  long x;
  if (!s || !*s) return 0;
  x = strtol(s, &end, 10);
  if (*end) return 0;
  *v = (int)x;
  return 1;
}

static const struct { kf_dtype t; const char *tag; } dtype_tags[] = {
  { KF_HALF, "f16" }, { KF_BFLOAT16, "bf16" }, { KF_FLOAT, "f32" }, { KF_DOUBLE, "f64" }, { KF_INT32, "i32" }
};

kf_dtype th_key_dtype(const kf_kernel_info *k) {
  const char *s = th_key(k, "T");
  size_t i;
  for (i = 0; s && i < sizeof dtype_tags / sizeof dtype_tags[0]; i++)
    if (strcmp(s, dtype_tags[i].tag) == 0) return dtype_tags[i].t;
  return KF_DT_INVALID;
}

const char *th_dtype_key(kf_dtype t) {
  size_t i;
  for (i = 0; i < sizeof dtype_tags / sizeof dtype_tags[0]; i++)
    if (dtype_tags[i].t == t) return dtype_tags[i].tag;
  return "?";
}

static int key_matches(const kf_kernel_info *k, const char *want) {
  const char *p = want;
  while (*p) {
    char axis[32], value[32];
    size_t n = strcspn(p, "="), m;
    const char *have;
    if (*p == ' ') { p++; continue; }
    if (n >= sizeof axis || p[n] != '=') return 0;
    memcpy(axis, p, n);
    axis[n] = 0;
    p += n + 1;
    m = strcspn(p, " ");
    if (m >= sizeof value) return 0;
    memcpy(value, p, m);
    value[m] = 0;
    p += m;
    have = th_key(k, axis);
    if (!have || strcmp(have, value) != 0) return 0;
  }
  return 1;
}

int th_key_matches(const kf_kernel_info *k, const char *want, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, want);
  vsnprintf(buf, sizeof buf, want, ap);
  va_end(ap);
  return key_matches(k, buf);
}

int th_find_kernel(const char *family, int generic, unsigned isas, const char *want, ...) {
  char buf[256];
  va_list ap;
  int i;
  va_start(ap, want);
  vsnprintf(buf, sizeof buf, want, ap);
  va_end(ap);
  if (!isas) isas = kf_cpu_isas();
  for (i = -1; (i = th_next_kernel(family, i)) >= 0;)
    if (!infos[i].generic == !generic && (infos[i].isa & isas) && key_matches(&infos[i], buf)) return i;
  return -1;
}

unsigned th_kernel_isa(const char *name) {
  const kf_kernel_info *k = th_kernel(th_kernel_index(name));
  return k ? k->isa : 0;
}

int th_kernel_runnable(const char *name) { return (th_kernel_isa(name) & kf_cpu_isas()) != 0; }

/* Same family, generic flag and key: variants of one kernel for other ISAs. */
static int same_kernel(const kf_kernel_info *a, const kf_kernel_info *b) {
  int i;
  if (strcmp(a->family, b->family) != 0 || !a->generic != !b->generic || a->num_keys != b->num_keys) return 0;
  for (i = 0; i < a->num_keys && i < KF_MAX_KEY; i++)
    if (strcmp(a->key_name[i], b->key_name[i]) != 0 || strcmp(a->key_value[i], b->key_value[i]) != 0) return 0;
  return 1;
}

int th_kernel_best_here(const char *name) {
  const unsigned isas = kf_cpu_isas();
  const kf_kernel_info *k = th_kernel(th_kernel_index(name));
  int j;
  if (!k || !(k->isa & isas)) return 0;
  for (j = 0; j < num_infos; j++) {
    const kf_kernel_info *v = &infos[j];
    if ((v->isa & isas) && v->isa > k->isa && same_kernel(v, k)) return 0;
  }
  return 1;
}

th_forced th_plan_forced(kf_plan *plan, kf_op op, const kf_attrs *attrs, const kf_tensor_desc *in, int n,
                         const kf_plan_options *opt, kf_error *err) {
  const unsigned allowed = kf_cpu_isas() & (opt && opt->isas ? opt->isas : ~0u);
  const kf_kernel_info *k;
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
  if (strcmp(err->rule, "kernel.isa") != 0 || !(k = th_kernel(th_kernel_index(opt->kernel)))) return TH_REFUSED;
  if (k->isa & kf_cpu_isas()) return TH_REFUSED; /* this CPU runs it: not the "not available here" case */
  /* Does the kernel serve this call at all? Ask a variant this CPU runs. */
  for (i = 0; i < num_infos; i++) {
    const kf_kernel_info *v = &infos[i];
    kf_plan_options o = *opt;
    kf_plan p;
    kf_error e;
    if (!(v->isa & allowed) || !same_kernel(v, k)) continue;
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
  th_case("%s", buf);
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
    case KF_HALF: return kf_half_to_float(kf_float_to_half((float)v));
    case KF_BFLOAT16: return kf_bfloat16_to_float(kf_float_to_bfloat16((float)v));
    case KF_FLOAT: return (float)v;
    default: return v;
  }
}

void th_store(kf_dtype t, void *buf, size_t i, double v) {
  switch (t) {
    case KF_HALF: ((uint16_t *)buf)[i] = kf_float_to_half((float)v); break;
    case KF_BFLOAT16: ((uint16_t *)buf)[i] = kf_float_to_bfloat16((float)v); break;
    case KF_FLOAT: ((float *)buf)[i] = (float)v; break;
    case KF_DOUBLE: ((double *)buf)[i] = v; break;
    case KF_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    default: break;
  }
}

double th_rel_err(kf_dtype t, const void *got, const double *want, size_t n, double floor) {
  double mx = floor, e = 0;
  size_t i;
  for (i = 0; i < n; i++)
    if (fabs(want[i]) > mx) mx = fabs(want[i]);
  /* one loop per dtype: th_load's switch per element was most of the long
     comparisons' time (test_accuracy's 10^7-element channels) */
#define TH_REL_ERR_LOOP(load) \
  for (i = 0; i < n; i++) { \
    double d = fabs((load) - want[i]); \
    if (!(d <= e)) e = d; /* NaN propagates */ \
  }
  switch (t) {
    case KF_FLOAT: TH_REL_ERR_LOOP((double)((const float *)got)[i]) break;
    case KF_DOUBLE: TH_REL_ERR_LOOP(((const double *)got)[i]) break;
    default: TH_REL_ERR_LOOP(th_load(t, got, i)) break;
  }
#undef TH_REL_ERR_LOOP
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

unsigned char *th_guarded(size_t bytes, size_t off, void **base) {
  unsigned char *p;
  if (posix_memalign(base, 4096, 4096 + bytes + TH_GUARD + 4096) != 0) return *base = NULL, NULL;
  p = (unsigned char *)*base + 4096 - TH_GUARD + off;
  memset(p, 0x5c, bytes + 2 * TH_GUARD);
  return p + TH_GUARD;
}

int th_guards_intact(const unsigned char *buf, size_t bytes) {
  size_t i;
  for (i = 0; i < TH_GUARD; i++)
    if (buf[-1 - (ptrdiff_t)i] != 0x5c || buf[bytes + i] != 0x5c) return 0;
  return 1;
}
