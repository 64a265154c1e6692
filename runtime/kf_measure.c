/*
** kf_measure.c -- measured plans: time a plan's variants on the call's own
** shapes and buffer alignments, keep the fastest beyond noise. The budget
** and the noise rule are docs/tuning.md's ("Measured plans"): change both
** together.
*/
#include "kfi_wisdom.h"

#if defined(__x86_64__)
#include <emmintrin.h> /* clflush and mfence: SSE2, every x86-64 */
#endif

int kf_flush_caches(const void *p, size_t bytes) {
#if defined(__x86_64__) || defined(__aarch64__)
  const unsigned char *q = p, *end;
  if (!p || !bytes) return 1; /* nothing to flush; says whether it could */
  end = q + bytes;
  for (q -= (uintptr_t)q % 64; q < end; q += 64) {
#if defined(__x86_64__)
    _mm_clflush(q);
#else
    __asm__ volatile("dc civac, %0" : : "r"(q) : "memory");
#endif
  }
#if defined(__x86_64__)
  _mm_mfence();
#else
  __asm__ volatile("dsb ish" : : : "memory");
#endif
  return 1;
#else
  (void)p, (void)bytes;
  return 0;
#endif
}

int kfi_measure_confirmed(const double *ratio, int n) {
  double r[KFI_MS_CONFIRM_PAIRS], v;
  int i, j, wins = 0;
  if (n <= 0 || n > KFI_MS_CONFIRM_PAIRS) return 0;
  for (i = 0; i < n; i++) { /* insertion sort of a copy */
    if (!(ratio[i] > 0)) return 0;
    wins += ratio[i] < 1;
    for (v = ratio[i], j = i; j > 0 && r[j - 1] > v; j--) r[j] = r[j - 1];
    r[j] = v;
  }
  v = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
  return v < 1 - KFI_MS_NOISE && wins * KFI_MS_CONFIRM_PAIRS >= KFI_MS_CONFIRM_WINS * n;
}

#if KFI_HAS_OS
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KFI_MS_BUFS (KFI_MAX_INPUTS + KFI_MAX_OUTPUTS + 1) /* + scratch */
#define KFI_MS_REPS 3            /* timed runs per variant and alignment (best of) */
#define KFI_MS_REPS_COLD 5       /* the same, cold: from DRAM, timings scatter more */
#define KFI_MS_CONFIRM_REPS 2    /* timed runs per variant and alignment in each confirmation pair */
#define KFI_MS_CONFIRM_ORDER 0x4Bu /* bit i: pair i times the rule's variant first */
#define KFI_MS_BUDGET_NS 100e6   /* per plan; the rule's variant is always timed */
#define KFI_MS_BUDGET_COLD_NS 150e6 /* the same, cold (the evictions count in it) */

double kfi_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

typedef struct ms_bench {
  kfi_plan *p;
  int nsets;                       /* alignment sets: 1 (the caller's) or 2 (64 and 16) */
  int nin, nout;
  void *base[2][KFI_MS_BUFS];         /* malloc'd blocks */
  unsigned char *ptr[2][KFI_MS_BUFS]; /* inputs, outputs, scratch at their offsets */
  size_t bytes[2][KFI_MS_BUFS];      /* what each ptr spans (0: shared or none) */
  size_t scratch_max;
  double spent, start, budget;
  int cold, reps, min_reps;
  unsigned char *evict;              /* cold without a cache-line flush: LLC-sized */
  size_t evict_bytes;
} ms_bench;

static size_t ms_bytes_of(const kf_tensor_desc *d) {
  int64_t n = kfi_num_elements(d);
  return n > 0 ? (size_t)n * kf_dtype_size(d->dtype) : 0;
}

/* Positive values of the dtype (a variance must be >= 0), no denormals. */
static void ms_fill(void *buf, const kf_tensor_desc *d) {
  int64_t i, n = kfi_num_elements(d);
  for (i = 0; i < n; i++) {
    float v = 0.5f + (float)((i * 37) % 101) / 101.0f;
    switch (d->dtype) {
      case KF_HALF: ((uint16_t *)buf)[i] = kf_float_to_half(v); break;
      case KF_BFLOAT16: ((uint16_t *)buf)[i] = kf_float_to_bfloat16(v); break;
      case KF_FLOAT: ((float *)buf)[i] = v; break;
      case KF_DOUBLE: ((double *)buf)[i] = v; break;
      case KF_INT32: ((int32_t *)buf)[i] = 1; break;
      case KF_DT_INVALID: break;
    }
  }
}

/* A caller's buffer's place in its 4 KiB page: where two streams sit in
   their pages decides whether their loads alias (4K aliasing, the same L1
   sets), and that can favour another variant than the caller's placement
   does (filter gradient 8x112x112x96 s2 on Zen 5, page-aligned x and dy:
   timed on 64-byte-aligned copies anywhere in their pages, the walker
   without prefetch won; on the caller's placement it was 9-14% slower). */
static unsigned ms_offset_of(const void *ptr) { return (unsigned)((uintptr_t)ptr % 4096); }

/* Allocates every buffer once per alignment set; 0 when out of memory. */
static int ms_setup(ms_bench *b, const kf_tensor_desc *in, const kf_plan_options *opt) {
  const void *const *caller = opt ? opt->buffers : NULL;
  int s, i, n = b->nin + b->nout;
  b->nsets = caller ? 1 : 2;
  for (s = 0; s < b->nsets; s++)
    for (i = 0; i <= n; i++) {
      const kf_tensor_desc *d = i < b->nin ? &in[i] : i < n ? &b->p->outputs[i - b->nin] : NULL;
      size_t bytes = d ? ms_bytes_of(d) : b->scratch_max;
      unsigned off = caller && i < n ? ms_offset_of(caller[i]) : s ? 16u : 0u;
      int j;
      if (i < b->nin && in[i].host_data) bytes = 0; /* read at plan time */
      /* An output the caller computes in place shares its input's buffer. */
      for (j = 0; caller && i >= b->nin && i < n && j < b->nin; j++)
        if (caller[i] && caller[i] == caller[j] && bytes <= ms_bytes_of(&in[j])) break;
      if (caller && i >= b->nin && i < n && j < b->nin) {
        b->ptr[s][i] = b->ptr[s][j];
        continue;
      }
      if (!bytes) continue;
      if (caller) { /* the caller's place in the page */
        if (!(b->base[s][i] = malloc(bytes + 8192))) return 0;
        b->ptr[s][i] = (unsigned char *)b->base[s][i] + (4096 - (uintptr_t)b->base[s][i] % 4096) + off;
      } else { /* 64 bytes or 16 past them, anywhere in the page, as allocators give */
        if (!(b->base[s][i] = malloc(bytes + 128))) return 0;
        b->ptr[s][i] = (unsigned char *)b->base[s][i] + (64 - (uintptr_t)b->base[s][i] % 64) + off;
      }
      b->bytes[s][i] = bytes;
      if (d && i < b->nin) ms_fill(b->ptr[s][i], d);
      else memset(b->ptr[s][i], 0, bytes);
    }
  return 1;
}

static void ms_teardown(ms_bench *b) {
  int s, i;
  for (s = 0; s < 2; s++)
    for (i = 0; i < KFI_MS_BUFS; i++) free(b->base[s][i]);
  free(b->evict);
}

/* Cold: every buffer of set s leaves the caches (written back if dirty),
   so the next run reads its inputs from DRAM and allocates its outputs'
   lines again, as a call inside a model does. Where no flush instruction
   is known, writing a buffer of 1.5x the last-level cache evicts them. */
static void ms_evict(ms_bench *b, int s) {
#if defined(__x86_64__) || defined(__aarch64__)
  int i;
  for (i = 0; i < KFI_MS_BUFS; i++) kf_flush_caches(b->ptr[s][i], b->bytes[s][i]);
#else
  size_t k;
  (void)s;
  for (k = 0; b->evict && k < b->evict_bytes; k += 64) b->evict[k]++;
#endif
}

/* Cold mode's state; 0 when its eviction buffer cannot be had. */
static int ms_cold_setup(ms_bench *b) {
#if !defined(__x86_64__) && !defined(__aarch64__)
  kfi_caches cc;
  kfi_cpu_caches(&cc);
  b->evict_bytes = (size_t)(cc.llc > 0 ? cc.llc : 32 << 20) / 2 * 3;
  if (!(b->evict = calloc(b->evict_bytes, 1))) return 0;
#endif
  b->reps = KFI_MS_REPS_COLD;
  b->budget = KFI_MS_BUDGET_COLD_NS;
  return 1;
}

/* Raises scratch_max to the scratch of v under every combination of the
   values of choices idx[j..nc) (the rule's value included). */
static void ms_scratch_of_all(ms_bench *b, const kfi_plan *v, const int *idx, int nc, int j) {
  const kfi_choice_def *c;
  kfi_plan w = *v;
  int k;
  if (v->scratch_bytes > b->scratch_max) b->scratch_max = v->scratch_bytes;
  if (j == nc) return;
  c = &kfi_choices[idx[j]];
  ms_scratch_of_all(b, v, idx, nc, j + 1);
  for (k = 0; k < c->num_values; k++) {
    kfi_choice_set(&w, c, c->values[k]);
    ms_scratch_of_all(b, &w, idx, nc, j + 1);
  }
}

/* The variant's time (sum over alignment sets of the best of the timed runs), or
   a negative number when it failed or needs more scratch than was allocated.
   limit > 0: the kept variant's time; a variant whose warm-up run exceeds 8x
   it, or whose best of two runs at one alignment exceeds 1.5x it (both
   alignments), stops there, a loser, so that slow kernels (scalar, generic)
   leave the budget to the others. Past the budget, min_reps timed runs. */
static double ms_time_variant(ms_bench *b, const kfi_plan *v, double limit) {
  double total = 0;
  int s, r;
  if (v->scratch_bytes > b->scratch_max) return -1;
  for (s = 0; s < b->nsets; s++) {
    const void *ins[KFI_MAX_INPUTS];
    void *outs[KFI_MAX_OUTPUTS];
    double best = -1;
    long double dummy[2] = { 0, 0 }; /* for buffers of 0 bytes: never accessed */
    int i;
    for (i = 0; i < b->nin; i++) ins[i] = b->ptr[s][i];
    for (i = 0; i < b->nout; i++) outs[i] = b->ptr[s][b->nin + i];
    for (i = 0; i < b->nin; i++)
      if (!ins[i]) ins[i] = dummy;
    for (i = 0; i < b->nout; i++)
      if (!outs[i]) outs[i] = dummy;
    for (r = 0; r <= b->reps; r++) { /* run 0 warms caches and pages */
      double t0, t;
      if (r && b->cold) ms_evict(b, s);
      t0 = kfi_now_ns();
      if (kfg_families[v->family].exec(v, ins, outs, b->ptr[s][b->nin + b->nout], NULL) != KF_OK) return -1;
      t = kfi_now_ns() - t0;
      if (!r && limit > 0 && t > 8 * limit) return t; /* the warm-up alone: far slower */
      if (r && (best < 0 || t < best)) best = t;
      if (r >= 2 && limit > 0 && total + best > 1.5 * limit) return total + best;
      if (r >= b->min_reps && kfi_now_ns() - b->start > b->budget) break;
    }
    total += best;
  }
  return total;
}

/* The descent's steps: every other kernel that serves the call, then every
   value of each parameter, each under the best so far (kept when faster by
   more than the noise), while the budget lasts. */
static void ms_search_kernels(ms_bench *b, const kfi_plan *p, const kf_plan_options *opt, kfi_plan *best, double *tbest) {
  int i;
  for (i = 0; i < kfg_registry_count && kfi_now_ns() - b->start < b->budget; i++) {
    kfi_plan v;
    double t;
    if (&kfg_registry[i] == best->kernel || !kfi_kernel_fits(&kfg_registry[i], p, opt)) continue;
    v = *best;
    kfi_use_kernel(&v, &kfg_registry[i]);
    if ((t = ms_time_variant(b, &v, *tbest)) >= 0 && t < *tbest * (1 - KFI_MS_NOISE)) *best = v, *tbest = t;
  }
}

/* Cold, the streaming threshold stays the rule's for fresh outputs: a
   streamed output's cost falls on the op that reads it next (from DRAM,
   not the L2), which a call timed alone does not see; measured so, every
   cold plan streamed, and MobileNetV2's steps ran slower
   (docs/tuning.md, "Cold measuring"). */
static int ms_measurable(const ms_bench *b, const kfi_choice_def *c) {
  return !(b->cold && strcmp(c->name, "stream") == 0);
}

static void ms_search_choices(ms_bench *b, const int *idx, int nc, kfi_plan *best, double *tbest) {
  int j, k;
  for (j = 0; j < nc; j++) {
    const kfi_choice_def *c = &kfi_choices[idx[j]];
    if (!ms_measurable(b, c)) continue;
    for (k = 0; k < c->num_values && kfi_now_ns() - b->start < b->budget; k++) {
      kfi_plan v;
      double t;
      if (c->values[k] == kfi_choice_get(best, c)) continue;
      v = *best;
      kfi_choice_set(&v, c, c->values[k]);
      if ((t = ms_time_variant(b, &v, *tbest)) >= 0 && t < *tbest * (1 - KFI_MS_NOISE)) *best = v, *tbest = t;
    }
  }
}

kf_status kfi_measure(kfi_plan *p, const kf_tensor_desc *in, const kf_plan_options *opt, int cold, kf_error *err) {
  int idx[KFI_MAX_CHOICES], nc = kfi_family_choices(p->family, idx), i;
  kfi_plan best = *p, v;
  double tbest;
  ms_bench b;
  (void)err;
  memset(&b, 0, sizeof b);
  b.p = p;
  b.nin = p->num_inputs;
  b.nout = p->num_outputs;
  b.reps = KFI_MS_REPS;
  b.min_reps = 1;
  b.budget = KFI_MS_BUDGET_NS;
  b.cold = cold;
  /* Scratch for the largest variant: every fitting kernel under every
     combination of values (the descent combines them), and the rule's. */
  b.scratch_max = p->scratch_bytes;
  for (i = 0; i < kfg_registry_count; i++) {
    if (!kfi_kernel_fits(&kfg_registry[i], p, opt)) continue;
    v = *p;
    kfi_use_kernel(&v, &kfg_registry[i]);
    ms_scratch_of_all(&b, &v, idx, nc, 0);
  }
  b.start = kfi_now_ns();
  best.magic = KFI_PLAN_MAGIC;
  if ((cold && !ms_cold_setup(&b)) || !ms_setup(&b, in, opt) || (tbest = ms_time_variant(&b, &best, -1)) < 0) {
    ms_teardown(&b);
    return KF_OK; /* no memory (or the rule's variant failed): the rule stands */
  }
  /* Coordinate descent: the kernel first (under the rule's values), then
     each parameter in turn under the best so far. Cold, the parameters
     come first: from DRAM they decide most (streamed stores, the sweep),
     and a budget spent on other kernels' slower cold runs never reached
     them. */
  if (cold) ms_search_choices(&b, idx, nc, &best, &tbest);
  ms_search_kernels(&b, p, opt, &best, &tbest);
  if (!cold) ms_search_choices(&b, idx, nc, &best, &tbest);
  /* Confirmation: a winner other than the rule's variant must beat it
     again in KFI_MS_CONFIRM_PAIRS pairs of timings, even past the budget
     (kfi_measure_confirmed), or the rule stands: a loaded machine's noise
     is larger than KFI_MS_NOISE, and a burst of it during the descent, or
     during one or two timings, once elected a kernel 1.33x slower. Which
     variant a pair times first is a fixed pseudo-random bit: in strict
     alternation a competitor's time slices can fall on one side. */
  if (best.kernel != p->kernel || memcmp(best.args.bytes, p->args.bytes, sizeof best.args.bytes) != 0) {
    kfi_plan rule = *p;
    double ratio[KFI_MS_CONFIRM_PAIRS];
    int ok = 1;
    rule.magic = KFI_PLAN_MAGIC;
    b.reps = b.min_reps = KFI_MS_CONFIRM_REPS;
    for (i = 0; i < KFI_MS_CONFIRM_PAIRS && ok; i++) {
      double tr, tw;
      if ((KFI_MS_CONFIRM_ORDER >> i) & 1) tr = ms_time_variant(&b, &rule, -1), tw = ms_time_variant(&b, &best, -1);
      else tw = ms_time_variant(&b, &best, -1), tr = ms_time_variant(&b, &rule, -1);
      if (tr <= 0 || tw < 0) ok = 0;
      else ratio[i] = tw / tr;
    }
    if (!ok || !kfi_measure_confirmed(ratio, KFI_MS_CONFIRM_PAIRS)) best = *p;
  }
  ms_teardown(&b);
  best.magic = p->magic;
  *p = best;
  return KF_OK;
}
#else
kf_status kfi_measure(kfi_plan *p, const kf_tensor_desc *in, const kf_plan_options *opt, int cold, kf_error *err) {
  (void)p, (void)in, (void)opt, (void)cold, (void)err;
  return KF_OK; /* no clock or heap: the rule stands */
}
#endif
