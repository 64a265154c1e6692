/*
** bench_main.c -- kforge's benchmark driver (`ninja bench`): measures the
** machine's memory bandwidth (STREAM-style) in the same run, then calls each
** op family's benchmark (bench_<family>, listed by the generated kfg_bench.h), which time kforge against
** oneDNN (same process) and PyTorch (the op families' scripts run as
** servers and asked row by row, or a results file of theirs).
**
**   build/bench/kforge_bench [--reps N] [--warmup N] [--rounds N] [--filter TEXT]
**                            [--torch-py PY --torch-script FILE...]
**                            [--torch FILE] [--no-stream] [--offset BYTES]
**                            [--pool-spin]
*/
#define _GNU_SOURCE
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dnnl.h>
#include <pthreadpool.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "bench.h"

extern void omp_set_num_threads(int n); /* libgomp: oneDNN's OpenMP runtime */
/* the runtime's last-level cache as detected at plan time (runtime/kf_cpu.c;
   internal: the figure says which batch-norm pass 1 ran) */
int64_t kfi_cpu_llc_bytes(void);

/* The op families with a benchmark file (their specs' sources.bench), in
   specs/families.lua order: generated, so no family is named here. */
#define KFG_BENCH(f) void bench_##f(bench_ctx *ctx);
#include "kfg_bench.h"
#undef KFG_BENCH

double bench_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Bytes past a 4 KiB boundary where the cases' buffers start (--offset):
   0 or 64 as TensorFlow's allocator gives them, 16 as numpy and malloc
   give large blocks. The bandwidth arrays are allocated before it is set. */
static size_t alloc_off;

void *bench_alloc(size_t bytes) {
  void *p = NULL;
  if (bytes == 0) bytes = 64;
  bytes = (bytes + 63) & ~(size_t)63;
  if (posix_memalign(&p, 4096, bytes + alloc_off) != 0 || !p) {
    fprintf(stderr, "bench: out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  memset(p, 0, bytes + alloc_off); /* first touch: no page fault inside a timed call */
  return (char *)p + alloc_off;
}

/* the block starts at the 4 KiB boundary below p (offsets are below 4096) */
void bench_free(void *p) {
  if (p) free((char *)p - (uintptr_t)p % 4096);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

bench_stats bench_time(const bench_ctx *ctx, void (*fn)(void *arg), void *arg) {
  bench_stats s;
  double t[1000];
  int i, n = ctx->reps < 1 ? 1 : ctx->reps > 1000 ? 1000 : ctx->reps;
  for (i = 0; i < ctx->warmup; i++) fn(arg);
  for (i = 0; i < n; i++) {
    double t0 = bench_now_ms();
    fn(arg);
    t[i] = bench_now_ms() - t0;
  }
  qsort(t, (size_t)n, sizeof t[0], cmp_double);
  s.median_ms = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  s.min_ms = t[0];
  return s;
}

void bench_pin_single(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(0, &set);
  sched_setaffinity(0, sizeof set, &set);
}

void bench_pin_all(void) {
  cpu_set_t set;
  long i, n = sysconf(_SC_NPROCESSORS_ONLN);
  CPU_ZERO(&set);
  for (i = 0; i < n && i < CPU_SETSIZE; i++) CPU_SET((int)i, &set);
  sched_setaffinity(0, sizeof set, &set);
}

double bench_ext_ms(const bench_ctx *ctx, const char *key, int threads) {
  int i;
  if (ctx->torch_serve) return bench_torch_serve_ms(ctx, key, threads);
  for (i = 0; i < ctx->num_ext; i++)
    if (ctx->ext[i].threads == threads && strcmp(ctx->ext[i].key, key) == 0) return ctx->ext[i].median_ms;
  return -1.0;
}

int bench_selected(const bench_ctx *ctx, const char *name) {
  return !ctx->filter || strstr(name, ctx->filter) != NULL;
}

static unsigned next_rand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

void bench_fill_f32(float *p, size_t n, unsigned seed, float lo, float hi) {
  size_t i;
  for (i = 0; i < n; i++) p[i] = lo + (hi - lo) * (float)next_rand(&seed) * (1.0f / 16777216.0f);
}

void bench_fill_u16(unsigned short *p, size_t n, unsigned seed, float lo, float hi, kf_dtype T) {
  size_t i;
  for (i = 0; i < n; i++) {
    float f = lo + (hi - lo) * (float)next_rand(&seed) * (1.0f / 16777216.0f);
    uint32_t b;
    memcpy(&b, &f, 4);
    if (T == KF_BFLOAT16) {
      p[i] = (unsigned short)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
    } else { /* half, |f| < 65504, normal range or zero */
      uint32_t s = (b >> 16) & 0x8000u, ax = b & 0x7fffffffu;
      if (ax < 0x38800000u) p[i] = (unsigned short)s;
      else {
        uint32_t r = ax - 0x38000000u;
        r += 0x0fffu + ((r >> 13) & 1u);
        p[i] = (unsigned short)(s | (r >> 13));
      }
    }
  }
}

void bench_printf(const bench_ctx *ctx, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(ctx->out, fmt, ap);
  va_end(ap);
  fflush(ctx->out);
}

void bench_miss(bench_misses *m, const char *fmt, ...) {
  size_t len = strlen(m->text);
  va_list ap;
  if (len + 3 >= sizeof m->text) return; /* full: the count still says how many */
  if (m->n > 0) len += (size_t)snprintf(m->text + len, sizeof m->text - len, "; ");
  va_start(ap, fmt);
  vsnprintf(m->text + len, sizeof m->text - len, fmt, ap);
  va_end(ap);
  m->n++;
}

void bench_print_misses(const bench_ctx *ctx, const bench_misses *m, const char *target, int rows) {
  if (m->n == 0) bench_printf(ctx, "Target %s: met (%d rows).\n", target, rows);
  else bench_printf(ctx, "Target %s: missed on %d of %d rows: %s.\n", target, m->n, rows, m->text);
}

static double median_of(double *t, int n) {
  qsort(t, (size_t)n, sizeof t[0], cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Median absolute deviation over the median (sorts t). */
static double rel_mad(double *t, int n, double med) {
  int i;
  for (i = 0; i < n; i++) t[i] = t[i] > med ? t[i] - med : med - t[i];
  return med > 0 ? median_of(t, n) / med : 0;
}

void bench_time_pair(const bench_ctx *ctx, void (*fn)(void *arg), void *a, void *b, bench_stats *sa, bench_stats *sb,
                     double *noise) {
  static double ta[1000], tb[1000];
  unsigned order = 12345u;
  int i, n = ctx->reps < 1 ? 1 : ctx->reps > 1000 ? 1000 : ctx->reps;
  double na, nb;
  for (i = 0; i < ctx->warmup; i++) fn(a), fn(b);
  for (i = 0; i < n; i++) {
    /* which runs first: a fixed pseudo-random bit per pair, so that neither
       is second in a pattern a competitor's time slices could follow */
    const int swap = (int)((order = order * 1664525u + 1013904223u) >> 31);
    double t0 = bench_now_ms();
    fn(swap ? b : a);
    (swap ? tb : ta)[i] = bench_now_ms() - t0;
    t0 = bench_now_ms();
    fn(swap ? a : b);
    (swap ? ta : tb)[i] = bench_now_ms() - t0;
  }
  sa->median_ms = median_of(ta, n), sa->min_ms = ta[0];
  sb->median_ms = median_of(tb, n), sb->min_ms = tb[0];
  na = rel_mad(ta, n, sa->median_ms);
  nb = rel_mad(tb, n, sb->median_ms);
  *noise = na > nb ? na : nb;
}

#define BENCH_MAX_ROUNDS 64

/* A series' figures over the rounds: the median of the rounds' medians, the
   least call; n == 0 (never timed) gives -1. */
typedef struct series {
  double med[BENCH_MAX_ROUNDS], min;
  int n;
} series;

static void series_add(series *s, bench_stats st) {
  if (st.median_ms < 0 || s->n >= BENCH_MAX_ROUNDS) return;
  if (!s->n || st.min_ms < s->min) s->min = st.min_ms;
  s->med[s->n++] = st.median_ms;
}

static bench_stats series_stats(series *s) {
  bench_stats st = { -1, -1 };
  if (s->n) st.median_ms = median_of(s->med, s->n), st.min_ms = s->min;
  return st;
}

void bench_time_row(const bench_ctx *ctx, const char *key, void (*kf)(void *arg), void *k1, void *km, void *kn,
                    void (*dnnl)(void *arg), void *d1, void *dn, bench_row *row) {
  series s[7];
  double noise[BENCH_MAX_ROUNDS];
  bench_ctx rc = *ctx;
  int r, rounds = ctx->rounds < 1 ? 1 : ctx->rounds;
  if (rounds > BENCH_MAX_ROUNDS) rounds = BENCH_MAX_ROUNDS;
  if (rounds > ctx->reps) rounds = ctx->reps > 1 ? ctx->reps : 1;
  rc.reps = (ctx->reps + rounds - 1) / rounds;
  memset(s, 0, sizeof s);
  for (r = 0; r < rounds; r++) {
    bench_stats a, b, none = { -1, -1 };
    bench_pin_single();
    omp_set_num_threads(1);
    bench_time_pair(&rc, kf, k1, km, &a, &b, &noise[r]); /* the rule's plan and the measured one, alternating */
    series_add(&s[0], a);
    series_add(&s[1], b);
    series_add(&s[2], dnnl && d1 ? bench_time(&rc, dnnl, d1) : none);
    bench_pin_all();
    omp_set_num_threads(ctx->all_threads);
    series_add(&s[3], bench_time(&rc, kf, kn));
    series_add(&s[4], dnnl && dn ? bench_time(&rc, dnnl, dn) : none);
    omp_set_num_threads(1);
    a.median_ms = a.min_ms = bench_ext_ms(&rc, key, 1);
    series_add(&s[5], a);
    a.median_ms = a.min_ms = bench_ext_ms(&rc, key, ctx->all_threads);
    series_add(&s[6], a);
  }
  row->k1 = series_stats(&s[0]);
  row->km = series_stats(&s[1]);
  row->d1 = series_stats(&s[2]);
  row->kn = series_stats(&s[3]);
  row->dn = series_stats(&s[4]);
  row->t1 = series_stats(&s[5]).median_ms;
  row->tn = series_stats(&s[6]).median_ms;
  row->noise = median_of(noise, rounds);
}

/* A loaded host's preemptions make the timings bimodal, and a median can
   land in either mode: a difference counts only when the minima (the runs
   nothing interrupted) show it too. */
int bench_same_plan(const kf_plan *a, const kf_plan *b) {
  char ca[512], cb[512];
  return strcmp(kf_plan_choices(a, ca, sizeof ca), kf_plan_choices(b, cb, sizeof cb)) == 0;
}

/* Where measuring kept the rule's own plan, the two columns time one plan
   on two sets of buffers: their difference is where those buffers' pages
   fell, not a choice, and the row cannot miss. */
void bench_plan_row(bench_plan_targets *t, const char *row, bench_stats rule, bench_stats measured, double noise,
                    int same) {
  const double beyond = noise * 2 > 0.03 ? noise * 2 : 0.03;
  if (rule.median_ms <= 0 || measured.median_ms <= 0) return;
  t->rows++;
  if (same) {
    t->same++;
    return;
  }
  if (measured.median_ms > rule.median_ms * (1 + beyond) && measured.min_ms > rule.min_ms * 1.03)
    bench_miss(&t->slower, "%s %.2fx (noise %.0f%%)", row, measured.median_ms / rule.median_ms, 100 * noise);
  if (rule.median_ms > measured.median_ms * 1.10 && rule.min_ms > measured.min_ms * 1.10)
    bench_miss(&t->far, "%s %.2fx", row, rule.median_ms / measured.median_ms);
}

void bench_print_plan_targets(const bench_ctx *ctx, const bench_plan_targets *t) {
  if (t->rows == 0) return;
  bench_printf(ctx, "Measured plans: %d of %d rows kept the rule's own plan (those rows meet both targets below).\n",
               t->same, t->rows);
  bench_print_misses(ctx, &t->slower, "measured plan 1T never slower than the rule's beyond noise", t->rows);
  bench_print_misses(ctx, &t->far, "rule's plan 1T within 10% of the measured plan", t->rows);
}

/* ---- kf_threads over pthreadpool ---- */
/* The all-thread pool's workers sleep after each call (pthreadpool's
   YIELD_WORKERS), as oneDNN's passive OpenMP threads do: spinning workers
   (--pool-spin) that share a CPU with a working one hold it until the
   scheduler's next tick, which stalls whole calls (docs/performance.md,
   "Intel Emerald Rapids, 16 cores"). */
static uint32_t g_pool_flags = PTHREADPOOL_FLAG_YIELD_WORKERS;
static void pool_for(void *pool, kf_task_fn task, void *ctx, size_t n) {
  pthreadpool_parallelize_1d((pthreadpool_t)pool, (pthreadpool_task_1d_t)task, ctx, n, g_pool_flags);
}

/* ---- STREAM-style bandwidth: arrays far larger than the LLC ---- */
typedef struct {
  double *a, *b, *c;
  size_t n, chunk;
  int kind; /* 0 copy, 1 triad, 2 read, 3 copy with streaming stores */
  double sum[64];
} stream_job;

static void stream_task(void *ctx, size_t t) {
  stream_job *j = (stream_job *)ctx;
  size_t i0 = t * j->chunk, i1 = i0 + j->chunk < j->n ? i0 + j->chunk : j->n, i;
  double *a = j->a, *b = j->b, *c = j->c, s = 0.0;
  switch (j->kind) {
    case 0: memcpy(c + i0, a + i0, (i1 - i0) * sizeof(double)); break;
    case 1: for (i = i0; i < i1; i++) a[i] = b[i] + 3.0 * c[i]; break;
    case 2: {
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (i = i0; i + 4 <= i1; i += 4) { s0 += a[i]; s1 += a[i + 1]; s2 += a[i + 2]; s3 += a[i + 3]; }
      s = s0 + s1 + s2 + s3;
      break;
    }
    default:
#if defined(__x86_64__)
      for (i = i0; i + 2 <= i1; i += 2) _mm_stream_pd(c + i, _mm_loadu_pd(a + i));
      _mm_sfence();
#else
      memcpy(c + i0, a + i0, (i1 - i0) * sizeof(double));
#endif
      break;
  }
  j->sum[t % 64] += s;
}

static double stream_run(stream_job *j, int kind, pthreadpool_t pool, int tasks) {
  static const double bytes_per[] = { 16, 24, 8, 16 };
  double best = 1e30;
  int r;
  j->kind = kind;
  j->chunk = (j->n + (size_t)tasks - 1) / (size_t)tasks;
  for (r = 0; r < 6; r++) {
    double t0 = bench_now_ms(), t;
    if (pool) pthreadpool_parallelize_1d(pool, stream_task, j, (size_t)tasks, 0);
    else stream_task(j, 0);
    t = bench_now_ms() - t0;
    if (r > 0 && t < best) best = t;
  }
  return bytes_per[kind] * (double)j->n / (best * 1e6); /* GB/s */
}

static void measure_bandwidth(bench_ctx *ctx, pthreadpool_t pool) {
  stream_job j;
  memset(&j, 0, sizeof j);
  j.n = (size_t)16 << 20; /* 3 x 128 MiB */
  j.a = bench_alloc(j.n * sizeof(double));
  j.b = bench_alloc(j.n * sizeof(double));
  j.c = bench_alloc(j.n * sizeof(double));
  bench_fill_f32((float *)j.a, j.n * 2, 1, -1, 1);
  bench_pin_single();
  ctx->bw_copy1 = stream_run(&j, 0, NULL, 1);
  ctx->bw_triad1 = stream_run(&j, 1, NULL, 1);
  ctx->bw_read1 = stream_run(&j, 2, NULL, 1);
  ctx->bw_copynt1 = stream_run(&j, 3, NULL, 1);
  bench_pin_all();
  ctx->bw_copyN = stream_run(&j, 0, pool, ctx->all_threads);
  ctx->bw_triadN = stream_run(&j, 1, pool, ctx->all_threads);
  ctx->bw_readN = stream_run(&j, 2, pool, ctx->all_threads);
  ctx->bw_copyntN = stream_run(&j, 3, pool, ctx->all_threads);
  bench_free(j.a);
  bench_free(j.b);
  bench_free(j.c);
}

static void read_ext(bench_ctx *ctx, const char *path) {
  FILE *f = fopen(path, "r");
  char line[256];
  int cap = 0;
  if (!f) {
    bench_printf(ctx, "(no PyTorch results: %s not found; run bench/bench_torch.py)\n", path);
    return;
  }
  while (fgets(line, sizeof line, f)) {
    bench_ext e;
    char *bar = strchr(line, '|');
    if (line[0] == '#' || !bar) continue;
    *bar = 0;
    memset(&e, 0, sizeof e);
    snprintf(e.key, sizeof e.key, "%.95s", line);
    if (sscanf(bar + 1, "%d %lf", &e.threads, &e.median_ms) != 2) continue;
    if (ctx->num_ext == cap) {
      cap = cap ? 2 * cap : 64;
      ctx->ext = realloc(ctx->ext, (size_t)cap * sizeof *ctx->ext);
      if (!ctx->ext) exit(1);
    }
    ctx->ext[ctx->num_ext++] = e;
  }
  fclose(f);
}

int main(int argc, char **argv) {
  bench_ctx ctx;
  kf_threads threads;
  pthreadpool_t pool;
  const char *torch = "build/bench/torch_results.txt", *torch_py = NULL, *scripts[8];
  int i, do_stream = 1, nscripts = 0;
  long off = 0;
  memset(&ctx, 0, sizeof ctx);
  ctx.reps = 21;
  ctx.warmup = 5;
  ctx.rounds = 3;
  ctx.out = stdout;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) ctx.reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) ctx.warmup = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc && (ctx.rounds = atoi(argv[++i])) >= 1 &&
             ctx.rounds <= BENCH_MAX_ROUNDS) {}
    else if (!strcmp(argv[i], "--filter") && i + 1 < argc) ctx.filter = argv[++i];
    else if (!strcmp(argv[i], "--torch") && i + 1 < argc) torch = argv[++i];
    else if (!strcmp(argv[i], "--torch-py") && i + 1 < argc) torch_py = argv[++i];
    else if (!strcmp(argv[i], "--torch-script") && i + 1 < argc && nscripts < 8) scripts[nscripts++] = argv[++i];
    else if (!strcmp(argv[i], "--no-stream")) do_stream = 0;
    else if (!strcmp(argv[i], "--pool-spin")) g_pool_flags = 0;
    else if (!strcmp(argv[i], "--offset") && i + 1 < argc && (off = atol(argv[++i])) >= 0 && off < 4096 && off % 16 == 0) {}
    else {
      fprintf(stderr, "usage: %s [--reps N] [--warmup N] [--rounds N] [--filter TEXT] [--torch-py PY --torch-script FILE...] "
                      "[--torch FILE] [--no-stream] [--offset BYTES] [--pool-spin]\n"
                      "  --rounds: each row's series timed in N rounds of reps/N calls, every library in each (default 3)\n"
                      "  --torch-py, --torch-script: PyTorch timed row by row, each row right after kforge's, by these "
                      "scripts (bench/torch_timing.py --serve) under PY\n"
                      "  --torch: PyTorch's timings read from FILE instead (bench/torch_timing.py OUT)\n  --offset: the cases' buffers this many bytes past a 4 KiB boundary, "
                      "a multiple of 16 below 4096 (default 0; numpy and malloc give 16)\n"
                      "  --pool-spin: the all-thread pool's workers spin between calls instead of sleeping\n", argv[0]);
      return 2;
    }
  }
  ctx.all_threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (ctx.all_threads < 1) ctx.all_threads = 1;
  pool = pthreadpool_create((size_t)ctx.all_threads);
  threads.parallel_for = pool_for;
  threads.pool = pool;
  threads.num_threads = (int)pthreadpool_get_threads_count(pool);
  ctx.pool = &threads;
  {
    /* name the host and the libraries: a figure without them means little */
    const dnnl_version_t *v = dnnl_version();
    char model[128] = "unknown CPU", line[256];
    const char *isa_env = getenv("KFORGE_ISA"), *dnnl_cap = getenv("ONEDNN_MAX_CPU_ISA");
    FILE *f = fopen("/proc/cpuinfo", "r");
    int family = -1;
    while (f && fgets(line, sizeof line, f)) {
      char *colon = strchr(line, ':');
      if (!colon) continue;
      if (!strncmp(line, "model name", 10) && !strcmp(model, "unknown CPU")) {
        snprintf(model, sizeof model, "%s", colon + 2);
        model[strcspn(model, "\n")] = 0;
      } else if (!strncmp(line, "cpu family", 10) && family < 0) {
        family = atoi(colon + 1);
      }
    }
    if (f) fclose(f);
    bench_printf(&ctx, "kforge bench: %s (family %d), %d CPUs, last-level cache %lld KiB, kforge ISAs %s%s%s%s, "
                 "oneDNN %d.%d.%d%s%s, %d timed calls a series in %d rounds (the median of the rounds' medians; %d warm-ups a round), buffers %ld bytes past a 4 KiB boundary, "
                 "all-thread pool: pthreadpool, workers %s between calls\n",
                 model, family, ctx.all_threads, (long long)(kfi_cpu_llc_bytes() >> 10),
                 kf_cpu_isas() & KF_ISA_AVX512 ? "avx512 " : "",
                 kf_cpu_isas() & KF_ISA_AVX2 ? "avx2 " : "", "scalar", isa_env ? " (KFORGE_ISA capped)" : "",
                 v->major, v->minor, v->patch, dnnl_cap ? " capped at " : "", dnnl_cap ? dnnl_cap : "", ctx.reps,
                 ctx.rounds, ctx.warmup, off, g_pool_flags ? "sleep" : "spin");
  }
  if (do_stream) {
    measure_bandwidth(&ctx, pool);
    bench_printf(&ctx,
                 "bandwidth GB/s (STREAM counting, 3 x 128 MiB, best of 5):\n"
                 "  1 thread:  copy %.1f  triad %.1f  read %.1f  copy-nt %.1f\n"
                 "  %d threads: copy %.1f  triad %.1f  read %.1f  copy-nt %.1f\n\n",
                 ctx.bw_copy1, ctx.bw_triad1, ctx.bw_read1, ctx.bw_copynt1, ctx.all_threads, ctx.bw_copyN,
                 ctx.bw_triadN, ctx.bw_readN, ctx.bw_copyntN);
  }
  if (torch_py && nscripts > 0) {
    ctx.torch_serve = bench_torch_serve_init(torch_py, scripts, nscripts) > 0;
    bench_printf(&ctx, ctx.torch_serve ? "PyTorch: timed row by row, right after kforge (%s --serve)\n\n"
                                       : "(no PyTorch: %s --prefix gave nothing)\n\n", scripts[0]);
  } else {
    read_ext(&ctx, torch);
  }
  alloc_off = (size_t)off; /* the cases' buffers (the bandwidth arrays above start on the boundary) */
#define KFG_BENCH(f) bench_##f(&ctx);
#include "kfg_bench.h"
#undef KFG_BENCH
  if (ctx.torch_serve) bench_torch_serve_close(&ctx);
  pthreadpool_destroy(pool);
  free(ctx.ext);
  return 0;
}
