/*
** kfi_kernel.h -- what every generated kernel includes (beside its
** family's argument block, runtime/kfi_<family>.h): the thread hook, ISA
** bits, the scalar load/store helpers that let half and bfloat16 be
** computed in float, and the cascade sum. Freestanding-friendly: no
** allocation, no stdio.
*/
#ifndef kfi_kernel_h
#define kfi_kernel_h

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#define KFI_ANY (-1) /* wildcard in a kernel key */

enum { KFI_CHANNELS_LAST = 0, KFI_CHANNELS_FIRST = 1 };
/* ISA bits (= kf_isa in kforge.h): a kernel runs only where its bit is set. */
#define KFI_ISA_SCALAR 1u
#define KFI_ISA_NEON 2u
#define KFI_ISA_AVX2 4u
#define KFI_ISA_AVX512 8u
#define KFI_ISA_MVE 16u

/* How a kernel runs its tasks (kf_threads of kforge.h, without the header). */
typedef struct kfi_par {
  void (*parallel_for)(void *pool, void (*task)(void *ctx, size_t i), void *ctx, size_t n);
  void *pool;
  int num_threads;
} kfi_par;

static inline void kfi_parallel_for(const kfi_par *p, void (*task)(void *ctx, size_t i), void *ctx, size_t n) {
  size_t i;
  if (p && p->parallel_for && n > 1) {
    p->parallel_for(p->pool, task, ctx, n);
    return;
  }
  for (i = 0; i < n; i++) task(ctx, i);
}

/* Read hints, harmless past a tensor's end: the line at address a (an
   integer) into every cache level, or into the L2 and out; the element n
   past p (formed as an integer) into every level. KFI_PREFETCH_W: the line
   at a into the L2, to be written (an output's line in no cache is read
   before it is written). */
#if defined(__GNUC__)
#define KFI_PREFETCH_LINE(a) __builtin_prefetch((const void *)(uintptr_t)(a), 0, 3)
#define KFI_PREFETCH_L2(a) __builtin_prefetch((const void *)(uintptr_t)(a), 0, 2)
#define KFI_PREFETCH_W(a) __builtin_prefetch((const void *)(uintptr_t)(a), 1, 2)
#else
#define KFI_PREFETCH_LINE(a) ((void)(a))
#define KFI_PREFETCH_L2(a) ((void)(a))
#define KFI_PREFETCH_W(a) ((void)(a))
#endif
#define KFI_PREFETCH(p, n) KFI_PREFETCH_LINE((uintptr_t)(p) + (uintptr_t)(n) * sizeof *(p))

/* The next block's lines, streamed into the L2 in order a share at a time:
   two byte ranges [p, e) (from their first bytes' lines), `per` lines a
   share. A walk that reads its block's lines C elements apart (a channel
   tile or pass at a time) gets the next block from an ordered stream
   meanwhile, which the hardware prefetchers follow and such a walk's lines
   do not (docs/performance.md, "Zen 4: the next piece in order"). */
typedef struct kfi_lines {
  uintptr_t p[2], e[2];
  int64_t per;
} kfi_lines;

/* shares <= 0, or empty ranges: nothing to stream. */
static inline void kfi_lines_init(kfi_lines *s, const void *a, size_t an, const void *b, size_t bn, int64_t shares) {
  s->p[0] = (uintptr_t)a & ~(uintptr_t)63;
  s->e[0] = (uintptr_t)a + an;
  s->p[1] = (uintptr_t)b & ~(uintptr_t)63;
  s->e[1] = (uintptr_t)b + bn;
  s->per = shares > 0 && (an || bn) ? (int64_t)((s->e[0] - s->p[0] + s->e[1] - s->p[1]) / 64 + 2 + shares - 1) / shares : 0;
  if (!an) s->p[0] = s->e[0];
  if (!bn) s->p[1] = s->e[1];
}

/* n shares of the lines not yet streamed. */
static inline void kfi_lines_step(kfi_lines *s, int64_t n) {
  int64_t k = s->per * n;
  for (; k > 0 && s->p[0] < s->e[0]; k--, s->p[0] += 64) KFI_PREFETCH_L2(s->p[0]);
  for (; k > 0 && s->p[1] < s->e[1]; k--, s->p[1] += 64) KFI_PREFETCH_L2(s->p[1]);
}

/* ---- IEEE half <-> float, round to nearest even (portable) ---- */
static inline float kfi_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
  float f;
  if (e == 0) {
    f = (float)m * 0x1p-24f; /* zero or subnormal: exact */
    return sign ? -f : f;
  }
  bits = e == 31 ? (sign | 0x7f800000u | (m << 13)) : (sign | ((e + 112u) << 23) | (m << 13));
  memcpy(&f, &bits, sizeof f);
  return f;
}

static inline uint16_t kfi_f32_to_f16(float f) {
  uint32_t x, ax, sign;
  memcpy(&x, &f, sizeof x);
  sign = (x >> 16) & 0x8000u;
  ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu)); /* quiet NaN */
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520: inf */
  if (ax >= 0x38800000u) { /* normal half */
    uint32_t r = ax - 0x38000000u;
    r += 0x0fffu + ((r >> 13) & 1u);
    return (uint16_t)(sign | (r >> 13));
  }
  if (ax <= 0x33000000u) return (uint16_t)sign; /* <= 2^-25: rounds to zero */
  {
    uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, s = 126u - e;
    uint32_t q = m >> s, rem = m & ((1u << s) - 1u), half = 1u << (s - 1u);
    if (rem > half || (rem == half && (q & 1u))) q++;
    return (uint16_t)(sign | q);
  }
}

/* ---- bfloat16 <-> float, round to nearest even ---- */
static inline float kfi_bf16_to_f32(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static inline uint16_t kfi_f32_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

/* The caches a plan assumes when the runtime could not detect them
   (kfi_cpu_cache_bytes returned 0): a Zen 3 core's 32 KiB L1d and 512 KiB
   L2, its CCX's 32 MiB L3. */
#define KFI_L1D_DEFAULT ((int64_t)32 << 10)
#define KFI_L2_DEFAULT ((int64_t)512 << 10)
#define KFI_LLC_DEFAULT ((int64_t)32 << 20)

/* The caches a plan sizes its blocking by (filled at plan time, so the
   scratch query and the kernel agree; never 0). stream: an output of at
   least this many bytes is written with streaming stores (kfi_stream_bytes). */
typedef struct kfi_caches {
  int64_t l1d, l2, llc, stream;
} kfi_caches;

/* Pairwise (cascade) summation of a stream of float partial sums: s[l]
   holds the sum of 2^l consecutive partials while bit l of n is set, so a
   stream of n partials is summed with O(log n) error growth instead of a
   running sum's O(n), in a fixed order (deterministic), in O(log n) space
   and without knowing n ahead. Kernels feed it block sums of a bounded
   number of terms, which keeps every long reduction as accurate as a
   blocked tree (TF's Eigen reductions are at least that good). */
typedef struct kfi_psum { float s[40]; uint64_t n; } kfi_psum;

static inline void kfi_psum_add(kfi_psum *p, float v) {
  uint64_t n = p->n++;
  int l = 0;
  for (; n & 1u; n >>= 1, l++) v = p->s[l] + v;
  p->s[l] = v;
}

/* The total (0 for an empty stream); smaller partials first. */
static inline float kfi_psum_total(const kfi_psum *p) {
  uint64_t n = p->n;
  float t = 0.0f;
  int l = 0, any = 0;
  for (; n; n >>= 1, l++)
    if (n & 1u) {
      t = any ? p->s[l] + t : p->s[l];
      any = 1;
    }
  return t;
}

/* floor(x / d) for any sign of x, d > 0 (a compile-time constant in the
   kernels, so it folds to shifts or a multiply). */
static inline int64_t kfi_floordiv(int64_t x, int64_t d) {
  return x >= 0 ? x / d : -((d - 1 - x) / d);
}

/* Loads and stores by dtype tag, as templates spell them. */
#define kfi_ld_f16(v) kfi_f16_to_f32(v)
#define kfi_ld_bf16(v) kfi_bf16_to_f32(v)
#define kfi_ld_f32(v) (v)
#define kfi_ld_f64(v) (v)
#define kfi_st_f16(v) kfi_f32_to_f16(v)
#define kfi_st_bf16(v) kfi_f32_to_bf16(v)
#define kfi_st_f32(v) (v)
#define kfi_st_f64(v) (v)

#endif
