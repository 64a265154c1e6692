/*
** kfi_dwbpf.h -- DepthwiseConv2dNativeBackpropFilter: the argument block the
** planner hands the dwbpf kernels, and the partition of the reduction that
** every dwbpf kernel uses. Freestanding: includes only kfi_kernel.h.
**
** filter_backprop[fy, fx, c, m] = sum over (b, oy, ox) of
**   x[b, oy*sh - pad_top + fy*dh, ox*sw - pad_left + fx*dw, c] * dy[b, oy, ox, c*m + m]
** (taps outside the input contribute nothing).
**
** Partition (depends on the shapes and the kernel's params only, never on
** the thread count, so results are bitwise identical for any pool):
**   - the output pixels, flattened as rows r = b*oh + oy, are cut into
**     pieces of at most `piece` pixels (NCHW vector kernels: `piece`
**     vectors per lane, see kfi_dwbpf_tile): whole rows (possibly spanning
**     images) when a row is shorter than the piece, else equal column
**     chunks of one row; a kernel sums a piece's terms in registers (float
**     for half, bfloat16 and float; double for double). The piece is
**     smaller than `piece` where the pixels' data (x and dy, all channels)
**     would not fit `l1` bytes, so that the channel passes over a piece
**     find its lines in L1 (many channels, short rows); `l1` 0: no limit.
**     NHWC with a wide walker: where the plan sets `span`, a piece is also cut to the pixels
**     whose input rows and dy (all channels) fit `span` bytes: every
**     channel of a short run of pixels is summed before the next run, so
**     the walk reads x and dy as sequential runs;
**   - a pixel task takes `per_task` consecutive pieces (about `taskwork`
**     multiply-adds); where one pixel task would exceed `taskwork`, the
**     channels are cut into `cgroups` groups (multiples of 16 channels, so
**     of every vector width): task i is channel group i % cgroups of pixel
**     task i / cgroups, so short reductions over many channels still make
**     many tasks. A task adds each piece's sums of its channels, in piece
**     order, into the partial filter of its pixel task in the scratch
**     (ptasks x elems accumulators; the channel groups write disjoint
**     channels of it);
**   - after the one parallel round, the calling thread reduces the partials
**     in a fixed pairwise tree over the pixel task index (by chunks of
**     filter elements), and rounds once to T.
*/
#ifndef kfi_dwbpf_h
#define kfi_dwbpf_h

#include "kfi_kernel.h"

/* Keeps a cold path (the channel tail) out of a hot function, so that the
   hot one's accumulators stay in registers. */
#if defined(__GNUC__)
#define KFI_NOINLINE __attribute__((noinline))
#else
#define KFI_NOINLINE
#endif

typedef struct kfi_dwbpf_args {
  int64_t n, h, w, c, m, oh, ow;
  int64_t kh, kw, sh, sw, dh, dw;
  int64_t pad_top, pad_left;     /* forward padding before the first row/col (clamped) */
  int layout;                    /* KFI_CHANNELS_*; specialized kernels ignore it */
  const void *x, *dy;            /* T: input [n,h,w,c] / [n,c,h,w]; out_backprop */
  void *dw_out;                  /* T: filter_backprop [kh, kw, c, m] */
  void *scratch;                 /* the kernel's scratch query, in bytes */
  int64_t llc;                   /* bytes of the last-level cache (kfi_cpu_llc_bytes), 0: unknown */
  int64_t l1d;                   /* bytes of the L1 data cache (kfi_cpu_caches: the default if unknown) */
  int64_t l2;                    /* bytes of the L2 (kfi_cpu_caches): the sweep prefetches beyond it */
  int64_t flat;                  /* NCHW AVX-512 kernels of row stride 1: walk whole-row pieces as one
                                    line (where ow == w < 2^30; kfi_dwbpf_flat_rule); others ignore it */
  int64_t span;                  /* NHWC: bytes of x rows and dy a piece may span (0: no bound;
                                    kfi_dwbpf_span_rule); NCHW ignores it */
  int64_t rows;                  /* the NHWC rows walker on pieces of whole centred rows: 1 in the
                                    kernels without a wide walker, 2 in every kernel that has one
                                    too, 0 never; the rule: KFI_DWBPF_ROWS_RULE */
  int64_t sweep;                 /* 1: the AVX-512 f32 3x3 unit-stride NHWC kernels sweep short rows
                                    (kfi_dwbpf_sweep_chunk) instead of the wide walker, as the AVX2
                                    ones do by rule; 0 (the rule): never. Others ignore it */
  int64_t next;                  /* 1: the NHWC SIMD kernels stream the next piece's x and dy into
                                    the L2 over a piece's channel passes (kfi_dwbpf_stream_init); the
                                    rule: kfi_dwbpf_next_rule. NCHW and the plain loops ignore it */
} kfi_dwbpf_args;

/* The rule's `rows`. On x86-64 the rows walker also takes the AVX-512 3x3
   kernels' whole centred rows from their wide walker: where Zen 5's
   measured plans compared the two, the rows walker took 0.72-0.93x the
   time (docs/performance_dwbpf.md, "AVX-512: whole rows by rule").
   Elsewhere (NEON's 3x3 wide walker, not measured on hardware) only a
   measured plan makes that switch. Far data: kfi_dwbpf_rows_rule. */
#if defined(__x86_64__)
#define KFI_DWBPF_ROWS_RULE 2
#else
#define KFI_DWBPF_ROWS_RULE 1
#endif

/* Bytes of x and dy together. */
static inline int64_t kfi_dwbpf_bytes(const kfi_dwbpf_args *a, int64_t esize) {
  return (a->n * a->h * a->w * a->c + a->n * a->oh * a->ow * a->c * a->m) * esize;
}

/* Whether x and dy together exceed half the last-level cache, so that a
   call reads them from DRAM: NHWC kernels then prefetch their passes,
   NCHW kernels the next channel's planes. */
static inline int kfi_dwbpf_far(const kfi_dwbpf_args *a, int64_t esize) {
  const int64_t llc = a->llc > 0 ? a->llc : KFI_LLC_DEFAULT;
  return kfi_dwbpf_bytes(a, esize) > llc / 2;
}

/* Whether one image's x and dy exceed half the L2 (a->l2). The rows
   walker walks an image per channel vector; with line-wide vectors (AVX-512
   f32) every pass then reads new lines, C elements apart, from beyond the
   L2, and its prefetching form runs ahead of them: on Zen 4 1.06-1.7x
   faster on such warm calls (8x28x28x192 3x3, 8x28x28x240 5x5), 5-9%
   slower on images within it (docs/performance.md, "Zen 4: the rows
   walker prefetches past the L2"). a->l2 is the measured plan's `l2`
   (tiny: always, huge: only far data). */
static inline int kfi_dwbpf_image_spills(const kfi_dwbpf_args *a, int64_t esize) {
  return (a->h * a->w * a->c + a->oh * a->ow * a->c * a->m) * esize > a->l2 / 2;
}

/* The rule's `rows` for a call (a->llc set). Where x and dy exceed half
   the LLC, the wide walker keeps the AVX-512 3x3 kernels' whole rows: the
   rows walker's prefetching form ran 1.06-1.31x its time there on Zen 4
   (8x56x56x144, 16x56x56x96; level on 8x112x112x32) and level with it on
   Zen 5 (docs/performance.md, "Zen 4: far rows keep the wide walker").
   A step's cold rule (kfi_choices_rule_cold) leaves rows as planned. */
static inline int64_t kfi_dwbpf_rows_rule(const kfi_dwbpf_args *a, int64_t esize) {
  return KFI_DWBPF_ROWS_RULE == 2 && kfi_dwbpf_far(a, esize) ? 1 : KFI_DWBPF_ROWS_RULE;
}

/* The rule's `next`: where x and dy come from DRAM (kfi_dwbpf_far; the
   cold rule too, kfi_choices_rule_cold). A channel pass walks its pixels C
   elements apart, one line each, and from DRAM such a walk read 8-11
   GB/s on Zen 4 against 35 for the same lines in order; streaming the next
   piece's lines in order while this piece's passes run made MobileNetV2's
   cold calls 19-32% faster there. From the LLC the same bursts cost more
   than they saved (8x28x28x192 warm: 1.23x the time), so warm calls do
   not stream (docs/performance.md, "Zen 4: the next piece in order"). */
static inline int64_t kfi_dwbpf_next_rule(const kfi_dwbpf_args *a, int64_t esize) {
  return a->layout == KFI_CHANNELS_LAST && kfi_dwbpf_far(a, esize);
}

/* Whether x and dy together exceed the L2, so that a sweep's rows come
   from the LLC or DRAM: its walk reads them C elements apart, which the
   hardware prefetchers do not follow, so it prefetches the next row's new
   lines itself (docs/performance_dwbpf.md, "The sweep's next row"). */
static inline int kfi_dwbpf_beyond_l2(const kfi_dwbpf_args *a, int64_t esize) {
  return kfi_dwbpf_bytes(a, esize) > a->l2;
}

typedef struct kfi_dwbpf_tiling {
  int64_t rows, cols;            /* flattened output rows and cols per piece */
  int64_t rpieces, cpieces;      /* row pieces (over n*oh rows), col pieces per row */
  int64_t pieces, per_task, ptasks;
  int64_t cgroups, cgsize;       /* channel groups of cgsize channels (the last may be shorter) */
  int64_t tasks;                 /* ptasks * cgroups */
  int64_t elems;                 /* kh*kw*c*m: accumulators per pixel task */
} kfi_dwbpf_tiling;

/* Channels are grouped by this many (a multiple of every ISA's lanes). */
#define KFI_DWBPF_CGRAN 16

/* The plan's rule for args->flat: where a row of dy is as long as x's and
   not a whole number of vectors (KFI_DWBPF_CGRAN lanes, the widest), the
   row walk leaves lanes idle at each row end and runs masked ends; the
   flat walk fills every lane. Rows of whole vectors keep the row walk,
   whose clean vectors need no masks (docs/performance_dwbpf.md). */
static inline int64_t kfi_dwbpf_flat_rule(const kfi_dwbpf_args *a) {
  return a->ow == a->w && a->w < ((int64_t)1 << 30) && a->w % KFI_DWBPF_CGRAN != 0;
}

/* Whether an NHWC kernel that cuts its pieces to span runs the prefetching
   walkers: where x and dy come from DRAM (kfi_dwbpf_far), or where the
   plan cuts the pieces to short runs (span), whose passes then find the
   next pass's lines in L1. The others prefetch where kfi_dwbpf_far. */
static inline int kfi_dwbpf_prefetch(const kfi_dwbpf_args *a, int64_t esize) {
  return a->span > 0 || kfi_dwbpf_far(a, esize);
}

/* The shortest run (output pixels) the span rule cuts pieces to: shorter
   ones cost more in per-pass work (row setup, the sums added to the
   partial) than the L1 saves (docs/performance_dwbpf.md). */
#define KFI_DWBPF_MIN_RUN 32

/* Bytes a pixel of a span's run reads: its kh input rows' stride of
   input cols and its dy, all channels. */
static inline int64_t kfi_dwbpf_span_bpp(const kfi_dwbpf_args *a, int64_t esize) {
  return (a->kh * a->sw * a->c + a->c * a->m) * esize;
}

/* The plan's rule for args->span (NHWC): where the call prefetches because
   x and dy come from DRAM, pieces whose kh input rows and dy (all
   channels) fit two thirds of the L1d, so that a pass and the lines it
   prefetches for the next stay in L1; 0 (pieces of PIECE pixels) elsewhere
   and where such a run would be shorter than KFI_DWBPF_MIN_RUN pixels. */
static inline int64_t kfi_dwbpf_span_rule(const kfi_dwbpf_args *a, int64_t esize) {
  const int64_t span = a->l1d / 3 * 2, bpp = kfi_dwbpf_span_bpp(a, esize);
  if (a->layout != KFI_CHANNELS_LAST || bpp <= 0 || !kfi_dwbpf_far(a, esize)) return 0;
  return span / bpp >= KFI_DWBPF_MIN_RUN ? span : 0;
}

/* The span of a step's cold rule (kfi_choices_rule_cold: x and dy from
   DRAM, every stride): two thirds of the L1d where such a run holds a whole
   output row or KFI_DWBPF_MIN_RUN pixels, else 0. Cold, with the next
   piece streamed (next), runs of whole rows ran 1.15-2x faster on Zen 4
   even where they were shorter than KFI_DWBPF_MIN_RUN (MobileNetV2's
   16x6x6x144 s1 0.058 -> 0.041 ms, 16x12x12x96 s2 0.108 -> 0.054); runs
   that cut rows into chunks of a few pixels ran 1.2-1.6x slower
   (16x24x24x144, 8x56x56x144, 8x112x112x96 s2), as in the span rule's
   far case (docs/performance.md, "Zen 4: the next piece in order").
   Strided calls whose whole rows the rows walker would take (rows == 2:
   x86-64, x and dy within half the LLC) take the runs whatever their
   length: cold, runs of 4-16 pixels ran 1.1-1.7x faster there on Zen 4
   (MobileNetV2's 16x49x49x48 s2 0.67-0.72 -> 0.55-0.58 ms); with far data (rows 1)
   and in unit-stride calls they ran slower (docs/performance.md, "Zen 4:
   strided cold runs"). */
static inline int64_t kfi_dwbpf_span_cold(const kfi_dwbpf_args *a, int64_t esize) {
  const int64_t span = a->l1d / 3 * 2, bpp = kfi_dwbpf_span_bpp(a, esize);
  const int64_t run = a->ow < KFI_DWBPF_MIN_RUN ? a->ow : KFI_DWBPF_MIN_RUN;
  if (a->layout != KFI_CHANNELS_LAST || bpp <= 0 || span / bpp < 1) return 0;
  if ((a->sh > 1 || a->sw > 1) && a->rows == 2) return span;
  return span / bpp >= run ? span : 0;
}

/* The input cols a sliding walk of out cols [c0, c1) reads (unit col
   stride and dilation, kw tap cols, pl cols of left padding, w input
   cols): [ixa, ixe), ramping in to sa (not every tap col's out col lies in
   [c0, c1) yet), steady to se, ramping out to ixe. */
typedef struct kfi_dwbpf_slide {
  int64_t ixa, sa, se, ixe;
} kfi_dwbpf_slide;

static inline kfi_dwbpf_slide kfi_dwbpf_slide_cols(int64_t c0, int64_t c1, int64_t pl, int64_t w, int64_t kw) {
  kfi_dwbpf_slide s;
  const int64_t s0 = c0 - pl + kw - 1;
  s.ixa = c0 - pl > 0 ? c0 - pl : 0;
  s.ixe = c1 - pl + kw - 1 < w ? c1 - pl + kw - 1 : w;
  s.sa = s0 > s.ixa ? s0 : s.ixa;
  if (s.sa > s.ixe) s.sa = s.ixe;
  s.se = c1 - pl < s.sa ? s.sa : c1 - pl < s.ixe ? c1 - pl : s.ixe;
  return s;
}

/* The output rows oy in [*ya, *yb) whose filter rows f0..f1 (f0 <= f1) all
   lie inside the input (oy*sh - pad_top + f*dh in [0, h)): the rows a
   walker takes without a test per filter row. */
static inline void kfi_dwbpf_full_rows(const kfi_dwbpf_args *a, int64_t f0, int64_t f1, int64_t *ya, int64_t *yb) {
  const int64_t lo = a->pad_top - f0 * a->dh, hi = a->h + a->pad_top - f1 * a->dh; /* oy*sh in [lo, hi) */
  *ya = lo > 0 ? (lo + a->sh - 1) / a->sh : 0;
  *yb = hi > 0 ? (hi - 1) / a->sh + 1 : 0;
  if (*yb < *ya) *yb = *ya;
}

/* The sweep (NHWC kernels that have one): on rows of at most
   KFI_DWBPF_SWEEP_COLS output cols, the per-row work of the channel passes
   (row pointers, ramps, setup) cost as much as the FMAs; a sweep sets each
   row up once for a chunk of channels and keeps the chunk's sums in a
   buffer instead (docs/performance_dwbpf.md). On longer rows that buffer's
   loads and stores cost more than they save. At most KFI_DWBPF_SWEEP_MAX
   channels a chunk (the buffer is on the stack). */
#define KFI_DWBPF_SWEEP_COLS 32
#define KFI_DWBPF_SWEEP_MAX 256
/* Far data (x and dy from DRAM, or fresh outputs' cold rule): on rows of at
   most this many output cols the kernels that sweep by rule sweep, with
   their next-row prefetch, instead of the prefetching walkers (Zen 3,
   MobileNetV2's 12-, 6- and 3-wide rows in model order 0.52-0.84x the
   time; 14- and 28-wide rows ran faster on the walkers:
   docs/performance_dwbpf.md, "The sweep's next row"). */
#define KFI_DWBPF_SWEEP_FAR_COLS 12

/* The channels a sweep of rows of `cols` output cols takes at once, of a
   range of `channels` (whole vectors of `lanes`): equal chunks, each a
   multiple of lanes whose rows (kh input rows of x, a row of dy; esize
   bytes an element) and sums (kh*kw, asize bytes each) fit two thirds of
   the L1d, as the span rule's runs; 0 (no sweep) on longer rows or where
   not one vector fits. */
static inline int64_t kfi_dwbpf_sweep_chunk(const kfi_dwbpf_args *a, int64_t cols, int64_t channels, int64_t esize,
                                            int64_t asize, int64_t lanes) {
  const int64_t bpc = (a->kh * ((cols - 1) * a->sw + (a->kw - 1) * a->dw + 1) + cols) * esize + a->kh * a->kw * asize;
  int64_t fit, k;
  if (cols > KFI_DWBPF_SWEEP_COLS || cols <= 0 || lanes <= 0 || channels < lanes) return 0;
  fit = a->l1d / 3 * 2 / bpc / lanes * lanes;
  if (fit > KFI_DWBPF_SWEEP_MAX) fit = KFI_DWBPF_SWEEP_MAX / lanes * lanes;
  if (fit <= 0) return 0;
  k = (channels + fit - 1) / fit; /* chunks */
  return ((channels + k - 1) / k + lanes - 1) / lanes * lanes;
}

/* The partition of a call; tasks == 0 when there is nothing to sum (the
   output is then all zeros). piece, taskwork >= 1; l1 >= 0; esize: bytes
   of T; lanes: 1, or the vector width of a kernel that runs its vectors
   along the rows (NCHW), whose pieces are then `piece` vectors per lane
   (whole rows, or col chunks of piece * lanes pixels); spans: 1 where the
   kernel cuts its pieces to a->span (NHWC kernels with a wide walker),
   else 0. */
static inline void kfi_dwbpf_tile(const kfi_dwbpf_args *a, int64_t piece, int64_t l1, int64_t taskwork, int64_t esize,
                                  int64_t lanes, int spans, kfi_dwbpf_tiling *t) {
  const int64_t nrows = a->n * a->oh;
  int64_t work, pw, ng;
  t->elems = a->kh * a->kw * a->c * a->m;
  t->rows = t->cols = 1;
  t->rpieces = t->cpieces = t->pieces = t->per_task = t->ptasks = t->tasks = 0;
  t->cgroups = 1;
  t->cgsize = a->c;
  if (nrows <= 0 || a->ow <= 0 || t->elems <= 0) return;
  if (l1 > 0) { /* the pixels whose x and dy (all channels) fit l1 bytes */
    const int64_t bpp = (a->c + a->c * a->m) * esize, fit = l1 / bpp;
    if (fit < piece) piece = fit > 1 ? fit : 1;
  }
  if (spans && a->span > 0) { /* a run's kh input rows and its dy */
    const int64_t bpp = kfi_dwbpf_span_bpp(a, esize), fit = a->span / bpp;
    if (fit < piece) piece = fit > 1 ? fit : 1;
  }
  if (lanes > 1) { /* vectors along the rows: a lane sums one term per vector */
    const int64_t vpr = (a->ow + lanes - 1) / lanes;
    if (vpr > piece) {
      t->cols = piece * lanes;
      t->rows = 1;
    } else {
      t->cols = a->ow;
      t->rows = piece / vpr;
      if (t->rows > nrows) t->rows = nrows;
    }
  } else if (a->ow > piece) { /* equal col chunks of one row */
    t->cpieces = (a->ow + piece - 1) / piece;
    t->cols = (a->ow + t->cpieces - 1) / t->cpieces;
    t->rows = 1;
  } else {
    t->cols = a->ow;
    t->rows = piece / a->ow;
    if (t->rows > nrows) t->rows = nrows;
  }
  t->rpieces = (nrows + t->rows - 1) / t->rows;
  t->cpieces = (a->ow + t->cols - 1) / t->cols;
  t->pieces = t->rpieces * t->cpieces;
  work = t->rows * t->cols * t->elems;
  t->per_task = work >= taskwork ? 1 : taskwork / work;
  if (t->per_task > t->pieces) t->per_task = t->pieces;
  t->ptasks = (t->pieces + t->per_task - 1) / t->per_task;
  /* a pixel task's work above taskwork: channel groups */
  pw = t->per_task * work;
  ng = (a->c + KFI_DWBPF_CGRAN - 1) / KFI_DWBPF_CGRAN; /* granules */
  if (pw > taskwork && ng > 1) {
    int64_t g = (pw + taskwork - 1) / taskwork;
    if (g > ng) g = ng;
    t->cgsize = (ng + g - 1) / g * KFI_DWBPF_CGRAN;
    t->cgroups = (a->c + t->cgsize - 1) / t->cgsize;
  }
  t->tasks = t->ptasks * t->cgroups;
}

/* The element offsets, in dy and in x, from piece p's first pixel (flattened
   row r0, col c0) to piece p + 1's (x: as if the rows ran on across images):
   where a piece's last channel pass prefetches the next piece's first. */
static inline void kfi_dwbpf_next(const kfi_dwbpf_args *a, const kfi_dwbpf_tiling *t, int64_t p, int64_t r0,
                                  int64_t c0, int64_t *dg, int64_t *dx) {
  const int64_t q = p + 1, nr = q / t->cpieces * t->rows - r0, nc = q % t->cpieces * t->cols - c0;
  *dg = (nr * a->ow + nc) * a->c * a->m;
  *dx = (nr * a->sh * a->w + nc * a->sw) * a->c;
}

/* Piece p: flattened rows [*r0, *r1), cols [*c0, *c1). */
static inline void kfi_dwbpf_piece(const kfi_dwbpf_args *a, const kfi_dwbpf_tiling *t, int64_t p, int64_t *r0,
                                   int64_t *r1, int64_t *c0, int64_t *c1) {
  const int64_t rp = p / t->cpieces, cp = p % t->cpieces, nrows = a->n * a->oh;
  *r0 = rp * t->rows;
  *r1 = *r0 + t->rows < nrows ? *r0 + t->rows : nrows;
  *c0 = cp * t->cols;
  *c1 = *c0 + t->cols < a->ow ? *c0 + t->cols : a->ow;
}

/* The next piece's lines (kfi_lines): its dy and its x rows, x's from its
   first pixel's top-left tap to its last one's bottom-right (as if the
   rows ran on across images), in shares of one channel vector of the
   `vectors` this piece's passes cover. Only where one task takes every
   channel of a piece (cgroups 1: else each group would fetch every
   channel). */
static inline void kfi_dwbpf_stream_init(const kfi_dwbpf_args *a, const kfi_dwbpf_tiling *t, int64_t p, int64_t esize,
                                         int64_t vectors, kfi_lines *s) {
  int64_t r0, r1, c0, c1, b0, b1, y0, y1, x0, x1, g0, g1, i0, i1;
  if (!a->next || p + 1 >= t->pieces || t->cgroups != 1 || vectors <= 0) {
    kfi_lines_init(s, a->dy, 0, a->x, 0, 0);
    return;
  }
  kfi_dwbpf_piece(a, t, p + 1, &r0, &r1, &c0, &c1);
  b0 = r0 / a->oh, b1 = (r1 - 1) / a->oh;
  y0 = r0 % a->oh * a->sh - a->pad_top;
  y1 = (r1 - 1) % a->oh * a->sh - a->pad_top + (a->kh - 1) * a->dh;
  x0 = c0 * a->sw - a->pad_left;
  x1 = (c1 - 1) * a->sw - a->pad_left + (a->kw - 1) * a->dw;
  y0 = y0 < 0 ? 0 : y0;
  y1 = y1 > a->h - 1 ? a->h - 1 : y1;
  x0 = x0 < 0 ? 0 : x0;
  x1 = x1 > a->w - 1 ? a->w - 1 : x1;
  g0 = (r0 * a->ow + c0) * a->c * a->m, g1 = ((r1 - 1) * a->ow + c1) * a->c * a->m;
  i0 = ((b0 * a->h + y0) * a->w + x0) * a->c, i1 = ((b1 * a->h + y1) * a->w + x1 + 1) * a->c;
  kfi_lines_init(s, (const char *)a->dy + g0 * esize, (size_t)((g1 - g0) * esize), (const char *)a->x + i0 * esize,
                 (size_t)(i1 > i0 ? (i1 - i0) * esize : 0), vectors);
}

#endif
