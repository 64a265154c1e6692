/*
** test_threads.c -- the runtime called from many threads at once: each
** thread plans and executes FusedBatchNormGradV3 and
** DepthwiseConv2dNativeBackpropInput (several dtypes, layouts, kernels) on
** its own buffers, many times, while the others do the same; every result
** must equal a single-threaded run bit for bit. Built normally and under
** ThreadSanitizer (ninja -f ninja/tsan.ninja), which reports any data race.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NTHREADS 8
#define ROUNDS 20
#define NJOBS 8

typedef struct job {
  int kind;          /* 0 batch norm, 1 depthwise */
  kf_dtype t;
  int nchw, training, generic;
  int64_t stride;
  /* inputs (owned) */
  void *in[6];
  size_t in_bytes[6];
  int32_t sizes[4];
  kf_tensor_desc desc[6];
  int nin;
  kf_attrs attrs;
  /* outputs of the single-threaded run */
  void *want[5];
  size_t out_bytes[5];
  int nout;
} job;

static job jobs[NJOBS];

static void *fill(kf_dtype t, size_t n, th_rng *r, double lo, double hi, size_t *bytes) {
  void *b = malloc(n * kf_dtype_size(t) + 1);
  size_t i;
  for (i = 0; i < n; i++) th_store(t, b, i, th_uniform(r, lo, hi));
  *bytes = n * kf_dtype_size(t);
  return b;
}

static void setup_job(job *j, int idx) {
  th_rng r;
  memset(j, 0, sizeof *j);
  j->kind = idx % 2;
  j->t = (idx / 2) % 3 == 0 ? KF_FLOAT : (idx / 2) % 3 == 1 ? KF_HALF : KF_BFLOAT16;
  j->nchw = (idx / 2) % 2;
  j->training = idx % 4 != 3;
  j->generic = idx == 6 || idx == 7;
  j->stride = 1 + (idx / 4) % 2;
  /* the job's own data, from its identity */
  th_seed_case(&r, "test_threads job %d: %s T=%s %s training=%d generic=%d stride=%lld", idx,
               j->kind ? "dwbpi" : "bngrad", kf_dtype_name(j->t), j->nchw ? "NCHW" : "NHWC", j->training, j->generic,
               (long long)j->stride);
  if (j->kind == 0) {
    int64_t dims[4], c = 19, cd[1];
    size_t numel;
    if (j->nchw) dims[0] = 3, dims[1] = c, dims[2] = 14, dims[3] = 13;
    else dims[0] = 3, dims[1] = 14, dims[2] = 13, dims[3] = c;
    numel = (size_t)(dims[0] * dims[1] * dims[2] * dims[3]);
    cd[0] = c;
    kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V3, &j->attrs);
    j->attrs.data_format = j->nchw ? KF_NCHW : KF_NHWC;
    j->attrs.is_training = j->training;
    j->desc[0] = th_desc(j->t, 4, dims);
    j->desc[1] = j->desc[0];
    j->desc[2] = th_desc(KF_FLOAT, 1, cd);
    j->desc[3] = j->desc[2];
    j->desc[4] = j->desc[2];
    j->desc[5] = j->desc[2];
    j->nin = 6;
    j->in[0] = fill(j->t, numel, &r, -1, 1, &j->in_bytes[0]);
    j->in[1] = fill(j->t, numel, &r, -2, 2, &j->in_bytes[1]);
    j->in[2] = fill(KF_FLOAT, (size_t)c, &r, 0.5, 1.5, &j->in_bytes[2]);
    j->in[3] = fill(KF_FLOAT, (size_t)c, &r, -0.2, 0.2, &j->in_bytes[3]);
    j->in[4] = fill(KF_FLOAT, (size_t)c, &r, 0.5, 2, &j->in_bytes[4]);
    j->in[5] = fill(KF_FLOAT, (size_t)c, &r, 0, 1, &j->in_bytes[5]);
  } else {
    const int64_t n = 2, h = 17, w = 15, c = 5, m = 2, k = 3, s = j->stride;
    int64_t oh = (h + s - 1) / s, ow = (w + s - 1) / s, four[1] = { 4 }, fd[4], gd[4];
    char buf[32];
    kf_attrs_init(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &j->attrs);
    kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &j->attrs, "data_format", j->nchw ? "NCHW" : "NHWC",
                 NULL);
    kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &j->attrs, "padding", "SAME", NULL);
    snprintf(buf, sizeof buf, j->nchw ? "1,1,%d,%d" : "1,%d,%d,1", (int)s, (int)s);
    kf_attrs_set(KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, &j->attrs, "strides", buf, NULL);
    if (j->nchw) j->sizes[0] = (int32_t)n, j->sizes[1] = (int32_t)c, j->sizes[2] = (int32_t)h, j->sizes[3] = (int32_t)w;
    else j->sizes[0] = (int32_t)n, j->sizes[1] = (int32_t)h, j->sizes[2] = (int32_t)w, j->sizes[3] = (int32_t)c;
    j->desc[0] = th_desc(KF_INT32, 1, four);
    j->desc[0].host_data = j->sizes;
    fd[0] = k, fd[1] = k, fd[2] = c, fd[3] = m;
    if (j->nchw) gd[0] = n, gd[1] = c * m, gd[2] = oh, gd[3] = ow;
    else gd[0] = n, gd[1] = oh, gd[2] = ow, gd[3] = c * m;
    j->desc[1] = th_desc(j->t, 4, fd);
    j->desc[2] = th_desc(j->t, 4, gd);
    j->nin = 3;
    j->in[0] = NULL; /* read at plan time from host_data */
    j->in[1] = fill(j->t, (size_t)(k * k * c * m), &r, -1, 1, &j->in_bytes[1]);
    j->in[2] = fill(j->t, (size_t)(n * oh * ow * c * m), &r, -1, 1, &j->in_bytes[2]);
  }
}

static kf_op op_of(const job *j) {
  return j->kind == 0 ? KF_OP_FUSED_BATCH_NORM_GRAD_V3 : KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT;
}

/* Plans and runs job j into freshly allocated outputs (out[], bytes[]). */
static int run_job(const job *j, void **out, size_t *bytes, int *nout) {
  kf_plan plan;
  kf_plan_options opt;
  kf_error err = {0};
  void *scratch = NULL;
  size_t sb;
  int i, k;
  kf_status st;
  memset(&opt, 0, sizeof opt);
  opt.generic_only = j->generic;
  st = kf_plan_op(&plan, op_of(j), &j->attrs, j->desc, j->nin, &opt, &err);
  if (st != KF_OK) return 0;
  *nout = kf_plan_num_outputs(&plan);
  for (i = 0; i < *nout; i++) {
    const kf_tensor_desc *d = kf_plan_output_desc(&plan, i);
    size_t n = kf_dtype_size(d->dtype);
    for (k = 0; k < d->rank; k++) n *= (size_t)d->dims[k];
    bytes[i] = n;
    out[i] = n ? calloc(1, n) : NULL;
  }
  sb = kf_plan_scratch_bytes(&plan);
  if (sb) scratch = malloc(sb);
  st = kf_execute(&plan, (const void *const *)j->in, out, scratch, sb, &err);
  free(scratch);
  return st == KF_OK;
}

static int mismatches[NTHREADS], failures[NTHREADS];

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg, round, q, i;
  for (round = 0; round < ROUNDS; round++)
    for (q = 0; q < NJOBS; q++) {
      const job *j = &jobs[(q + id) % NJOBS]; /* threads hit every job, in different orders */
      void *out[5] = { 0 };
      size_t bytes[5] = { 0 };
      int nout = 0;
      if (!run_job(j, out, bytes, &nout)) failures[id]++;
      else
        for (i = 0; i < nout; i++)
          if (bytes[i] != j->out_bytes[i] || (bytes[i] && memcmp(out[i], j->want[i], bytes[i]) != 0)) mismatches[id]++;
      for (i = 0; i < 5; i++) free(out[i]);
    }
  return NULL;
}

int main(void) {
  pthread_t th[NTHREADS];
  int i, k, started = 0;
  for (i = 0; i < NJOBS; i++) {
    setup_job(&jobs[i], i);
    th_check(run_job(&jobs[i], jobs[i].want, jobs[i].out_bytes, &jobs[i].nout),
             "job %d (%s %s %s): single-threaded reference run", i, kf_op_name(op_of(&jobs[i])),
             kf_dtype_name(jobs[i].t), jobs[i].nchw ? "NCHW" : "NHWC");
  }
  for (i = 0; i < NTHREADS; i++)
    if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) == 0) started++;
  th_check(started == NTHREADS, "%d threads started", NTHREADS);
  for (i = 0; i < started; i++) pthread_join(th[i], NULL);
  for (i = 0; i < started; i++)
    th_check(failures[i] == 0 && mismatches[i] == 0,
             "thread %d: %d plan/execute failures, %d results differing from the single-threaded run", i,
             failures[i], mismatches[i]);
  for (i = 0; i < NJOBS; i++) {
    for (k = 0; k < 6; k++) free(jobs[i].in[k]);
    for (k = 0; k < 5; k++) free(jobs[i].want[k]);
  }
  return th_done();
}
