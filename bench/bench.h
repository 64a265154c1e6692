/*
** bench.h -- kforge's benchmark harness (bench/bench_main.c), shared by the
** per-op benchmark files (bench/bench_bngrad.c, bench/bench_dwbpi.c).
**
** Each op family's file (its spec's sources.bench) defines one entry point,
**     void bench_<family>(bench_ctx *ctx);
** which bench_main.c calls in specs/families.lua order (generated
** kfg_bench.h). An entry point times its cases with bench_time()
** and prints its own table with bench_printf(); the comparison libraries
** (oneDNN, PyTorch) are timed in the same process / same run.
**
** Timing rules (docs/performance.md, "Timing rules"):
**  - every buffer comes from bench_alloc(): on a 4 KiB boundary, or --offset
**    bytes past one (16: where numpy and malloc put large blocks), first-touched
**    (page faults cost ~10 us per 4 KiB page on these VMs), so no timed call
**    ever faults;
**  - bench_time() runs ctx->warmup untimed calls, then ctx->reps timed calls
**    (CLOCK_MONOTONIC), and returns the median and the minimum in ms;
**  - the process pins itself to one CPU for single-thread timings
**    (bench_pin_single) and unpins for all-core timings (bench_pin_all);
**  - the bandwidth figures in ctx are measured at start-up in the same run
**    (STREAM-style, arrays >> LLC, STREAM byte counting: no write-allocate).
*/
#ifndef bench_h
#define bench_h

#include <stddef.h>
#include <stdio.h>

#include "kforge.h"

typedef struct bench_stats {
  double median_ms, min_ms;
} bench_stats;

/* A PyTorch timing read from a results file (bench/torch_timing.py OUT). */
typedef struct bench_ext {
  char key[96];        /* e.g. "bngrad f32 nhwc 8x112x112x64" (op-defined) */
  int threads;         /* 1 or all */
  double median_ms;
} bench_ext;

typedef struct bench_ctx {
  int reps, warmup;            /* timed calls per measurement, untimed before */
  int rounds;                  /* a row's series timed in this many rounds (bench_time_row) */
  int all_threads;             /* number of CPUs (the "all cores" runs) */
  const kf_threads *pool;      /* a kf_threads over all_threads workers (pthreadpool) */
  const char *filter;          /* run only cases whose name contains this (NULL = all) */
  /* 1-thread and all-thread bandwidth, GB/s (1e9 B/s), STREAM counting */
  double bw_read1, bw_triad1, bw_copy1, bw_copynt1;
  double bw_readN, bw_triadN, bw_copyN, bw_copyntN;
  /* PyTorch: servers asked row by row (torch_serve), else the results of
     --torch FILE, possibly none */
  int torch_serve;
  int num_ext;
  bench_ext *ext;
  FILE *out;                   /* stdout */
} bench_ctx;

/* 64-byte aligned, first-touched (zero-filled) memory; never NULL (exits). */
void *bench_alloc(size_t bytes);
void bench_free(void *p);

/* Times fn(arg): ctx->warmup untimed calls, then ctx->reps timed calls. */
bench_stats bench_time(const bench_ctx *ctx, void (*fn)(void *arg), void *arg);

/* Wall-clock now, ms (CLOCK_MONOTONIC). */
double bench_now_ms(void);

/* Pin the calling thread to CPU 0 (single-thread timings) / allow all CPUs. */
void bench_pin_single(void);
void bench_pin_all(void);

/* The PyTorch median for key at threads (1 or ctx->all_threads), or a
   negative value if PyTorch did not time it: asked of the servers now
   (bench_torch_serve.c), or read from --torch FILE. */
double bench_ext_ms(const bench_ctx *ctx, const char *key, int threads);

/* PyTorch servers (bench/torch_timing.py --serve, bench/bench_torch_serve.c):
   init learns each script's key prefix (returns how many answered); ms
   times key at threads now, ctx->reps calls (negative: not timed); close
   stops them and prints what PyTorch could not time. */
int bench_torch_serve_init(const char *py, const char *const *scripts, int n);
double bench_torch_serve_ms(const bench_ctx *ctx, const char *key, int threads);
void bench_torch_serve_close(const bench_ctx *ctx);

/* 1: this case should run (ctx->filter is NULL or a substring of name). */
int bench_selected(const bench_ctx *ctx, const char *name);

/* Deterministic pseudo-random fill in [lo, hi) (f32, or f16/bf16 bits). */
void bench_fill_f32(float *p, size_t n, unsigned seed, float lo, float hi);
void bench_fill_u16(unsigned short *p, size_t n, unsigned seed, float lo, float hi, kf_dtype T);

/* printf to ctx->out (flushed). */
void bench_printf(const bench_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* A table's misses against the targets, collected row by row and
   printed after the table: each miss named with its ratio, or "met". */
typedef struct {
  char text[4096];
  int n;
} bench_misses;
void bench_miss(bench_misses *m, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* "Target <target>: met (<rows> rows)." or "... missed on N: <misses>." */
void bench_print_misses(const bench_ctx *ctx, const bench_misses *m, const char *target, int rows);

/* Times fn(a) and fn(b) alternately, call by call (drift and other tenants
   hit both alike), which first by a fixed pseudo-random bit per pair
   (strict ABAB let a competitor's time slices fall on the second call of
   every pair): ctx->warmup untimed calls of each, then ctx->reps timed
   calls of each. *noise: the larger relative median
   absolute deviation of the two series. */
void bench_time_pair(const bench_ctx *ctx, void (*fn)(void *arg), void *a, void *b, bench_stats *sa, bench_stats *sb,
                     double *noise);

/* One row's timings: kforge's rule plan and measured plan alternating
   (bench_time_pair) and oneDNN at 1 thread, pinned; kforge and oneDNN at
   all threads; PyTorch at both (bench_ext_ms). The reps are split into
   ctx->rounds rounds, each running every series in that order after its own
   warm-ups, so that a change of the host's load during a row (other
   tenants come and go within seconds on these VMs) falls on every library
   alike; each figure is the median of its rounds' medians (minimum: the
   least call). dnnl NULL (or d1 NULL): oneDNN is not timed, its figures
   are -1; PyTorch's are -1 where it did not time key. */
typedef struct bench_row {
  bench_stats k1, km, d1, kn, dn;
  double t1, tn;  /* PyTorch, 1 thread and all threads (ms) */
  double noise;   /* bench_time_pair's, the median of the rounds' */
} bench_row;
void bench_time_row(const bench_ctx *ctx, const char *key, void (*kf)(void *arg), void *k1, void *km, void *kn,
                    void (*dnnl)(void *arg), void *d1, void *dn, bench_row *row);

/* Issue 27's targets for the measured plan, row by row (docs/tuning.md):
   the measured plan is never slower than the rule's beyond noise (a miss:
   median more than max(3%, 2 x noise) and minimum more than 3% slower),
   and the rule's plan is within 10% of the measured one (a miss: median
   and minimum both more than 10% slower). */
typedef struct {
  bench_misses slower, far;
  int rows, same; /* same: rows where measuring kept the rule's own plan */
} bench_plan_targets;
/* 1 when the two plans chose the same kernel and plan-time values. */
int bench_same_plan(const kf_plan *a, const kf_plan *b);
void bench_plan_row(bench_plan_targets *t, const char *row, bench_stats rule, bench_stats measured, double noise,
                    int same);
void bench_print_plan_targets(const bench_ctx *ctx, const bench_plan_targets *t);

/* Each op family's entry point, bench_<family>(bench_ctx *), is declared
   and called by bench_main.c from the generated kfg_bench.h. */

#endif
