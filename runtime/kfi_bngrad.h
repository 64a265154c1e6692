/*
** kfi_bngrad.h -- the argument block of the batch-norm gradient kernels
** (family bngrad): what runtime/bngrad_plan.c fills and its generated
** kernels read.
*/
#ifndef kfi_bngrad_h
#define kfi_bngrad_h

#include "kfi_kernel.h"

/* Batch-norm gradient, viewed as [n, s, c] (channels last) or [n, c, s]
   (channels first); s is the product of the spatial dims. n*s*c > 0. */
typedef struct kfi_bngrad_args {
  int64_t n, c, s;
  int layout;      /* KFI_CHANNELS_*; specialized kernels ignore it */
  int training;    /* is_training; specialized kernels ignore it */
  float epsilon;
  const void *dy, *x;            /* T */
  const float *scale, *mean, *var;
  void *dx;                      /* T */
  float *dscale, *doffset;
  void *scratch;                 /* the kernel's scratch query, in bytes */
  kfi_caches cache;              /* the caches the plan sizes by */
  int64_t columns;               /* 1: few rows, and channels first, may run by channel blocks (the rules), 0: never */
  int64_t next;                  /* 1: channels last, rows of more than one tile: pass 1's tiles stream
                                    the next sub-block's dy and x rows into the L2 in order (kfi_lines);
                                    the rule: 0, 1 for fresh outputs (kfi_choices_rule_cold) */
} kfi_bngrad_args;

/* Whether dy, x and dx (esize bytes an element) together exceed half the
   last-level cache, so that pass 2 finds them in no cache: the kernels'
   pass 1 then sweeps wide rows, and the plan takes the AVX2 kernel over
   the AVX-512 one past one AVX-512 tile (runtime/bngrad_plan.c). */
static inline int kfi_bngrad_far(const kfi_bngrad_args *a, int64_t esize) {
  return 2 * 3 * a->n * a->s * a->c * esize > a->cache.llc;
}

#endif
