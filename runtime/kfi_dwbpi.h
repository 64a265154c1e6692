/*
** kfi_dwbpi.h -- the argument block of the depthwise input-gradient
** kernels (family dwbpi): what runtime/dwbpi_plan.c fills and its
** generated kernels read.
*/
#ifndef kfi_dwbpi_h
#define kfi_dwbpi_h

#include "kfi_kernel.h"

/* Depthwise backprop input: dx [n, h, w, c] (or [n, c, h, w]) from
   filter [kh, kw, c, m] and dy [n, oh, ow, c*m] (or [n, c*m, oh, ow]).
   pad_top/pad_left are the forward padding before the first row/col. */
typedef struct kfi_dwbpi_args {
  int64_t n, h, w, c, m, oh, ow;
  int64_t kh, kw, sh, sw, dh, dw;
  int64_t pad_top, pad_left;
  int layout;      /* KFI_CHANNELS_*; specialized kernels ignore it */
  const void *filter, *dy;       /* T */
  void *dx;                      /* T */
  void *scratch;
  kfi_caches cache;              /* the caches the plan sizes by */
  int64_t ahead;                 /* NHWC SIMD: bytes of dy read ahead of the row computed (software
                                    prefetch; none where one row's share is more; kfi_dwbpi_ahead_rule);
                                    0: none. Others ignore it */
  int64_t wahead;                /* NHWC SIMD, cached ISAs: 1: with dy's read-ahead, prefetch the dx
                                    rows it is for, for writing, where dx is not streamed (an output in
                                    no cache: each line is read before it is written); 0 (the rule for
                                    warm outputs): not. Others ignore it */
} kfi_dwbpi_args;

/* The rule's read-ahead: a quarter of the L1d, so the lines prefetched and
   not yet read leave the blocks' working set (sized to the L1d) in place
   where prefetches fill the L1d, and rows whose share is larger (warm from
   the L3 they lost 5-13% read ahead: docs/performance_dwbpi.md) are left
   to the hardware prefetchers. */
static inline int64_t kfi_dwbpi_ahead_rule(const kfi_caches *c) { return c->l1d / 4; }

/* The read-ahead for fresh outputs (a step's cold rule): half the L1d. A
   quarter reads no row ahead where a row's share of dy exceeds an eighth
   of the L1d (4.6 KB rows of MobileNetV2 on a 32 KiB L1d), and from DRAM
   those rows waited on every line: on Zen 4, cold, 16x24x24x48 0.305 ->
   0.159 ms and 16x12x12x96 0.216 -> 0.091 ms with half; calls that read
   ahead already stayed level, and reading further lost (128 KiB: 1.1-1.3x
   the time of half the L1d). docs/performance.md,
   "Zen 4: the input gradient reads further ahead cold". */
static inline int64_t kfi_dwbpi_ahead_cold(const kfi_caches *c) { return c->l1d / 2; }

#endif
