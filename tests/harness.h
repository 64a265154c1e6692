/*
** harness.h -- the tiny test harness of kforge's C tests: checks that
** print "ok - ..." / "FAIL - ...", a deterministic RNG, dtype rounding and
** comparison helpers. Every test binary ends with th_done(), which prints
** "N passed, M failed" and returns the exit status.
*/
#ifndef harness_h
#define harness_h

#include <stddef.h>
#include <stdint.h>

#include "kforge.h"

/* Records one check; prints FAIL lines always, ok lines when TH_VERBOSE=1. */
int th_check(int cond, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
int th_done(void);

/* xorshift64*: deterministic across platforms. */
typedef struct th_rng { uint64_t s; } th_rng;
void th_seed(th_rng *r, uint64_t seed);
uint64_t th_next(th_rng *r);
double th_uniform(th_rng *r, double lo, double hi); /* [lo, hi) */
int64_t th_int(th_rng *r, int64_t lo, int64_t hi);  /* [lo, hi] */

/* Value rounded to dtype t (half, bfloat16, float: RNE; double: as is). */
double th_round(kf_dtype t, double v);
/* Stores/loads element i of a buffer of dtype t. */
void th_store(kf_dtype t, void *buf, size_t i, double v);
double th_load(kf_dtype t, const void *buf, size_t i);

/* max |got - want| / max(max |want|, floor); got in dtype t, want double. */
double th_rel_err(kf_dtype t, const void *got, const double *want, size_t n, double floor);
/* Tolerance of results of dtype t relative to max |expected| (see docs/testing.md). */
double th_tol(kf_dtype t);

kf_tensor_desc th_desc(kf_dtype t, int rank, const int64_t *dims);

#endif
