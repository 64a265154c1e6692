/*
** test_dwbpi.c -- DepthwiseConv2dNativeBackpropInput against the scatter-form
** double-precision reference (tests/ref/dwbpi_ref.c):
**   - every kernel of the registry, forced by name, on randomized shapes of
**     its configuration (sizes not divisible by the stride, out_backprop of
**     0 rows/cols, H=W=1, C=1, odd channel counts, large explicit padding,
**     every padding mode; read-ahead by the rule, none, one row ahead (every
**     row's prefetch crosses tasks and images) and all), and the generic
**     kernels (forced and through generic_only) on random configurations
**     of everything (unequal
**     strides, dilation with every padding mode, multipliers 0..3, NCHW);
**   - default selection: a specialized kernel for each configuration of the
**     manifest (filter 1/3/5/7 square, strides 1/2, dilation 1, multiplier
**     1/2, each padding mode, dtype and layout), the generic one otherwise;
**   - edge cases: empty output, multiplier 0, TF's integer-division quirk,
**     huge explicit paddings, the typed entry point, scratch checks;
**   - one negative test per validation rule of specs/ops/dwbpi.lua through
**     the C API (status, rule id, message), and that every rule is covered.
** aarch64.sh: TH_FILTER=__neon (under qemu, only the NEON kernels' cases;
** the portable C ones run on x86 and in the Cortex-M images).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kfi.h" /* kfg_rules[]: the spec's rule table */
#include "kfi_dwbpi.h" /* kfi_dwbpi_args.ahead: the read-ahead each variant runs with */
#include "ref/dwbpi_ref.h"

#define OP KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT

static const kf_dtype dtypes[] = { KF_HALF, KF_BFLOAT16, KF_FLOAT, KF_DOUBLE };
static const char *const pad_names[] = { "SAME", "VALID", "EXPLICIT" };

/* Tolerance relative to max|expected|: the output is rounded once to T
   (half 2^-11, bfloat16 2^-8) after a float accumulation of at most a few
   hundred products; float accumulates ~1e-7 per add; double ~1e-16. */
static double tol(kf_dtype t) {
  switch (t) {
    case KF_HALF: return 5e-3;
    case KF_BFLOAT16: return 3e-2;
    case KF_FLOAT: return 2e-5;
    default: return 1e-10;
  }
}

/* The key value of a dtype ("f32"): case descriptions and seeds use it. */
static const char *tag_of(kf_dtype t) { return th_dtype_key(t); }

typedef struct dcase {
  kf_dtype T;
  int nchw;
  int64_t n, h, w, c, m, kh, kw;
  int sh, sw, dh, dw;
  kf_padding pad;
  int64_t ep[4]; /* explicit: top, bottom, left, right */
} dcase;

static void describe(const dcase *d, char *buf, size_t n) {
  snprintf(buf, n, "T=%s %s in=[%lld,%lld,%lld,%lld] filter=%lldx%lld m=%lld s=%dx%d d=%dx%d %s(%lld,%lld,%lld,%lld)",
           kf_dtype_name(d->T), d->nchw ? "NCHW" : "NHWC", (long long)d->n, (long long)d->h, (long long)d->w,
           (long long)d->c, (long long)d->kh, (long long)d->kw, (long long)d->m, d->sh, d->sw, d->dh, d->dw,
           pad_names[d->pad], (long long)d->ep[0], (long long)d->ep[1], (long long)d->ep[2], (long long)d->ep[3]);
}

/* TF-style attrs and descriptors of a case (sizes in data_format order). */
static void make_attrs(const dcase *d, kf_attrs *a) {
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

/* input_sizes descriptors carry their values in host_data; the values live
   in a ring of slots that outlive each plan call of a test. */
static int32_t size_slots[64][4];
static int size_slot;

static void sizes_desc(kf_tensor_desc *t, const int64_t v[4]) {
  int32_t *s = size_slots[size_slot++ % 64];
  int i;
  memset(t, 0, sizeof *t);
  t->dtype = KF_INT32;
  t->rank = 1;
  t->dims[0] = 4;
  for (i = 0; i < 4; i++) s[i] = (int32_t)v[i];
  t->host_data = s;
}

static int64_t size_of(const kf_tensor_desc *t, int i) { return ((const int32_t *)t->host_data)[i]; }

/* A copy of t's values with value i set to v. */
static void set_size(kf_tensor_desc *t, int i, int64_t v) {
  int64_t s[4];
  int k;
  for (k = 0; k < 4; k++) s[k] = size_of(t, k);
  s[i] = v;
  sizes_desc(t, s);
}

/* Fills ref conf and descriptors; returns 0 if the configuration has a
   negative output size (not a valid call). */
static int make_descs(const dcase *d, ref_dwbpi_conf *rc, kf_tensor_desc in[3]) {
  int64_t oh, ow, pt, pl, sz[4];
  int pad = d->pad == KF_SAME ? REF_SAME : d->pad == KF_VALID ? REF_VALID : REF_EXPLICIT;
  if (!ref_dwbpi_window(d->h, d->kh, d->dh, d->sh, pad, d->ep[0], d->ep[1], &oh, &pt)) return 0;
  if (!ref_dwbpi_window(d->w, d->kw, d->dw, d->sw, pad, d->ep[2], d->ep[3], &ow, &pl)) return 0;
  memset(rc, 0, sizeof *rc);
  rc->nchw = d->nchw;
  rc->n = d->n;
  rc->h = d->h;
  rc->w = d->w;
  rc->c = d->c;
  rc->m = d->m;
  rc->kh = d->kh;
  rc->kw = d->kw;
  rc->sh = d->sh;
  rc->sw = d->sw;
  rc->dh = d->dh;
  rc->dw = d->dw;
  rc->oh = oh;
  rc->ow = ow;
  rc->pad_top = pt;
  rc->pad_left = pl;
  sz[0] = d->n;
  if (d->nchw) {
    sz[1] = d->c; sz[2] = d->h; sz[3] = d->w;
    set4(&in[2], d->T, d->n, d->c * d->m, oh, ow);
  } else {
    sz[1] = d->h; sz[2] = d->w; sz[3] = d->c;
    set4(&in[2], d->T, d->n, oh, ow, d->c * d->m);
  }
  sizes_desc(&in[0], sz);
  set4(&in[1], d->T, d->kh, d->kw, d->c, d->m);
  return 1;
}

/* The read-ahead run_case sets (kfi_dwbpi_args.ahead, bytes of dy): AHEAD_RULE
   the plan's own, AHEAD_ONE_ROW one dx row's share (every row prefetches for
   the next, across tasks and images), else the bytes (0: none; 2^40: all
   of dy before the first row). */
#define AHEAD_RULE (-1)
#define AHEAD_ONE_ROW (-2)
static int64_t ahead_override = AHEAD_RULE;

static void set_ahead(kf_plan *plan, size_t es) {
  kfi_dwbpi_args *g = KFI_ARGS((kfi_plan *)(void *)plan->u.bytes, kfi_dwbpi_args);
  const int64_t share = g->sh > 0 ? g->ow * g->c * g->m * (int64_t)es / g->sh : 0;
  if (ahead_override == AHEAD_ONE_ROW) g->ahead = share > 0 ? share : 1;
  else if (ahead_override != AHEAD_RULE) g->ahead = ahead_override;
}

static int64_t numel4(const kf_tensor_desc *t) { return t->dims[0] * t->dims[1] * t->dims[2] * t->dims[3]; }

/* Plans (with opt), checks the kernel name if want_kernel, runs and compares
   with the reference. Returns 1 if the case is valid (run, or not applicable
   on this CPU: a forced kernel of an ISA it lacks), 0 if invalid. The data
   comes from the case's own seed (its description), whatever ran before. */
static int run_case(const dcase *d, const kf_plan_options *opt, const char *want_kernel, const char *how) {
  ref_dwbpi_conf rc;
  kf_tensor_desc in[3];
  kf_attrs at;
  kf_plan plan;
  kf_error err = {0};
  kf_status st;
  char what[300];
  int64_t nf, ng, nx, i;
  size_t es = kf_dtype_size(d->T), sbytes;
  void *f, *g, *x, *scratch;
  double *rf, *rg, *rx, e;
  const void *ins[3];
  void *outs[1];
  const kf_tensor_desc *od;
  th_rng rng[1];

  if (!make_descs(d, &rc, in)) return 0;
  describe(d, what, sizeof what);
  th_seed_case(rng, "test_dwbpi %s", what);
  if (!th_case("test_dwbpi %s %s %s", what, how, opt && opt->kernel ? opt->kernel : want_kernel ? want_kernel : ""))
    return 1; /* TH_FILTER: not this run's */
  make_attrs(d, &at);
  memset(&err, 0, sizeof err);
  if (opt && opt->kernel) {
    th_forced r = th_plan_forced(&plan, OP, &at, in, 3, opt, &err);
    if (r == TH_NOT_HERE) {
      th_skip("%s plan %s: %s", how, what, err.message);
      return 1;
    }
    /* any other refusal, "serves other configurations" included, fails below */
    st = r == TH_PLANNED ? KF_OK : err.status != KF_OK ? err.status : KF_NO_KERNEL;
  } else {
    st = kf_plan_op(&plan, OP, &at, in, 3, opt, &err);
  }
  if (!th_check(st == KF_OK, "%s plan %s: %s %s", how, what, kf_status_name(st), err.message)) return 1;
  set_ahead(&plan, es);
  if (want_kernel)
    th_check(strcmp(kf_plan_kernel_name(&plan), want_kernel) == 0, "%s select %s: got %s, want %s", how, what,
             kf_plan_kernel_name(&plan), want_kernel);
  od = kf_plan_output_desc(&plan, 0);
  th_check(kf_plan_num_outputs(&plan) == 1 && od && od->dtype == d->T && od->rank == 4 &&
               od->dims[0] == size_of(&in[0], 0) && od->dims[1] == size_of(&in[0], 1) &&
               od->dims[2] == size_of(&in[0], 2) && od->dims[3] == size_of(&in[0], 3),
           "%s output desc %s", how, what);
  nf = numel4(&in[1]);
  ng = numel4(&in[2]);
  nx = d->n * d->h * d->w * d->c;
  f = malloc((size_t)nf * es + 1);
  g = malloc((size_t)ng * es + 1);
  x = malloc((size_t)nx * es + 1);
  rf = malloc(sizeof(double) * (size_t)(nf + 1));
  rg = malloc(sizeof(double) * (size_t)(ng + 1));
  rx = malloc(sizeof(double) * (size_t)(nx + 1));
  sbytes = kf_plan_scratch_bytes(&plan);
  scratch = sbytes ? malloc(sbytes) : NULL;
  if (!f || !g || !x || !rf || !rg || !rx || (sbytes && !scratch)) {
    th_check(0, "%s out of memory %s", how, what);
    goto done;
  }
  for (i = 0; i < nf; i++) {
    rf[i] = th_round(d->T, th_uniform(rng, -1, 1));
    th_store(d->T, f, (size_t)i, rf[i]);
  }
  for (i = 0; i < ng; i++) {
    rg[i] = th_round(d->T, th_uniform(rng, -1, 1));
    th_store(d->T, g, (size_t)i, rg[i]);
  }
  memset(x, 0xff, (size_t)nx * es); /* NaN everywhere: every element must be written */
  if (scratch) memset(scratch, 0xff, sbytes);
  ins[0] = NULL; /* input_sizes was read at plan time */
  ins[1] = f;
  ins[2] = g;
  outs[0] = nx ? x : NULL;
  st = kf_execute(&plan, ins, outs, scratch, sbytes, &err);
  if (th_check(st == KF_OK, "%s execute %s: %s %s", how, what, kf_status_name(st), err.message) && nx > 0) {
    ref_dwbpi(&rc, rf, rg, rx);
    e = th_rel_err(d->T, x, rx, (size_t)nx, 1e-300);
    th_check(e <= tol(d->T), "%s %s [%s]: rel err %.3g (tol %.3g)", how, what, kf_plan_kernel_name(&plan), e, tol(d->T));
  }
done:
  free(f);
  free(g);
  free(x);
  free(rf);
  free(rg);
  free(rx);
  free(scratch);
  return 1;
}

static int ri(th_rng *r, int lo, int hi) { return (int)th_int(r, lo, hi); }

/* ------------------------------------------------------------------ every kernel */
typedef struct kconf {
  int generic;
  kf_dtype T;
  int nchw, kh, kw, sh, sw, dh, dw, dm;
} kconf;

/* A kernel's configuration, from its key in the registry's metadata. */
static int conf_of(const kf_kernel_info *ki, kconf *k) {
  const char *lay = th_key(ki, "layout");
  memset(k, 0, sizeof *k);
  k->T = th_key_dtype(ki);
  if (k->T == KF_DT_INVALID) return 0;
  if (ki->generic) {
    k->generic = 1;
    return 1;
  }
  if (!lay || (strcmp(lay, "nchw") != 0 && strcmp(lay, "nhwc") != 0)) return 0;
  k->nchw = strcmp(lay, "nchw") == 0;
  return th_key_int(ki, "kh", &k->kh) && th_key_int(ki, "kw", &k->kw) && th_key_int(ki, "sh", &k->sh) &&
         th_key_int(ki, "sw", &k->sw) && th_key_int(ki, "dh", &k->dh) && th_key_int(ki, "dw", &k->dw) &&
         th_key_int(ki, "dm", &k->dm);
}

/* A random case of a specialized configuration; variant picks the edge. */
static void special_case(const kconf *k, int variant, th_rng *r, dcase *d) {
  memset(d, 0, sizeof *d);
  d->T = k->T;
  d->nchw = k->nchw;
  d->kh = k->kh;
  d->kw = k->kw;
  d->sh = k->sh;
  d->sw = k->sw;
  d->dh = k->dh;
  d->dw = k->dw;
  d->m = k->dm;
  d->n = ri(r, 1, 2);
  d->h = ri(r, 1, 11);
  d->w = ri(r, 1, 11);
  d->c = ri(r, 1, 5);
  d->pad = (kf_padding)ri(r, 0, 2);
  d->ep[0] = ri(r, 0, k->kh);
  d->ep[1] = ri(r, 0, k->kh);
  d->ep[2] = ri(r, 0, k->kw);
  d->ep[3] = ri(r, 0, k->kw);
  switch (variant) {
    case 1: /* H=W=1, C=1 */
      d->h = d->w = 1;
      d->c = 1;
      break;
    case 2: /* odd, wider channel counts (vector loop tails) */
      d->c = ri(r, 9, 19);
      d->h = ri(r, 3, 9);
      d->w = ri(r, 3, 9);
      break;
    case 3: /* large explicit padding: rows and cols no tap reaches */
      d->pad = KF_EXPLICIT;
      d->ep[0] = ri(r, 0, 2 * k->kh + 5);
      d->ep[1] = ri(r, 0, 2 * k->kh + 5);
      d->ep[2] = ri(r, 0, 2 * k->kw + 5);
      d->ep[3] = ri(r, 0, 2 * k->kw + 5);
      break;
    case 4: /* VALID with 0 out_backprop rows (TF's truncating division) */
      d->pad = KF_VALID;
      if (k->kh > 1) {
        int lo = k->kh - 2 * k->sh + 1 > 1 ? k->kh - 2 * k->sh + 1 : 1;
        d->h = ri(r, lo, k->kh - 1);
      }
      break;
    case 5: /* sizes not divisible by the stride, bigger image */
      d->h = ri(r, 6, 20) | 1;
      d->w = ri(r, 6, 20) | 1;
      break;
    case 6: /* wide rows: several vector blocks a row, masked border blocks, rows past the flat form's width */
      d->h = ri(r, 1, 5);
      d->w = ri(r, 17, 300);
      d->c = ri(r, 1, 3);
      break;
    case 7: /* wide rows of many channels: many register blocks a row (NHWC SIMD), whole-vector channel counts
               (streaming stores with a small NT_MIN knob) or not, even widths (7) and odd ones (8) */
    case 8:
      d->n = 1;
      d->w = ri(r, 60, 200);
      if (ri(r, 0, 1)) { /* float dx >= 64 KiB, the knob set's smallest NT_MIN */
        d->h = ri(r, 4, 6);
        d->w = ri(r, 100, 200);
        d->c = 16 * ri(r, 3, 4);
      } else {
        d->h = ri(r, 2, 4);
        d->c = ri(r, 17, 47);
      }
      d->w = (d->w & ~1) | (variant == 8);
      break;
    case 9: /* many channels, small images: several channel chunks a task (NHWC SIMD, chunks sized to the
               L1d), whole lines of channels (streamed with KFORGE_LLC=1) or a tail of a vector */
      d->n = 1;
      d->h = ri(r, 2, 6);
      d->w = ri(r, 3, 12);
      d->c = ri(r, 0, 1) ? 16 * ri(r, 9, 19) : ri(r, 129, 300);
      break;
    default: break;
  }
}

static void generic_case(kf_dtype T, th_rng *r, dcase *d) {
  memset(d, 0, sizeof *d);
  d->T = T;
  d->nchw = ri(r, 0, 1);
  d->n = ri(r, 1, 2);
  d->h = ri(r, 1, 10);
  d->w = ri(r, 1, 10);
  d->c = ri(r, 1, 4);
  d->m = ri(r, 0, 10) == 0 ? 0 : ri(r, 1, 3);
  d->kh = ri(r, 0, 12) == 0 ? 0 : ri(r, 1, 6);
  d->kw = ri(r, 1, 6);
  d->sh = ri(r, 1, 4);
  d->sw = ri(r, 1, 4);
  d->dh = ri(r, 1, 3);
  d->dw = ri(r, 1, 3);
  d->pad = (kf_padding)ri(r, 0, 2);
  d->ep[0] = ri(r, 0, 6);
  d->ep[1] = ri(r, 0, 6);
  d->ep[2] = ri(r, 0, 6);
  d->ep[3] = ri(r, 0, 6);
}

static const char *family(void) { return kf_op_family(OP); }

static const char *name_of(int k) { return k >= 0 ? th_kernel(k)->name : "(none in the registry)"; }

/* The generic kernel of T (its scalar variant: the only one). */
static const char *generic_name(kf_dtype T) {
  return name_of(th_find_kernel(family(), 1, KF_ISA_SCALAR, "T=%s", tag_of(T)));
}

/* The specialization selection should pick: its first variant in registry
   order (best ISA first) that this CPU runs (as capped by KFORGE_ISA: a
   capped run must select the capped variant). */
static const char *special_name(kf_dtype T, int nchw, int k, int s, int dm) {
  return name_of(th_find_kernel(family(), 0, 0, "T=%s layout=%s kh=%d kw=%d sh=%d sw=%d dh=1 dw=1 dm=%d", tag_of(T),
                                nchw ? "nchw" : "nhwc", k, k, s, s, dm));
}

/* The identity of a kernel's v-th case: its configuration without the ISA,
   so every ISA variant of a configuration gets the same shapes and data. */
static void seed_kernel_case(th_rng *r, const kconf *k, const char *what, int v) {
  th_seed_case(r, "test_dwbpi every kernel: T=%s %s generic=%d k%dx%d s%dx%d d%dx%d m%d %s %d", tag_of(k->T),
               k->nchw ? "nchw" : "nhwc", k->generic, k->kh, k->kw, k->sh, k->sw, k->dh, k->dw, k->dm, what, v);
}

/* Edge cases from kernel i's metadata: C at its vector length VL - 1, VL,
   VL + 1, and W around its pixel block B (B - 1 .. B + 1, 2B - 1 .. 2B + 1). */
static void edge_cases(int i, const kconf *k, const kf_plan_options *opt, const char *name) {
  const int vl = kf_kernel_lanes(i), b = kf_kernel_block(i, "W");
  const int cs[3] = { vl - 1, vl, vl + 1 }, ws[6] = { b - 1, b, b + 1, 2 * b - 1, 2 * b, 2 * b + 1 };
  int a, w, j, ran;
  th_rng r[1];
  dcase d;
  for (a = 0; a < 3; a++)
    for (w = 0; w < 6; w++) {
      if (cs[a] < 1 || ws[w] < 1) continue;
      for (j = 0, ran = 0; j < 20 && !ran; j++) {
        th_seed_case(r, "test_dwbpi edge %s C=%d W=%d %d", name, cs[a], ws[w], j);
        special_case(k, 0, r, &d);
        d.c = cs[a];
        d.w = ws[w];
        ran = run_case(&d, opt, name, "edge");
      }
      th_check(ran, "%s: no valid edge case C=%d W=%d", name, cs[a], ws[w]);
    }
}

static void test_every_kernel(void) {
  int i, nk = 0, ns = 0, ng = 0, nscalar = 0, v, j, ran;
  th_rng r[1];
  for (i = -1; (i = th_next_kernel(family(), i)) >= 0;) {
    const char *name = th_kernel(i)->name;
    kconf k;
    kf_plan_options opt;
    dcase d;
    nk++;
    if (!th_check(conf_of(th_kernel(i), &k), "key of %s: %s", name, th_kernel(i)->config)) continue;
    memset(&opt, 0, sizeof opt);
    opt.kernel = name;
    if (!k.generic) {
      ns++;
      nscalar += th_kernel_isa(name) == KF_ISA_SCALAR;
      for (v = 0; v < 11; v++) {
        static const char *const how[4] = { "forced", "forced ahead=0", "forced ahead=row", "forced ahead=all" };
        static const int64_t ahead[4] = { AHEAD_RULE, 0, AHEAD_ONE_ROW, (int64_t)1 << 40 };
        seed_kernel_case(r, &k, "variant", v);
        ahead_override = ahead[v % 4];
        for (j = 0, ran = 0; j < 20 && !ran; j++) {
          special_case(&k, v % 10, r, &d);
          ran = run_case(&d, &opt, name, how[v % 4]);
        }
        ahead_override = AHEAD_RULE;
        th_check(ran, "%s: no valid case for variant %d", name, v);
      }
      edge_cases(i, &k, &opt, name);
    } else {
      ng++;
      for (v = 0; v < 120; v++) {
        seed_kernel_case(r, &k, "random", v);
        generic_case(k.T, r, &d);
        run_case(&d, &opt, name, "forced");
      }
      memset(&opt, 0, sizeof opt);
      opt.generic_only = 1;
      for (v = 0; v < 40; v++) {
        seed_kernel_case(r, &k, "generic_only", v);
        special_case(&(kconf){ 0, k.T, ri(r, 0, 1), 3, 3, 1, 1, 1, 1, 1 }, v % 6, r, &d);
        run_case(&d, &opt, name, "generic_only");
      }
    }
  }
  if (!getenv("KFORGE_TEST_EVERY_KERNEL_ONLY"))
    th_check(nscalar == 128 && ng == 4 && nk == ns + ng,
           "registry holds 128 scalar specializations (+%d SIMD variants) and 4 generic dwbpi kernels (got %d, %d)",
           ns - nscalar, nscalar, ng);
}

/* ------------------------------------------------------------------ selection */
static void test_selection(void) {
  static const int ks[] = { 1, 3, 5, 7 };
  const char *want;
  int ti, nchw, ki, s, dm, pad, j;
  dcase d;
  th_rng r[1];
  for (ti = 0; ti < 4; ti++)
    for (nchw = 0; nchw < 2; nchw++)
      for (ki = 0; ki < 4; ki++)
        for (s = 1; s <= 2; s++)
          for (dm = 1; dm <= 2; dm++)
            for (pad = 0; pad < 3; pad++) {
              kconf k = { 0, dtypes[ti], nchw, ks[ki], ks[ki], s, s, 1, 1, dm };
              want = special_name(dtypes[ti], nchw, ks[ki], s, dm);
              th_seed_case(r, "test_dwbpi selection T=%s %s k%d s%d m%d %s", tag_of(dtypes[ti]), nchw ? "nchw" : "nhwc",
                           ks[ki], s, dm, pad_names[pad]);
              for (j = 0; j < 20; j++) {
                special_case(&k, 0, r, &d);
                d.pad = (kf_padding)pad;
                if (run_case(&d, NULL, want, "default")) break;
              }
            }
  /* Everything else: the generic kernel. */
  for (ti = 0; ti < 4; ti++)
    for (j = 0; j < 9; j++) {
      kconf k = { 0, dtypes[ti], j & 1, 3, 3, 1, 1, 1, 1, 1 };
      switch (j) {
        case 0: k.kh = k.kw = 2; break;
        case 1: k.kh = k.kw = 9; break;
        case 2: k.kw = 5; break;          /* 3x5 */
        case 3: k.sh = k.sw = 3; break;
        case 4: k.sw = 2; break;          /* unequal strides */
        case 5: k.dh = k.dw = 2; break;   /* dilation */
        case 6: k.dm = 3; break;
        case 7: k.dw = 2; break;
        case 8: k.dm = 4; k.sh = k.sw = 2; break;
      }
      want = generic_name(dtypes[ti]);
      for (pad = 0; pad < 3; pad++) {
        int tries;
        th_seed_case(r, "test_dwbpi generic selection T=%s case %d %s", tag_of(dtypes[ti]), j, pad_names[pad]);
        for (tries = 0; tries < 20; tries++) {
          special_case(&k, 5, r, &d);
          d.pad = (kf_padding)pad;
          if (run_case(&d, NULL, want, "default")) break;
        }
      }
    }
}

/* ------------------------------------------------------------------ edge cases */
static dcase base_case(kf_dtype T, int nchw) {
  dcase d;
  memset(&d, 0, sizeof d);
  d.T = T;
  d.nchw = nchw;
  d.n = 1;
  d.h = 5;
  d.w = 6;
  d.c = 3;
  d.m = 1;
  d.kh = d.kw = 3;
  d.sh = d.sw = d.dh = d.dw = 1;
  d.pad = KF_SAME;
  return d;
}

static void test_edges(void) {
  kf_plan_options gen = { NULL, 1, 0, NULL, 0, NULL, 0 };
  const char *name;
  int ti, nchw;
  for (ti = 0; ti < 4; ti++)
    for (nchw = 0; nchw < 2; nchw++) {
      kf_dtype T = dtypes[ti];
      dcase d = base_case(T, nchw);
      /* TF's quirk: VALID in=2 k=5 s=4 -> 0 rows of out_backprop, output all zeros */
      d.h = d.w = 2;
      d.kh = d.kw = 5;
      d.sh = d.sw = 4;
      d.pad = KF_VALID;
      name = generic_name(T);
      th_check(run_case(&d, NULL, name, "quirk k5 s4"), "quirk case valid");
      /* the same with a specialized kernel: k5 s2, in=2 -> (2-5+2)/2 = 0 */
      d.sh = d.sw = 2;
      name = special_name(T, nchw, 5, 2, 1);
      th_check(run_case(&d, NULL, name, "quirk k5 s2"), "quirk case valid");
      /* depth multiplier 0: out_depth 0, output zeros */
      d = base_case(T, nchw);
      d.m = 0;
      name = generic_name(T);
      run_case(&d, NULL, name, "multiplier 0");
      /* empty output: no kernel */
      d = base_case(T, nchw);
      d.n = 0;
      run_case(&d, NULL, "none (empty output)", "empty batch");
      d = base_case(T, nchw);
      d.c = 0;
      run_case(&d, NULL, "none (empty output)", "empty depth");
      d = base_case(T, nchw);
      d.h = 0;
      d.pad = KF_VALID;
      d.kh = 1;
      run_case(&d, NULL, "none (empty output)", "empty rows");
      /* H=W=1, C=1, multipliers 1..3, each padding, generic too */
      for (d.m = 1; d.m <= 3; d.m++) {
        d = (dcase){ T, nchw, 1, 1, 1, 1, d.m, 3, 3, 1, 1, 1, 1, KF_SAME, { 0, 0, 0, 0 } };
        run_case(&d, NULL, NULL, "1x1");
        run_case(&d, &gen, NULL, "1x1 generic");
      }
      /* dilation with each padding mode, unequal strides */
      {
        int pad;
        for (pad = 0; pad < 3; pad++) {
          d = base_case(T, nchw);
          d.h = 9;
          d.w = 11;
          d.dh = 2;
          d.dw = 3;
          d.sh = 1;
          d.sw = 2;
          d.m = 2;
          d.pad = (kf_padding)pad;
          d.ep[0] = 1;
          d.ep[1] = 2;
          d.ep[2] = 3;
          d.ep[3] = 0;
          run_case(&d, NULL, NULL, "dilation");
        }
      }
      /* large explicit padding with a specialized kernel */
      d = base_case(T, nchw);
      d.pad = KF_EXPLICIT;
      d.ep[0] = 9;
      d.ep[1] = 9;
      d.ep[2] = 8;
      d.ep[3] = 10;
      name = special_name(T, nchw, 3, 1, 1);
      run_case(&d, NULL, name, "large padding");
      /* huge explicit padding and stride: big-number arithmetic */
      d = base_case(T, nchw);
      d.h = 3;
      d.w = 4;
      d.kw = 1;
      d.sh = 1 << 30;
      d.pad = KF_EXPLICIT;
      d.ep[0] = (int64_t)1 << 40;
      d.ep[1] = 5;
      run_case(&d, NULL, NULL, "huge padding");
    }
}

/* ------------------------------------------------------------------ API */
static void test_api(void) {
  dcase d = base_case(KF_HALF, 0);
  ref_dwbpi_conf rc;
  kf_tensor_desc in[3];
  kf_attrs at;
  kf_error err = {0};
  kf_status st;
  kf_plan plan;
  kf_plan_options opt = { NULL, 0, 0, NULL, 0, NULL, 0 };
  int32_t sizes[4];
  uint16_t f[3 * 3 * 3 * 2], g[5 * 6 * 6], x[5 * 6 * 3];
  double rf[3 * 3 * 3 * 2], rg[5 * 6 * 6], rx[5 * 6 * 3];
  void *scratch;
  size_t sb, i;
  const void *ins[3];
  void *outs[1];
  const char *cap = getenv("KFORGE_ISA");
  char saved_cap[16];
  th_rng r[1];

  th_seed_case(r, "test_dwbpi api: typed entry point");
  snprintf(saved_cap, sizeof saved_cap, "%s", cap ? cap : "");
  /* typed entry point, T inferred from the filter */
  d.m = 2;
  d.sh = d.sw = 2;
  make_descs(&d, &rc, in);
  make_attrs(&d, &at);
  at.T = KF_DT_INVALID;
  for (i = 0; i < 4; i++) sizes[i] = (int32_t)size_of(&in[0], (int)i);
  for (i = 0; i < sizeof f / sizeof f[0]; i++) {
    rf[i] = th_round(KF_HALF, th_uniform(r, -1, 1));
    th_store(KF_HALF, f, i, rf[i]);
  }
  th_check(numel4(&in[2]) == 1 * 3 * 3 * 6, "api dy shape");
  for (i = 0; i < (size_t)numel4(&in[2]); i++) {
    rg[i] = th_round(KF_HALF, th_uniform(r, -1, 1));
    th_store(KF_HALF, g, i, rg[i]);
  }
  /* The portable half kernel keeps float rows in scratch (the SIMD ones need
     none): capped to scalar, the entry point must check the scratch size. */
  setenv("KFORGE_ISA", "scalar", 1);
  st = kf_plan_op(&plan, OP, &at, in, 3, NULL, &err);
  th_check(st == KF_OK, "api plan: %s", err.message);
  sb = kf_plan_scratch_bytes(&plan);
  th_check(sb > 0, "portable half NHWC kernel needs scratch");
  scratch = malloc(sb);
  st = kf_depthwise_conv2d_backprop_input(&at, sizes, &in[1], f, &in[2], g, x, scratch, sb, &err);
  if (th_check(st == KF_OK, "kf_depthwise_conv2d_backprop_input: %s", err.message)) {
    ref_dwbpi(&rc, rf, rg, rx);
    th_check(th_rel_err(KF_HALF, x, rx, 5 * 6 * 3, 1e-300) <= tol(KF_HALF), "typed entry point result");
  }
  st = kf_depthwise_conv2d_backprop_input(&at, sizes, &in[1], f, &in[2], g, x, scratch, sb - 1, &err);
  th_check(st == KF_SCRATCH_TOO_SMALL && strcmp(err.rule, "api.scratch") == 0, "typed entry point: scratch too small");
  st = kf_depthwise_conv2d_backprop_input(&at, NULL, &in[1], f, &in[2], g, x, scratch, sb, &err);
  th_check(st == KF_INVALID_ARGUMENT && strcmp(err.rule, "api.null") == 0, "typed entry point: NULL input_sizes");
  sizes[1] = 7;
  st = kf_depthwise_conv2d_backprop_input(&at, sizes, &in[1], f, &in[2], g, x, scratch, sb, &err);
  th_check(st == KF_INVALID_ARGUMENT && strcmp(err.rule, "dwbpi.rows_mismatch") == 0,
           "typed entry point validates: %s", err.message);
  /* execute: NULL filter with elements */
  ins[0] = NULL;
  ins[1] = NULL;
  ins[2] = g;
  outs[0] = x;
  st = kf_execute(&plan, ins, outs, scratch, sb, &err);
  th_check(st == KF_INVALID_ARGUMENT && strcmp(err.rule, "api.null") == 0, "execute: NULL filter");
  free(scratch);
  if (cap) setenv("KFORGE_ISA", saved_cap, 1); /* a capped run (tests/run.sh) stays capped */
  else unsetenv("KFORGE_ISA");
  /* forcing a kernel that does not serve the configuration */
  opt.kernel = name_of(th_find_kernel(family(), 0, KF_ISA_SCALAR, "T=f32 layout=nhwc kh=3 kw=3 sh=1 sw=1 dh=1 dw=1 dm=1"));
  st = kf_plan_op(&plan, OP, &at, in, 3, &opt, &err);
  th_check(st == KF_NO_KERNEL && strcmp(err.rule, "kernel.mismatch") == 0, "forced mismatching kernel: %s",
           err.message);
}

/* ------------------------------------------------------------------ negative tests */
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

#define P "DepthwiseConv2DBackpropInput: "

static void test_negative(void) {
  dcase d = base_case(KF_FLOAT, 0);
  ref_dwbpi_conf rc;
  kf_tensor_desc in[3], t[3];
  kf_attrs at, a;
  int i;
  make_descs(&d, &rc, in); /* NHWC in [1,5,6,3], filter [3,3,3,1], dy [1,5,6,3], SAME */
  make_attrs(&d, &at);

  /* op-def constraints */
  a = at; a.T = KF_INT32;
  expect("T int32", &a, in, KF_INVALID_ARGUMENT, "attr.allowed",
         "Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double");
  a = at; a.data_format = KF_NDHWC;
  expect("data_format NDHWC", &a, in, KF_INVALID_ARGUMENT, "attr.allowed",
         "Value for attr 'data_format' of \"NDHWC\" is not in the list of allowed values: \"NHWC\", \"NCHW\"");
  a = at; a.padding = KF_PADDING_INVALID;
  expect("padding unset", &a, in, KF_INVALID_ARGUMENT, "attr.missing",
         "NodeDef missing attr 'padding' (SAME, VALID or EXPLICIT)");
  a = at; a.T = KF_DOUBLE;
  expect("filter dtype", &a, in, KF_INVALID_ARGUMENT, "dwbpi.input_dtype", "filter must be double, got float");
  memcpy(t, in, sizeof t); t[0].dtype = KF_FLOAT;
  expect("input_sizes dtype", &at, t, KF_INVALID_ARGUMENT, "dwbpi.input_dtype", "input_sizes must be int32, got float");
  memcpy(t, in, sizeof t); t[2].dtype = KF_HALF;
  expect("out_backprop dtype", &at, t, KF_INVALID_ARGUMENT, "dwbpi.input_dtype", "out_backprop must be float, got half");

  /* construction */
  a = at; a.num_strides = -1;
  expect("strides unset", &a, in, KF_INVALID_ARGUMENT, "dwbpi.strides_len",
         "Sliding window strides field must specify 4 dimensions");
  a = at; a.num_strides = 2;
  expect("strides len 2", &a, in, KF_INVALID_ARGUMENT, "dwbpi.strides_len",
         "Sliding window strides field must specify 4 dimensions");
  a = at; a.strides[3] = 2;
  expect("strides depth", &a, in, KF_INVALID_ARGUMENT, "dwbpi.strides_batch_depth",
         "Current implementation does not yet support strides in the batch and depth dimensions.");
  a = at; a.data_format = KF_NCHW; a.strides[1] = 2; /* NCHW: index 1 is the depth */
  expect("strides depth NCHW", &a, in, KF_INVALID_ARGUMENT, "dwbpi.strides_batch_depth",
         "Current implementation does not yet support strides in the batch and depth dimensions.");
  a = at; a.num_dilations = 3;
  expect("dilations len", &a, in, KF_INVALID_ARGUMENT, "dwbpi.dilations_len",
         "Sliding window dilations field must specify 4 dimensions");
  a = at; a.dilations[0] = 2;
  expect("dilations batch", &a, in, KF_INVALID_ARGUMENT, "dwbpi.dilations_batch_depth",
         "Current implementation does not yet support dilations in the batch and depth dimensions.");
  a = at; a.padding = KF_EXPLICIT; a.num_explicit_paddings = 4;
  for (i = 0; i < 8; i++) a.explicit_paddings[i] = 0;
  expect("explicit len", &a, in, KF_INVALID_ARGUMENT, "dwbpi.explicit_len",
         "explicit_paddings attribute must contain 8 values, but got: 4");
  a.num_explicit_paddings = 8; a.explicit_paddings[3] = -1;
  expect("explicit negative", &a, in, KF_INVALID_ARGUMENT, "dwbpi.explicit_negative",
         "All elements of explicit_paddings must be nonnegative");
  a.explicit_paddings[3] = 0; a.explicit_paddings[7] = 1;
  expect("explicit depth", &a, in, KF_INVALID_ARGUMENT, "dwbpi.explicit_batch_depth",
         "Nonzero explicit padding in the batch or depth dimensions is not supported");
  a = at; a.num_explicit_paddings = 8;
  for (i = 0; i < 8; i++) a.explicit_paddings[i] = 0;
  expect("explicit with SAME", &a, in, KF_INVALID_ARGUMENT, "dwbpi.explicit_not_empty",
         "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");

  /* compute: input_sizes */
  memcpy(t, in, sizeof t); t[0].rank = 2; t[0].dims[1] = 2;
  expect("input_sizes rank", &at, t, KF_INVALID_ARGUMENT, "dwbpi.input_sizes_rank",
         "Conv2DBackpropInput: input_sizes input must be 1-dim, not 2");
  memcpy(t, in, sizeof t); set_size(&t[0], 2, -1);
  expect("input_sizes negative", &at, t, KF_INVALID_ARGUMENT, "dwbpi.input_sizes_negative",
         "Dimension 2 of input_sizes must be >= 0");
  memcpy(t, in, sizeof t); t[0].dims[0] = 3;
  expect("input_sizes length 3", &at, t, KF_INVALID_ARGUMENT, "dwbpi.input_rank", P "input must be 4-dimensional");
  memcpy(t, in, sizeof t); t[1].rank = 3;
  expect("filter rank", &at, t, KF_INVALID_ARGUMENT, "dwbpi.filter_rank", P "filter must be 4-dimensional");
  memcpy(t, in, sizeof t); t[2].rank = 5; t[2].dims[4] = 1;
  expect("out_backprop rank", &at, t, KF_INVALID_ARGUMENT, "dwbpi.out_backprop_rank",
         P "out_backprop must be 4-dimensional");
  memcpy(t, in, sizeof t); t[2].dims[0] = 2;
  expect("batch", &at, t, KF_INVALID_ARGUMENT, "dwbpi.batch", P "input and out_backprop must have the same batch size");
  memcpy(t, in, sizeof t); set_size(&t[0], 1, 2147483647);
  expect("input rows", &at, t, KF_INVALID_ARGUMENT, "dwbpi.too_large", "Input rows too large");
  memcpy(t, in, sizeof t); set_size(&t[0], 2, 2147483647);
  expect("input cols", &at, t, KF_INVALID_ARGUMENT, "dwbpi.too_large", "Input cols too large");
  memcpy(t, in, sizeof t); t[2].dims[1] = 2147483647; t[2].dims[2] = t[2].dims[3] = 1;
  expect("output rows", &at, t, KF_INVALID_ARGUMENT, "dwbpi.too_large", "Output rows too large");
  memcpy(t, in, sizeof t); t[2].dims[1] = t[2].dims[3] = 1; t[2].dims[2] = 2147483647;
  expect("output cols", &at, t, KF_INVALID_ARGUMENT, "dwbpi.too_large", "Output cols too large");
  memcpy(t, in, sizeof t); t[2].dims[1] = t[2].dims[2] = 1; t[2].dims[3] = 2147483647;
  expect("output depth", &at, t, KF_INVALID_ARGUMENT, "dwbpi.too_large", "Output depth too large");
  memcpy(t, in, sizeof t); set_size(&t[0], 3, 4);
  expect("in_depth", &at, t, KF_INVALID_ARGUMENT, "dwbpi.in_depth", P "input and filter must have the same in_depth");
  /* TF 2.21 checks in_depth before the output's bounds */
  memcpy(t, in, sizeof t); set_size(&t[0], 3, 4); t[2].dims[1] = t[2].dims[2] = 1; t[2].dims[3] = 2147483647;
  expect("in_depth before output depth", &at, t, KF_INVALID_ARGUMENT, "dwbpi.in_depth",
         P "input and filter must have the same in_depth");
  memcpy(t, in, sizeof t); t[1].dims[3] = 2;
  expect("out_depth", &at, t, KF_INVALID_ARGUMENT, "dwbpi.out_depth",
         P "depth_multiplier * in_depth not equal to out_depth");
  a = at; a.strides[1] = 0;
  expect("stride 0", &a, in, KF_INVALID_ARGUMENT, "dwbpi.stride_positive", "Stride must be > 0, but got 0");
  a = at; a.strides[2] = -3;
  expect("stride -3 cols", &a, in, KF_INVALID_ARGUMENT, "dwbpi.stride_positive", "Stride must be > 0, but got -3");
  a = at; a.dilations[2] = 0;
  expect("dilation 0", &a, in, KF_INVALID_ARGUMENT, "dwbpi.dilation_positive", "Dilation rate must be >= 1, but got 0");
  a = at; a.padding = KF_VALID;
  memcpy(t, in, sizeof t); t[1].dims[0] = 9; t[2].dims[1] = 0;
  expect("negative output", &a, t, KF_INVALID_ARGUMENT, "dwbpi.negative_output",
         "Computed output size would be negative: -3 [input_size: 5, effective_filter_size: 9, stride: 1]");
  a.dilations[1] = 3; /* true dilation: eff (3-1)*3+1 = 7 > 5+1 */
  expect("negative output (dilation)", &a, in, KF_INVALID_ARGUMENT, "dwbpi.negative_output",
         "Computed output size would be negative: -1 [input_size: 5, effective_filter_size: 7, stride: 1]");
  memcpy(t, in, sizeof t); t[2].dims[1] = 4;
  expect("rows mismatch", &at, t, KF_INVALID_ARGUMENT, "dwbpi.rows_mismatch",
         P "Number of rows of out_backprop doesn't match computed: actual = 4, computed = 5");
  memcpy(t, in, sizeof t); t[2].dims[2] = 7;
  expect("cols mismatch", &at, t, KF_INVALID_ARGUMENT, "dwbpi.cols_mismatch",
         P "Number of cols of out_backprop doesn't match computed: actual = 7, computed = 6");
  a = at; a.padding = KF_EXPLICIT; a.num_explicit_paddings = 8;
  for (i = 0; i < 8; i++) a.explicit_paddings[i] = 0;
  a.explicit_paddings[2] = INT64_MAX / 2; /* saturates: no overflow, a mismatch */
  expect("huge explicit padding", &a, in, KF_INVALID_ARGUMENT, "dwbpi.rows_mismatch",
         P "Number of rows of out_backprop doesn't match computed: actual = 5, computed = 9223372036854775807");
  /* element count beyond KF_MAX_ELEMENTS (where TF's allocation fails) */
  memcpy(t, in, sizeof t);
  { int64_t big[4] = { 1, 70000, 70000, 1 }; sizes_desc(&t[0], big); }
  t[1].dims[0] = t[1].dims[1] = 1; t[1].dims[2] = 1; t[1].dims[3] = 0;
  t[2].dims[1] = 70000; t[2].dims[2] = 70000; t[2].dims[3] = 0;
  expect("output element count", &at, t, KF_TOO_LARGE, "dwbpi.too_large", "Input element count too large");

  /* every rule of the spec has a negative test above */
  for (i = 0; i < KFG_RULE_COUNT; i++) {
    int j, seen = 0;
    if (strncmp(kfg_rules[i].id, "dwbpi.", 6) != 0) continue;
    for (j = 0; j < ncovered; j++)
      if (strcmp(covered[j], kfg_rules[i].id) == 0) seen = 1;
    th_check(seen, "rule %s has a negative test", kfg_rules[i].id);
  }
}

int main(void) {
  if (getenv("KFORGE_TEST_EVERY_KERNEL_ONLY")) { /* another kernel set (tests/tuning): its kernels only */
    test_every_kernel();
    return th_done();
  }
  test_negative();
  test_api();
  test_edges();
  test_selection();
  test_every_kernel();
  return th_done();
}
