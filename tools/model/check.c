/*
** check.c -- the host half of a per-model build (tools/build-model.sh).
** Plans every instance of the model with the per-model kernel set, so TF's
** validation rules are applied by the runtime itself at build time; proves
** each instance gets the kernel the generator made for it (with
** --no-fallback there is nothing else); runs it on the runner's inputs and
** compares with the double-precision references of tests/ref/; reports the
** arena a microcontroller image needs and the output hashes it must match.
**
**   check [--hashes FILE]     prints "ok/FAIL" lines and "N passed, M failed"
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "ref/bngrad_ref.h"
#include "ref/dwbpi_ref.h"

static int passed, failed;

static void check(int ok, const char *fmt, const char *a, const char *b, int i) {
  if (ok) passed++; else failed++;
  printf("%s - ", ok ? "ok" : "FAIL");
  printf(fmt, i, a, b);
  putchar('\n');
}

static double *to_double(const void *p, kf_dtype t, int64_t n) {
  double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
  int64_t i;
  for (i = 0; i < n; i++)
    switch (t) {
      case KF_HALF: d[i] = kf_half_to_float(((const uint16_t *)p)[i]); break;
      case KF_BFLOAT16: d[i] = kf_bfloat16_to_float(((const uint16_t *)p)[i]); break;
      case KF_FLOAT: d[i] = ((const float *)p)[i]; break;
      case KF_DOUBLE: d[i] = ((const double *)p)[i]; break;
      default: d[i] = 0; break;
    }
  return d;
}

static int64_t count(const kf_tensor_desc *d) {
  int64_t n = 1;
  int i;
  for (i = 0; i < d->rank; i++) n *= d->dims[i];
  return n;
}

/* max |got - want| / max |want| */
static double rel(const void *got, kf_dtype t, const double *want, int64_t n) {
  double *g = to_double(got, t, n), mx = 1e-6, e = 0;
  int64_t i;
  for (i = 0; i < n; i++) if (fabs(want[i]) > mx) mx = fabs(want[i]);
  for (i = 0; i < n; i++) if (!(fabs(g[i] - want[i]) <= e)) e = fabs(g[i] - want[i]);
  free(g);
  return e / mx;
}

static double tol(kf_dtype t) {
  return t == KF_HALF ? 5e-3 : t == KF_BFLOAT16 ? 3e-2 : t == KF_DOUBLE ? 1e-10 : 2e-5;
}

/* The instance's outputs against the reference; returns the worst relative error / tolerance. */
static double against_reference(const kfm_run *r) {
  const kf_attrs *a = &r->attrs;
  if (r->op == KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT) {
    const kf_tensor_desc *f = &r->in_desc[1], *g = &r->in_desc[2];
    const int32_t *sz = (const int32_t *)r->in[0];
    const int nchw = a->data_format == KF_NCHW, hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
    ref_dwbpi_conf c;
    double *fd, *gd, *want, e;
    int64_t n;
    memset(&c, 0, sizeof c);
    c.nchw = nchw;
    c.n = sz[0]; c.h = sz[hi]; c.w = sz[wi]; c.c = sz[nchw ? 1 : 3]; c.m = f->dims[3];
    c.kh = f->dims[0]; c.kw = f->dims[1];
    c.sh = a->strides[hi]; c.sw = a->strides[wi];
    c.dh = a->num_dilations == 4 ? a->dilations[hi] : 1; c.dw = a->num_dilations == 4 ? a->dilations[wi] : 1;
    if (!ref_dwbpi_window(c.h, c.kh, c.dh, c.sh, (int)a->padding, a->explicit_paddings[2 * hi],
                          a->explicit_paddings[2 * hi + 1], &c.oh, &c.pad_top) ||
        !ref_dwbpi_window(c.w, c.kw, c.dw, c.sw, (int)a->padding, a->explicit_paddings[2 * wi],
                          a->explicit_paddings[2 * wi + 1], &c.ow, &c.pad_left))
      return 1e9;
    n = count(r->out_desc[0]);
    fd = to_double(r->in[1], f->dtype, count(f));
    gd = to_double(r->in[2], g->dtype, count(g));
    want = malloc((size_t)(n > 0 ? n : 1) * sizeof *want);
    ref_dwbpi(&c, fd, gd, want);
    e = rel(r->out[0], r->out_desc[0]->dtype, want, n) / tol(r->out_desc[0]->dtype);
    free(fd); free(gd); free(want);
    return e;
  } else {
    const kf_tensor_desc *x = &r->in_desc[1];
    const int last = a->data_format == KF_NHWC || a->data_format == KF_NDHWC;
    int64_t n = x->dims[0], c = last ? x->dims[x->rank - 1] : x->dims[1], s = 1, numel = count(x), i;
    double *dy, *xd, *sc, *mn, *vr, *dx, *ds, *dof, e;
    for (i = last ? 1 : 2; i < (last ? x->rank - 1 : x->rank); i++) s *= x->dims[i];
    dy = to_double(r->in[0], x->dtype, numel);
    xd = to_double(r->in[1], x->dtype, numel);
    sc = to_double(r->in[2], KF_FLOAT, c);
    mn = to_double(r->in[3], KF_FLOAT, c);
    vr = to_double(r->in[4], KF_FLOAT, c);
    dx = malloc((size_t)(numel > 0 ? numel : 1) * sizeof *dx);
    ds = malloc((size_t)(c > 0 ? c : 1) * sizeof *ds);
    dof = malloc((size_t)(c > 0 ? c : 1) * sizeof *dof);
    ref_bngrad(last, a->is_training, n, c, s, a->epsilon, dy, xd, sc, mn, vr, dx, ds, dof);
    e = rel(r->out[0], x->dtype, dx, numel) / tol(x->dtype);
    e = fmax(e, rel(r->out[1], KF_FLOAT, ds, c) / 1e-5);
    e = fmax(e, rel(r->out[2], KF_FLOAT, dof, c) / 1e-5);
    free(dy); free(xd); free(sc); free(mn); free(vr); free(dx); free(ds); free(dof);
    return e;
  }
}

int main(int argc, char **argv) {
  FILE *hashes = NULL;
  size_t arena_max = 0, scratch_max = 0, cap = 1 << 20;
  kfm_env env;
  int i;
  if (argc == 3 && strcmp(argv[1], "--hashes") == 0) {
    hashes = fopen(argv[2], "w");
    if (!hashes) { fprintf(stderr, "check: cannot write %s\n", argv[2]); return 2; }
  } else if (argc != 1) {
    fprintf(stderr, "usage: check [--hashes FILE]\n");
    return 2;
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
    snprintf(what, sizeof what, "%s, want %s*", r.kernel, inst->kernel_prefix);
    check(r.kernel_ok, "%d %s: runs its own kernel (%s)", inst->name, what, i);
    {
      double e = against_reference(&r);
      snprintf(what, sizeof what, "%.3f of the tolerance", e);
      check(e <= 1.0, "%d %s: matches the double reference (%s)", inst->name, what, i);
    }
    if (r.arena_used > arena_max) arena_max = r.arena_used;
    if (r.scratch_bytes > scratch_max) scratch_max = r.scratch_bytes;
    if (hashes) fprintf(hashes, "%d %s %016llx\n", i, r.kernel, (unsigned long long)r.hash);
  }
  printf("model %s target %s: %d instances, arena_bytes %zu, scratch_bytes %zu\n", kfm_model_name, kfm_target_name,
         kfm_instance_count, arena_max, scratch_max);
  if (hashes) fclose(hashes);
  free(env.arena);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
