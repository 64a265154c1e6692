/*
** runner.h -- plans and runs the instances of a per-model kernel set
** (kfg_model.c) on deterministic inputs in one caller-owned arena: the same
** code on the host and on a microcontroller, so their results can be
** compared bit for bit. Either each call alone (bump allocation from the
** arena's start) or as one training step (step.h: planned offsets, chained
** inputs read where their producer wrote them). No heap, no stdio.
*/
#ifndef kfm_runner_h
#define kfm_runner_h

#include <stddef.h>
#include <stdint.h>

#include "kfm.h"
#include "step.h"

typedef struct kfm_run {
  kf_status status;
  kf_error err;                 /* on failure: the runtime's message and rule */
  const char *kernel;           /* the kernel that ran */
  int kernel_ok;                /* it serves the call's key, specialized where the set can (metadata) */
  size_t arena_used;            /* alone: inputs + outputs + scratch, bytes (16-byte aligned each) */
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
  const kfm_step *step;         /* NULL: each call alone; else the step's plan */
  void (*before)(void *ctx, const kfm_run *r); /* NULL, or called with the inputs ready, before kf_execute */
  void *ctx;
} kfm_env;

/* Plans instance i without data: kernel, output descriptors, scratch
   bytes, arena_used (the call alone). Returns the status. */
kf_status kfm_describe(int i, kfm_run *r);

/* Plans and runs instance i; in a step, calls must run in order (a
   chained input is read where its producer wrote it). Returns the status
   (also in r->status). */
kf_status kfm_run_instance(int i, const kfm_env *env, kfm_run *r);

#endif
