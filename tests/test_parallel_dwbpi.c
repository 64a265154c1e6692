/*
** test_parallel_dwbpi.c -- DepthwiseConv2dNativeBackpropInput with threads:
** every dwbpi kernel of the registry (forced by name; where the runtime
** refuses one because this CPU lacks its ISA, the case is counted as not
** applicable) runs on odd shapes of its configuration serially
** (no kf_threads) and through Debian's pthreadpool (pthreadpool_create(n) +
** pthreadpool_parallelize_1d, adapted to kf_threads) with 1, 2, 3 and 4
** threads. Kernels split their work into tasks whose partition does not
** depend on the thread count, so every output must be BITWISE identical to
** the serial one. Outputs are pre-filled with NaN, so an element no task
** writes cannot go unnoticed.
*/
#include <pthreadpool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define OP KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT

/* kf_threads.parallel_for over a pthreadpool. */
static void pool_for(void *pool, kf_task_fn task, void *ctx, size_t n) {
  pthreadpool_parallelize_1d((pthreadpool_t)pool, (pthreadpool_task_1d_t)task, ctx, n, PTHREADPOOL_FLAG_YIELD_WORKERS);
}

typedef struct conf {
  int generic;
  kf_dtype T;
  int nchw, kh, kw, sh, sw, dh, dw, dm;
} conf;

/* A kernel's configuration, from its key in the registry's metadata. */
static int conf_of(const kf_kernel_info *ki, conf *k) {
  const char *lay = th_key(ki, "layout");
  memset(k, 0, sizeof *k);
  k->T = th_key_dtype(ki);
  if (k->T == KF_DT_INVALID) return 0;
  if (ki->generic) { /* generic: a configuration no specialization has */
    k->generic = 1;
    k->nchw = 0;
    k->kh = 2, k->kw = 3, k->sh = 1, k->sw = 2, k->dh = 2, k->dw = 1, k->dm = 3;
    return 1;
  }
  if (!lay || (strcmp(lay, "nchw") != 0 && strcmp(lay, "nhwc") != 0)) return 0;
  k->nchw = strcmp(lay, "nchw") == 0;
  return th_key_int(ki, "kh", &k->kh) && th_key_int(ki, "kw", &k->kw) && th_key_int(ki, "sh", &k->sh) &&
         th_key_int(ki, "sw", &k->sw) && th_key_int(ki, "dh", &k->dh) && th_key_int(ki, "dw", &k->dw) &&
         th_key_int(ki, "dm", &k->dm);
}

static int64_t same_out(int64_t in, int64_t k, int64_t s, int64_t d, int64_t *pad) {
  int64_t eff = (k - 1) * d + 1, out = (in + s - 1) / s, total = (out - 1) * s + eff - in;
  *pad = (total < 0 ? 0 : total) / 2;
  return out;
}

/* One shape: serial run, then pools of 1..4 threads; outputs compared bytewise.
   Returns 1 if the kernel ran, 0 if it does not apply on this CPU. */
static int one(const char *name, const conf *k, pthreadpool_t pools[5], int64_t n, int64_t h, int64_t w, int64_t c) {
  int64_t pt, pl, oh = same_out(h, k->kh, k->sh, k->dh, &pt), ow = same_out(w, k->kw, k->sw, k->dw, &pl);
  int64_t cm = c * k->dm, dims[4];
  size_t es = kf_dtype_size(k->T), nf = (size_t)(k->kh * k->kw * cm), ng = (size_t)(n * oh * ow * cm),
         nx = (size_t)(n * h * w * c), i, sb;
  int32_t sizes[4];
  kf_tensor_desc in[3];
  kf_attrs a;
  kf_plan plan;
  kf_plan_options opt;
  kf_threads th;
  kf_error err = {0};
  kf_status st;
  char buf[64];
  void *f, *g, *want, *got, *scratch;
  const void *ins[3];
  void *outs[1];
  int t, ran = 0;
  th_rng r[1];

  (void)pt, (void)pl;
  kf_attrs_init(OP, &a);
  kf_attrs_set(OP, &a, "data_format", k->nchw ? "NCHW" : "NHWC", NULL);
  kf_attrs_set(OP, &a, "padding", "SAME", NULL);
  snprintf(buf, sizeof buf, k->nchw ? "1,1,%d,%d" : "1,%d,%d,1", k->sh, k->sw);
  kf_attrs_set(OP, &a, "strides", buf, NULL);
  snprintf(buf, sizeof buf, k->nchw ? "1,1,%d,%d" : "1,%d,%d,1", k->dh, k->dw);
  kf_attrs_set(OP, &a, "dilations", buf, NULL);
  sizes[0] = (int32_t)n;
  if (k->nchw) sizes[1] = (int32_t)c, sizes[2] = (int32_t)h, sizes[3] = (int32_t)w;
  else sizes[1] = (int32_t)h, sizes[2] = (int32_t)w, sizes[3] = (int32_t)c;
  dims[0] = 4;
  in[0] = th_desc(KF_INT32, 1, dims);
  in[0].host_data = sizes;
  dims[0] = k->kh, dims[1] = k->kw, dims[2] = c, dims[3] = k->dm;
  in[1] = th_desc(k->T, 4, dims);
  dims[0] = n;
  if (k->nchw) dims[1] = cm, dims[2] = oh, dims[3] = ow;
  else dims[1] = oh, dims[2] = ow, dims[3] = cm;
  in[2] = th_desc(k->T, 4, dims);

  memset(&opt, 0, sizeof opt);
  opt.kernel = name;
  switch (th_plan_forced(&plan, OP, &a, in, 3, &opt, &err)) {
    case TH_PLANNED: break;
    case TH_NOT_HERE:
      th_skip("%s [%lld,%lld,%lld,%lld]: %s", name, (long long)n, (long long)h, (long long)w, (long long)c,
              err.message);
      return 0;
    default: /* the shape is of the kernel's own configuration: any refusal is a failure */
      th_check(0, "%s [%lld,%lld,%lld,%lld] plan: %s (%s)", name, (long long)n, (long long)h, (long long)w,
               (long long)c, err.message, err.rule);
      return 0;
  }
  /* the case's own data, from its configuration and shape (not the ISA) */
  th_seed_case(r, "test_parallel_dwbpi T=%s %s generic=%d k%dx%d s%dx%d d%dx%d m%d [%lld,%lld,%lld,%lld]",
               kf_dtype_name(k->T), k->nchw ? "NCHW" : "NHWC", k->generic, k->kh, k->kw, k->sh, k->sw, k->dh, k->dw,
               k->dm, (long long)n, (long long)h, (long long)w, (long long)c);
  f = malloc(nf * es + 1), g = malloc(ng * es + 1), want = malloc(nx * es + 1), got = malloc(nx * es + 1);
  for (i = 0; i < nf; i++) th_store(k->T, f, i, th_uniform(r, -1, 1));
  for (i = 0; i < ng; i++) th_store(k->T, g, i, th_uniform(r, -1, 1));
  ins[0] = NULL, ins[1] = f, ins[2] = g;

  for (t = 0; t <= 4; t++) { /* t = 0: serial */
    memset(&opt, 0, sizeof opt);
    opt.kernel = name;
    if (t > 0) {
      th.parallel_for = pool_for;
      th.pool = pools[t];
      th.num_threads = t;
      opt.threads = &th;
    }
    st = kf_plan_op(&plan, OP, &a, in, 3, &opt, &err);
    if (!th_check(st == KF_OK, "%s [%lld,%lld,%lld,%lld] plan: %s", name, (long long)n, (long long)h, (long long)w,
                  (long long)c, st == KF_OK ? "" : err.message))
      break;
    ran = 1;
    sb = kf_plan_scratch_bytes(&plan);
    scratch = sb ? malloc(sb) : NULL;
    if (sb) memset(scratch, 0xff, sb);
    outs[0] = t == 0 ? want : got;
    memset(outs[0], 0xff, nx * es); /* NaN: every element must be written */
    st = kf_execute(&plan, ins, outs, scratch, sb, &err);
    th_check(st == KF_OK, "%s execute with %d threads", name, t);
    if (t > 0)
      th_check(memcmp(want, got, nx * es) == 0, "%s [%lld,%lld,%lld,%lld]: %d threads differ from serial", name,
               (long long)n, (long long)h, (long long)w, (long long)c, t);
    free(scratch);
  }
  free(f), free(g), free(want), free(got);
  return ran;
}

int main(void) {
  pthreadpool_t pools[5] = { NULL, NULL, NULL, NULL, NULL };
  int i, t, nk = 0, ran;
  for (t = 1; t <= 4; t++) {
    pools[t] = pthreadpool_create((size_t)t);
    if (!th_check(pools[t] != NULL, "pthreadpool_create(%d)", t)) return th_done();
  }
  for (i = -1; (i = th_next_kernel(kf_op_family(OP), i)) >= 0;) {
    const char *name = th_kernel(i)->name;
    conf k;
    if (!th_check(conf_of(th_kernel(i), &k), "key of %s: %s", name, th_kernel(i)->config)) continue;
    /* odd shapes: batch 1..3, rows and cols not multiples of the stride, channel
       counts with vector tails, big enough for many tasks */
    ran = one(name, &k, pools, 2, 37, 29, 19);
    ran |= one(name, &k, pools, 2, 61, 13, 33);
    ran |= one(name, &k, pools, 1, 7, 5, 3);
    ran |= one(name, &k, pools, 2, 45, 47, 5);
    nk += ran;
  }
  th_check(nk > 0, "no dwbpi kernels found");
  printf("%d dwbpi kernels this CPU runs, serial vs 1-4 pthreadpool threads\n", nk);
  for (t = 1; t <= 4; t++) pthreadpool_destroy(pools[t]);
  return th_done();
}
