/*
** main.c -- the bare-metal image of a per-model kernel set: runs every op
** instance of the model (tools/model/runner.c) in a static arena sized at
** build time, and prints per instance the kernel, the hash of its outputs
** and the counter's ticks around it (mcu/ticks_<arch>.c; the target spec
** gives the instructions per tick under qemu -icount). Exit status: the
** number of instances that failed. Uses semihosting stdio; the kforge
** library itself uses none. With -DKFM_DUMP=\"DIR\" every output is also
** written to the host file DIR/<instance>_<output>.<dtype> over semihosting
** (targets whose vector kernels are compared with a tolerance, not a hash:
** tools/model/compare.c).
*/
#include <stdint.h>
#include <stdio.h>

#include "runner.h"
#include "ticks.h"

#ifndef KFM_ARENA_BYTES
#error "KFM_ARENA_BYTES: the arena the host check measured (tools/build-model.sh)"
#endif

static unsigned char arena[KFM_ARENA_BYTES] __attribute__((aligned(16)));

#ifdef KFM_DUMP
#include "dump.h"
#endif

int main(void) {
  kfm_env env;
  int i, bad = 0;
  uint64_t total = 0; /* soft-float models can pass 2^32 instructions */
  env.arena = arena;
  env.arena_bytes = sizeof arena;
  env.ticks = kfm_ticks;
  env.step = &kfm_step_plan; /* in order, as one training step: kfm_step.c */
  env.before = 0;
  kfm_ticks_start();
  for (i = 0; i < kfm_instance_count; i++) {
    kfm_run r;
    if (kfm_run_instance(i, &env, &r) != KF_OK) {
      printf("%d FAIL %s: %s\n", i, r.err.rule, r.err.message);
      bad++;
      continue;
    }
    printf("%d %s %08lx%08lx ticks %lu\n", i, r.kernel, (unsigned long)(r.hash >> 32),
           (unsigned long)(r.hash & 0xFFFFFFFFu), (unsigned long)r.ticks);
    total += r.ticks;
#ifdef KFM_DUMP
    if (!kfm_dump(KFM_DUMP, i, &r)) {
      printf("%d FAIL cannot write its outputs under %s\n", i, KFM_DUMP);
      bad++;
    }
#endif
  }
  /* in two parts: picolibc's integer printf has no long long */
  if (total >= 1000000000u)
    printf("total ticks %lu%09lu\n", (unsigned long)(total / 1000000000u), (unsigned long)(total % 1000000000u));
  else
    printf("total ticks %lu\n", (unsigned long)total);
  return bad;
}
