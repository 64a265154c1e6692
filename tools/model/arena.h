/*
** arena.h -- ahead-of-time placement of a step's tensors in one arena, like
** a register allocator: each tensor lives over a range of calls [first,
** last]; two tensors whose ranges intersect never share bytes. Pure (no
** heap, no kforge types), so tests/models/test_plan.c checks it alone.
*/
#ifndef kfm_arena_h
#define kfm_arena_h

#include <stddef.h>

#define KFM_ALIGN 16u

typedef struct kfm_tensor {
  size_t bytes;      /* 0: takes no space */
  int first, last;   /* calls (step order) it is live over, first <= last */
  size_t off;        /* set by kfm_arena_place; a multiple of KFM_ALIGN */
} kfm_tensor;

/* Places n tensors, largest first (ties: earlier first, then index), each
   at the lowest aligned offset that overlaps no placed tensor live at the
   same time. order: n ints of caller scratch. Returns the arena bytes (the
   highest end, rounded up to KFM_ALIGN). */
size_t kfm_arena_place(kfm_tensor *t, int n, int *order);

/* max over calls of the (aligned) bytes live at that call: no placement
   can use less. */
size_t kfm_arena_lower_bound(const kfm_tensor *t, int n);

/* NULL when the placement is sound (aligned, inside arena_bytes, no two
   live-intersecting tensors overlap, arena_bytes >= the lower bound), else
   what is wrong, and *a, *b the tensors concerned (-1 when none). */
const char *kfm_arena_verify(const kfm_tensor *t, int n, size_t arena_bytes, int *a, int *b);

#endif
