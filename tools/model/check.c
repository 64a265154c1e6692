/*
** check.c -- the host half of a per-model build (tools/build-model.sh).
** Plans every instance of the model with the per-model kernel set, so TF's
** validation rules are applied by the runtime itself at build time; proves
** each instance gets the kernel the generator made for it (with
** --no-fallback there is nothing else); runs it on the runner's inputs and
** compares with the double-precision references of tests/ref/ (by op:
** tests/ref/ref_ops.h, so nothing here names an op); reports the
** arena a microcontroller image needs and the output hashes it must match.
** The calls run as one training step (tools/model/plan.c): chained inputs
** are read where their producer wrote them, every tensor at its planned
** offset in an arena of exactly the planned size; the references get the
** same input values.
**
**   check [--hashes FILE] [--plan FILE] [--dump DIR] [--no-inplace | --alone]
**     prints "ok/FAIL" lines, the arena figures and "N passed, M failed";
**     --plan writes the step's table (step.h) for the image; --no-inplace
**     plans no output over an input; --alone runs each call by itself
**     (every input synthesized, no chains), as before the step
**     --dump writes every output to DIR/<i>_<j>.<dtype> (as mcu/main.c does
**     with KFM_DUMP), for tools/model/compare.c
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "dump.h"
#include "runner.h"
#include "ref/ref_ops.h"

static int passed, failed;
static const kfm_step *kfm_step_of_check; /* the step being run */

static void check(int ok, const char *fmt, const char *a, const char *b, int i) {
  if (ok) passed++; else failed++;
  printf("%s - ", ok ? "ok" : "FAIL");
  printf(fmt, i, a, b);
  putchar('\n');
}

static void check_line(int ok, const char *what) {
  if (ok) passed++; else failed++;
  printf("%s - %s\n", ok ? "ok" : "FAIL", what);
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

/* The instance's outputs against the op's reference (tests/ref/ref_ops.h),
   computed before the call runs (an output may take an input's bytes):
   the worst relative error over the outputs, in units of each output's
   tolerance; -1 when the op has no reference. */
typedef struct refs {
  double *want[KFM_MAX_IO], tol[KFM_MAX_IO];
  int ok;
  uint64_t **out_hash;   /* per call, per output: FNV-1a of its bytes once made */
  int chain_bad, chain_n;
} refs;

static uint64_t fnv(const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  uint64_t h = 1469598103934665603ull;
  size_t k;
  for (k = 0; k < n; k++) h = (h ^ b[k]) * 1099511628211ull;
  return h;
}

static size_t bytes_of(const kf_tensor_desc *d) { return (size_t)ref_count(d) * kf_dtype_size(d->dtype); }

static int current;

/* env.before: the reference from the inputs as the kernel gets them, and
   each chained input compared with its producer's output as it was made. */
static void before(void *ctx, const kfm_run *r) {
  refs *f = (refs *)ctx;
  ref_call c;
  int j;
  c.op = r->op;
  c.attrs = &r->attrs;
  c.num_inputs = r->num_inputs;
  c.in = r->in_desc;
  c.data = r->in;
  c.num_outputs = r->num_outputs;
  c.out = r->out_desc;
  for (j = 0; j < r->num_outputs; j++) {
    int64_t n = ref_count(r->out_desc[j]);
    f->want[j] = malloc((size_t)(n > 0 ? n : 1) * sizeof *f->want[j]);
  }
  f->ok = ref_op(&c, f->want, f->tol);
  if (kfm_step_of_check) {
    const kfm_call_plan *cp = &kfm_step_of_check->calls[current];
    for (j = 0; j < r->num_inputs; j++)
      if (cp->from[j] >= 0) {
        f->chain_n++;
        if (fnv(r->in[j], bytes_of(&r->in_desc[j])) != f->out_hash[cp->from[j]][cp->from_out[j]]) f->chain_bad++;
      }
  }
}

static double against_reference(refs *f, const kfm_run *r) {
  double e = 0;
  int j;
  for (j = 0; f->ok && j < r->num_outputs; j++) {
    int64_t n = ref_count(r->out_desc[j]);
    if (n > 0 && f->tol[j] > 0) e = fmax(e, rel(r->out[j], r->out_desc[j]->dtype, f->want[j], n) / f->tol[j]);
    else if (n > 0 && f->tol[j] <= 0) e = fmax(e, 1e9); /* an output the reference does not cover */
  }
  for (j = 0; j < r->num_outputs; j++) free(f->want[j]);
  return f->ok ? e : -1;
}

int main(int argc, char **argv) {
  FILE *hashes = NULL, *planf = NULL;
  const char *dump_dir = NULL;
  size_t per_call = 0, scratch_max = 0;
  int i, j, a, inplace = 1, alone = 0, n = kfm_instance_count, chain_ok;
  kfm_env env;
  kfm_run *desc = calloc((size_t)n, sizeof *desc);
  kfm_call_plan *calls = calloc((size_t)n, sizeof *calls);
  kfm_plan_report rep, rep0;
  kfm_step step;
  refs f;
  for (a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--hashes") == 0 && a + 1 < argc) {
      if (!(hashes = fopen(argv[++a], "w"))) { fprintf(stderr, "check: cannot write %s\n", argv[a]); return 2; }
    } else if (strcmp(argv[a], "--plan") == 0 && a + 1 < argc) {
      if (!(planf = fopen(argv[++a], "w"))) { fprintf(stderr, "check: cannot write %s\n", argv[a]); return 2; }
    } else if (strcmp(argv[a], "--dump") == 0 && a + 1 < argc) {
      dump_dir = argv[++a];
    } else if (strcmp(argv[a], "--no-inplace") == 0) {
      inplace = 0;
    } else if (strcmp(argv[a], "--alone") == 0) {
      alone = 1;
    } else {
      fprintf(stderr, "usage: check [--hashes FILE] [--plan FILE] [--dump DIR] [--no-inplace | --alone]\n");
      return 2;
    }
  }
  memset(&f, 0, sizeof f);
  f.out_hash = calloc((size_t)n, sizeof *f.out_hash);
  /* Describe every call (kernel, outputs, scratch), then plan the step. */
  for (i = 0; i < n; i++) {
    if (kfm_describe(i, &desc[i]) != KF_OK) {
      /* A bad manifest: name the model, the instance and the rule. */
      fprintf(stderr, "kforge-model: model %s: instance '%s' (#%d): rule %s: %s\n", kfm_model_name,
              kfm_instances[i].name, i, desc[i].err.rule && *desc[i].err.rule ? desc[i].err.rule : "none",
              desc[i].err.message);
      check(0, "%d %s: plans (%s)", kfm_instances[i].name, desc[i].err.message, i);
      printf("%d passed, %d failed\n", passed, failed);
      return 1;
    }
    if (desc[i].arena_used > per_call) per_call = desc[i].arena_used;
    if (desc[i].scratch_bytes > scratch_max) scratch_max = desc[i].scratch_bytes;
    f.out_hash[i] = calloc(KFM_MAX_IO, sizeof **f.out_hash);
  }
  if (kfm_plan_step(desc, n, 0, calls, &rep0) != 0 || kfm_plan_step(desc, n, inplace, calls, &rep) != 0) {
    fprintf(stderr, "check: out of memory\n");
    return 2;
  }
  {
    char what[512];
    snprintf(what, sizeof what, "arena plan of the %s step (%d tensors; in place and not): aligned, inside the "
             "arena, no two tensors live at one call overlap, peak >= lower bound (%s)", kfm_model_name, rep.tensors,
             rep.verify ? rep.verify : rep0.verify ? rep0.verify : "sound");
    check_line(rep.verify == NULL && rep0.verify == NULL, what);
  }
  step.calls = calls;
  step.arena_bytes = (uint32_t)rep.arena;
  kfm_step_of_check = alone ? NULL : &step;
  env.arena_bytes = alone ? per_call : rep.arena;
  env.arena = malloc(env.arena_bytes ? env.arena_bytes : 1); /* exactly the plan: a wrong offset reads past it */
  env.ticks = NULL;
  env.step = kfm_step_of_check;
  env.before = before;
  env.ctx = &f;
  for (i = 0; i < n; i++) {
    const kfm_instance *inst = &kfm_instances[i];
    kfm_run r;
    char what[256];
    kf_status st;
    current = i;
    st = kfm_run_instance(i, &env, &r);
    if (st != KF_OK) {
      fprintf(stderr, "kforge-model: model %s: instance '%s' (#%d): rule %s: %s\n", kfm_model_name, inst->name, i,
              r.err.rule && *r.err.rule ? r.err.rule : "none", r.err.message);
      check(0, "%d %s: plans and runs (%s)", inst->name, r.err.message, i);
      continue;
    }
    for (j = 0; j < r.num_outputs; j++) f.out_hash[i][j] = fnv(r.out[j], bytes_of(r.out_desc[j]));
    snprintf(what, sizeof what, "%s, the kernel of the set that serves its key best", r.kernel);
    check(r.kernel_ok, "%d %s: runs its own kernel (%s)", inst->name, what, i);
    {
      double e = against_reference(&f, &r);
      if (e < 0) snprintf(what, sizeof what, "no reference in tests/ref/ref_ops.c for %s", inst->op);
      else snprintf(what, sizeof what, "%.3f of the tolerance", e);
      check(e >= 0 && e <= 1.0, "%d %s: matches the double reference (%s)", inst->name, what, i);
    }
    if (hashes) fprintf(hashes, "%d %s %016llx\n", i, r.kernel, (unsigned long long)r.hash);
    if (dump_dir && !kfm_dump(dump_dir, i, &r)) check(0, "%d %s: outputs written (%s)", inst->name, dump_dir, i);
  }
  chain_ok = f.chain_bad == 0 && f.chain_n == (alone ? 0 : rep.chained);
  {
    char what[256];
    snprintf(what, sizeof what, "every chained input is its producer's output, bit for bit, at the call that "
             "reads it (%d of %d)", f.chain_n - f.chain_bad, alone ? 0 : rep.chained);
    check_line(chain_ok, what);
  }
  printf("model %s target %s: %d instances, chained %d, inplace %d, arena_bytes %zu, lower_bound %zu, "
         "peak_call %d %s, arena_noinplace %zu, lower_noinplace %zu, per_call_arena %zu, scratch_bytes %zu\n",
         kfm_model_name, kfm_target_name, n, rep.chained, rep.inplace, rep.arena, rep.lower, rep.peak_call,
         kfm_instances[rep.peak_call].name, rep0.arena, rep0.lower, per_call, scratch_max);
  if (hashes) fclose(hashes);
  if (planf) {
    kfm_write_step(planf, calls, n, rep.arena);
    fclose(planf);
  }
  free(env.arena);
  for (i = 0; i < n; i++) free(f.out_hash[i]);
  free(f.out_hash);
  free(calls);
  free(desc);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
