/*
** bench_bngrad.c -- FusedBatchNormGradV3 (is_training=true): kforge against
** oneDNN's batch_normalization backward primitive (created once, same
** process, same buffers) and PyTorch (bench/bench_torch.py's results).
** Shapes of the performance issue, NHWC and NCHW, float; half and bfloat16
** on the first three.
**
** Byte model (docs/performance.md, "Timing rules"): T = bytes of one tensor;
** two-pass = 5T (x, dy read twice, dx written once, no write-allocate);
** the DRAM floor is 2T / read-GB/s + 3T / triad-GB/s of this run's STREAM.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "bench.h"

extern void omp_set_num_threads(int n); /* libgomp: oneDNN's OpenMP runtime */

typedef struct { int64_t n, h, w, c; } bn_shape;

static const bn_shape shapes[] = {
  { 8, 112, 112, 64 }, { 8, 56, 56, 256 }, { 32, 28, 28, 128 },
  { 8, 14, 14, 512 },  { 1, 7, 7, 1024 },  { 64, 1, 1, 2048 },
};

typedef struct {
  kf_plan plan;
  const void *ins[6];
  void *outs[5];
  void *scratch;
  size_t scratch_n;
} kf_job;

static void run_kf(void *arg) {
  kf_job *j = (kf_job *)arg;
  kf_execute(&j->plan, j->ins, j->outs, j->scratch, j->scratch_n, NULL);
}

typedef struct {
  dnnl_primitive_t prim;
  dnnl_stream_t stream;
  int nargs;
  dnnl_exec_arg_t args[9];
  dnnl_memory_t mem[9];
} dnnl_job;

static void run_dnnl(void *arg) {
  dnnl_job *j = (dnnl_job *)arg;
  dnnl_primitive_execute(j->prim, j->stream, j->nargs, j->args);
  dnnl_stream_wait(j->stream);
}

static dnnl_engine_t engine;

/* oneDNN backward BN with batch statistics (dnnl_backward: diff_src and
   diff scale/shift). Returns 0 when oneDNN has no implementation. */
static int dnnl_setup(dnnl_job *j, const bn_shape *s, int nchw, kf_dtype T, float eps, void *dy, void *x,
                      float *scale, float *mean, float *var, void *dx, float *dscale, float *doff, char *impl,
                      size_t impl_n) {
  dnnl_memory_desc_t data_md, c_md;
  dnnl_dims_t dims = { s->n, s->c, s->h, s->w }, cd = { s->c };
  dnnl_batch_normalization_desc_t fd, bd;
  dnnl_primitive_desc_t fpd = NULL, bpd = NULL;
  dnnl_data_type_t dt = T == KF_FLOAT ? dnnl_f32 : T == KF_BFLOAT16 ? dnnl_bf16 : dnnl_f16;
  const unsigned flags = dnnl_use_scale | dnnl_use_shift;
  const char *name = NULL;
  void *ptrs[9];
  /* oneDNN 2.6 wants DNNL_ARG_SHIFT too, though backward does not read it */
  int ids[9] = { DNNL_ARG_SRC, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_DIFF_DST, DNNL_ARG_SCALE,
                 DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_SCALE, DNNL_ARG_DIFF_SHIFT, DNNL_ARG_SHIFT };
  int i;
  memset(j, 0, sizeof *j);
  if (dnnl_memory_desc_init_by_tag(&data_md, 4, dims, dt, nchw ? dnnl_nchw : dnnl_nhwc) != dnnl_success) return 0;
  dnnl_memory_desc_init_by_tag(&c_md, 1, cd, dnnl_f32, dnnl_a);
  if (dnnl_batch_normalization_forward_desc_init(&fd, dnnl_forward_training, &data_md, eps, flags) != dnnl_success ||
      dnnl_primitive_desc_create(&fpd, &fd, NULL, engine, NULL) != dnnl_success)
    return 0;
  if (dnnl_batch_normalization_backward_desc_init(&bd, dnnl_backward, &data_md, &data_md, eps, flags) != dnnl_success ||
      dnnl_primitive_desc_create(&bpd, &bd, NULL, engine, fpd) != dnnl_success) {
    dnnl_primitive_desc_destroy(fpd);
    return 0;
  }
  dnnl_primitive_desc_query(bpd, dnnl_query_impl_info_str, 0, &name);
  snprintf(impl, impl_n, "%s", name ? name : "?");
  if (dnnl_primitive_create(&j->prim, bpd) != dnnl_success) return 0;
  ptrs[0] = x; ptrs[1] = mean; ptrs[2] = var; ptrs[3] = dy; ptrs[4] = scale;
  ptrs[5] = dx; ptrs[6] = dscale; ptrs[7] = doff; ptrs[8] = mean;
  for (i = 0; i < 9; i++) {
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(bpd, dnnl_query_exec_arg_md, ids[i]);
    if (!md || md->ndims == 0) md = (i == 0 || i == 3 || i == 5) ? &data_md : &c_md;
    if (dnnl_memory_create(&j->mem[i], md, engine, ptrs[i]) != dnnl_success) {
      fprintf(stderr, "bench: oneDNN memory %d\n", i);
      return 0;
    }
    j->args[i].arg = ids[i];
    j->args[i].memory = j->mem[i];
  }
  j->nargs = 9;
  dnnl_stream_create(&j->stream, engine, dnnl_stream_default_flags);
  {
    dnnl_status_t st = dnnl_primitive_execute(j->prim, j->stream, j->nargs, j->args);
    if (st != dnnl_success) {
      fprintf(stderr, "bench: oneDNN execute failed (status %d)\n", (int)st);
      return 0;
    }
  }
  dnnl_primitive_desc_destroy(bpd);
  dnnl_primitive_desc_destroy(fpd);
  return 1;
}

static void dnnl_teardown(dnnl_job *j) {
  int i;
  if (!j->prim) return;
  for (i = 0; i < j->nargs; i++) dnnl_memory_destroy(j->mem[i]);
  dnnl_primitive_destroy(j->prim);
  dnnl_stream_destroy(j->stream);
}

/* measure: KF_PLAN_RULE (the rule's plan) or KF_PLAN_MEASURE (timed on bufs'
   alignments, docs/tuning.md). */
static int kf_setup(kf_job *j, const bn_shape *s, int nchw, kf_dtype T, float eps, const kf_threads *th, int measure,
                    const void *const *bufs) {
  kf_attrs at;
  kf_tensor_desc in[6];
  kf_plan_options opt;
  kf_error err;
  memset(in, 0, sizeof in);
  kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at);
  at.T = T;
  at.data_format = nchw ? KF_NCHW : KF_NHWC;
  at.is_training = 1;
  at.epsilon = eps;
  in[0].dtype = T;
  in[0].rank = 4;
  in[0].dims[0] = s->n;
  in[0].dims[1] = nchw ? s->c : s->h;
  in[0].dims[2] = nchw ? s->h : s->w;
  in[0].dims[3] = nchw ? s->w : s->c;
  in[1] = in[0];
  in[2].dtype = KF_FLOAT;
  in[2].rank = 1;
  in[2].dims[0] = s->c;
  in[3] = in[4] = in[5] = in[2];
  memset(&opt, 0, sizeof opt);
  opt.threads = th;
  opt.measure = measure;
  opt.buffers = bufs;
  if (kf_plan_op(&j->plan, KF_OP_FUSED_BATCH_NORM_GRAD_V3, &at, in, 6, &opt, &err) != KF_OK) {
    fprintf(stderr, "bench: kforge plan: %s\n", err.message);
    return 0;
  }
  return 1;
}

static double to_f(kf_dtype T, const void *p, size_t i) {
  if (T == KF_FLOAT) return ((const float *)p)[i];
  {
    uint16_t h = ((const uint16_t *)p)[i];
    uint32_t b;
    float f;
    if (T == KF_BFLOAT16) b = (uint32_t)h << 16;
    else {
      uint32_t e = (h >> 10) & 31, m = h & 1023, sg = (uint32_t)(h & 0x8000) << 16;
      if (e == 0) return (sg ? -1 : 1) * ldexp(m, -24);
      b = sg | ((e == 31 ? 255 : e + 112) << 23) | (m << 13);
    }
    memcpy(&f, &b, 4);
    return f;
  }
}

static void fmt_ms(char *buf, size_t n, double ms) {
  if (ms < 0) snprintf(buf, n, "-");
  else if (ms < 0.1) snprintf(buf, n, "%.4f", ms);
  else snprintf(buf, n, "%.3f", ms);
}

static void fmt_ratio(char *buf, size_t n, double a, double b) {
  if (a < 0 || b <= 0) snprintf(buf, n, "-");
  else snprintf(buf, n, "%.2f", a / b);
}

static const char *tname(kf_dtype T) { return T == KF_FLOAT ? "f32" : T == KF_HALF ? "f16" : "bf16"; }

void bench_bngrad(bench_ctx *ctx) {
  static const kf_dtype types[] = { KF_FLOAT, KF_HALF, KF_BFLOAT16 };
  const int NS = (int)(sizeof shapes / sizeof shapes[0]);
  const float eps = 0.001f;
  int si, layout, ti, rows1 = 0, rowsn = 0;
  bench_misses miss1, missn; /* every row at 1T; rows above 1 MB (dy + x) at all threads */
  bench_plan_targets plan_t;
  memset(&plan_t, 0, sizeof plan_t);
  memset(&miss1, 0, sizeof miss1);
  memset(&missn, 0, sizeof missn);
  if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) {
    bench_printf(ctx, "bngrad: oneDNN engine unavailable\n");
    return;
  }
  bench_printf(ctx,
               "FusedBatchNormGradV3, is_training=true: median ms (%d calls); ratio < 1 = kforge faster;\n"
               "GB/s and %%floor in the two-pass model (5T; floor = 2T/read + 3T/triad of this run, 1 thread)\n\n",
               ctx->reps);
  bench_printf(ctx, "| shape | layout | T | kforge 1T | oneDNN 1T | torch 1T | kf/oneDNN | kf/torch | kf GB/s | %%floor "
                    "| kforge %dT | oneDNN %dT | torch %dT | kf %dT/1T | kf/best %dT | normwise diff vs oneDNN | oneDNN impl "
                    "| measured plan 1T | measured/rule | measured choices |\n",
               ctx->all_threads, ctx->all_threads, ctx->all_threads, ctx->all_threads, ctx->all_threads);
  bench_printf(ctx, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (ti = 0; ti < 3; ti++)
    for (si = 0; si < NS; si++)
      for (layout = 0; layout < 2; layout++) {
        const bn_shape *s = &shapes[si];
        const kf_dtype T = types[ti];
        const size_t numel = (size_t)(s->n * s->h * s->w * s->c), es = T == KF_FLOAT ? 4 : 2;
        char key[96], impl[128] = "-", c[12][32], chosen[256];
        kf_job k1, kn, km;
        dnnl_job dj, djn;
        bench_row row;
        bench_stats t_k1, t_kn, t_km, t_d1, t_dn; /* from row */
        double tb1, tbn, bytes = (double)numel * (double)es, floor_ms, maxdiff = -1, noise;
        void *dy, *x, *dx, *dx2, *dxm;
        float *scale, *mean, *var, *ds, *doff, *ds2, *doff2;
        int have_dnnl, have_dnnl_n;
        if (T != KF_FLOAT && si >= 3) continue;
        snprintf(key, sizeof key, "bngrad %s %s %lldx%lldx%lldx%lld", tname(T), layout ? "nchw" : "nhwc",
                 (long long)s->n, (long long)s->h, (long long)s->w, (long long)s->c);
        if (!bench_selected(ctx, key)) continue;
        dy = bench_alloc(numel * es);
        x = bench_alloc(numel * es);
        dx = bench_alloc(numel * es);
        dx2 = bench_alloc(numel * es);
        dxm = bench_alloc(numel * es); /* the measured plan's own: a plan that streams must not evict the rule's dx */
        scale = bench_alloc((size_t)s->c * 4); mean = bench_alloc((size_t)s->c * 4); var = bench_alloc((size_t)s->c * 4);
        ds = bench_alloc((size_t)s->c * 4); doff = bench_alloc((size_t)s->c * 4);
        ds2 = bench_alloc((size_t)s->c * 4); doff2 = bench_alloc((size_t)s->c * 4);
        if (T == KF_FLOAT) {
          bench_fill_f32(dy, numel, 1, -1, 1);
          bench_fill_f32(x, numel, 2, -2, 3);
        } else {
          bench_fill_u16(dy, numel, 1, -1, 1, T);
          bench_fill_u16(x, numel, 2, -2, 3, T);
        }
        bench_fill_f32(scale, (size_t)s->c, 3, 0.5f, 1.5f);
        bench_fill_f32(mean, (size_t)s->c, 4, 0.3f, 0.7f);
        bench_fill_f32(var, (size_t)s->c, 5, 1.5f, 2.5f);
        if (!kf_setup(&k1, s, layout, T, eps, NULL, KF_PLAN_RULE, NULL) ||
            !kf_setup(&kn, s, layout, T, eps, ctx->pool, KF_PLAN_RULE, NULL))
          continue;
        k1.scratch_n = kf_plan_scratch_bytes(&k1.plan);
        k1.scratch = bench_alloc(k1.scratch_n);
        kn.scratch_n = k1.scratch_n;
        kn.scratch = k1.scratch;
        k1.ins[0] = kn.ins[0] = dy; k1.ins[1] = kn.ins[1] = x; k1.ins[2] = kn.ins[2] = scale;
        k1.ins[3] = kn.ins[3] = mean; k1.ins[4] = kn.ins[4] = var; k1.ins[5] = kn.ins[5] = var;
        k1.outs[0] = kn.outs[0] = dx; k1.outs[1] = kn.outs[1] = ds; k1.outs[2] = kn.outs[2] = doff;
        k1.outs[3] = kn.outs[3] = NULL; k1.outs[4] = kn.outs[4] = NULL;
        { /* the measured plan, 1 thread, on these very buffers */
          const void *bufs[11] = { dy, x, scale, mean, var, var, dxm, ds, doff, NULL, NULL };
          km = k1;
          km.outs[0] = dxm;
          if (!kf_setup(&km, s, layout, T, eps, NULL, KF_PLAN_MEASURE, bufs)) km.plan = k1.plan;
          km.scratch_n = kf_plan_scratch_bytes(&km.plan);
          km.scratch = bench_alloc(km.scratch_n);
        }
        /* oneDNN fixes a primitive's thread count when it is created: one
           primitive per thread count, each created under its own setting */
        omp_set_num_threads(1);
        have_dnnl = dnnl_setup(&dj, s, layout, T, eps, dy, x, scale, mean, var, dx2, ds2, doff2, impl, sizeof impl);
        omp_set_num_threads(ctx->all_threads);
        have_dnnl_n = have_dnnl && dnnl_setup(&djn, s, layout, T, eps, dy, x, scale, mean, var, dx2, ds2, doff2, impl,
                                              sizeof impl);
        omp_set_num_threads(1);

        bench_time_row(ctx, key, run_kf, &k1, &km, &kn, run_dnnl, have_dnnl ? &dj : NULL, have_dnnl_n ? &djn : NULL, &row);
        t_k1 = row.k1, t_km = row.km, t_d1 = row.d1, t_kn = row.kn, t_dn = row.dn, noise = row.noise;

        if (have_dnnl) { /* agreement with oneDNN */
          /* normwise: max |kforge - oneDNN| / max |oneDNN|, per output */
          size_t i, step = numel / 200000 + 1;
          double num = 0, den = 0, n2 = 0, d2 = 0, n3 = 0, d3 = 0;
          for (i = 0; i < numel; i += step) {
            double a = to_f(T, dx, i), b = to_f(T, dx2, i);
            if (fabs(a - b) > num || a != a) num = a != a ? INFINITY : fabs(a - b);
            if (fabs(b) > den) den = fabs(b);
          }
          for (i = 0; i < (size_t)s->c; i++) {
            if (fabs((double)ds[i] - ds2[i]) > n2) n2 = fabs((double)ds[i] - ds2[i]);
            if (fabs((double)ds2[i]) > d2) d2 = fabs((double)ds2[i]);
            if (fabs((double)doff[i] - doff2[i]) > n3) n3 = fabs((double)doff[i] - doff2[i]);
            if (fabs((double)doff2[i]) > d3) d3 = fabs((double)doff2[i]);
          }
          maxdiff = num / (den > 0 ? den : 1);
          if (n2 / (d2 > 0 ? d2 : 1) > maxdiff) maxdiff = n2 / (d2 > 0 ? d2 : 1);
          if (n3 / (d3 > 0 ? d3 : 1) > maxdiff) maxdiff = n3 / (d3 > 0 ? d3 : 1);
        }
        tb1 = row.t1;
        tbn = row.tn;
        floor_ms = ctx->bw_read1 > 0 ? (2 * bytes / (ctx->bw_read1 * 1e6) + 3 * bytes / (ctx->bw_triad1 * 1e6)) : -1;
        fmt_ms(c[0], 32, t_k1.median_ms);
        fmt_ms(c[1], 32, t_d1.median_ms);
        fmt_ms(c[2], 32, tb1);
        fmt_ratio(c[3], 32, t_k1.median_ms, t_d1.median_ms);
        fmt_ratio(c[4], 32, t_k1.median_ms, tb1);
        fmt_ms(c[5], 32, t_kn.median_ms);
        fmt_ms(c[6], 32, t_dn.median_ms);
        fmt_ms(c[7], 32, tbn);
        fmt_ratio(c[8], 32, t_kn.median_ms, t_k1.median_ms);
        {
          double best = t_dn.median_ms > 0 ? t_dn.median_ms : -1, best1 = t_d1.median_ms > 0 ? t_d1.median_ms : -1;
          if (tbn > 0 && (best < 0 || tbn < best)) best = tbn;
          if (tb1 > 0 && (best1 < 0 || tb1 < best1)) best1 = tb1;
          fmt_ratio(c[9], 32, t_kn.median_ms, best);
          if (best1 > 0) {
            rows1++;
            if (best1 < t_k1.median_ms)
              bench_miss(&miss1, "%lldx%lldx%lldx%lld %s %s %.2fx", (long long)s->n, (long long)s->h,
                         (long long)s->w, (long long)s->c, layout ? "NCHW" : "NHWC", tname(T), best1 / t_k1.median_ms);
          }
          if (best > 0 && 2.0 * (double)bytes > 1e6) {
            rowsn++;
            if (best < t_kn.median_ms)
              bench_miss(&missn, "%lldx%lldx%lldx%lld %s %s %.2fx", (long long)s->n, (long long)s->h,
                         (long long)s->w, (long long)s->c, layout ? "NCHW" : "NHWC", tname(T), best / t_kn.median_ms);
          }
        }
        bench_plan_row(&plan_t, key + 7, t_k1, t_km, noise, bench_same_plan(&k1.plan, &km.plan));
        fmt_ms(c[10], 32, t_km.median_ms);
        fmt_ratio(c[11], 32, t_km.median_ms, t_k1.median_ms);
        bench_printf(ctx, "| %lldx%lldx%lldx%lld | %s | %s | %s | %s | %s | %s | %s | %.1f | %.0f%% | %s | %s | %s | %s | %s | %.1e | %s | %s | %s | %s |\n",
                     (long long)s->n, (long long)s->h, (long long)s->w, (long long)s->c, layout ? "NCHW" : "NHWC",
                     tname(T), c[0], c[1], c[2], c[3], c[4], 5 * bytes / (t_k1.median_ms * 1e6),
                     floor_ms > 0 ? 100 * floor_ms / t_k1.median_ms : 0.0, c[5], c[6], c[7], c[8], c[9], maxdiff,
                     have_dnnl ? impl : "none", c[10], c[11], kf_plan_choices(&km.plan, chosen, sizeof chosen));
        dnnl_teardown(&dj);
        if (have_dnnl_n) dnnl_teardown(&djn);
        bench_free(k1.scratch);
        bench_free(km.scratch);
        bench_free(dy); bench_free(x); bench_free(dx); bench_free(dx2); bench_free(dxm);
        bench_free(scale); bench_free(mean); bench_free(var); bench_free(ds); bench_free(doff);
        bench_free(ds2); bench_free(doff2);
      }
  bench_printf(ctx, "\n");
  if (rows1 > 0) bench_print_misses(ctx, &miss1, "1T: ahead of the faster library on every row", rows1);
  if (rowsn > 0)
    bench_print_misses(ctx, &missn, "all threads, shapes above 1 MB: no slower than the faster library", rowsn);
  bench_print_plan_targets(ctx, &plan_t);
  bench_printf(ctx, "\n");
  dnnl_engine_destroy(engine);
}
