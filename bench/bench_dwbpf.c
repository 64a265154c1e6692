/*
** bench_dwbpf.c -- DepthwiseConv2dNativeBackpropFilter (the depthwise
** filter gradient): kforge against oneDNN's convolution backward-weights
** primitive with groups = C (depthwise; C API, created once per thread
** count, same process) and PyTorch (bench/bench_torch_dwbpf.py's lines in
** the results file), TF SAME padding, 1 thread and all threads.
** FLOPs = 2*N*OH*OW*C*M*KH*KW.
**
** kforge is called only through the generic API (kf_op_from_name, kf_attrs_*,
** kf_plan_op with filter_sizes' values in host_data, kf_execute), so this
** file builds against a runtime that does not know the op: it then prints
** one line and skips.
**
** oneDNN: src and diff_dst are handed over in their plain layout (NHWC or
** NCHW, no reorder); diff_weights is G x M x 1 x KH x KW in the format the
** primitive prefers (format_tag any). Its reorder to TF's [KH,KW,C,M] happens
** after timing and is not timed (kforge writes TF's layout directly), which
** favours oneDNN slightly. oneDNN's scratchpad (per-thread partial weight
** sums) is library-managed.
**
** Correctness, once per shape: kforge's filter gradient against a float64
** reference computed here from the same (rounded) inputs, and against
** oneDNN's; max |a - b| / max |b| is printed. A kforge row beyond the
** dtype's tolerance is marked WRONG and left out of the geometric mean.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dnnl.h>

#include "bench.h"

extern void omp_set_num_threads(int n); /* libgomp: oneDNN's OpenMP runtime */

#define OP_NAME "DepthwiseConv2dNativeBackpropFilter"

typedef struct fcase {
  int n, h, w, c, k, s, m;
  int nchw;
  kf_dtype T;
} fcase;

/* MobileNetV2 / EfficientNet-like depthwise layers, batch 8, multiplier 1. */
static const fcase cases[] = {
  { 8, 112, 112, 32, 3, 1, 1, 0, KF_FLOAT },   { 8, 112, 112, 96, 3, 2, 1, 0, KF_FLOAT },
  { 8, 56, 56, 144, 3, 1, 1, 0, KF_FLOAT },    { 8, 28, 28, 192, 3, 1, 1, 0, KF_FLOAT },
  { 8, 14, 14, 576, 3, 1, 1, 0, KF_FLOAT },    { 8, 7, 7, 960, 3, 1, 1, 0, KF_FLOAT },
  { 8, 14, 14, 240, 5, 1, 1, 0, KF_FLOAT },    { 8, 56, 56, 144, 3, 1, 1, 1, KF_FLOAT },
  { 8, 28, 28, 192, 3, 1, 1, 1, KF_FLOAT },    { 8, 56, 56, 144, 3, 1, 1, 0, KF_BFLOAT16 },
  { 8, 28, 28, 192, 3, 1, 1, 0, KF_BFLOAT16 }, { 8, 56, 56, 144, 3, 1, 1, 0, KF_HALF },
  { 8, 28, 28, 192, 3, 1, 1, 0, KF_HALF },
};

static const char *tname(kf_dtype t) { return t == KF_BFLOAT16 ? "bf16" : t == KF_HALF ? "f16" : "f32"; }

/* max |kforge - float64| / max |float64| allowed (docs/testing.md's
   depthwise tolerances; the sums here are long, f32 gets 1e-4). */
static double tolerance(kf_dtype t) { return t == KF_BFLOAT16 ? 3e-2 : t == KF_HALF ? 5e-3 : 1e-4; }

/* The key shared with bench/bench_torch_dwbpf.py. */
static void case_key(const fcase *d, char *buf, size_t n) {
  snprintf(buf, n, "dwbpf %s %s %dx%dx%dx%d k%d s%d m%d", tname(d->T), d->nchw ? "nchw" : "nhwc", d->n, d->h, d->w,
           d->c, d->k, d->s, d->m);
}

static double val(kf_dtype t, const void *p, size_t i) {
  switch (t) {
    case KF_FLOAT: return ((const float *)p)[i];
    case KF_BFLOAT16: return kf_bfloat16_to_float(((const uint16_t *)p)[i]);
    case KF_HALF: return kf_half_to_float(((const uint16_t *)p)[i]);
    default: return 0;
  }
}

typedef struct kjob {
  kf_plan plan;
  const void *in[3];
  void *out[1];
  void *scratch;
  size_t scratch_bytes;
  kf_status status;
} kjob;

static void run_kf(void *arg) {
  kjob *j = (kjob *)arg;
  j->status = kf_execute(&j->plan, j->in, j->out, j->scratch, j->scratch_bytes, NULL);
}

typedef struct djob {
  dnnl_primitive_t prim;
  dnnl_stream_t stream;
  dnnl_engine_t eng;
  dnnl_memory_t src, dst, dwei; /* src, diff_dst, diff_weights (oneDNN's layout) */
  const dnnl_memory_desc_t *wmd;
  dnnl_data_type_t wdt;
  void *wbuf;
  char impl[64];
  int ok;
} djob;

static void run_dnnl(void *arg) {
  djob *j = (djob *)arg;
  dnnl_exec_arg_t args[3] = { { DNNL_ARG_SRC, j->src }, { DNNL_ARG_DIFF_DST, j->dst },
                              { DNNL_ARG_DIFF_WEIGHTS, j->dwei } };
  dnnl_primitive_execute(j->prim, j->stream, 3, args);
  dnnl_stream_wait(j->stream);
}

#define DN(call) \
  do { \
    if ((call) != dnnl_success) goto fail; \
  } while (0)

/* oneDNN backward-weights primitive for d, diff_weights of dtype wdt. */
static int dnnl_setup_dt(dnnl_engine_t eng, const fcase *d, int oh, int ow, int pt, int pl, void *x, void *dy,
                         dnnl_data_type_t wdt, djob *j) {
  const dnnl_data_type_t dt = d->T == KF_BFLOAT16 ? dnnl_bf16 : d->T == KF_HALF ? dnnl_f16 : dnnl_f32;
  const dnnl_format_tag_t act = d->nchw ? dnnl_nchw : dnnl_nhwc;
  dnnl_dims_t src_dims = { d->n, d->c, d->h, d->w }, dst_dims = { d->n, (dnnl_dim_t)d->c * d->m, oh, ow };
  dnnl_dims_t wdims = { d->c, d->m, 1, d->k, d->k }, strides = { d->s, d->s };
  dnnl_dims_t padl = { pt, pl }, padr = { (oh - 1) * d->s + d->k - d->h - pt, (ow - 1) * d->s + d->k - d->w - pl };
  dnnl_memory_desc_t src_md, dst_md, w_any, dw_any;
  dnnl_convolution_desc_t fd, bd;
  dnnl_primitive_desc_t fpd = NULL, bpd = NULL;
  const char *impl = NULL;
  memset(j, 0, sizeof *j);
  j->eng = eng;
  j->wdt = wdt;
  DN(dnnl_memory_desc_init_by_tag(&src_md, 4, src_dims, dt, act));
  DN(dnnl_memory_desc_init_by_tag(&dst_md, 4, dst_dims, dt, act));
  DN(dnnl_memory_desc_init_by_tag(&w_any, 5, wdims, dt, dnnl_format_tag_any));
  DN(dnnl_memory_desc_init_by_tag(&dw_any, 5, wdims, wdt, dnnl_format_tag_any));
  DN(dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training, dnnl_convolution_direct, &src_md, &w_any, NULL,
                                        &dst_md, strides, padl, padr));
  DN(dnnl_primitive_desc_create(&fpd, &fd, NULL, eng, NULL));
  DN(dnnl_convolution_backward_weights_desc_init(&bd, dnnl_convolution_direct, &src_md, &dw_any, NULL, &dst_md,
                                                 strides, padl, padr));
  DN(dnnl_primitive_desc_create(&bpd, &bd, NULL, eng, fpd));
  DN(dnnl_primitive_create(&j->prim, bpd));
  DN(dnnl_stream_create(&j->stream, eng, dnnl_stream_default_flags));
  if (dnnl_primitive_desc_query(bpd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl)
    snprintf(j->impl, sizeof j->impl, "%s", impl);
  j->wmd = dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_weights_md, 0);
  j->wbuf = bench_alloc(dnnl_memory_desc_get_size(j->wmd) + 64);
  DN(dnnl_memory_create(&j->dwei, j->wmd, eng, j->wbuf));
  j->wmd = NULL; /* the pd is destroyed below: query the memory from now on */
  DN(dnnl_memory_create(&j->src, &src_md, eng, x));
  DN(dnnl_memory_create(&j->dst, &dst_md, eng, dy));
  dnnl_primitive_desc_destroy(fpd);
  dnnl_primitive_desc_destroy(bpd);
  j->ok = 1;
  return 1;
fail:
  if (fpd) dnnl_primitive_desc_destroy(fpd);
  if (bpd) dnnl_primitive_desc_destroy(bpd);
  return 0;
}

static void dnnl_teardown(djob *j) {
  if (j->prim) dnnl_primitive_destroy(j->prim);
  if (j->stream) dnnl_stream_destroy(j->stream);
  if (j->src) dnnl_memory_destroy(j->src);
  if (j->dst) dnnl_memory_destroy(j->dst);
  if (j->dwei) dnnl_memory_destroy(j->dwei);
  if (j->wbuf) bench_free(j->wbuf);
  memset(j, 0, sizeof *j);
}

/* diff_weights in T if oneDNN has it, else in f32 (more accurate, same work). */
static int dnnl_setup(dnnl_engine_t eng, const fcase *d, int oh, int ow, int pt, int pl, void *x, void *dy, djob *j) {
  const dnnl_data_type_t dt = d->T == KF_BFLOAT16 ? dnnl_bf16 : d->T == KF_HALF ? dnnl_f16 : dnnl_f32;
  if (dnnl_setup_dt(eng, d, oh, ow, pt, pl, x, dy, dt, j)) return 1;
  dnnl_teardown(j);
  if (dt != dnnl_f32 && dnnl_setup_dt(eng, d, oh, ow, pt, pl, x, dy, dnnl_f32, j)) return 1;
  dnnl_teardown(j);
  return 0;
}

/* oneDNN's diff_weights reordered (untimed) to goihw f32, then to TF's
   [KH,KW,C,M] as double; 0 on failure. */
static int dnnl_weights_tf(const fcase *d, djob *j, double *out) {
  dnnl_dims_t wdims = { d->c, d->m, 1, d->k, d->k };
  dnnl_memory_desc_t plain;
  const dnnl_memory_desc_t *wmd = NULL;
  dnnl_primitive_desc_t rpd = NULL;
  dnnl_primitive_t reorder = NULL;
  dnnl_memory_t pm = NULL;
  size_t nf = (size_t)d->k * d->k * d->c * d->m;
  float *buf = bench_alloc(nf * sizeof(float));
  int ok = 0, ky, kx, c, m;
  if (dnnl_memory_desc_init_by_tag(&plain, 5, wdims, dnnl_f32, dnnl_goihw) != dnnl_success) goto done;
  if (dnnl_memory_get_memory_desc(j->dwei, &wmd) != dnnl_success) goto done;
  if (dnnl_memory_create(&pm, &plain, j->eng, buf) != dnnl_success) goto done;
  if (dnnl_reorder_primitive_desc_create(&rpd, wmd, j->eng, &plain, j->eng, NULL) != dnnl_success) goto done;
  if (dnnl_primitive_create(&reorder, rpd) != dnnl_success) goto done;
  {
    dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, j->dwei }, { DNNL_ARG_TO, pm } };
    if (dnnl_primitive_execute(reorder, j->stream, 2, args) != dnnl_success) goto done;
    dnnl_stream_wait(j->stream);
  }
  for (ky = 0; ky < d->k; ky++)
    for (kx = 0; kx < d->k; kx++)
      for (c = 0; c < d->c; c++)
        for (m = 0; m < d->m; m++)
          out[((size_t)(ky * d->k + kx) * d->c + c) * d->m + m] =
            buf[(((size_t)c * d->m + m) * d->k + ky) * d->k + kx];
  ok = 1;
done:
  if (reorder) dnnl_primitive_destroy(reorder);
  if (rpd) dnnl_primitive_desc_destroy(rpd);
  if (pm) dnnl_memory_destroy(pm);
  bench_free(buf);
  return ok;
}

/* The filter gradient in float64, TF layout [KH,KW,C,M]. */
static void reference(const fcase *d, int oh, int ow, int pt, int pl, const void *x, const void *dy, double *out) {
  const int C = d->c, M = d->m, K = d->k;
  size_t nf = (size_t)K * K * C * M;
  double *xs = malloc((size_t)C * sizeof *xs);
  int n, oy, ox, ky, kx, c, m;
  if (!xs) exit(1);
  memset(out, 0, nf * sizeof *out);
  for (n = 0; n < d->n; n++)
    for (oy = 0; oy < oh; oy++)
      for (ox = 0; ox < ow; ox++)
        for (ky = 0; ky < K; ky++) {
          int iy = oy * d->s - pt + ky;
          if (iy < 0 || iy >= d->h) continue;
          for (kx = 0; kx < K; kx++) {
            int ix = ox * d->s - pl + kx;
            double *o = out + (size_t)(ky * K + kx) * C * M;
            if (ix < 0 || ix >= d->w) continue;
            for (c = 0; c < C; c++)
              xs[c] = val(d->T, x, d->nchw ? (((size_t)n * C + c) * d->h + iy) * d->w + ix
                                           : (((size_t)n * d->h + iy) * d->w + ix) * C + c);
            for (c = 0; c < C; c++)
              for (m = 0; m < M; m++) {
                size_t g = d->nchw ? (((size_t)n * C * M + (size_t)c * M + m) * oh + oy) * ow + ox
                                   : (((size_t)n * oh + oy) * ow + ox) * C * M + (size_t)c * M + m;
                o[(size_t)c * M + m] += xs[c] * val(d->T, dy, g);
              }
          }
        }
  free(xs);
}

/* max |a - b| / max |b| */
static double rel_diff(const double *a, const double *b, size_t n) {
  double mx = 0, md = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    if (fabs(b[i]) > mx) mx = fabs(b[i]);
    if (!(fabs(a[i] - b[i]) <= md)) md = fabs(a[i] - b[i]); /* NaN counts */
  }
  return mx > 0 ? md / mx : md;
}

static void fmt_ms(char *b, size_t n, double ms) {
  if (ms < 0) snprintf(b, n, "-");
  else snprintf(b, n, "%.3f", ms);
}

/* The op's input index of name, or -1. */
static int input_index(kf_op op, const char *name) {
  int i;
  for (i = 0; i < kf_op_num_inputs(op); i++)
    if (kf_op_input_name(op, i) && strcmp(kf_op_input_name(op, i), name) == 0) return i;
  return -1;
}

void bench_dwbpf(bench_ctx *ctx) {
  const kf_op op = kf_op_from_name(OP_NAME);
  dnnl_engine_t eng = NULL;
  size_t ci;
  int have_dnnl, ln = 0, lnn = 0, rows1 = 0, ix_in, ix_fs, ix_dy;
  double lsum = 0, lsumn = 0;
  bench_plan_targets plan_t;
  bench_misses miss1; /* f32 rows, NHWC and NCHW, behind the faster library at 1T */
  memset(&plan_t, 0, sizeof plan_t);
  memset(&miss1, 0, sizeof miss1);
  bench_printf(ctx, "\n## " OP_NAME " (TF SAME; median ms of %d calls; %d threads = all)\n\n", ctx->reps,
               ctx->all_threads);
  if (op == KF_OP_INVALID) {
    bench_printf(ctx, "(skipped: this kforge build does not know the op " OP_NAME ")\n\n");
    return;
  }
  ix_in = input_index(op, "input");
  ix_fs = input_index(op, "filter_sizes");
  ix_dy = input_index(op, "out_backprop");
  if (kf_op_num_inputs(op) != 3 || ix_in < 0 || ix_fs < 0 || ix_dy < 0) {
    bench_printf(ctx, "(skipped: " OP_NAME " does not have the inputs input, filter_sizes, out_backprop)\n\n");
    return;
  }
  have_dnnl = dnnl_engine_create(&eng, dnnl_cpu, 0) == dnnl_success;
  bench_printf(ctx, "oneDNN: src and diff_dst plain (no reorder), diff_weights in the primitive's preferred "
               "format; its reorder to TF's [KH,KW,C,M] is NOT timed (kforge writes TF's layout). "
               "\"rel diff\" = max|a - b| / max|b| against a float64 reference and against oneDNN.\n\n");
  bench_printf(ctx, "| case | kforge 1T | oneDNN 1T | torch 1T | best lib 1T | speedup 1T | kf GFLOP/s 1T | kforge %dT | "
               "oneDNN %dT | torch %dT | speedup %dT | kf GFLOP/s %dT | rel diff vs f64 | rel diff vs oneDNN | "
               "kernel | oneDNN impl | measured plan 1T | measured/rule | measured choices |\n",
               ctx->all_threads, ctx->all_threads, ctx->all_threads, ctx->all_threads, ctx->all_threads);
  bench_printf(ctx, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    const fcase *d = &cases[ci];
    char key[96], sbuf[64], c1[5][32], cn[5][32], cm[2][32], r64[40], rdn[40], chosen[256];
    int oh = (d->h + d->s - 1) / d->s, ow = (d->w + d->s - 1) / d->s;
    int pt = ((oh - 1) * d->s + d->k - d->h) / 2, pl = ((ow - 1) * d->s + d->k - d->w) / 2;
    size_t es = kf_dtype_size(d->T), nf = (size_t)d->k * d->k * d->c * d->m,
           ng = (size_t)d->n * oh * ow * d->c * d->m, nx = (size_t)d->n * d->h * d->w * d->c, i;
    int32_t fsizes[4] = { d->k, d->k, d->c, d->m };
    kf_tensor_desc in[3];
    const kf_tensor_desc *od;
    kf_attrs at;
    kf_plan_options o1, on;
    kf_error err;
    kjob k1, kn, km;
    djob dj, djn;
    void *x, *g, *fw;
    double *ref, *got, *dn, flops = 2.0 * d->n * oh * ow * d->c * d->m * d->k * d->k, e64 = -1, edn = -1;
    double tt1, ttn, best1, bestn, noise;
    bench_row row;
    bench_stats tk1, tkn, tkm, td1, tdn; /* from row */
    int wrong;
    case_key(d, key, sizeof key);
    if (!bench_selected(ctx, key)) continue;
    memset(&err, 0, sizeof err);
    kf_attrs_init(op, &at);
    at.T = d->T;
    snprintf(sbuf, sizeof sbuf, d->nchw ? "1,1,%d,%d" : "1,%d,%d,1", d->s, d->s);
    if (kf_attrs_set(op, &at, "strides", sbuf, &err) != KF_OK ||
        kf_attrs_set(op, &at, "padding", "SAME", &err) != KF_OK ||
        kf_attrs_set(op, &at, "data_format", d->nchw ? "NCHW" : "NHWC", &err) != KF_OK) {
      bench_printf(ctx, "| %s | attrs rejected: %s |\n", key + 6, err.message);
      continue;
    }
    memset(in, 0, sizeof in);
    in[ix_in].dtype = d->T, in[ix_in].rank = 4, in[ix_in].dims[0] = d->n;
    if (d->nchw) in[ix_in].dims[1] = d->c, in[ix_in].dims[2] = d->h, in[ix_in].dims[3] = d->w;
    else in[ix_in].dims[1] = d->h, in[ix_in].dims[2] = d->w, in[ix_in].dims[3] = d->c;
    in[ix_fs].dtype = KF_INT32, in[ix_fs].rank = 1, in[ix_fs].dims[0] = 4, in[ix_fs].host_data = fsizes;
    in[ix_dy].dtype = d->T, in[ix_dy].rank = 4, in[ix_dy].dims[0] = d->n;
    if (d->nchw) in[ix_dy].dims[1] = d->c * d->m, in[ix_dy].dims[2] = oh, in[ix_dy].dims[3] = ow;
    else in[ix_dy].dims[1] = oh, in[ix_dy].dims[2] = ow, in[ix_dy].dims[3] = d->c * d->m;
    memset(&o1, 0, sizeof o1);
    o1.measure = KF_PLAN_RULE; /* the rule's plans, whatever KFORGE_WISDOM holds */
    on = o1;
    on.threads = ctx->pool;
    if (kf_plan_op(&k1.plan, op, &at, in, 3, &o1, &err) != KF_OK ||
        kf_plan_op(&kn.plan, op, &at, in, 3, &on, &err) != KF_OK) {
      bench_printf(ctx, "| %s | plan failed: %s (rule %s) |\n", key + 6, err.message, err.rule ? err.rule : "");
      continue;
    }
    od = kf_plan_num_outputs(&k1.plan) == 1 ? kf_plan_output_desc(&k1.plan, 0) : NULL;
    if (!od || od->dtype != d->T || od->rank != 4 || od->dims[0] != d->k || od->dims[1] != d->k ||
        od->dims[2] != d->c || od->dims[3] != d->m) {
      bench_printf(ctx, "| %s | the plan's output is not [%d,%d,%d,%d] %s |\n", key + 6, d->k, d->k, d->c, d->m,
                   tname(d->T));
      continue;
    }
    x = bench_alloc(nx * es);
    g = bench_alloc(ng * es);
    fw = bench_alloc(nf * es);
    ref = bench_alloc(nf * sizeof *ref);
    got = bench_alloc(nf * sizeof *got);
    dn = bench_alloc(nf * sizeof *dn);
    if (d->T == KF_FLOAT) {
      bench_fill_f32(x, nx, 1u + (unsigned)ci, -1, 1);
      bench_fill_f32(g, ng, 100u + (unsigned)ci, -1, 1);
    } else {
      bench_fill_u16(x, nx, 1u + (unsigned)ci, -1, 1, d->T);
      bench_fill_u16(g, ng, 100u + (unsigned)ci, -1, 1, d->T);
    }
    k1.scratch_bytes = kf_plan_scratch_bytes(&k1.plan);
    kn.scratch_bytes = kf_plan_scratch_bytes(&kn.plan);
    k1.scratch = k1.scratch_bytes ? bench_alloc(k1.scratch_bytes) : NULL;
    kn.scratch = kn.scratch_bytes ? bench_alloc(kn.scratch_bytes) : NULL;
    k1.in[ix_in] = kn.in[ix_in] = x, k1.in[ix_fs] = kn.in[ix_fs] = fsizes, k1.in[ix_dy] = kn.in[ix_dy] = g;
    k1.out[0] = kn.out[0] = fw;
    { /* the measured plan (docs/tuning.md), 1 thread, timed on these very buffers */
      const void *bufs[4];
      bufs[ix_in] = x, bufs[ix_fs] = fsizes, bufs[ix_dy] = g, bufs[3] = fw;
      o1.measure = KF_PLAN_MEASURE;
      o1.buffers = bufs;
      km = k1;
      if (kf_plan_op(&km.plan, op, &at, in, 3, &o1, &err) != KF_OK) km.plan = k1.plan;
      km.scratch_bytes = kf_plan_scratch_bytes(&km.plan);
      km.scratch = km.scratch_bytes ? bench_alloc(km.scratch_bytes) : NULL;
    }
    /* oneDNN fixes a primitive's thread count when it is created: one
       primitive per thread count, each created under its own setting */
    memset(&dj, 0, sizeof dj);
    memset(&djn, 0, sizeof djn);
    omp_set_num_threads(1);
    if (have_dnnl) dnnl_setup(eng, d, oh, ow, pt, pl, x, g, &dj);
    omp_set_num_threads(ctx->all_threads);
    if (dj.ok) dnnl_setup(eng, d, oh, ow, pt, pl, x, g, &djn);
    omp_set_num_threads(1);

    bench_time_row(ctx, key, run_kf, &k1, &km, &kn, run_dnnl, dj.ok ? &dj : NULL, djn.ok ? &djn : NULL, &row);
    tk1 = row.k1, tkm = row.km, td1 = row.d1, tkn = row.kn, tdn = row.dn, noise = row.noise;

    /* correctness, untimed: kforge's last (all-thread) result; results
       are bitwise identical for any thread count by kforge's contract */
    reference(d, oh, ow, pt, pl, x, g, ref);
    for (i = 0; i < nf; i++) got[i] = val(d->T, fw, i);
    e64 = rel_diff(got, ref, nf);
    if (djn.ok && dnnl_weights_tf(d, &djn, dn)) edn = rel_diff(got, dn, nf);
    wrong = k1.status != KF_OK || kn.status != KF_OK || km.status != KF_OK || !(e64 <= tolerance(d->T));

    tt1 = row.t1;
    ttn = row.tn;
    best1 = td1.median_ms;
    if (tt1 > 0 && (best1 < 0 || tt1 < best1)) best1 = tt1;
    bestn = tdn.median_ms;
    if (ttn > 0 && (bestn < 0 || ttn < bestn)) bestn = ttn;
    if (!wrong && !d->nchw && d->T == KF_FLOAT) {
      if (best1 > 0) lsum += log(best1 / tk1.median_ms), ln++;
      if (bestn > 0) lsumn += log(bestn / tkn.median_ms), lnn++;
    }
    if (!wrong && d->T == KF_FLOAT && best1 > 0) { /* issue 26: every f32 row ahead at 1T, both layouts */
      rows1++;
      if (best1 < tk1.median_ms) bench_miss(&miss1, "%s %.2fx", key + 6, best1 / tk1.median_ms);
    }
    fmt_ms(c1[0], 32, tk1.median_ms);
    fmt_ms(c1[1], 32, td1.median_ms);
    fmt_ms(c1[2], 32, tt1);
    fmt_ms(c1[3], 32, best1);
    if (best1 > 0) snprintf(c1[4], 32, "%.2fx", best1 / tk1.median_ms);
    else snprintf(c1[4], 32, "-");
    fmt_ms(cn[0], 32, tkn.median_ms);
    fmt_ms(cn[1], 32, tdn.median_ms);
    fmt_ms(cn[2], 32, ttn);
    if (bestn > 0) snprintf(cn[3], 32, "%.2fx", bestn / tkn.median_ms);
    else snprintf(cn[3], 32, "-");
    if (!wrong) bench_plan_row(&plan_t, key + 6, tk1, tkm, noise, bench_same_plan(&k1.plan, &km.plan));
    fmt_ms(cm[0], 32, tkm.median_ms);
    snprintf(cm[1], 32, "%.2f", tkm.median_ms / tk1.median_ms);
    snprintf(r64, sizeof r64, "%.1e%s", e64, wrong ? " WRONG" : "");
    if (edn < 0) snprintf(rdn, sizeof rdn, "-");
    else snprintf(rdn, sizeof rdn, "%.1e%s", edn, djn.wdt == dnnl_f32 && d->T != KF_FLOAT ? " (oneDNN f32 out)" : "");
    bench_printf(ctx, "| %s | %s | %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %s |\n",
                 key + 6, c1[0], c1[1], c1[2], c1[3], c1[4], flops / tk1.median_ms * 1e-6, cn[0], cn[1], cn[2],
                 cn[3], flops / tkn.median_ms * 1e-6, r64, rdn, kf_plan_kernel_name(&k1.plan),
                 dj.ok ? dj.impl : have_dnnl ? "(no primitive)" : "(no engine)", cm[0], cm[1],
                 kf_plan_choices(&km.plan, chosen, sizeof chosen));
    dnnl_teardown(&dj);
    dnnl_teardown(&djn);
    if (k1.scratch) bench_free(k1.scratch);
    if (kn.scratch) bench_free(kn.scratch);
    if (km.scratch) bench_free(km.scratch);
    bench_free(x), bench_free(g), bench_free(fw), bench_free(ref), bench_free(got), bench_free(dn);
  }
  if (ln > 0 || lnn > 0)
    bench_printf(ctx, "\nf32 NHWC: geometric-mean speedup over the faster library: 1T %.2fx (%d shapes; target 1.3x), "
                 "%dT %.2fx (%d shapes); > 1 means kforge is faster\n",
                 ln ? exp(lsum / ln) : 0.0, ln, ctx->all_threads, lnn ? exp(lsumn / lnn) : 0.0, lnn);
  if (rows1 > 0) bench_print_misses(ctx, &miss1, "f32 NHWC and NCHW, 1T: ahead of the faster library", rows1);
  bench_print_plan_targets(ctx, &plan_t);
  bench_printf(ctx, "\n");
  if (eng) dnnl_engine_destroy(eng);
}
