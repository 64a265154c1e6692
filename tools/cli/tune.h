/*
** tune.h -- the CLI's `tune` command (tune.c), and what `profile`
** (profile.c) shares with it: the manifest's calls and the plan timer.
*/
#ifndef kf_cli_tune_h
#define kf_cli_tune_h

#include <stddef.h>
#include <stdio.h>

#include "kforge.h"

/* argv[1] is "tune". Returns the exit status (2: usage); msg holds the
   error line when it is not 0. */
int kf_cli_tune(int argc, char **argv, char *msg, size_t n);

/* Runs per kfc_time_plan median. */
#define KFC_REPS 15

/* Seconds on the monotonic clock. */
double kfc_now_s(void);

/* Median ms of KFC_REPS runs of a plan (after one warm-up), buffers 64-byte
   aligned as TF's allocator gives them; cold: every buffer evicted from
   the caches before each run. -1 when it cannot run. */
double kfc_time_plan(const kf_plan *plan, kf_op op, const kf_tensor_desc *in, int cold);

/* A plan's buffers, 64-byte aligned as TF's allocator gives them: its
   inputs (floats set to values in [0.5, 1.5)), outputs and scratch, in
   that order. kfc_bufs_alloc: 0, or -1 (out of memory, too many); the
   buffers are freed on failure. kfc_bufs_run: kf_execute on them, 0 or -1. */
#include "call.h"
typedef struct kfc_bufs {
  void *buf[2 * KFC_MAX_IO + 1];
  size_t size[2 * KFC_MAX_IO + 1], scratch_bytes;
  int nin, nout;
} kfc_bufs;
int kfc_bufs_alloc(kfc_bufs *b, const kf_plan *plan, kf_op op, const kf_tensor_desc *in);
int kfc_bufs_run(const kf_plan *plan, const kfc_bufs *b);
void kfc_bufs_free(kfc_bufs *b);
/* The median of t[0..n) (sorts t). */
double kfc_median(double *t, int n);
/* kfc_time_plan on buffers the caller keeps. */
double kfc_time_bufs(const kf_plan *plan, const kfc_bufs *b, int cold);

/* All of f, NUL-terminated, malloc'd; NULL when out of memory. */
char *kfc_read_all(FILE *f);

/* A manifest's calls as plan --batch lines (lua5.4 tools/tune_calls.lua,
   at batch batch_size when > 0), malloc'd; NULL with msg. */
char *kfc_manifest_calls(const char *argv0, const char *manifest, int batch_size, char *msg, size_t n);

#endif
