/*
** test_dwbpf.c -- DepthwiseConv2dNativeBackpropFilter against the float64
** reference (tests/ref/dwbpf_ref.c):
**   - the generic kernels (forced, and through generic_only) on random
**     configurations of everything: both layouts, every dtype, SAME/VALID/
**     EXPLICIT, unequal strides, dilations, multipliers 1..4, empty dims,
**     an empty batch (zeros);
**   - every specialized kernel of the registry forced by name on random
**     shapes of its configuration (skipped where its ISA is not here),
**     among them many channels over few pixels (channel groups, pieces
**     bounded by L1B), a third of them with KFORGE_LLC=64K (the NHWC SIMD
**     kernels' prefetching walkers, chosen where x and dy exceed half the
**     LLC), and named edge cases from its metadata (C around its vector
**     length, output cols around its piece); with
**     KFORGE_TEST_EVERY_KERNEL_ONLY (tests/tuning: the knob variants'
**     library) only these;
**   - default selection picks a specialized kernel for its configuration;
**   - bitwise equal results for 1 and 3 threads (also with KFORGE_LLC=64K),
**     and for KFORGE_L1D=1K, 8K and 1G (NHWC: the wide walker never /
**     always; the sweep of short rows never, in chunks of a few vectors,
**     in one chunk);
**   - accuracy of a long reduction (N*OH*OW = 2^20 per tap);
**   - one negative test per rule of specs/ops/dwbpf.lua (status, rule id,
**     message: TF 2.21's words, docs/semantics_dwbpf.md), and that every
**     rule is covered.
** aarch64.sh: TH_FILTER=__neon (under qemu, only the NEON kernels' cases;
** the portable C ones run on x86 and in the Cortex-M images).
**
** Tolerances (per element, scaled by l1 = the sum of |terms| of that
** element, since a long reduction's rounding error scales with it, and
** cancellation may make the result itself small):
**   half      7e-4  the result is rounded once to half (2^-11 relative =
**                   4.9e-4 of |result| <= l1), after a float sum;
**   bfloat16  5e-3  rounded once to bfloat16 (2^-8 = 3.9e-3);
**   float     1e-6  as tests/test_accuracy.c: float sums of at most PIECE
**                   (128) terms in registers, at most a few pieces per task,
**                   then a pairwise tree: random-sign rounding errors stay
**                   far below 1e-6 of l1 (the worst case n*eps is not reached);
**   double    1e-13 the same in double.
** An element with no term (l1 = 0) must be exactly 0.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "th_pool.h"
#include "kfi.h" /* kfg_rules[]: the spec's rule table */
#include "ref/dwbpf_ref.h"

#define OP KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_FILTER

static const kf_dtype dtypes[] = { KF_HALF, KF_BFLOAT16, KF_FLOAT, KF_DOUBLE };
static const char *generic_name(kf_dtype T);
static const char *const pad_names[] = { "SAME", "VALID", "EXPLICIT" };

static double tol(kf_dtype t) {
  switch (t) {
    case KF_HALF: return 7e-4;
    case KF_BFLOAT16: return 5e-3;
    case KF_FLOAT: return 1e-6;
    default: return 1e-13;
  }
}


/* ---- cases ---- */
typedef struct bcase {
  kf_dtype T;
  int nchw;
  int64_t n, h, w, c, m, kh, kw;
  int sh, sw, dh, dw;
  kf_padding pad;
  int64_t ep[4]; /* explicit: top, bottom, left, right */
} bcase;

static void describe(const bcase *d, char *buf, size_t n) {
  snprintf(buf, n, "T=%s %s x=[%lld,%lld,%lld,%lld] filter=%lldx%lld m=%lld s=%dx%d d=%dx%d %s(%lld,%lld,%lld,%lld)",
           kf_dtype_name(d->T), d->nchw ? "NCHW" : "NHWC", (long long)d->n, (long long)d->h, (long long)d->w,
           (long long)d->c, (long long)d->kh, (long long)d->kw, (long long)d->m, d->sh, d->sw, d->dh, d->dw,
           pad_names[d->pad], (long long)d->ep[0], (long long)d->ep[1], (long long)d->ep[2], (long long)d->ep[3]);
}

static void make_attrs(const bcase *d, kf_attrs *a) {
  const int ih = d->nchw ? 2 : 1, iw = d->nchw ? 3 : 2;
  int i;
  kf_attrs_init(OP, a);
  a->T = d->T;
  a->data_format = d->nchw ? KF_NCHW : KF_NHWC;
  a->num_strides = 4;
  a->num_dilations = 4;
  for (i = 0; i < 4; i++) a->strides[i] = a->dilations[i] = 1;
  a->strides[ih] = d->sh;
  a->strides[iw] = d->sw;
  a->dilations[ih] = d->dh;
  a->dilations[iw] = d->dw;
  a->padding = d->pad;
  a->num_explicit_paddings = 0;
  if (d->pad == KF_EXPLICIT) {
    a->num_explicit_paddings = 8;
    for (i = 0; i < 8; i++) a->explicit_paddings[i] = 0;
    a->explicit_paddings[2 * ih] = d->ep[0];
    a->explicit_paddings[2 * ih + 1] = d->ep[1];
    a->explicit_paddings[2 * iw] = d->ep[2];
    a->explicit_paddings[2 * iw + 1] = d->ep[3];
  }
}

static void set4(kf_tensor_desc *t, kf_dtype dt, int64_t a, int64_t b, int64_t c, int64_t d) {
  memset(t, 0, sizeof *t);
  t->dtype = dt;
  t->rank = 4;
  t->dims[0] = a;
  t->dims[1] = b;
  t->dims[2] = c;
  t->dims[3] = d;
}

/* filter_sizes descriptors carry their values in host_data (a ring of slots
   that outlive each plan call). */
static int32_t size_slots[64][8];
static int size_slot;

static void sizes_desc(kf_tensor_desc *t, const int64_t *v, int n) {
  int32_t *s = size_slots[size_slot++ % 64];
  int i;
  memset(t, 0, sizeof *t);
  t->dtype = KF_INT32;
  t->rank = 1;
  t->dims[0] = n;
  for (i = 0; i < n; i++) s[i] = (int32_t)v[i];
  t->host_data = s;
}

/* Reference conf and descriptors; 0 if the output size would be negative. */
static int make_descs(const bcase *d, ref_dwbpf_conf *rc, kf_tensor_desc in[3]) {
  int64_t oh, ow, pt, pl, fs[4];
  int pad = d->pad == KF_SAME ? REF_SAME : d->pad == KF_VALID ? REF_VALID : REF_EXPLICIT;
  if (!ref_dwbpi_window(d->h, d->kh, d->dh, d->sh, pad, d->ep[0], d->ep[1], &oh, &pt)) return 0;
  if (!ref_dwbpi_window(d->w, d->kw, d->dw, d->sw, pad, d->ep[2], d->ep[3], &ow, &pl)) return 0;
  memset(rc, 0, sizeof *rc);
  rc->nchw = d->nchw;
  rc->n = d->n, rc->h = d->h, rc->w = d->w, rc->c = d->c, rc->m = d->m;
  rc->kh = d->kh, rc->kw = d->kw, rc->sh = d->sh, rc->sw = d->sw, rc->dh = d->dh, rc->dw = d->dw;
  rc->oh = oh, rc->ow = ow, rc->pad_top = pt, rc->pad_left = pl;
  if (d->nchw) {
    set4(&in[0], d->T, d->n, d->c, d->h, d->w);
    set4(&in[2], d->T, d->n, d->c * d->m, oh, ow);
  } else {
    set4(&in[0], d->T, d->n, d->h, d->w, d->c);
    set4(&in[2], d->T, d->n, oh, ow, d->c * d->m);
  }
  fs[0] = d->kh, fs[1] = d->kw, fs[2] = d->c, fs[3] = d->m;
  sizes_desc(&in[1], fs, 4);
  return 1;
}

static int64_t numel4(const kf_tensor_desc *t) { return t->dims[0] * t->dims[1] * t->dims[2] * t->dims[3]; }

/* Plans (opt), runs, compares with the reference. want_kernel: the kernel
   default selection must pick (NULL: any). out_copy (may be NULL): receives
   the output bytes (for the determinism checks). Returns 1 if the case was
   valid. */
/* Where run_case puts x and dy: 0 where malloc does, else place - 1 bytes
   past a 4 KiB boundary (both alike). */
static size_t place;

static void *alloc_placed(size_t bytes, void **block) {
  if (!place) return *block = malloc(bytes);
  return th_guarded(bytes, place - 1, block);
}

/* The float64 reference of the last description run: the determinism and
   cache-variant checks run one description under several plans, and its
   inputs (seeded by the description) and so its reference are the same
   each time. */
static struct {
  char what[320];
  int64_t nf;
  double *rf, *l1;
} last_ref;

static void ref_cached(const ref_dwbpf_conf *rc, const char *what, int64_t nf, const double *rx, const double *rg,
                       double *rf, double *l1) {
  const size_t bytes = sizeof(double) * (size_t)nf;
  if (last_ref.rf && last_ref.nf == nf && strcmp(last_ref.what, what) == 0) {
    memcpy(rf, last_ref.rf, bytes);
    memcpy(l1, last_ref.l1, bytes);
    return;
  }
  ref_dwbpf(rc, rx, rg, rf, l1);
  free(last_ref.rf);
  free(last_ref.l1);
  last_ref.rf = malloc(bytes);
  last_ref.l1 = malloc(bytes);
  if (!last_ref.rf || !last_ref.l1) {
    free(last_ref.rf), free(last_ref.l1);
    last_ref.rf = last_ref.l1 = NULL;
    return;
  }
  memcpy(last_ref.rf, rf, bytes);
  memcpy(last_ref.l1, l1, bytes);
  last_ref.nf = nf;
  snprintf(last_ref.what, sizeof last_ref.what, "%s", what);
}

static int run_case(const bcase *d, const kf_plan_options *opt, const char *want_kernel, const char *how,
                    void **out_copy) {
  ref_dwbpf_conf rc;
  kf_tensor_desc in[3];
  kf_attrs at;
  kf_plan plan;
  kf_error err = {0};
  kf_status st;
  char what[320];
  int64_t nx, ng, nf, i;
  size_t es = kf_dtype_size(d->T), sbytes;
  void *x = NULL, *g = NULL, *f = NULL, *scratch = NULL, *xb = NULL, *gb = NULL;
  double *rx = NULL, *rg = NULL, *rf = NULL, *l1 = NULL;
  const void *ins[3];
  void *outs[1];
  const kf_tensor_desc *od;
  th_rng rng[1];

  if (!make_descs(d, &rc, in)) return 0;
  describe(d, what, sizeof what);
  th_seed_case(rng, "test_dwbpf %s", what);
  /* TH_FILTER: not this run's (nor, for a copy, the comparison's: the
     caller compares only the copies it got) */
  if (!th_case("test_dwbpf %s %s %s", what, how, opt && opt->kernel ? opt->kernel : want_kernel ? want_kernel : ""))
    return 1;
  make_attrs(d, &at);
  memset(&err, 0, sizeof err);
  if (opt && opt->kernel) {
    th_forced r = th_plan_forced(&plan, OP, &at, in, 3, opt, &err);
    if (r == TH_NOT_HERE) {
      th_skip("%s plan %s: %s", how, what, err.message);
      return 1;
    }
    st = r == TH_PLANNED ? KF_OK : err.status != KF_OK ? err.status : KF_NO_KERNEL;
  } else {
    st = kf_plan_op(&plan, OP, &at, in, 3, opt, &err);
  }
  if (!th_check(st == KF_OK, "%s plan %s: %s %s", how, what, kf_status_name(st), err.message)) return 1;
  if (want_kernel)
    th_check(strcmp(kf_plan_kernel_name(&plan), want_kernel) == 0, "%s select %s: got %s, want %s", how, what,
             kf_plan_kernel_name(&plan), want_kernel);
  od = kf_plan_output_desc(&plan, 0);
  th_check(kf_plan_num_outputs(&plan) == 1 && od && od->dtype == d->T && od->rank == 4 && od->dims[0] == d->kh &&
               od->dims[1] == d->kw && od->dims[2] == d->c && od->dims[3] == d->m,
           "%s output desc %s", how, what);
  nx = numel4(&in[0]);
  ng = numel4(&in[2]);
  nf = d->kh * d->kw * d->c * d->m;
  x = alloc_placed((size_t)nx * es + 1, &xb);
  g = alloc_placed((size_t)ng * es + 1, &gb);
  f = malloc((size_t)nf * es + 1);
  rx = malloc(sizeof(double) * (size_t)(nx + 1));
  rg = malloc(sizeof(double) * (size_t)(ng + 1));
  rf = malloc(sizeof(double) * (size_t)(nf + 1));
  l1 = malloc(sizeof(double) * (size_t)(nf + 1));
  sbytes = kf_plan_scratch_bytes(&plan);
  scratch = sbytes ? malloc(sbytes) : NULL;
  if (!x || !g || !f || !rx || !rg || !rf || !l1 || (sbytes && !scratch)) {
    th_check(0, "%s out of memory %s", how, what);
    goto done;
  }
  for (i = 0; i < nx; i++) {
    rx[i] = th_round(d->T, th_uniform(rng, -1, 1));
    th_store(d->T, x, (size_t)i, rx[i]);
  }
  for (i = 0; i < ng; i++) {
    rg[i] = th_round(d->T, th_uniform(rng, -1, 1));
    th_store(d->T, g, (size_t)i, rg[i]);
  }
  memset(f, 0xff, (size_t)nf * es); /* NaN everywhere: every element must be written */
  if (scratch) memset(scratch, 0xff, sbytes);
  ins[0] = nx ? x : NULL;
  ins[1] = NULL; /* filter_sizes was read at plan time */
  ins[2] = ng ? g : NULL;
  outs[0] = nf ? f : NULL;
  st = kf_execute(&plan, ins, outs, scratch, sbytes, &err);
  if (th_check(st == KF_OK, "%s execute %s: %s %s", how, what, kf_status_name(st), err.message) && nf > 0) {
    double worst = 0;
    int64_t wi = 0;
    ref_cached(&rc, what, nf, rx, rg, rf, l1);
    for (i = 0; i < nf; i++) {
      const double got = th_load(d->T, f, (size_t)i), e = fabs(got - rf[i]);
      const double q = l1[i] > 0 ? e / (tol(d->T) * l1[i]) : (got == 0 ? 0 : INFINITY);
      if (!(q <= worst)) worst = q, wi = i;
    }
    th_check(worst <= 1, "%s %s [%s]: element %lld: got %.9g want %.9g (l1 %.3g): %.3g x tol", how, what,
             kf_plan_kernel_name(&plan), (long long)wi, th_load(d->T, f, (size_t)wi), rf[wi], l1[wi], worst);
    if (out_copy) {
      *out_copy = malloc((size_t)nf * es);
      if (*out_copy) memcpy(*out_copy, f, (size_t)nf * es);
    }
  }
done:
  free(xb), free(gb), free(f), free(rx), free(rg), free(rf), free(l1), free(scratch);
  return 1;
}

static int ri(th_rng *r, int lo, int hi) { return (int)th_int(r, lo, hi); }

/* A random configuration of everything (for the generic kernels). */
static void random_case(th_rng *r, kf_dtype T, bcase *d) {
  memset(d, 0, sizeof *d);
  d->T = T;
  d->nchw = ri(r, 0, 1);
  d->n = ri(r, 0, 3) == 0 ? ri(r, 0, 1) : ri(r, 1, 3);
  d->h = ri(r, 0, 9) == 0 ? ri(r, 0, 1) : ri(r, 1, 12);
  d->w = ri(r, 0, 9) == 0 ? ri(r, 0, 1) : ri(r, 1, 12);
  d->c = ri(r, 0, 9) == 0 ? 0 : ri(r, 1, 7);
  d->m = ri(r, 0, 9) == 0 ? 0 : ri(r, 1, 4);
  d->kh = ri(r, 0, 15) == 0 ? 0 : ri(r, 1, 5);
  d->kw = ri(r, 0, 15) == 0 ? 0 : ri(r, 1, 5);
  d->sh = ri(r, 1, 3);
  d->sw = ri(r, 1, 3);
  d->dh = ri(r, 1, 3);
  d->dw = ri(r, 1, 3);
  d->pad = (kf_padding)ri(r, 0, 2);
  d->ep[0] = ri(r, 0, 4);
  d->ep[1] = ri(r, 0, 4);
  d->ep[2] = ri(r, 0, 4);
  d->ep[3] = ri(r, 0, 4);
}

static void test_generic(void) {
  th_rng r[1];
  int t, i, valid = 0;
  const char *gname;
  for (t = 0; t < 4; t++) {
    kf_plan_options o;
    th_seed(r, 1234 + (uint64_t)t);
    gname = generic_name(dtypes[t]);
    for (i = 0; i < 160; i++) {
      bcase d;
      random_case(r, dtypes[t], &d);
      memset(&o, 0, sizeof o);
      if (i % 2) o.generic_only = 1;
      else o.kernel = gname;
      valid += run_case(&d, &o, NULL, "generic", NULL);
    }
  }
  th_check(valid > 400, "generic: %d valid random cases", valid);
}

/* Empty batch: kforge writes the zeros the math gives (TF 2.21 returns
   uninitialised memory), in every layout and through default selection. */
static void test_empty(void) {
  int t, nchw;
  for (t = 0; t < 4; t++)
    for (nchw = 0; nchw < 2; nchw++) {
      bcase d;
      memset(&d, 0, sizeof d);
      d.T = dtypes[t], d.nchw = nchw, d.n = 0, d.h = 7, d.w = 6, d.c = 8, d.m = 1, d.kh = d.kw = 3;
      d.sh = d.sw = d.dh = d.dw = 1, d.pad = KF_SAME;
      run_case(&d, NULL, NULL, "N=0", NULL);
      d.n = 2, d.h = 0, d.pad = KF_EXPLICIT, d.ep[0] = d.ep[1] = 2; /* rows of padding only: all zeros */
      run_case(&d, NULL, NULL, "H=0", NULL);
      d.h = 4, d.c = 0; /* empty output */
      run_case(&d, NULL, NULL, "C=0", NULL);
    }
}

/* ---- the kernels of the registry ---- */
typedef struct kconf {
  int generic;
  kf_dtype T;
  int nchw, kh, kw, sh, sw, dh, dw, dm;
} kconf;

/* Whether kernel i is a dwbpf kernel, and its configuration: from its
   metadata (kf_kernel_info_of), never from its name. */
static int dwbpf_kernel(int i, kconf *k) {
  kf_kernel_info info;
  memset(k, 0, sizeof *k);
  if (kf_kernel_info_of(i, &info) != KF_OK || strcmp(info.family, "dwbpf") != 0) return 0;
  k->T = th_key_dtype(&info);
  if (k->T == KF_DT_INVALID) return 0;
  if (info.generic) return k->generic = 1;
  k->nchw = th_key(&info, "layout") && strcmp(th_key(&info, "layout"), "nchw") == 0;
  return th_key_int(&info, "kh", &k->kh) && th_key_int(&info, "kw", &k->kw) && th_key_int(&info, "sh", &k->sh) &&
         th_key_int(&info, "sw", &k->sw) && th_key_int(&info, "dh", &k->dh) && th_key_int(&info, "dw", &k->dw) &&
         th_key_int(&info, "dm", &k->dm);
}

/* The name of the family's generic kernel for T (from the metadata), to force it. */
static const char *generic_name(kf_dtype T) {
  int i = th_find_kernel("dwbpf", 1, 0, "T=%s", th_dtype_key(T));
  return i >= 0 ? kf_kernel_name(i) : "no generic dwbpf kernel";
}

static void special_case(const kconf *k, int variant, th_rng *r, bcase *d) {
  memset(d, 0, sizeof *d);
  d->T = k->T, d->nchw = k->nchw, d->kh = k->kh, d->kw = k->kw, d->sh = k->sh, d->sw = k->sw;
  d->dh = k->dh, d->dw = k->dw, d->m = k->dm;
  d->n = ri(r, 1, 2);
  d->h = ri(r, 1, 13);
  d->w = ri(r, 1, 13);
  d->c = ri(r, 1, 5);
  d->pad = (kf_padding)ri(r, 0, 2);
  d->ep[0] = ri(r, 0, k->kh), d->ep[1] = ri(r, 0, k->kh), d->ep[2] = ri(r, 0, k->kw), d->ep[3] = ri(r, 0, k->kw);
  switch (variant) {
    case 1: d->h = d->w = 1, d->c = 1; break;
    case 2: d->c = ri(r, 9, 40), d->h = ri(r, 3, 20), d->w = ri(r, 3, 20); break; /* vector tails */
    case 3: /* large explicit padding: rows and cols no tap reaches */
      d->pad = KF_EXPLICIT;
      d->ep[0] = ri(r, 0, 2 * k->kh + 5), d->ep[1] = ri(r, 0, 2 * k->kh + 5);
      d->ep[2] = ri(r, 0, 2 * k->kw + 5), d->ep[3] = ri(r, 0, 2 * k->kw + 5);
      break;
    case 4: d->n = 0; break; /* empty batch: zeros */
    case 5: d->c = 16 * ri(r, 1, 3), d->h = ri(r, 20, 40), d->w = ri(r, 130, 300), d->n = 1; break; /* long rows */
    case 6: d->c = 8 * ri(r, 1, 4), d->h = ri(r, 3, 7), d->w = ri(r, 3, 7), d->n = ri(r, 3, 9); break; /* small images */
    case 7: /* many channels, short reduction: channel groups (a piece above TASKWORK) and L1-bounded pieces */
      d->c = ri(r, 300, 420), d->h = ri(r, 3, 9), d->w = ri(r, 3, 9), d->n = ri(r, 1, 3);
      break;
    default: break;
  }
}

/* The cache-size variable var (KFORGE_L1D, KFORGE_L2 or KFORGE_LLC, read
   at plan time) set to v while v is not NULL, else the caller's value back. */
static void cache_as(const char *var, const char *v) {
  static const char *const vars[] = { "KFORGE_L1D", "KFORGE_L2", "KFORGE_LLC" };
  static char keep[3][64];
  static int saved[3], set[3];
  int i = 0;
  while (i < 2 && strcmp(var, vars[i]) != 0) i++;
  if (!saved[i]) {
    const char *e = getenv(vars[i]);
    snprintf(keep[i], sizeof keep[i], "%s", e ? e : "");
    set[i] = e != NULL;
    saved[i] = 1;
  }
  if (v) setenv(vars[i], v, 1);
  else if (set[i]) setenv(vars[i], keep[i], 1);
  else unsetenv(vars[i]);
}
/* KFORGE_LLC=64K while on, else the caller's value back. */
static void llc_small(int on) { cache_as("KFORGE_LLC", on ? "64K" : NULL); }

/* One edge case of kernel o->kernel: C channels, OW output cols (SAME, so
   W = OW * sw), a few rows; label "edge C=<clabel> OW=<ow> <kernel>". */
static void edge_case(const kconf *k, const kf_plan_options *o, int c, const char *clabel, int ow) {
  th_rng r[1];
  char lbl[200];
  bcase d;
  th_seed_case(r, "edge %s C=%d OW=%d", o->kernel, c, ow);
  special_case(k, 0, r, &d);
  d.pad = KF_SAME;
  d.c = c;
  d.w = (int64_t)ow * k->sw;
  d.h = ri(r, 1, 2 * k->kh + 1);
  d.n = ri(r, 1, 2);
  snprintf(lbl, sizeof lbl, "edge C=%s OW=%d %s", clabel, ow, o->kernel);
  run_case(&d, o, NULL, lbl, NULL);
}

/* Edge cases from kernel i's metadata (kf_kernel_lanes, kf_kernel_block):
   C at VL - 1, VL, VL + 1 and one past 2, 3 and 4 vectors (the NHWC wide
   walker takes several channel vectors at once), each with OW at VL - 1,
   VL, VL + 1; and OW around a piece's cols B (B - 1 .. B + 1, 2B - 1 ..
   2B + 1; B = PIECE pixels, times VL where vectors run along the rows:
   NCHW), each with C at VL - 1 and VL + 1. */
static void edge_cases(int i, const kconf *k, const kf_plan_options *o) {
  const int vl = kf_kernel_lanes(i), piece = kf_kernel_block(i, "pixels");
  const int b = piece * (k->nchw ? vl : 1);
  const int cs[6] = { vl - 1, vl, vl + 1, 2 * vl + 1, 3 * vl + 1, 4 * vl + 1 };
  static const char *const cl[6] = { "VL-1", "VL", "VL+1", "2VL+1", "3VL+1", "4VL+1" };
  const int ows[6] = { b - 1, b, b + 1, 2 * b - 1, 2 * b, 2 * b + 1 };
  int a, w;
  th_check(vl >= 1 && piece >= 1, "%s: metadata lanes %d, pixels block %d", o->kernel, vl, piece);
  for (a = 0; a < 6; a++)
    for (w = vl - 1; w <= vl + 1; w++)
      if (cs[a] >= 1 && w >= 1 && (a == 0 || cs[a] != cs[a - 1])) edge_case(k, o, cs[a], cl[a], w);
  for (w = 0; w < 6; w++)
    for (a = 0; a < 3; a += 2)
      if (cs[a] >= 1 && ows[w] >= 1) edge_case(k, o, cs[a], cl[a], ows[w]);
}

static void test_every_kernel(void) {
  int i, nk = kf_kernel_count(), nspec = 0;
  for (i = 0; i < nk; i++) {
    kconf k;
    kf_plan_options o;
    th_rng r[1];
    char lbl[200];
    int v, rep;
    if (!dwbpf_kernel(i, &k) || k.generic) continue;
    nspec++;
    memset(&o, 0, sizeof o);
    o.kernel = kf_kernel_name(i);
    th_seed_case(r, "every %s", o.kernel);
    for (v = 0; v < 8; v++)
      for (rep = 0; rep < 3; rep++) {
        bcase d;
        special_case(&k, v, r, &d);
        /* the second of each: as on a CPU whose last-level cache is 64 KiB,
           where the NHWC SIMD kernels run their prefetching walkers */
        llc_small(rep == 1);
        snprintf(lbl, sizeof lbl, "%s%s", o.kernel, rep == 1 ? " KFORGE_LLC=64K" : "");
        run_case(&d, &o, NULL, lbl, NULL);
        llc_small(0);
      }
    edge_cases(i, &k, &o);
    /* default selection: the best variant of this configuration here (not
       in a knob library: its variants of one configuration tie) */
    if (th_kernel_best_here(o.kernel) && !getenv("KFORGE_TEST_EVERY_KERNEL_ONLY")) {
      bcase d;
      special_case(&k, 2, r, &d);
      run_case(&d, NULL, o.kernel, "select", NULL);
    }
  }
  th_check(nspec > 0, "dwbpf: %d specialized kernels in the registry", nspec);
}


/* ---- thread-count determinism ---- */
static void determinism_one(const bcase *d, const char *kernel) {
  kf_plan_options o1, o3;
  void *a = NULL, *b = NULL;
  char what[320];
  size_t bytes = (size_t)(d->kh * d->kw * d->c * d->m) * kf_dtype_size(d->T);
  memset(&o1, 0, sizeof o1);
  o1.kernel = kernel;
  o3 = o1;
  o3.threads = &th_pool3;
  describe(d, what, sizeof what);
  run_case(d, &o1, NULL, "threads=1", &a);
  run_case(d, &o3, NULL, "threads=3", &b);
  if (a && b) th_check(memcmp(a, b, bytes) == 0, "bitwise equal for 1 and 3 threads: %s [%s]", what, kernel ? kernel : "default");
  free(a);
  free(b);
}

static void test_determinism(void) {
  int t, i, pi, nk = kf_kernel_count();
  const char *gname;
  for (t = 0; t < 4; t++) {
    bcase d;
    memset(&d, 0, sizeof d);
    d.T = dtypes[t], d.n = 3, d.h = 37, d.w = 41, d.c = 24, d.m = 2, d.kh = 3, d.kw = 3;
    d.sh = 1, d.sw = 2, d.dh = d.dw = 1, d.pad = KF_SAME;
    gname = generic_name(dtypes[t]);
    determinism_one(&d, gname);
    d.nchw = 1;
    determinism_one(&d, gname);
  }
  for (i = 0; i < nk; i++) {
    kconf k;
    bcase d;
    if (!dwbpf_kernel(i, &k) || k.generic || !th_kernel_runnable(kf_kernel_name(i))) continue;
    memset(&d, 0, sizeof d);
    d.T = k.T, d.nchw = k.nchw, d.kh = k.kh, d.kw = k.kw, d.sh = k.sh, d.sw = k.sw, d.dh = k.dh, d.dw = k.dw;
    d.m = k.dm, d.n = 4, d.h = 45, d.w = 29, d.c = 40, d.pad = KF_SAME;
    determinism_one(&d, kf_kernel_name(i));
    llc_small(1); /* the prefetching walkers (NHWC SIMD) */
    determinism_one(&d, kf_kernel_name(i));
    if (!k.nchw) { /* rows of 9 cols from DRAM: the AVX2 sweep, prefetching its next row */
      bcase s = d;
      s.w = 9, s.h = 11;
      determinism_one(&s, kf_kernel_name(i));
    }
    llc_small(0);
    if (!k.nchw) { /* the wide walker never (L1d 1K) and always (1G), the sweep
                      (rows of 29 cols) never, in chunks of 8 channels (8K, with
                      and without prefetching: L2 1K, 1G) and in one chunk
                      (1G): the same sums; SAME rows are whole centred rows (the
                      AVX2 rows walker, whatever the caches), VALID ones not */
      for (pi = 0; pi < 2; pi++) {
        void *a = NULL, *b = NULL, *c = NULL, *e = NULL, *f = NULL;
        kf_plan_options o;
        char what[320];
        size_t bytes;
        d.pad = pi ? KF_VALID : KF_SAME;
        memset(&o, 0, sizeof o);
        o.kernel = kf_kernel_name(i);
        d.c = pi ? 44 : 100; /* several wide groups of channel vectors, and a tail (VALID: vectors and a tail) */
        bytes = (size_t)(d.kh * d.kw * d.c * d.m) * kf_dtype_size(d.T);
        describe(&d, what, sizeof what);
        cache_as("KFORGE_L1D", "1K");
        run_case(&d, &o, NULL, "KFORGE_L1D=1K", &a);
        cache_as("KFORGE_L1D", "8K");
        run_case(&d, &o, NULL, "KFORGE_L1D=8K", &c);
        cache_as("KFORGE_L2", "1K"); /* the sweep prefetching each next row */
        run_case(&d, &o, NULL, "KFORGE_L1D=8K KFORGE_L2=1K", &e);
        cache_as("KFORGE_L2", "1G"); /* and never */
        run_case(&d, &o, NULL, "KFORGE_L1D=8K KFORGE_L2=1G", &f);
        cache_as("KFORGE_L2", NULL);
        cache_as("KFORGE_L1D", "1G");
        run_case(&d, &o, NULL, "KFORGE_L1D=1G", &b);
        cache_as("KFORGE_L1D", NULL);
        if (a && b) th_check(memcmp(a, b, bytes) == 0, "bitwise equal for L1d 1K and 1G: %s [%s]", what, o.kernel);
        if (a && c) th_check(memcmp(a, c, bytes) == 0, "bitwise equal for L1d 1K and 8K: %s [%s]", what, o.kernel);
        if (a && e) th_check(memcmp(a, e, bytes) == 0, "bitwise equal for L1d 1K and 8K, L2 1K: %s [%s]", what, o.kernel);
        if (a && f) th_check(memcmp(a, f, bytes) == 0, "bitwise equal for L1d 1K and 8K, L2 1G: %s [%s]", what, o.kernel);
        free(a);
        free(b);
        free(c);
        free(e);
        free(f);
      }
    }
  }
}

/* ---- x and dy off a line boundary: the same bits at every offset ----
   NHWC kernels whose vectors are a line start the channel passes at the
   first boundary where x and dy share an offset (the head in the tail
   walker); 96 channels (the head applies), 40 (a phase per pixel: it does
   not), each at 0, 16 and 48 bytes past a page, against the reference and
   bitwise against offset 0. */
static void test_offsets(void) {
  static const size_t offs[] = { 0, 16, 48 };
  static const int64_t chans[] = { 96, 40 };
  int i, nk = kf_kernel_count();
  size_t ci, oi;
  for (i = 0; i < nk; i++) {
    kconf k;
    if (!dwbpf_kernel(i, &k) || k.generic || k.nchw || k.dm != 1 || !th_kernel_runnable(kf_kernel_name(i))) continue;
    for (ci = 0; ci < sizeof chans / sizeof chans[0]; ci++) {
      bcase d;
      kf_plan_options o;
      void *first = NULL;
      char what[320];
      size_t bytes;
      memset(&d, 0, sizeof d);
      d.T = k.T, d.kh = k.kh, d.kw = k.kw, d.sh = k.sh, d.sw = k.sw, d.dh = k.dh, d.dw = k.dw, d.m = 1;
      d.n = 2, d.h = 13, d.w = 21, d.c = chans[ci], d.pad = KF_SAME;
      bytes = (size_t)(d.kh * d.kw * d.c) * kf_dtype_size(d.T);
      memset(&o, 0, sizeof o);
      o.kernel = kf_kernel_name(i);
      describe(&d, what, sizeof what);
      for (oi = 0; oi < sizeof offs / sizeof offs[0]; oi++) {
        void *got = NULL;
        char how[64];
        snprintf(how, sizeof how, "x and dy %zu bytes past a page", offs[oi]);
        place = offs[oi] + 1;
        run_case(&d, &o, NULL, how, &got);
        place = 0;
        if (!oi) {
          first = got;
          continue;
        }
        if (first && got)
          th_check(memcmp(first, got, bytes) == 0, "bitwise equal at offsets 0 and %zu: %s [%s]", offs[oi], what, o.kernel);
        free(got);
      }
      free(first);
    }
  }
}

/* ---- an infinity at a row end stays out of the taps that never read it ----
   x or dy all ones but one col (0 or W-1) of every row infinite; 3x3 SAME,
   rows of 20 and 28. NCHW (not whole vectors: the flat walk of the AVX-512
   NCHW kernels reads across row ends and must drop those lanes exactly)
   and NHWC with 19 channels (the AVX2 kernel's sweep of short rows, forced
   where it runs, and the default kernel). The taps that never pair the
   infinite col with anything hold the count of their terms; the others
   are infinite. */
static void test_row_end_infinity(void) {
  static const int64_t ws[2] = { 20, 28 };
  static const char *const kernels[3] = { NULL, NULL, "kfg_dwbpf_f32_nhwc_k3x3s1x1d1x1m1__avx2" };
  int wi, which, col, run;
  for (run = 0; run < 3; run++) /* NCHW; NHWC default kernel; NHWC AVX2 */
    for (wi = 0; wi < 2; wi++)
      for (which = 0; which < 2; which++) /* 0: x, 1: dy */
        for (col = 0; col < 2; col++) {
          const int nchw = run == 0;
          const int64_t n = 2, c = nchw ? 3 : 19, h = 5, w = ws[wi], bad = col ? w - 1 : 0, fsv[4] = { 3, 3, c, 1 };
          const int64_t ne = n * c * h * w;
          kf_attrs a;
          kf_tensor_desc in[3];
          kf_plan p;
          kf_plan_options o;
          kf_error err = {0};
          float *x = malloc((size_t)ne * sizeof *x), *g = malloc((size_t)ne * sizeof *g), out[9 * 19];
          const void *ins[3];
          void *outs[1], *scratch = NULL;
          size_t sb;
          int64_t e, fy, fx, ch, r;
          bcase d;
          if (kernels[run] && !th_kernel_runnable(kernels[run])) {
            free(x);
            free(g);
            continue;
          }
          memset(&d, 0, sizeof d);
          memset(&o, 0, sizeof o);
          o.kernel = kernels[run];
          d.T = KF_FLOAT, d.nchw = nchw, d.sh = d.sw = d.dh = d.dw = 1, d.pad = KF_SAME;
          make_attrs(&d, &a);
          if (nchw) set4(&in[0], KF_FLOAT, n, c, h, w);
          else set4(&in[0], KF_FLOAT, n, h, w, c);
          sizes_desc(&in[1], fsv, 4);
          in[2] = in[0];
          for (e = 0; e < ne; e++) x[e] = g[e] = 1.0f;
          for (r = 0; r < ne / (nchw ? w : c * w); r++) /* rows: (b, ch, y) NCHW, (b, y) NHWC */
            for (ch = 0; ch < (nchw ? 1 : c); ch++) (which ? g : x)[nchw ? r * w + bad : (r * w + bad) * c + ch] = INFINITY;
          if (!th_check(kf_plan_op(&p, OP, &a, in, 3, &o, &err) == KF_OK, "row-end inf: plan: %s", err.message)) {
            free(x);
            free(g);
            continue;
          }
          sb = kf_plan_scratch_bytes(&p);
          scratch = sb ? malloc(sb) : NULL;
          ins[0] = x, ins[1] = in[1].host_data, ins[2] = g, outs[0] = out;
          th_check(kf_execute(&p, ins, outs, scratch, sb, &err) == KF_OK, "row-end inf: execute: %s", err.message);
          for (fy = 0; fy < 3; fy++)
            for (fx = 0; fx < 3; fx++) {
              /* the terms of tap (fy, fx): output cols ox with input col ox - 1 + fx in [0, w) */
              const int64_t lo = fx == 0 ? 1 : 0, hi = fx == 2 ? w - 1 : w;
              /* the infinite col, of x (input col) or of dy (output col), in them? */
              const int touched = which ? (bad >= lo && bad < hi) : (bad + 1 - fx >= lo && bad + 1 - fx < hi);
              const double terms = (double)(n * (h - (fy != 1)) * (hi - lo));
              for (ch = 0; ch < c; ch++) {
                const float v = out[(fy * 3 + fx) * c + ch];
                th_check(touched ? isinf(v) && v > 0 : (double)v == terms,
                         "row-end inf in %s col %lld, w=%lld [%s]: tap (%lld,%lld) ch %lld = %g, want %g", which ? "dy" : "x",
                         (long long)bad, (long long)w, kf_plan_kernel_name(&p), (long long)fy, (long long)fx, (long long)ch,
                         v, touched ? (double)INFINITY : terms);
              }
            }
          free(scratch);
          free(x);
          free(g);
        }
}

/* Removes a temporary wisdom file and the lock kf_wisdom_export left beside it. */
static void drop_wisdom(const char *path) {
  char lock[80];
  snprintf(lock, sizeof lock, "%s.lock", path);
  unlink(path);
  unlink(lock);
}

/* ---- measured entries, rewritten: the plan-choice tests below ----
   A call is planned by measuring and its entry exported; a test rewrites
   the entry's words (set_word) and plans the call again from the file, so
   each value of a choice runs whatever the host would have measured. */

/* Plans d with options that set only `measure` (kf_plan_options). */
static kf_status plan_case(const bcase *d, int measure, kf_plan *p, kf_error *err) {
  ref_dwbpf_conf rc;
  kf_tensor_desc in[3];
  kf_attrs at;
  kf_plan_options o;
  make_descs(d, &rc, in);
  make_attrs(d, &at);
  memset(&o, 0, sizeof o);
  o.measure = measure;
  return kf_plan_op(p, OP, &at, in, 3, &o, err);
}

/* Plans d by measuring and reads the entry it exports to a new temporary
   file (path: drop_wisdom it) into text. 0 on failure (checked). */
static int measured_entry(const bcase *d, const char *what, char *path, size_t pn, char *text, size_t n) {
  kf_plan p;
  kf_error err = {0};
  FILE *f;
  size_t len;
  int fd;
  snprintf(path, pn, "/tmp/kforge-test-dwbpf-XXXXXX");
  fd = mkstemp(path);
  if (!th_check(fd >= 0, "%s: a temporary file", what)) return 0;
  close(fd);
  kf_wisdom_forget();
  if (!th_check(plan_case(d, KF_PLAN_MEASURE, &p, &err) == KF_OK && kf_wisdom_export(path, &err) == KF_OK,
                "%s: measured and exported: %s", what, err.message)) {
    drop_wisdom(path);
    return 0;
  }
  f = fopen(path, "rb");
  len = f ? fread(text, 1, n - 1, f) : 0;
  if (f) fclose(f);
  text[len] = 0;
  if (th_check(len > 0, "%s: the exported entry reads back", what)) return 1;
  drop_wisdom(path);
  return 0;
}

/* Sets the value of word `name=` in text (a wisdom file of one entry) to v;
   0 when the word is missing or the text would not fit n bytes. */
static int set_word(char *text, size_t n, const char *name, long long v) {
  char key[32], tail[8192], *w, *e;
  snprintf(key, sizeof key, " %s=", name);
  if (!(w = strstr(text, key))) return 0;
  w += strlen(key);
  for (e = w; *e >= '0' && *e <= '9'; e++) continue;
  snprintf(tail, sizeof tail, "%s", e);
  return snprintf(w, n - (size_t)(w - text), "%lld%s", v, tail) < (int)(n - (size_t)(w - text));
}

/* Appends to f the entry lines of text (after its header line) keyed for
   three threads (th_pool3) instead of one: the same plan for both runs. */
static int three_threads_too(FILE *f, const char *text) {
  const char *line = strchr(text, '\n'), *t;
  if (!line) return 0;
  for (line++; *line; line = t + 1) {
    const char *e = strchr(line, '\n'), *w = strstr(line, " threads=1");
    if (!e) e = line + strlen(line);
    if (!w || w > e) return 0;
    if (fprintf(f, "%.*s threads=3%.*s\n", (int)(w - line), line, (int)(e - w - 10), w + 10) < 0) return 0;
    t = e;
    if (!*e) break;
  }
  return 1;
}

/* Writes text to path (and its entries again for three threads when
   three), imports the file alone and plans d from it: the plan must come
   from wisdom and its choices hold each word of `words` ("rows=1 llc=1"). */
static void entry_plan(const bcase *d, const char *what, const char *path, const char *text, int three,
                       const char *words) {
  kf_plan p;
  kf_error err = {0};
  char ch[300], padded[304], word[40];
  const char *w, *e;
  size_t len = strlen(text);
  FILE *f = fopen(path, "wb");
  int ok = f != NULL && fwrite(text, 1, len, f) == len && (!three || three_threads_too(f, text));
  if (f) ok = (fclose(f) == 0) && ok;
  if (!th_check(ok, "%s: rewrite the entry", what)) return;
  kf_wisdom_forget();
  if (!th_check(kf_wisdom_import(path, &err) == KF_OK && plan_case(d, 0, &p, &err) == KF_OK,
                "%s %s: import and plan: %s", what, words, err.message))
    return;
  snprintf(padded, sizeof padded, " %s ", kf_plan_choices(&p, ch, sizeof ch));
  th_check(kf_plan_source(&p) == KF_PLAN_BY_WISDOM, "%s: the plan comes from wisdom (%s)", what, ch);
  for (w = words; *w; w = *e ? e + 1 : e) {
    e = strchr(w, ' ');
    if (!e) e = w + strlen(w);
    snprintf(word, sizeof word, " %.*s ", (int)(e - w), w);
    th_check(strstr(padded, word) != NULL, "%s: the plan takes%s(%s)", what, word, ch);
  }
}

/* ---- the measured-plan choice "flat", both ways, through wisdom ----
   NCHW rows of 20 and 7 (not whole vectors: the rule walks them flat on
   AVX-512), each entry rewritten to flat=0 and flat=1: each plan must
   name the word and match the reference (the row walk and the flat walk
   of one call). */
static void test_flat_choice(void) {
  static const int64_t ws[2] = { 20, 7 };
  int wi, v;
  for (wi = 0; wi < 2; wi++) {
    bcase d;
    char path[64], text[8192], words[32], what[64];
    memset(&d, 0, sizeof d);
    d.T = KF_FLOAT, d.nchw = 1, d.n = 2, d.h = 9, d.w = ws[wi], d.c = 19, d.m = 1, d.kh = d.kw = 3;
    d.sh = d.sw = d.dh = d.dw = 1, d.pad = KF_SAME;
    snprintf(what, sizeof what, "flat choice w=%lld", (long long)d.w);
    if (!measured_entry(&d, what, path, sizeof path, text, sizeof text)) continue;
    for (v = 0; v < 2; v++) {
      snprintf(words, sizeof words, "flat=%d", v);
      if (!th_check(set_word(text, sizeof text, "flat", v), "%s: the entry names flat: %s", what, text)) break;
      entry_plan(&d, what, path, text, 0, words);
      run_case(&d, NULL, NULL, words, NULL);
    }
    kf_wisdom_forget();
    drop_wisdom(path);
  }
}

/* ---- the measured-plan choice "rows" (NHWC), through wisdom ----
   Whole centred rows (SAME, unit stride, 7 and 14 cols; 3x3 and 5x5; f32
   and bf16; 19 channels: full vectors and a tail), each entry rewritten
   to rows=0 (the sweep, the narrow or the wide walker), 1 (the rule: the
   rows walker where there is no wide walker) and 2 (the rows walker
   wherever the kernel has one), each with llc 2^40 (cached data) and 1
   (far data: the prefetching rows walker): all match the reference, and
   all but rows=0 with llc=1 (the AVX2 prefetching walkers add their terms
   in another order) match rows=0 with llc=2^40 bitwise. */
static void test_rows_choice(void) {
  static const kf_dtype ts[2] = { KF_FLOAT, KF_BFLOAT16 };
  static const int64_t ws[2] = { 7, 14 }, ks[2] = { 3, 5 };
  int ti, wi, ki, v;
  for (ti = 0; ti < 2; ti++)
    for (wi = 0; wi < 2; wi++)
      for (ki = 0; ki < 2; ki++) {
        bcase d;
        char path[64], text[8192], words[64], desc[280], what[320];
        void *out[6] = { NULL, NULL, NULL, NULL, NULL, NULL };
        memset(&d, 0, sizeof d);
        d.T = ts[ti], d.n = 2, d.h = 9, d.w = ws[wi], d.c = 19, d.m = 1, d.kh = d.kw = ks[ki];
        d.sh = d.sw = d.dh = d.dw = 1, d.pad = KF_SAME;
        describe(&d, desc, sizeof desc);
        snprintf(what, sizeof what, "rows choice %s", desc);
        if (!th_case("test_dwbpf %s", what)) continue;
        if (!measured_entry(&d, what, path, sizeof path, text, sizeof text)) continue;
        for (v = 0; v < 6; v++) {
          long long llc = v < 3 ? 1LL << 40 : 1;
          if (!th_check(set_word(text, sizeof text, "rows", v % 3) && set_word(text, sizeof text, "llc", llc),
                        "%s: the entry names rows and llc: %s", what, text))
            break;
          snprintf(words, sizeof words, "rows=%d llc=%lld", v % 3, llc);
          entry_plan(&d, what, path, text, 0, words);
          run_case(&d, NULL, NULL, words, &out[v]);
        }
        for (v = 1; v < 6; v++)
          if (v != 3 && out[0] && out[v])
            th_check(memcmp(out[0], out[v], (size_t)(d.kh * d.kw * d.c) * kf_dtype_size(d.T)) == 0,
                     "%s: rows=0 llc=2^40 and rows=%d llc=%s bitwise equal", what, v % 3, v < 3 ? "2^40" : "1");
        for (v = 0; v < 6; v++) free(out[v]);
        kf_wisdom_forget();
        drop_wisdom(path);
      }
}

/* Plans d by the rule (o: its options, or NULL) and checks that the plan's
   choices hold the word want (" name=value "); what names the case. */
static void rule_word(const bcase *d, const kf_plan_options *o, const char *want, const char *what) {
  ref_dwbpf_conf rc;
  kf_tensor_desc in[3];
  kf_attrs at;
  kf_plan p;
  kf_error err = {0};
  char ch[300], padded[304];
  make_descs(d, &rc, in);
  make_attrs(d, &at);
  if (!th_check(kf_plan_op(&p, OP, &at, in, 3, o, &err) == KF_OK, "%s: plan: %s", what, err.message)) return;
  snprintf(padded, sizeof padded, " %s ", kf_plan_choices(&p, ch, sizeof ch));
  th_check(strstr(padded, want) != NULL, "%s takes%s(%s)", what, want, ch);
}

/* ---- the rule's "rows" ----
   The rule's plan names the rows walker's rule: 2 on x86-64 (the AVX-512
   3x3 kernels' whole centred rows too), 1 elsewhere (runtime/kfi_dwbpf.h,
   KFI_DWBPF_ROWS_RULE; far data 1, kfi_dwbpf_rows_rule); test_rows_choice checks that every value gives the
   reference's answer and the same bits. */
static void test_rows_rule(void) {
  kf_plan_options o;
  bcase d;
#if defined(__x86_64__)
  const char *want = " rows=2 ";
#else
  const char *want = " rows=1 ";
#endif
  if (!th_case("test_dwbpf rows rule")) return;
  memset(&d, 0, sizeof d);
  d.T = KF_FLOAT, d.n = 2, d.h = 9, d.w = 14, d.c = 48, d.m = 1, d.kh = d.kw = 3;
  d.sh = d.sw = d.dh = d.dw = 1, d.pad = KF_SAME;
  memset(&o, 0, sizeof o);
  o.measure = KF_PLAN_RULE;
  rule_word(&d, &o, want, "rows rule: the rule's plan");
  /* x and dy (96 KiB) beyond half of a 64 KiB LLC: the wide walker keeps them (kfi_dwbpf_rows_rule) */
  llc_small(1);
  rule_word(&d, &o, " rows=1 ", "rows rule: far data (KFORGE_LLC=64K)");
  llc_small(0);
}

/* ---- the next-piece rule (NHWC): stream the next piece's lines where x
   and dy come from DRAM (beyond half the LLC, KFORGE_LLC simulated), or
   the caller's outputs are fresh (kfi_choices_rule_cold, every stride);
   never NCHW ---- */
static void test_next_rule(void) {
  static const struct { int layout, stride, far, fresh; const char *want; } cs[6] = {
    { KF_NHWC, 1, 0, 0, " next=0 " }, { KF_NHWC, 1, 1, 0, " next=1 " }, { KF_NHWC, 2, 1, 0, " next=1 " },
    { KF_NHWC, 2, 0, 1, " next=1 " }, { KF_NCHW, 1, 1, 0, " next=0 " }, { KF_NCHW, 1, 0, 1, " next=0 " },
  };
  int i;
  if (!th_case("test_dwbpf next rule")) return;
  for (i = 0; i < 6; i++) {
    kf_plan_options o;
    bcase d;
    char what[64];
    memset(&d, 0, sizeof d);
    d.T = KF_FLOAT, d.n = 2, d.h = 9, d.w = 14, d.c = 48, d.m = 1, d.kh = d.kw = 3;
    d.sh = d.sw = cs[i].stride, d.dh = d.dw = 1, d.pad = KF_SAME, d.nchw = cs[i].layout == KF_NCHW;
    memset(&o, 0, sizeof o);
    o.fresh_outputs = cs[i].fresh;
    snprintf(what, sizeof what, "next rule: %s s%d%s%s", d.nchw ? "NCHW" : "NHWC", cs[i].stride,
             cs[i].far ? " far" : "", cs[i].fresh ? " fresh" : "");
    llc_small(cs[i].far);
    rule_word(&d, &o, cs[i].want, what);
  }
  llc_small(0);
}

/* ---- the measured-plan choice "span" (NHWC), through wisdom ----
   A measured entry rewritten to span = 1 byte (every piece one pixel: each
   pass's last-piece prefetch and the piece cuts at every col), a few
   pixels and none, each with and without the prefetching walkers (llc 1
   and 2^40) and the next piece streamed (next 0 and 1): each plan must
   name its words, match the reference and give the same bits on 1 and 3
   threads. C = 57: wide passes, full vectors and
   a tail on every ISA; stride 1 and 2. */
static void test_span_choice(void) {
  static const long long spans[3] = { 1, 3000, 0 }, llcs[2] = { 1, 1LL << 40 };
  int si, li, s;
  for (s = 1; s <= 2; s++) {
    bcase d;
    char path[64], text[8192], words[64], what[32], label[96];
    memset(&d, 0, sizeof d);
    d.T = KF_FLOAT, d.n = 2, d.h = 9, d.w = 13, d.c = 57, d.m = 1, d.kh = d.kw = 3;
    d.sh = d.sw = s, d.dh = d.dw = 1, d.pad = KF_SAME;
    snprintf(what, sizeof what, "span choice s%d", s);
    if (!measured_entry(&d, what, path, sizeof path, text, sizeof text)) continue;
    for (si = 0; si < 3; si++)
      for (li = 0; li < 4; li++) { /* llc 1 and 2^40, each without and with the next piece streamed */
        void *a = NULL, *b = NULL;
        kf_plan_options o3;
        if (!th_check(set_word(text, sizeof text, "span", spans[si]) && set_word(text, sizeof text, "llc", llcs[li / 2]) &&
                          set_word(text, sizeof text, "next", li % 2),
                      "%s: the entry names span, llc and next: %s", what, text))
          break;
        snprintf(words, sizeof words, "span=%lld llc=%lld next=%d", spans[si], llcs[li / 2], li % 2);
        entry_plan(&d, what, path, text, 1, words);
        snprintf(label, sizeof label, "%s threads=1", words);
        run_case(&d, NULL, NULL, label, &a);
        memset(&o3, 0, sizeof o3);
        o3.threads = &th_pool3;
        snprintf(label, sizeof label, "%s threads=3", words);
        run_case(&d, &o3, NULL, label, &b);
        if (a && b)
          th_check(memcmp(a, b, (size_t)(9 * d.c) * sizeof(float)) == 0, "%s %s: bitwise equal for 1 and 3 threads",
                   what, words);
        free(a);
        free(b);
      }
    kf_wisdom_forget();
    drop_wisdom(path);
  }
}

/* ---- the span rule (NHWC): two thirds of the L1d where x and dy exceed
   half the LLC and the runs are at least KFI_DWBPF_MIN_RUN (32) pixels;
   caches set through KFORGE_L1D / KFORGE_LLC, so on any host ---- */
static void test_span_rule(void) {
  static const struct { int64_t c; const char *llc, *want; } cs[4] = {
    { 16, "64K", "span=32768" }, /* (3*16 + 16) * 4 = 256 bytes a pixel: runs of 128 */
    { 16, "1G", "span=0" },      /* x and dy stay in the LLC: no prefetch, no span */
    { 160, "64K", "span=0" },    /* 2560 bytes a pixel: runs of 12 pixels, too short */
    { 40, "64K", "span=32768" }, /* 640: runs of 51 */
  };
  int i;
  llc_small(0); /* the caller's KFORGE_LLC kept for the end */
  cache_as("KFORGE_L1D", "48K");
  for (i = 0; i < 4; i++) {
    bcase d;
    kf_plan_options o;
    char what[64], want[32];
    memset(&d, 0, sizeof d);
    d.T = KF_FLOAT, d.n = 2, d.h = 20, d.w = 20, d.c = cs[i].c, d.m = 1, d.kh = d.kw = 3;
    d.sh = d.sw = d.dh = d.dw = 1, d.pad = KF_SAME;
    memset(&o, 0, sizeof o);
    o.measure = KF_PLAN_RULE;
    setenv("KFORGE_LLC", cs[i].llc, 1);
    snprintf(what, sizeof what, "span rule C=%lld LLC %s", (long long)d.c, cs[i].llc);
    snprintf(want, sizeof want, " %s ", cs[i].want);
    rule_word(&d, &o, want, what);
    run_case(&d, NULL, NULL, "span rule", NULL); /* the rule's plan against the reference */
    llc_small(0);
  }
  cache_as("KFORGE_L1D", NULL);
}

/* ---- the cold rule's span (fresh outputs, NHWC, every stride): two
   thirds of the L1d (48 KiB simulated: 32768) where a run holds a whole
   output row or 32 pixels, or the call is strided and the rows walker
   would take its whole rows (rows=2: x86-64, data within half the LLC,
   32 MiB simulated; 64 KiB makes it far), else 0
   (kfi_dwbpf_span_cold); each plan's result against the reference ---- */
static void test_span_cold(void) {
#if defined(__x86_64__)
  const char *const rows2 = "span=32768"; /* KFI_DWBPF_ROWS_RULE 2 */
#else
  const char *const rows2 = "span=0";
#endif
  const struct { int64_t hw, c; int s, far; const char *want; } cs[] = {
    { 6, 144, 1, 0, "span=32768" },  /* (3*144 + 144) * 4 = 2304 bytes a pixel: runs of 14 >= 6-wide rows */
    { 24, 144, 1, 0, "span=0" },     /* runs of 14 < 24-wide rows: chunks of rows */
    { 32, 144, 1, 0, "span=0" },     /* the same, unit stride, not flat (32 = 2 vectors of 16): rows=2 */
    { 12, 96, 2, 0, "span=32768" },  /* (3*2*96 + 96) * 4 = 2688: runs of 12 >= 6-wide rows */
    { 64, 96, 2, 0, NULL },          /* runs of 12 < 32 pixels of 32-wide rows, strided: rows2 */
    { 64, 96, 2, 1, "span=0" },      /* the same far: rows=1 */
    { 40, 16, 1, 0, "span=32768" },  /* 256: runs of 128 >= 32 */
    { 40, 16, 1, 1, "span=32768" },  /* the same far */
  };
  int i;
  if (!th_case("test_dwbpf span cold")) return;
  cache_as("KFORGE_L1D", "48K");
  for (i = 0; i < (int)(sizeof cs / sizeof cs[0]); i++) {
    bcase d;
    kf_plan_options o;
    char what[64], want[32];
    memset(&d, 0, sizeof d);
    d.T = KF_FLOAT, d.n = 2, d.h = d.w = cs[i].hw, d.c = cs[i].c, d.m = 1, d.kh = d.kw = 3;
    d.sh = d.sw = cs[i].s, d.dh = d.dw = 1, d.pad = KF_SAME;
    memset(&o, 0, sizeof o);
    o.fresh_outputs = 1;
    cache_as("KFORGE_LLC", cs[i].far ? "64K" : "32M");
    snprintf(what, sizeof what, "span cold %lldx%lldx%lld s%d%s", (long long)d.h, (long long)d.w, (long long)d.c,
             cs[i].s, cs[i].far ? " far" : "");
    snprintf(want, sizeof want, " %s ", cs[i].want ? cs[i].want : rows2);
    rule_word(&d, &o, want, what);
    run_case(&d, &o, NULL, "span cold", NULL);
  }
  cache_as("KFORGE_LLC", NULL);
  cache_as("KFORGE_L1D", NULL);
}

/* ---- accuracy of a long reduction: N*OH*OW = 2^20 per tap ---- */
static void test_accuracy(void) {
  bcase d;
  memset(&d, 0, sizeof d);
  d.T = KF_FLOAT, d.n = 4, d.h = 512, d.w = 512, d.c = 8, d.m = 1, d.kh = d.kw = 3;
  d.sh = d.sw = d.dh = d.dw = 1, d.pad = KF_SAME;
  run_case(&d, NULL, NULL, "accuracy 2^20 terms", NULL); /* 1e-6 * l1 for float */
  d.nchw = 1;
  run_case(&d, NULL, NULL, "accuracy 2^20 terms", NULL);
  d.nchw = 0, d.T = KF_DOUBLE;
  run_case(&d, NULL, NULL, "accuracy 2^20 terms", NULL);
}

/* ---- negative tests ---- */
static const char *covered[64];
static int ncovered;

static void expect(const char *label, const kf_attrs *at, const kf_tensor_desc *in, kf_status want_st,
                   const char *want_rule, const char *want_msg) {
  kf_plan plan;
  kf_error err = {0};
  kf_status st;
  memset(&err, 0, sizeof err);
  err.rule = "";
  st = kf_plan_op(&plan, OP, at, in, 3, NULL, &err);
  th_check(st == want_st && strcmp(err.rule, want_rule) == 0 && strcmp(err.message, want_msg) == 0,
           "negative %s: got %s %s \"%s\", want %s %s \"%s\"", label, kf_status_name(st), err.rule, err.message,
           kf_status_name(want_st), want_rule, want_msg);
  if (st == want_st && strcmp(err.rule, want_rule) == 0 && ncovered < 64) covered[ncovered++] = want_rule;
}

#define P "DepthwiseConv2DBackpropFilter: "
#define I32MAX 2147483647

/* Each message below is TF 2.21's own (tf.raw_ops.DepthwiseConv2dNativeBackpropFilter,
   docs/semantics_dwbpf.md section 3). */
static void test_negative(void) {
  bcase d;
  ref_dwbpf_conf rc;
  kf_tensor_desc in[3], t[3];
  kf_attrs at, a;
  int64_t v[8];
  int i;
  memset(&d, 0, sizeof d);
  d.T = KF_FLOAT, d.n = 2, d.h = 5, d.w = 5, d.c = 3, d.m = 1, d.kh = d.kw = 3, d.sh = d.sw = d.dh = d.dw = 1;
  d.pad = KF_VALID;
  make_descs(&d, &rc, in); /* x [2,5,5,3], filter_sizes [3,3,3,1], dy [2,3,3,3], VALID */
  make_attrs(&d, &at);

  /* op-def constraints */
  a = at; a.T = KF_INT32;
  expect("T int32", &a, in, KF_INVALID_ARGUMENT, "attr.allowed",
         "Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double");
  a = at; a.data_format = KF_NDHWC;
  expect("data_format NDHWC", &a, in, KF_INVALID_ARGUMENT, "attr.allowed",
         "Value for attr 'data_format' of \"NDHWC\" is not in the list of allowed values: \"NHWC\", \"NCHW\"");
  a = at; a.T = KF_DOUBLE;
  expect("input dtype", &a, in, KF_INVALID_ARGUMENT, "dwbpf.input_dtype", "input must be double, got float");
  memcpy(t, in, sizeof t); t[1].dtype = KF_FLOAT;
  expect("filter_sizes dtype", &at, t, KF_INVALID_ARGUMENT, "dwbpf.input_dtype", "filter_sizes must be int32, got float");
  memcpy(t, in, sizeof t); t[2].dtype = KF_HALF;
  expect("out_backprop dtype", &at, t, KF_INVALID_ARGUMENT, "dwbpf.input_dtype", "out_backprop must be float, got half");

  /* construction */
  a = at; a.num_strides = 3;
  expect("strides len", &a, in, KF_INVALID_ARGUMENT, "dwbpf.strides_len",
         "Sliding window strides field must specify 4 dimensions");
  a = at; a.strides[0] = 2;
  expect("strides batch", &a, in, KF_INVALID_ARGUMENT, "dwbpf.strides_batch_depth",
         "Current implementation does not yet support strides in the batch and depth dimensions.");
  a = at; a.data_format = KF_NCHW; a.strides[1] = 2; /* NCHW: index 1 is the depth */
  expect("strides depth NCHW", &a, in, KF_INVALID_ARGUMENT, "dwbpf.strides_batch_depth",
         "Current implementation does not yet support strides in the batch and depth dimensions.");
  a = at; a.num_dilations = 3;
  expect("dilations len", &a, in, KF_INVALID_ARGUMENT, "dwbpf.dilations_len",
         "Sliding window dilations field must specify 4 dimensions");
  a = at; a.dilations[3] = 2;
  expect("dilations depth", &a, in, KF_INVALID_ARGUMENT, "dwbpf.dilations_batch_depth",
         "Current implementation does not yet support dilations in the batch and depth dimensions.");
  a = at; a.padding = KF_EXPLICIT; a.num_explicit_paddings = 4;
  for (i = 0; i < 8; i++) a.explicit_paddings[i] = 0;
  expect("explicit len", &a, in, KF_INVALID_ARGUMENT, "dwbpf.explicit_len",
         "explicit_paddings attribute must contain 8 values, but got: 4");
  a.num_explicit_paddings = 8; a.explicit_paddings[2] = -1;
  expect("explicit negative", &a, in, KF_INVALID_ARGUMENT, "dwbpf.explicit_negative",
         "All elements of explicit_paddings must be nonnegative");
  a.explicit_paddings[2] = 0; a.explicit_paddings[0] = 1;
  expect("explicit batch", &a, in, KF_INVALID_ARGUMENT, "dwbpf.explicit_batch_depth",
         "Nonzero explicit padding in the batch or depth dimensions is not supported");
  a = at; a.num_explicit_paddings = 8;
  for (i = 0; i < 8; i++) a.explicit_paddings[i] = 0;
  expect("explicit not empty", &a, in, KF_INVALID_ARGUMENT, "dwbpf.explicit_not_empty",
         "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");

  /* compute: filter_sizes */
  memcpy(t, in, sizeof t); t[1].rank = 2; t[1].dims[0] = 1; t[1].dims[1] = 4;
  expect("filter_sizes rank", &at, t, KF_INVALID_ARGUMENT, "dwbpf.filter_sizes_rank",
         "Conv2DBackpropFilter: filter_sizes input must be 1-dim, not 2");
  v[0] = 3, v[1] = -3, v[2] = 3, v[3] = 1;
  memcpy(t, in, sizeof t); sizes_desc(&t[1], v, 4);
  expect("filter_sizes negative", &at, t, KF_INVALID_ARGUMENT, "dwbpf.filter_sizes_negative",
         "Dimension 1 of filter_sizes must be >= 0");
  v[0] = -1, v[1] = 1, v[2] = 1; /* the negative value first, before the length */
  memcpy(t, in, sizeof t); sizes_desc(&t[1], v, 3);
  expect("filter_sizes negative, length 3", &at, t, KF_INVALID_ARGUMENT, "dwbpf.filter_sizes_negative",
         "Dimension 0 of filter_sizes must be >= 0");
  v[0] = v[1] = v[2] = v[3] = I32MAX;
  memcpy(t, in, sizeof t); sizes_desc(&t[1], v, 4);
  expect("filter_sizes overflow", &at, t, KF_INVALID_ARGUMENT, "dwbpf.filter_sizes_overflow",
         "Encountered overflow when multiplying 4611686014132420609 with 2147483647, result: -1");
  /* EXTRACT_AND_VERIFY_DIMENSIONS */
  memcpy(t, in, sizeof t); t[0].rank = 3; v[0] = 3, v[1] = 3, v[2] = 3; sizes_desc(&t[1], v, 3);
  expect("input rank (before filter_sizes length)", &at, t, KF_INVALID_ARGUMENT, "dwbpf.input_rank",
         P "input must be 4-dimensional");
  memcpy(t, in, sizeof t); sizes_desc(&t[1], v, 3);
  expect("filter_sizes length 3", &at, t, KF_INVALID_ARGUMENT, "dwbpf.filter_rank", P "filter must be 4-dimensional");
  memcpy(t, in, sizeof t); sizes_desc(&t[1], v, 0);
  expect("filter_sizes length 0", &at, t, KF_INVALID_ARGUMENT, "dwbpf.filter_rank", P "filter must be 4-dimensional");
  memcpy(t, in, sizeof t); t[2].rank = 3;
  expect("out_backprop rank", &at, t, KF_INVALID_ARGUMENT, "dwbpf.out_backprop_rank",
         P "out_backprop must be 4-dimensional");
  memcpy(t, in, sizeof t); t[2].dims[0] = 1;
  expect("batch", &at, t, KF_INVALID_ARGUMENT, "dwbpf.batch", P "input and out_backprop must have the same batch size");
  /* too large: 0-element tensors with a dim of INT32_MAX (as the TF probe) */
  memcpy(t, in, sizeof t); set4(&t[0], KF_FLOAT, 1, I32MAX, 1, 0); set4(&t[2], KF_FLOAT, 1, I32MAX, 1, 0);
  v[0] = 1, v[1] = 1, v[2] = 0, v[3] = 1; sizes_desc(&t[1], v, 4);
  expect("input rows", &at, t, KF_INVALID_ARGUMENT, "dwbpf.too_large", "Input rows too large");
  set4(&t[0], KF_FLOAT, 1, 1, I32MAX, 0); set4(&t[2], KF_FLOAT, 1, 1, I32MAX, 0);
  expect("input cols", &at, t, KF_INVALID_ARGUMENT, "dwbpf.too_large", "Input cols too large");
  set4(&t[0], KF_FLOAT, 1, 1, 1, 0); set4(&t[2], KF_FLOAT, 1, I32MAX, 1, 0);
  expect("output rows", &at, t, KF_INVALID_ARGUMENT, "dwbpf.too_large", "Output rows too large");
  set4(&t[2], KF_FLOAT, 1, 1, I32MAX, 0);
  expect("output cols", &at, t, KF_INVALID_ARGUMENT, "dwbpf.too_large", "Output cols too large");
  set4(&t[2], KF_FLOAT, 1, 1, 1, I32MAX);
  v[2] = 1; sizes_desc(&t[1], v, 4); /* C 0 vs filter in_depth 1: in_depth comes first */
  expect("in_depth before output depth", &at, t, KF_INVALID_ARGUMENT, "dwbpf.in_depth",
         P "input and filter must have the same in_depth");
  v[2] = 0; sizes_desc(&t[1], v, 4);
  expect("output depth", &at, t, KF_INVALID_ARGUMENT, "dwbpf.too_large", "Output depth too large");
  v[0] = 3, v[1] = 3, v[2] = 2, v[3] = 1;
  memcpy(t, in, sizeof t); sizes_desc(&t[1], v, 4);
  expect("in_depth", &at, t, KF_INVALID_ARGUMENT, "dwbpf.in_depth", P "input and filter must have the same in_depth");
  v[2] = 3, v[3] = 2;
  memcpy(t, in, sizeof t); sizes_desc(&t[1], v, 4);
  expect("out_depth", &at, t, KF_INVALID_ARGUMENT, "dwbpf.out_depth",
         P "depth_multiplier * in_depth not equal to out_depth");
  a = at; a.strides[1] = a.strides[2] = 0;
  expect("stride 0", &a, in, KF_INVALID_ARGUMENT, "dwbpf.stride_positive", "Stride must be > 0, but got 0");
  a = at; a.dilations[1] = 0;
  expect("dilation 0", &a, in, KF_INVALID_ARGUMENT, "dwbpf.dilation_positive", "Dilation rate must be >= 1, but got 0");
  memcpy(t, in, sizeof t); set4(&t[0], KF_FLOAT, 2, 2, 2, 3);
  v[0] = 5, v[1] = 5, v[2] = 3, v[3] = 1; sizes_desc(&t[1], v, 4);
  expect("negative output", &at, t, KF_INVALID_ARGUMENT, "dwbpf.negative_output",
         "Computed output size would be negative: -2 [input_size: 2, effective_filter_size: 5, stride: 1]");
  memcpy(t, in, sizeof t); t[2].dims[1] = 4;
  expect("rows", &at, t, KF_INVALID_ARGUMENT, "dwbpf.rows_mismatch",
         P "Number of rows of out_backprop doesn't match computed: actual = 4, computed = 3");
  memcpy(t, in, sizeof t); t[2].dims[2] = 4;
  expect("cols", &at, t, KF_INVALID_ARGUMENT, "dwbpf.cols_mismatch",
         P "Number of cols of out_backprop doesn't match computed: actual = 4, computed = 3");
  /* kforge extension: true dilation (TF ignores it and accepts dy [2,3,3,3]) */
  a = at; a.dilations[1] = a.dilations[2] = 2;
  expect("dilation 2 sizes", &a, in, KF_INVALID_ARGUMENT, "dwbpf.rows_mismatch",
         P "Number of rows of out_backprop doesn't match computed: actual = 3, computed = 1");

  for (i = 0; i < KFG_RULE_COUNT; i++) {
    int j, seen = 0;
    if (strncmp(kfg_rules[i].id, "dwbpf.", 6) != 0) continue;
    for (j = 0; j < ncovered; j++)
      if (strcmp(covered[j], kfg_rules[i].id) == 0) seen = 1;
    th_check(seen, "rule %s has a negative test", kfg_rules[i].id);
  }
}

/* Extensions that TF's CPU kernel refuses, computed: NCHW and unequal strides. */
static void test_extensions(void) {
  bcase d;
  memset(&d, 0, sizeof d);
  d.T = KF_FLOAT, d.nchw = 1, d.n = 2, d.h = 9, d.w = 11, d.c = 5, d.m = 3, d.kh = 3, d.kw = 2;
  d.sh = 2, d.sw = 1, d.dh = 2, d.dw = 3, d.pad = KF_SAME;
  run_case(&d, NULL, NULL, "NCHW unequal strides dilation", NULL);
  d.nchw = 0;
  run_case(&d, NULL, NULL, "NHWC unequal strides dilation", NULL);
}

int main(void) {
  if (getenv("KFORGE_TEST_EVERY_KERNEL_ONLY")) { /* another kernel set (tests/tuning): its kernels only */
    test_every_kernel();
    test_determinism();
    test_offsets();
    return th_done();
  }
  test_negative();
  test_generic();
  test_empty();
  test_extensions();
  test_every_kernel();
  test_determinism();
  test_offsets();
  test_accuracy();
  test_row_end_infinity();
  test_flat_choice();
  test_span_choice();
  test_rows_choice();
  test_rows_rule();
  test_next_rule();
  test_span_rule();
  test_span_cold();
  return th_done();
}
