/*
** harness.h -- the tiny test harness of kforge's C tests: checks that
** print "ok - ..." / "FAIL - ...", cases that do not apply on this machine
** ("skip - ..."), per-case deterministic RNG seeds, dtype rounding and
** comparison helpers. Every test binary ends with th_done(), which prints
** "N passed, M failed, K skipped" and returns the exit status (skips do not
** fail a run).
*/
#ifndef harness_h
#define harness_h

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kforge.h"

#if defined(__GNUC__)
#define TH_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TH_PRINTF(f, a)
#endif

/* Records one check; prints FAIL lines always, ok lines when TH_VERBOSE=1,
   each with the current case's label. With TH_FILTER set, a check counts
   only when its case label (or, outside any case, its own message) contains
   TH_FILTER's substring; others are neither run as checks nor counted. */
int th_check(int cond, const char *fmt, ...) TH_PRINTF(2, 3);
/* ---- aiming: cases and TH_FILTER=substring ----------------------------- */
/* Starts a case (this thread's): its printf-formatted label names the
   kernel and configuration, e.g. "kfg_dwbpi_f32_nhwc_k3x3... C=17 W=9".
   Returns 0 when TH_FILTER excludes it: skip the case's work then (the
   harness counts it as filtered and th_done reports how many). */
int th_case(const char *fmt, ...) TH_PRINTF(1, 2);
/* Whether the current case runs (1 outside any case). */
int th_selected(void);
/* Ends the current case: later checks are labelled by their message only. */
void th_case_end(void);
/* Records one case that does not apply on this machine (neither passed nor
   failed); prints "skip - ..." when TH_VERBOSE=1. */
void th_skip(const char *fmt, ...) TH_PRINTF(1, 2);
int th_done(void);

/* ---- kernels, from the registry's metadata (kf_kernel_info_of) --------- */
/* Never from a kernel's name: a test finds kernels by family, ISA, generic
   flag and key values, and forces one through the name the metadata gives. */
/* Kernel i's metadata, NULL past the end (cached for the run). */
const kf_kernel_info *th_kernel(int i);
/* The index of the kernel named name (as kf_plan_options.kernel holds it), -1 if none. */
int th_kernel_index(const char *name);
/* Whether kernel i is of family ("bngrad", "dwbpi", ...: kf_op_family). */
int th_kernel_in(int i, const char *family);
/* Next kernel of family after index i (start with -1); -1 at the end:
   for (k = -1; (k = th_next_kernel("dwbpi", k)) >= 0;) ... */
int th_next_kernel(const char *family, int i);
/* The value of key axis `axis` in a kernel's (or a plan's) key: NULL if the
   family has no such axis; "*" = any value. */
const char *th_key(const kf_kernel_info *k, const char *axis);
/* The axis's value as an integer into *v: 0 if the axis is missing, "*" or not a number. */
int th_key_int(const kf_kernel_info *k, const char *axis, int *v);
/* The dtype a T axis value names ("f16", "bf16", "f32", "f64"), KF_DT_INVALID otherwise. */
kf_dtype th_key_dtype(const kf_kernel_info *k);
/* The T axis value ("f32") of a dtype: the form keys hold. */
const char *th_dtype_key(kf_dtype t);
/* Whether every "axis=value" pair of want (blank-separated, printf-formatted)
   holds in k's key. Axes not listed are not compared. */
int th_key_matches(const kf_kernel_info *k, const char *want, ...) TH_PRINTF(2, 3);
/* The first kernel in registry (selection) order of family with the given
   generic flag whose key matches want (as th_key_matches) and whose ISA is in
   isas (0 = what this CPU runs, as kf_cpu_isas() caps it): what default
   selection picks for that key; -1 if none. */
int th_find_kernel(const char *family, int generic, unsigned isas, const char *want, ...) TH_PRINTF(4, 5);

/* ---- kernels this CPU cannot run -------------------------------------- */
/* The ISA bit (KF_ISA_*) of a kernel of the registry, 0 if there is none of
   that name. From the metadata, not from the name. */
unsigned th_kernel_isa(const char *name);
/* Whether this CPU runs the kernel: its ISA is in kf_cpu_isas() (which
   KFORGE_ISA caps). */
int th_kernel_runnable(const char *name);

/* Whether the kernel runs here and no variant of it (same family, generic
   flag and key) of a better ISA does: what default selection must pick. */
int th_kernel_best_here(const char *name);

/* kf_plan_op with a kernel forced by name (opt->kernel), classified: */
typedef enum th_forced {
  TH_PLANNED,      /* KF_OK: run it */
  TH_NOT_HERE,     /* the kernel serves the call but needs an ISA this CPU lacks: not applicable */
  TH_OTHER_CONFIG, /* the kernel serves other configurations (rule kernel.mismatch) */
  TH_REFUSED       /* any other refusal: a failure (err says why) */
} th_forced;
/* TH_NOT_HERE only for the runtime's own refusal "needs ISA x, which is not
   available here" (status KF_NO_KERNEL, rule kernel.isa) of a kernel whose
   registry ISA is not in kf_cpu_isas(). As the runtime checks the ISA before
   the configuration, the call is then planned with a variant of the kernel
   this CPU runs (same family and key in the registry): if that variant does
   not serve the call either, the answer is TH_OTHER_CONFIG. */
th_forced th_plan_forced(kf_plan *plan, kf_op op, const kf_attrs *attrs, const kf_tensor_desc *in, int n,
                         const kf_plan_options *opt, kf_error *err);

/* ---- data -------------------------------------------------------------- */
/* xorshift64*: deterministic across platforms. */
typedef struct th_rng { uint64_t s; } th_rng;
void th_seed(th_rng *r, uint64_t seed);
/* FNV-1a (64-bit) of a string: stable across platforms and runs. */
uint64_t th_fnv1a(const char *s);
/* Seeds r from the case's identity (a printf-formatted description of the
   configuration, shape and case index), so a case's data never depends on
   which cases ran before it, and starts a case of that label (th_case):
   th_selected() then says whether TH_FILTER keeps it. Returns the seed. */
uint64_t th_seed_case(th_rng *r, const char *fmt, ...) TH_PRINTF(2, 3);
uint64_t th_next(th_rng *r);
double th_uniform(th_rng *r, double lo, double hi); /* [lo, hi) */
int64_t th_int(th_rng *r, int64_t lo, int64_t hi);  /* [lo, hi] */

/* Value rounded to dtype t (half, bfloat16, float: RNE; double: as is). */
double th_round(kf_dtype t, double v);
/* Stores/loads element i of a buffer of dtype t. */
void th_store(kf_dtype t, void *buf, size_t i, double v);
static inline double th_load(kf_dtype t, const void *buf, size_t i) {
  switch (t) {
    case KF_HALF: return kf_half_to_float(((const uint16_t *)buf)[i]);
    case KF_BFLOAT16: return kf_bfloat16_to_float(((const uint16_t *)buf)[i]);
    case KF_FLOAT: return ((const float *)buf)[i];
    case KF_DOUBLE: return ((const double *)buf)[i];
    case KF_INT32: return ((const int32_t *)buf)[i];
    default: return (double)NAN;
  }
}

/* max |got - want| / max(max |want|, floor); got in dtype t, want double. */
double th_rel_err(kf_dtype t, const void *got, const double *want, size_t n, double floor);
/* Error of a float reduction over c channels, in units of its tolerance: a
   float sum's error is bounded by its length times eps times the sum of the
   magnitudes of its terms (cancellation can make the result itself small),
   so the tolerance is 1e-5 of max |want| plus 1e-6 of each channel's sum of
   |terms| (l1, the L1 norm). <= 1 passes. */
double th_sum_err(const float *got, const double *want, const double *l1, int64_t c);
/* Tolerance of results of dtype t relative to max |expected| (see docs/testing.md). */
double th_tol(kf_dtype t);

kf_tensor_desc th_desc(kf_dtype t, int rank, const int64_t *dims);

/* A buffer of bytes off bytes (< 4096) past a 4 KiB boundary, with
   TH_GUARD bytes of 0x5c on both sides; *base is what to free. NULL when
   out of memory. th_guards_intact: both guards still 0x5c. */
#define TH_GUARD 64
unsigned char *th_guarded(size_t bytes, size_t off, void **base);
int th_guards_intact(const unsigned char *buf, size_t bytes);

#endif
