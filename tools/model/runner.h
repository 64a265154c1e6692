/*
** runner.h -- plans and runs the instances of a per-model kernel set
** (kfg_model.c) on deterministic inputs in one caller-owned arena: the same
** code on the host and on a microcontroller, so their results can be
** compared bit for bit. No heap, no stdio.
*/
#ifndef kfm_runner_h
#define kfm_runner_h

#include <stddef.h>
#include <stdint.h>

#include "kfm.h"

#define KFM_MAX_IO 8

typedef struct kfm_run {
  kf_status status;
  kf_error err;                 /* on failure: the runtime's message and rule */
  const char *kernel;           /* the kernel that ran */
  int kernel_ok;                /* it serves the call's key, specialized where the set can (metadata) */
  size_t arena_used;            /* inputs + outputs + scratch, bytes */
  size_t scratch_bytes;
  uint64_t hash;                /* FNV-1a over every output's bytes, in order */
  uint32_t ticks;               /* env->ticks() around kf_execute */
  int num_inputs, num_outputs;
  kf_tensor_desc in_desc[KFM_MAX_IO];
  const void *in[KFM_MAX_IO];
  const kf_tensor_desc *out_desc[KFM_MAX_IO]; /* = &out_descs[i] */
  kf_tensor_desc out_descs[KFM_MAX_IO];        /* copies: the plan is gone after kfm_run_instance */
  void *out[KFM_MAX_IO];
  kf_attrs attrs;
  kf_op op;
} kfm_run;

typedef struct kfm_env {
  unsigned char *arena;
  size_t arena_bytes;
  uint32_t (*ticks)(void);      /* a cycle or instruction counter; NULL: none */
} kfm_env;

/* Plans and runs instance i. Returns the status (also in r->status). */
kf_status kfm_run_instance(int i, const kfm_env *env, kfm_run *r);

#endif
