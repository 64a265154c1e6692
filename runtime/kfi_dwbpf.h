/*
** kfi_dwbpf.h -- DepthwiseConv2dNativeBackpropFilter: the argument block the
** planner hands the dwbpf kernels, and the partition of the reduction that
** every dwbpf kernel uses. Freestanding: includes only kfi_kernel.h.
**
** filter_backprop[fy, fx, c, m] = sum over (b, oy, ox) of
**   x[b, oy*sh - pad_top + fy*dh, ox*sw - pad_left + fx*dw, c] * dy[b, oy, ox, c*m + m]
** (taps outside the input contribute nothing).
**
** Partition (depends on the shapes and the family's params only, never on
** the thread count, so results are bitwise identical for any pool):
**   - the output pixels, flattened as rows r = b*oh + oy, are cut into
**     pieces of at most `piece` pixels: whole rows (possibly spanning
**     images) when a row is shorter than `piece`, else column chunks of one
**     row; a kernel sums a piece's terms in registers (float for half,
**     bfloat16 and float; double for double);
**   - a task takes `per_task` consecutive pieces (about `taskwork`
**     multiply-adds) and adds each piece's sums, in piece order, into its own
**     partial filter in the scratch (tasks x elems accumulators);
**   - after the one parallel round, the calling thread reduces the partials
**     in a fixed pairwise tree over the task index (by chunks of filter
**     elements), and rounds once to T.
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
} kfi_dwbpf_args;

typedef struct kfi_dwbpf_tiling {
  int64_t rows, cols;            /* flattened output rows and cols per piece */
  int64_t rpieces, cpieces;      /* row pieces (over n*oh rows), col pieces per row */
  int64_t pieces, per_task, tasks;
  int64_t elems;                 /* kh*kw*c*m: accumulators per task */
} kfi_dwbpf_tiling;

/* The partition of a call; tasks == 0 when there is nothing to sum (the
   output is then all zeros). piece, taskwork >= 1. */
static inline void kfi_dwbpf_tile(const kfi_dwbpf_args *a, int64_t piece, int64_t taskwork, kfi_dwbpf_tiling *t) {
  const int64_t nrows = a->n * a->oh;
  int64_t work;
  t->elems = a->kh * a->kw * a->c * a->m;
  t->rows = t->cols = 1;
  t->rpieces = t->cpieces = t->pieces = t->per_task = t->tasks = 0;
  if (nrows <= 0 || a->ow <= 0 || t->elems <= 0) return;
  if (a->ow >= piece) {
    t->cols = piece;
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
  t->tasks = (t->pieces + t->per_task - 1) / t->per_task;
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

#endif
