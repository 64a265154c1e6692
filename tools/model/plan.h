/*
** plan.h -- the host half of a step's plan (tools/model/check.c): derives
** which inputs are chained (another call's output), gives every tensor a
** lifetime in step order, places them (arena.h) and writes the table the
** image is linked with (step.h). Host only: uses the heap and stdio.
*/
#ifndef kfm_plan_h
#define kfm_plan_h

#include <stdio.h>

#include "arena.h"
#include "runner.h"

typedef struct kfm_plan_report {
  int chained;              /* inputs that are another call's output */
  int inplace;              /* outputs placed over a dead input of the same call */
  int tensors;
  size_t arena, lower;      /* planned peak, and no placement can do better than lower */
  int peak_call;            /* the call where lower is reached */
  const char *verify;       /* NULL, or what kfm_arena_verify found wrong */
} kfm_plan_report;

/* desc: kfm_describe of every instance, n of them. calls: n entries,
   filled. allow_inplace: let a batch-norm gradient's x_backprop take
   y_backprop's bytes when nothing reads y_backprop after the call. */
int kfm_plan_step(const kfm_run *desc, int n, int allow_inplace, kfm_call_plan *calls, kfm_plan_report *rep);

/* kfm_step.c: the table of step.h, for the image. */
void kfm_write_step(FILE *f, const kfm_call_plan *calls, int n, size_t arena_bytes);

#endif
