/*
** step.h -- a model's training step as the image runs it: per call, where
** each input, output and the scratch lie in the one arena, and which
** inputs are another call's output (chained) rather than a value from the
** forward pass or from ops kforge does not compute (external: synthesized
** at the call, standing in for the host-recorded step). The host check
** (tools/model/check.c, planner tools/model/plan.c) derives it and writes
** it as a table (kfm_step.c in the build folder) the image is linked with,
** so host and image run the same plan.
*/
#ifndef kfm_step_h
#define kfm_step_h

#include <stdint.h>

#define KFM_MAX_IO 8

typedef struct kfm_call_plan {
  uint32_t in_off[KFM_MAX_IO], out_off[KFM_MAX_IO], scratch_off; /* arena offsets */
  int16_t from[KFM_MAX_IO];     /* per input: the producing call, -1 external */
  uint8_t from_out[KFM_MAX_IO]; /* ... and which of its outputs */
} kfm_call_plan;

typedef struct kfm_step {
  const kfm_call_plan *calls;   /* one per instance, in step (manifest) order */
  uint32_t arena_bytes;         /* the planned peak */
} kfm_step;

extern const kfm_step kfm_step_plan; /* kfm_step.c, written by check --plan */

#endif
