/*
** kf_stream.c -- the warm streaming threshold: the output size from which
** a plan's kernels store around the caches when the caller re-uses its
** buffers. Whether that pays depends on the CPU's streamed-store
** bandwidth, so it is measured once per process, on the first plan that
** needs it: a copy into a warm buffer of twice the L2, ordinary against
** streamed, and an ordinary copy within the L2. Where ordinary stores past
** the L2 are slow (at least twice the time per byte of the copy within
** it: each line is read from a far LLC) and streamed ones keep pace with
** them (at most 1.25x), outputs stream from half the L2, where a call's
** output and its inputs (at least as large again) spill the L2. Where the
** streamed copy takes at most twice as long, streamed stores still keep
** up with a kernel (kernels write at most half as fast as a copy) and
** leave the caches to its inputs: outputs from the measured size, two L2s
** (docs/tuning.md, "Streaming stores: measured once per CPU").
** KFORGE_STREAM overrides it. Without an OS or outside x86-64 (the only
** kernels that stream) nothing is measured: a quarter of the LLC.
*/
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#endif
#include <stdlib.h>
#include <string.h>

#include "kfi.h"
#include "kfi_wisdom.h"

#define KFI_STREAM_RATIO 2.0 /* streamed/ordinary copy time at or below it: streaming pays */
#define KFI_STREAM_PACE 1.25 /* at or below it, ordinary stores being slow: streaming keeps pace */
#define KFI_STREAM_FAR 2.0   /* ordinary copy past the L2 / within it, per byte: the LLC is far */

/* t_near: an ordinary copy within the L2, scaled to the same bytes. Both
   thresholds sit far from what the hosts measured on either side
   (docs/tuning.md, "Streaming stores: measured once per CPU"). */
int kfi_stream_pays(double t_plain, double t_stream, double t_near) {
  if (!(t_plain > 0 && t_stream > 0)) return 0;
  if (t_near > 0 && t_plain >= KFI_STREAM_FAR * t_near && t_stream <= KFI_STREAM_PACE * t_plain) return 2;
  return t_stream <= KFI_STREAM_RATIO * t_plain;
}

/* The measured size class: twice the L2, so neither copy fits it and the
   destination's lines live in the LLC between runs, as a re-used output's
   do; 0 above 8 MiB (the buffers are mapped for the measurement only). */
#define KFI_STREAM_CLASS_MAX ((int64_t)8 << 20)
static int64_t class_bytes(const kfi_caches *c) {
  const int64_t s = 2 * c->l2 < ((int64_t)512 << 10) ? (int64_t)512 << 10 : 2 * c->l2;
  return s <= KFI_STREAM_CLASS_MAX ? s : 0;
}

/* Where streaming pays, outputs from the class on stream (two L2s): the
   size the verdict was measured at; where it keeps pace, from half the L2
   (docs/performance.md, "Emerald Rapids: streaming from half the L2").
   Kernels whose stores would mix streamed and plain lines (batch norm's
   short NCHW planes) keep to plain stores whatever the threshold. */
int64_t kfi_stream_threshold(const kfi_caches *c, int pays) {
  const int64_t s = pays == 2 ? c->l2 / 2 : class_bytes(c);
  return pays && s && s < c->llc / 4 ? s : c->llc / 4;
}

/* KFORGE_STREAM: a size as KFORGE_LLC takes it; -1 when set to something
   else, 0 when unset, blank or "auto" (measure). */
static int64_t stream_env(const char **text) {
#if defined(__x86_64__) || defined(__aarch64__)
  const char *v = getenv("KFORGE_STREAM"), *p;
  *text = v;
  if (!v) return 0;
  for (p = v; *p == ' ' || *p == '\t'; p++) {}
  if (!strncmp(p, "auto", 4)) {
    for (p += 4; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'; p++) {}
    return *p ? -1 : 0;
  }
  return kfi_parse_size(v);
#else
  *text = NULL; /* microcontrollers: no environment */
  return 0;
#endif
}

kf_status kfi_check_stream_env(kf_error *err) {
  const char *text;
  if (stream_env(&text) >= 0) return KF_OK;
  return kfi_fail(err, KF_INVALID_ARGUMENT, "env.stream",
                  "KFORGE_STREAM=\"%.40s\" is no size: use bytes with an optional K, M or G (\"2M\"), auto, or unset it",
                  text);
}

#if KFI_HAS_OS && defined(__x86_64__)
#include <sys/mman.h>
#endif
/* Anonymous mappings need _DEFAULT_SOURCE (or BSD's MAP_ANON spelling):
   without them, as in a one-file build that includes this file after the
   system headers, nothing is measured. */
#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif
#if KFI_HAS_OS && defined(__x86_64__) && defined(MAP_ANONYMOUS)
#include <emmintrin.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define KFI_STREAM_ROUNDS 9        /* at most; best of each kind */
#define KFI_STREAM_BUDGET_NS 2e6   /* no round starts after it (two at least) */

/* dst = src + 1, whole 64-byte lines, stored through the cache or around
   it; returns the time it took. */
static double copy_lines(float *dst, const float *src, size_t n, int stream) {
  const __m128 one = _mm_set1_ps(1.0f);
  const double t0 = kfi_now_ns();
  size_t i;
  if (stream) {
    for (i = 0; i < n; i += 16) {
      _mm_stream_ps(dst + i, _mm_add_ps(_mm_load_ps(src + i), one));
      _mm_stream_ps(dst + i + 4, _mm_add_ps(_mm_load_ps(src + i + 4), one));
      _mm_stream_ps(dst + i + 8, _mm_add_ps(_mm_load_ps(src + i + 8), one));
      _mm_stream_ps(dst + i + 12, _mm_add_ps(_mm_load_ps(src + i + 12), one));
    }
    _mm_sfence();
  } else {
    for (i = 0; i < n; i += 16) {
      _mm_store_ps(dst + i, _mm_add_ps(_mm_load_ps(src + i), one));
      _mm_store_ps(dst + i + 4, _mm_add_ps(_mm_load_ps(src + i + 4), one));
      _mm_store_ps(dst + i + 8, _mm_add_ps(_mm_load_ps(src + i + 8), one));
      _mm_store_ps(dst + i + 12, _mm_add_ps(_mm_load_ps(src + i + 12), one));
    }
  }
  return kfi_now_ns() - t0;
}

/* Times an ordinary and a streamed copy of one size class into a warm
   destination (in the LLC, written by an ordinary copy just before each
   run), and an ordinary copy of an eighth of it (a quarter of the L2:
   within it, warm), scaled to the class. 0 when nothing could be timed (no
   memory). */
static int measure(const kfi_caches *c, double *t_plain, double *t_stream, double *t_near, double *cost_ns) {
  const size_t bytes = (size_t)class_bytes(c), near = bytes / 8, huge = (size_t)2 << 20;
  const double start = kfi_now_ns();
  unsigned char *map, *base;
  float *src, *dst;
  int r;
  *t_plain = *t_stream = *t_near = *cost_ns = -1;
  map = mmap(NULL, 2 * bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return 0;
  base = map + (huge - (uintptr_t)map % huge) % huge;
#if defined(MADV_HUGEPAGE)
  madvise(base, 2 * bytes, MADV_HUGEPAGE); /* fewer page faults: most of the cost */
#endif
  src = (float *)(void *)base;
  dst = (float *)(void *)(base + bytes);
  memset(base, 0, 2 * bytes);
  copy_lines(dst, src, bytes / 4, 0);
  for (r = 0; r < KFI_STREAM_ROUNDS; r++) {
    const double tp = copy_lines(dst, src, bytes / 4, 0), ts = copy_lines(dst, src, bytes / 4, 1);
    double tn;
    copy_lines(dst, src, near / 4, 0);
    tn = copy_lines(dst, src, near / 4, 0) * 8;
    if (*t_plain < 0 || tp < *t_plain) *t_plain = tp;
    if (*t_stream < 0 || ts < *t_stream) *t_stream = ts;
    if (*t_near < 0 || tn < *t_near) *t_near = tn;
    if (r >= 1 && kfi_now_ns() - start > KFI_STREAM_BUDGET_NS) break;
    if (*t_stream > 2 * KFI_STREAM_RATIO * *t_plain) break; /* a clear loss: done */
    copy_lines(dst, src, bytes / 4, 0); /* the destination warm again */
  }
  munmap(map, 2 * bytes + huge);
  *cost_ns = kfi_now_ns() - start;
  return 1;
}

/* The process's verdict: 0 not yet, else 1 + kfi_stream_pays (1 streaming
   does not pay, 2 it pays, 3 it keeps pace).
   The first plan that needs it measures (owner: its process id) while
   other threads wait; a child forked while its parent measured finds
   another process id there and measures again itself. */
static atomic_int verdict;
static atomic_long owner;
static double last_plain = -1, last_stream = -1, last_near = -1, last_cost = -1;

static int verdict_of(const kfi_caches *c) {
  for (;;) {
    long who = atomic_load(&owner);
    const long me = (long)getpid();
    int v = atomic_load(&verdict);
    if (v) return v;
    if (who != me && atomic_compare_exchange_strong(&owner, &who, me)) {
      double tp = -1, ts = -1, tn = -1, cost = -1;
      v = 1 + (measure(c, &tp, &ts, &tn, &cost) ? kfi_stream_pays(tp, ts, tn) : 0);
      last_plain = tp, last_stream = ts, last_near = tn, last_cost = cost;
      atomic_store(&verdict, v);
      return v;
    }
    if (who == me) {
      struct timespec pause = { 0, 50000 };
      nanosleep(&pause, NULL); /* another thread measures */
    }
  }
}

int kfi_stream_calibration(double *t_plain, double *t_stream, double *t_near, double *cost_ns) {
  const int v = atomic_load(&verdict);
  if (v) *t_plain = last_plain, *t_stream = last_stream, *t_near = last_near, *cost_ns = last_cost;
  return v;
}
#else
static int verdict_of(const kfi_caches *c) {
  (void)c;
  return 1; /* no kernel here streams, or nothing to measure with */
}

int kfi_stream_calibration(double *t_plain, double *t_stream, double *t_near, double *cost_ns) {
  *t_plain = *t_stream = *t_near = *cost_ns = -1;
  return 0;
}
#endif

int64_t kfi_stream_warm(const kfi_caches *c) {
  const char *text;
  const int64_t e = stream_env(&text);
  const int64_t s = class_bytes(c);
  if (e > 0) return e;
  if (!s || s >= c->llc / 4) return c->llc / 4; /* nothing to decide: no measuring */
  return kfi_stream_threshold(c, verdict_of(c) - 1);
}
