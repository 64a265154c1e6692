/*
** kfm.h -- a model's op instances, as the generator writes them for a
** per-model kernel set (kfg_model.c): what the model's training step calls,
** in order, with the kernel each call must get. Used by the host check and
** the microcontroller runner (tools/model/runner.c).
*/
#ifndef kfm_h
#define kfm_h

#include <stdint.h>

#include "kforge.h"

typedef struct kfm_attr { const char *name, *value; } kfm_attr;

typedef struct kfm_input {
  const char *name;
  kf_dtype dtype;
  int rank;
  int64_t dims[KF_MAX_RANK];
  const int32_t *values; /* inputs read while planning (input_sizes) */
  float lo, hi;          /* the range random values are drawn from (the spec's range, else [-1, 1)) */
} kfm_input;

typedef struct kfm_instance {
  const char *name;
  const char *op;
  int num_attrs;
  const kfm_attr *attrs;
  int num_inputs;
  const kfm_input *inputs;   /* TF order */
} kfm_instance;

extern const kfm_instance kfm_instances[];
extern const int kfm_instance_count;
extern const char kfm_model_name[];
extern const char kfm_target_name[];

#endif
