/*
** bench_dwbpi.c -- DepthwiseConv2dNativeBackpropInput: kforge against
** oneDNN's convolution backward-data primitive with groups = C (depthwise;
** C API, created once, same process, weights reordered once untimed) and
** PyTorch (bench/bench_torch_dwbpi.py's lines in the results file), TF SAME
** padding, 1 thread and all threads. FLOPs = 2*N*OH*OW*C*M*KH*KW.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "bench.h"

extern void omp_set_num_threads(int n); /* libgomp: oneDNN's OpenMP runtime */

#define OP KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT

typedef struct dcase {
  int n, h, w, c, k, s, m;
  int nchw;
  kf_dtype T;
} dcase;

static const dcase cases[] = {
  { 8, 112, 112, 32, 3, 1, 1, 0, KF_FLOAT },  { 8, 112, 112, 96, 3, 2, 1, 0, KF_FLOAT },
  { 8, 56, 56, 144, 3, 1, 1, 0, KF_FLOAT },   { 8, 28, 28, 192, 3, 1, 1, 0, KF_FLOAT },
  { 8, 14, 14, 576, 3, 1, 1, 0, KF_FLOAT },   { 8, 7, 7, 960, 3, 1, 1, 0, KF_FLOAT },
  { 8, 28, 28, 240, 5, 1, 1, 0, KF_FLOAT },   { 8, 56, 56, 32, 3, 1, 2, 0, KF_FLOAT },
  { 8, 56, 56, 144, 3, 1, 1, 1, KF_FLOAT },   { 8, 28, 28, 192, 3, 1, 1, 1, KF_FLOAT },
  { 8, 56, 56, 144, 3, 1, 1, 0, KF_BFLOAT16 }, { 8, 28, 28, 192, 3, 1, 1, 0, KF_BFLOAT16 },
};

static const char *tname(kf_dtype t) { return t == KF_BFLOAT16 ? "bf16" : "f32"; }

/* The key shared with bench/bench_torch_dwbpi.py. */
static void case_key(const dcase *d, char *buf, size_t n) {
  snprintf(buf, n, "dwbpi %s %s %dx%dx%dx%d k%d s%d m%d", tname(d->T), d->nchw ? "nchw" : "nhwc", d->n, d->h, d->w,
           d->c, d->k, d->s, d->m);
}

typedef struct kjob {
  kf_plan plan;
  const void *in[3];
  void *out[1];
} kjob;

static void run_kf(void *arg) {
  kjob *j = (kjob *)arg;
  kf_execute(&j->plan, j->in, j->out, NULL, 0, NULL);
}

typedef struct djob {
  dnnl_primitive_t prim;
  dnnl_stream_t stream;
  dnnl_memory_t dst, wei, src; /* diff_dst, weights (oneDNN's layout), diff_src */
  void *wbuf;
  int ok;
} djob;

static void run_dnnl(void *arg) {
  djob *j = (djob *)arg;
  dnnl_exec_arg_t args[3] = { { DNNL_ARG_DIFF_DST, j->dst }, { DNNL_ARG_WEIGHTS, j->wei }, { DNNL_ARG_DIFF_SRC, j->src } };
  dnnl_primitive_execute(j->prim, j->stream, 3, args);
  dnnl_stream_wait(j->stream);
}

#define DN(call) \
  do { \
    if ((call) != dnnl_success) return 0; \
  } while (0)

/* oneDNN backward-data primitive for d; the TF filter [KH,KW,C,M] is copied
   to goihw and reordered once to the primitive's layout (untimed). */
static int dnnl_setup(dnnl_engine_t eng, const dcase *d, int oh, int ow, int pt, int pl, const void *filter, void *dy,
                      void *dx, djob *j) {
  const dnnl_data_type_t dt = d->T == KF_BFLOAT16 ? dnnl_bf16 : dnnl_f32;
  const dnnl_format_tag_t act = d->nchw ? dnnl_nchw : dnnl_nhwc;
  dnnl_dims_t src_dims = { d->n, d->c, d->h, d->w }, dst_dims = { d->n, (dnnl_dim_t)d->c * d->m, oh, ow };
  dnnl_dims_t wdims = { d->c, d->m, 1, d->k, d->k }, strides = { d->s, d->s };
  dnnl_dims_t padl = { pt, pl }, padr = { (oh - 1) * d->s + d->k - d->h - pt, (ow - 1) * d->s + d->k - d->w - pl };
  dnnl_memory_desc_t src_md, dst_md, w_any, w_plain;
  dnnl_convolution_desc_t fd, bd;
  dnnl_primitive_desc_t fpd, bpd, rpd;
  dnnl_primitive_t reorder;
  dnnl_memory_t wplain;
  const dnnl_memory_desc_t *wmd;
  size_t es = d->T == KF_BFLOAT16 ? 2 : 4, i;
  int ky, kx, c, m;
  unsigned char *wp;
  memset(j, 0, sizeof *j);
  DN(dnnl_memory_desc_init_by_tag(&src_md, 4, src_dims, dt, act));
  DN(dnnl_memory_desc_init_by_tag(&dst_md, 4, dst_dims, dt, act));
  DN(dnnl_memory_desc_init_by_tag(&w_any, 5, wdims, dt, dnnl_format_tag_any));
  DN(dnnl_memory_desc_init_by_tag(&w_plain, 5, wdims, dt, dnnl_goihw));
  DN(dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training, dnnl_convolution_direct, &src_md, &w_any, NULL,
                                        &dst_md, strides, padl, padr));
  DN(dnnl_primitive_desc_create(&fpd, &fd, NULL, eng, NULL));
  DN(dnnl_convolution_backward_data_desc_init(&bd, dnnl_convolution_direct, &src_md, &w_any, &dst_md, strides, padl,
                                              padr));
  DN(dnnl_primitive_desc_create(&bpd, &bd, NULL, eng, fpd));
  DN(dnnl_primitive_create(&j->prim, bpd));
  DN(dnnl_stream_create(&j->stream, eng, dnnl_stream_default_flags));
  wmd = dnnl_primitive_desc_query_md(bpd, dnnl_query_weights_md, 0);
  j->wbuf = bench_alloc(dnnl_memory_desc_get_size(wmd) + 64);
  DN(dnnl_memory_create(&j->wei, wmd, eng, j->wbuf));
  DN(dnnl_memory_create(&j->src, &src_md, eng, dx));
  DN(dnnl_memory_create(&j->dst, &dst_md, eng, dy));
  /* goihw copy of the TF filter, then reorder */
  wp = bench_alloc((size_t)d->k * d->k * d->c * d->m * es);
  for (ky = 0; ky < d->k; ky++)
    for (kx = 0; kx < d->k; kx++)
      for (c = 0; c < d->c; c++)
        for (m = 0; m < d->m; m++) {
          i = (size_t)((ky * d->k + kx) * d->c + c) * d->m + m;
          memcpy(wp + ((((size_t)c * d->m + m) * d->k + ky) * d->k + kx) * es, (const unsigned char *)filter + i * es, es);
        }
  DN(dnnl_memory_create(&wplain, &w_plain, eng, wp));
  DN(dnnl_reorder_primitive_desc_create(&rpd, &w_plain, eng, wmd, eng, NULL));
  DN(dnnl_primitive_create(&reorder, rpd));
  {
    dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, wplain }, { DNNL_ARG_TO, j->wei } };
    DN(dnnl_primitive_execute(reorder, j->stream, 2, args));
    DN(dnnl_stream_wait(j->stream));
  }
  dnnl_primitive_destroy(reorder);
  dnnl_primitive_desc_destroy(rpd);
  dnnl_memory_destroy(wplain);
  bench_free(wp);
  dnnl_primitive_desc_destroy(fpd);
  dnnl_primitive_desc_destroy(bpd);
  j->ok = 1;
  return 1;
}

static void dnnl_teardown(djob *j) {
  if (j->prim) dnnl_primitive_destroy(j->prim);
  if (j->stream) dnnl_stream_destroy(j->stream);
  if (j->wei) dnnl_memory_destroy(j->wei);
  if (j->src) dnnl_memory_destroy(j->src);
  if (j->dst) dnnl_memory_destroy(j->dst);
  if (j->wbuf) bench_free(j->wbuf);
}

static void fmt_ms(char *b, size_t n, double ms) {
  if (ms < 0) snprintf(b, n, "-");
  else snprintf(b, n, "%.3f", ms);
}

static double val(kf_dtype t, const void *p, size_t i) {
  return t == KF_FLOAT ? ((const float *)p)[i] : kf_bfloat16_to_float(((const uint16_t *)p)[i]);
}

void bench_dwbpi(bench_ctx *ctx) {
  dnnl_engine_t eng = NULL;
  size_t ci;
  int have_dnnl = dnnl_engine_create(&eng, dnnl_cpu, 0) == dnnl_success;
  double lsum = 0, lsum_dm2 = 0, lsum_m1 = 0;
  int ln = 0, ln_m1 = 0, rows_n = 0, have_dm2 = 0;
  bench_misses miss1, missn; /* f32 NHWC multiplier 1 at 1T; shapes above 1 MB at all threads */
  bench_plan_targets plan_t;
  memset(&plan_t, 0, sizeof plan_t);
  memset(&miss1, 0, sizeof miss1);
  memset(&missn, 0, sizeof missn);
  bench_printf(ctx, "\n## DepthwiseConv2dNativeBackpropInput (TF SAME; median ms of %d calls; %d threads = all)\n\n",
               ctx->reps, ctx->all_threads);
  bench_printf(ctx, "| case | kforge 1T | oneDNN 1T | torch 1T | best lib 1T | speedup 1T | kf GFLOP/s 1T | kforge %dT | "
               "oneDNN %dT | torch %dT | kf %dT/1T | max rel diff vs oneDNN | kernel | measured plan 1T | measured/rule | measured choices |\n",
               ctx->all_threads, ctx->all_threads, ctx->all_threads, ctx->all_threads);
  bench_printf(ctx, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    const dcase *d = &cases[ci];
    char key[96], sbuf[64], c1[5][32], cn[4][32], cm[2][32], chosen[256];
    int oh = (d->h + d->s - 1) / d->s, ow = (d->w + d->s - 1) / d->s;
    int pt = ((oh - 1) * d->s + d->k - d->h) / 2, pl = ((ow - 1) * d->s + d->k - d->w) / 2;
    size_t es = kf_dtype_size(d->T), nf = (size_t)d->k * d->k * d->c * d->m,
           ng = (size_t)d->n * oh * ow * d->c * d->m, nx = (size_t)d->n * d->h * d->w * d->c, i;
    int32_t sizes[4];
    kf_tensor_desc in[3];
    kf_attrs at;
    kf_plan_options o1, on;
    kf_error err;
    kjob k1, kn, km;
    djob dj, djn;
    void *f, *g, *x, *xd, *xm;
    bench_row row;
    bench_stats tk1, tkn, tkm, td1, tdn; /* from row */
    double noise, tt1, ttn, best, flops = 2.0 * d->n * oh * ow * d->c * d->m * d->k * d->k, diff = -1;
    case_key(d, key, sizeof key);
    if (!bench_selected(ctx, key)) continue;
    kf_attrs_init(OP, &at);
    at.T = d->T;
    snprintf(sbuf, sizeof sbuf, d->nchw ? "1,1,%d,%d" : "1,%d,%d,1", d->s, d->s);
    kf_attrs_set(OP, &at, "strides", sbuf, NULL);
    kf_attrs_set(OP, &at, "padding", "SAME", NULL);
    kf_attrs_set(OP, &at, "data_format", d->nchw ? "NCHW" : "NHWC", NULL);
    sizes[0] = d->n;
    if (d->nchw) sizes[1] = d->c, sizes[2] = d->h, sizes[3] = d->w;
    else sizes[1] = d->h, sizes[2] = d->w, sizes[3] = d->c;
    memset(in, 0, sizeof in);
    in[0].dtype = KF_INT32, in[0].rank = 1, in[0].dims[0] = 4, in[0].host_data = sizes;
    in[1].dtype = d->T, in[1].rank = 4, in[1].dims[0] = d->k, in[1].dims[1] = d->k, in[1].dims[2] = d->c,
    in[1].dims[3] = d->m;
    in[2].dtype = d->T, in[2].rank = 4, in[2].dims[0] = d->n;
    if (d->nchw) in[2].dims[1] = d->c * d->m, in[2].dims[2] = oh, in[2].dims[3] = ow;
    else in[2].dims[1] = oh, in[2].dims[2] = ow, in[2].dims[3] = d->c * d->m;
    f = bench_alloc(nf * es);
    g = bench_alloc(ng * es);
    x = bench_alloc(nx * es);
    xd = bench_alloc(nx * es);
    xm = bench_alloc(nx * es); /* the measured plan's own: a plan that streams must not evict the rule's dx */
    if (d->T == KF_FLOAT) {
      bench_fill_f32(f, nf, 1u + (unsigned)ci, -1, 1);
      bench_fill_f32(g, ng, 100u + (unsigned)ci, -1, 1);
    } else {
      bench_fill_u16(f, nf, 1u + (unsigned)ci, -1, 1, d->T);
      bench_fill_u16(g, ng, 100u + (unsigned)ci, -1, 1, d->T);
    }
    memset(&o1, 0, sizeof o1);
    o1.measure = KF_PLAN_RULE; /* the rule's plans, whatever KFORGE_WISDOM holds */
    on = o1;
    on.threads = ctx->pool;
    if (kf_plan_op(&k1.plan, OP, &at, in, 3, &o1, &err) != KF_OK ||
        kf_plan_op(&kn.plan, OP, &at, in, 3, &on, &err) != KF_OK || kf_plan_scratch_bytes(&k1.plan) != 0) {
      bench_printf(ctx, "| %s | plan failed or needs scratch: %s | |\n", key, err.message);
      bench_free(f), bench_free(g), bench_free(x), bench_free(xd), bench_free(xm);
      continue;
    }
    k1.in[0] = kn.in[0] = sizes, k1.in[1] = kn.in[1] = f, k1.in[2] = kn.in[2] = g;
    k1.out[0] = kn.out[0] = x;
    { /* the measured plan (docs/tuning.md), 1 thread, timed on these very buffers */
      const void *bufs[4] = { sizes, f, g, xm };
      o1.measure = KF_PLAN_MEASURE;
      o1.buffers = bufs;
      km = k1;
      km.out[0] = xm;
      if (kf_plan_op(&km.plan, OP, &at, in, 3, &o1, &err) != KF_OK || kf_plan_scratch_bytes(&km.plan) != 0) km = k1;
    }
    memset(&dj, 0, sizeof dj);
    memset(&djn, 0, sizeof djn);
    /* oneDNN fixes a primitive's thread count when it is created: one
       primitive per thread count, each created under its own setting */
    omp_set_num_threads(1);
    if (have_dnnl && !dnnl_setup(eng, d, oh, ow, pt, pl, f, g, xd, &dj)) dj.ok = 0;
    omp_set_num_threads(ctx->all_threads);
    if (dj.ok && !dnnl_setup(eng, d, oh, ow, pt, pl, f, g, xd, &djn)) djn.ok = 0;
    omp_set_num_threads(1);

    bench_time_row(ctx, key, run_kf, &k1, &km, &kn, run_dnnl, dj.ok ? &dj : NULL, djn.ok ? &djn : NULL, &row);
    tk1 = row.k1, tkm = row.km, td1 = row.d1, tkn = row.kn, tdn = row.dn, noise = row.noise;
    if (dj.ok) { /* same inputs, both outputs were computed above */
      double mx = 0, md = 0;
      for (i = 0; i < nx; i++) {
        double a = val(d->T, x, i), b = val(d->T, xd, i);
        if (fabs(b) > mx) mx = fabs(b);
        if (fabs(a - b) > md) md = fabs(a - b);
      }
      diff = mx > 0 ? md / mx : md;
    }
    tt1 = row.t1;
    ttn = row.tn;
    best = td1.median_ms;
    if (tt1 > 0 && (best < 0 || tt1 < best)) best = tt1;
    if (best > 0 && !d->nchw && d->T == KF_FLOAT) {
      lsum += log(best / tk1.median_ms);
      ln++;
      if (d->m == 2) lsum_dm2 = log(best / tk1.median_ms), have_dm2 = 1;
      if (d->m == 1) {
        lsum_m1 += log(best / tk1.median_ms);
        ln_m1++;
        if (best < tk1.median_ms) bench_miss(&miss1, "%s %.2fx", key + 6, best / tk1.median_ms);
      }
    }
    { /* all threads, shapes above 1 MB (dy + dx), against the faster library's all-thread figure */
      double bestn = tdn.median_ms;
      if (ttn > 0 && (bestn < 0 || ttn < bestn)) bestn = ttn;
      if (bestn > 0 && (double)(ng + nx) * es > 1e6) {
        rows_n++;
        if (bestn < tkn.median_ms) bench_miss(&missn, "%s %.2fx", key + 6, bestn / tkn.median_ms);
      }
    }
    fmt_ms(c1[0], 32, tk1.median_ms);
    fmt_ms(c1[1], 32, td1.median_ms);
    fmt_ms(c1[2], 32, tt1);
    fmt_ms(c1[3], 32, best);
    if (best > 0) snprintf(c1[4], 32, "%.2fx", best / tk1.median_ms);
    else snprintf(c1[4], 32, "-");
    fmt_ms(cn[0], 32, tkn.median_ms);
    fmt_ms(cn[1], 32, tdn.median_ms);
    fmt_ms(cn[2], 32, ttn);
    snprintf(cn[3], 32, "%.2f", tkn.median_ms / tk1.median_ms);
    bench_plan_row(&plan_t, key + 6, tk1, tkm, noise, bench_same_plan(&k1.plan, &km.plan));
    fmt_ms(cm[0], 32, tkm.median_ms);
    snprintf(cm[1], 32, "%.2f", tkm.median_ms / tk1.median_ms);
    bench_printf(ctx, "| %s | %s | %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", key + 6, c1[0],
                 c1[1], c1[2], c1[3], c1[4], flops / tk1.median_ms * 1e-6, cn[0], cn[1], cn[2], cn[3],
                 diff < 0 ? "-" : (snprintf(sbuf, sizeof sbuf, "%.1e", diff), sbuf), kf_plan_kernel_name(&k1.plan),
                 cm[0], cm[1], kf_plan_choices(&km.plan, chosen, sizeof chosen));
    dnnl_teardown(&dj);
    dnnl_teardown(&djn);
    bench_free(f), bench_free(g), bench_free(x), bench_free(xd), bench_free(xm);
  }
  if (ln > 0) {
    bench_printf(ctx, "\nf32 NHWC: geometric-mean speedup over the faster library (1T): %.2fx (target 1.5x); "
                 "multiplier-1 shapes alone: %.2fx", exp(lsum / ln), ln_m1 > 0 ? exp(lsum_m1 / ln_m1) : 0.0);
    if (have_dm2) bench_printf(ctx, "; depth multiplier 2: %.2fx (target 3x)", exp(lsum_dm2));
    bench_printf(ctx, "\n");
  }
  if (ln_m1 > 0) bench_print_misses(ctx, &miss1, "f32 NHWC multiplier 1, 1T: ahead of the faster library", ln_m1);
  if (rows_n > 0)
    bench_print_misses(ctx, &missn, "all threads, shapes above 1 MB: no slower than the faster library", rows_n);
  bench_print_plan_targets(ctx, &plan_t);
  bench_printf(ctx, "\n");
  if (eng) dnnl_engine_destroy(eng);
}
