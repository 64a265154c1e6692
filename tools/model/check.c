/*
** check.c -- the host half of a per-model build (tools/build-model.sh).
** Plans every instance of the model with the per-model kernel set, so TF's
** validation rules are applied by the runtime itself at build time; proves
** each instance gets the kernel the generator made for it (with
** --no-fallback there is nothing else); runs it on the runner's inputs and
** compares with the double-precision references of tests/ref/ (by op:
** tests/ref/ref_ops.h, so nothing here names an op); reports the
** arena a microcontroller image needs and the output hashes it must match.
**
**   check [--hashes FILE] [--dump DIR]
**                             prints "ok/FAIL" lines and "N passed, M failed";
**                             --dump writes every output to DIR/<i>_<j>.<dtype>
**                             (as mcu/main.c does with KFM_DUMP), for
**                             tools/model/compare.c
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "ref/ref_ops.h"

static int passed, failed;

static void check(int ok, const char *fmt, const char *a, const char *b, int i) {
  if (ok) passed++; else failed++;
  printf("%s - ", ok ? "ok" : "FAIL");
  printf(fmt, i, a, b);
  putchar('\n');
}

/* max |got - want| / max |want| */
static double rel(const void *got, kf_dtype t, const double *want, int64_t n) {
  double *g = ref_to_double(got, t, n), mx = 1e-6, e = 0;
  int64_t i;
  for (i = 0; i < n; i++) if (fabs(want[i]) > mx) mx = fabs(want[i]);
  for (i = 0; i < n; i++) if (!(fabs(g[i] - want[i]) <= e)) e = fabs(g[i] - want[i]);
  free(g);
  return e / mx;
}

/* The instance's outputs against the op's reference (tests/ref/ref_ops.h):
   the worst relative error over the outputs, in units of each output's
   tolerance; -1 when the op has no reference. */
static double against_reference(const kfm_run *r) {
  double *want[KFM_MAX_IO], tol[KFM_MAX_IO], e = 0;
  ref_call c;
  int j, ok;
  c.op = r->op;
  c.attrs = &r->attrs;
  c.num_inputs = r->num_inputs;
  c.in = r->in_desc;
  c.data = r->in;
  c.num_outputs = r->num_outputs;
  c.out = r->out_desc;
  for (j = 0; j < r->num_outputs; j++) {
    int64_t n = ref_count(r->out_desc[j]);
    want[j] = malloc((size_t)(n > 0 ? n : 1) * sizeof *want[j]);
  }
  ok = ref_op(&c, want, tol);
  for (j = 0; ok && j < r->num_outputs; j++) {
    int64_t n = ref_count(r->out_desc[j]);
    if (n > 0 && tol[j] > 0) e = fmax(e, rel(r->out[j], r->out_desc[j]->dtype, want[j], n) / tol[j]);
    else if (n > 0 && tol[j] <= 0) e = fmax(e, 1e9); /* an output the reference does not cover */
  }
  for (j = 0; j < r->num_outputs; j++) free(want[j]);
  return ok ? e : -1;
}

/* Instance i's outputs, raw, one file each (names as in mcu/main.c). */
static int dump(const char *dir, int i, const kfm_run *r) {
  int j, ok = 1;
  for (j = 0; j < r->num_outputs; j++) {
    size_t n = (size_t)ref_count(r->out_desc[j]) * kf_dtype_size(r->out_desc[j]->dtype);
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/%d_%d.%s", dir, i, j, kf_dtype_name(r->out_desc[j]->dtype));
    if (!(f = fopen(path, "wb"))) return 0;
    if (n && fwrite(r->out[j], 1, n, f) != n) ok = 0;
    if (fclose(f) != 0) ok = 0;
  }
  return ok;
}

int main(int argc, char **argv) {
  FILE *hashes = NULL;
  const char *dump_dir = NULL;
  size_t arena_max = 0, scratch_max = 0, cap = 1 << 20;
  kfm_env env;
  int i;
  for (i = 1; i < argc; i += 2) {
    if (i + 1 < argc && strcmp(argv[i], "--hashes") == 0) {
      hashes = fopen(argv[i + 1], "w");
      if (!hashes) { fprintf(stderr, "check: cannot write %s\n", argv[i + 1]); return 2; }
    } else if (i + 1 < argc && strcmp(argv[i], "--dump") == 0) {
      dump_dir = argv[i + 1];
    } else {
      fprintf(stderr, "usage: check [--hashes FILE] [--dump DIR]\n");
      return 2;
    }
  }
  env.arena = malloc(cap);
  env.arena_bytes = cap;
  env.ticks = NULL;
  for (i = 0; i < kfm_instance_count; i++) {
    const kfm_instance *inst = &kfm_instances[i];
    kfm_run r;
    char what[256];
    kf_status st = kfm_run_instance(i, &env, &r);
    if (st == KF_SCRATCH_TOO_SMALL && strcmp(r.err.rule, "model.arena") == 0) { /* grow and retry */
      cap = r.arena_used * 2;
      free(env.arena);
      env.arena = malloc(cap);
      env.arena_bytes = cap;
      st = kfm_run_instance(i, &env, &r);
    }
    if (st != KF_OK) {
      /* A bad manifest: name the model, the instance and the rule. */
      fprintf(stderr, "kforge-model: model %s: instance '%s' (#%d): rule %s: %s\n", kfm_model_name, inst->name, i,
              r.err.rule && *r.err.rule ? r.err.rule : "none", r.err.message);
      check(0, "%d %s: plans and runs (%s)", inst->name, r.err.message, i);
      continue;
    }
    snprintf(what, sizeof what, "%s, the kernel of the set that serves its key best", r.kernel);
    check(r.kernel_ok, "%d %s: runs its own kernel (%s)", inst->name, what, i);
    {
      double e = against_reference(&r);
      if (e < 0) snprintf(what, sizeof what, "no reference in tests/ref/ref_ops.c for %s", inst->op);
      else snprintf(what, sizeof what, "%.3f of the tolerance", e);
      check(e >= 0 && e <= 1.0, "%d %s: matches the double reference (%s)", inst->name, what, i);
    }
    if (r.arena_used > arena_max) arena_max = r.arena_used;
    if (r.scratch_bytes > scratch_max) scratch_max = r.scratch_bytes;
    if (hashes) fprintf(hashes, "%d %s %016llx\n", i, r.kernel, (unsigned long long)r.hash);
    if (dump_dir && !dump(dump_dir, i, &r)) check(0, "%d %s: outputs written (%s)", inst->name, dump_dir, i);
  }
  printf("model %s target %s: %d instances, arena_bytes %zu, scratch_bytes %zu\n", kfm_model_name, kfm_target_name,
         kfm_instance_count, arena_max, scratch_max);
  if (hashes) fclose(hashes);
  free(env.arena);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
