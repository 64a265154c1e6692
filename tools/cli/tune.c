/*
** tune.c -- `kforge tune --manifest FILE [--threads N] [--out FILE]`:
** plans every call of a model manifest in measured mode (docs/tuning.md)
** and writes the wisdom, so that later runs (C, Python, TF ops with
** KFORGE_WISDOM) plan those calls as measured without measuring.
*/
#include "tune.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kfi.h" /* the op's input types ("T", "U", "int32"): kfi_op_def_of */
#include "manifest.h"

/* A small persistent pool for --threads (kf_threads' contract). */
typedef struct pool {
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  kf_task_fn task;
  void *ctx;
  size_t n, next, finished;
  unsigned gen;
  int workers, stop;
  pthread_t th[63];
} pool;

static void drain(pool *p) {
  for (;;) {
    size_t i;
    pthread_mutex_lock(&p->mu);
    i = p->next < p->n ? p->next++ : p->n;
    pthread_mutex_unlock(&p->mu);
    if (i >= p->n) return;
    p->task(p->ctx, i);
    pthread_mutex_lock(&p->mu);
    if (++p->finished == p->n) pthread_cond_broadcast(&p->done);
    pthread_mutex_unlock(&p->mu);
  }
}

static void *worker(void *arg) {
  pool *p = arg;
  unsigned seen = 0;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->gen == seen) pthread_cond_wait(&p->go, &p->mu);
    seen = p->gen;
    if (p->stop) {
      pthread_mutex_unlock(&p->mu);
      return NULL;
    }
    pthread_mutex_unlock(&p->mu);
    drain(p);
  }
}

static void parallel_for(void *pl, kf_task_fn task, void *ctx, size_t n) {
  pool *p = pl;
  pthread_mutex_lock(&p->mu);
  p->task = task, p->ctx = ctx, p->n = n, p->next = 0, p->finished = 0, p->gen++;
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  drain(p);
  pthread_mutex_lock(&p->mu);
  while (p->finished < p->n) pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median ms of REPS runs of a plan (after one warm-up), buffers 64-byte
   aligned as TF's allocator gives them; -1 when it cannot run. */
#define REPS 15
static double time_plan(const kf_plan *plan, kf_op op, const kf_tensor_desc *in) {
  int nin = kf_op_num_inputs(op), nout = kf_plan_num_outputs(plan), i, r;
  void *bufs[2 * KFC_MAX_IO + 1] = { 0 };
  const void *ins[KFC_MAX_IO];
  void *outs[KFC_MAX_IO];
  size_t sb = kf_plan_scratch_bytes(plan);
  double t[REPS], med = -1;
  int ok = nin <= KFC_MAX_IO && nout <= KFC_MAX_IO;
  for (i = 0; ok && i < nin + nout + 1; i++) {
    const kf_tensor_desc *d = i < nin ? &in[i] : i < nin + nout ? kf_plan_output_desc(plan, i - nin) : NULL;
    size_t bytes = d ? kf_dtype_size(d->dtype) : sb, k;
    int j;
    for (j = 0; d && j < d->rank; j++) bytes *= (size_t)d->dims[j];
    if (d && d->host_data) bytes = 0;
    if (!bytes) continue;
    if (posix_memalign(&bufs[i], 64, bytes)) { bufs[i] = NULL; ok = 0; break; }
    memset(bufs[i], 0, bytes);
    if (i < nin && d->dtype == KF_FLOAT)
      for (k = 0; k < bytes / 4; k++) ((float *)bufs[i])[k] = 0.5f + (float)(k % 97) / 97.0f;
  }
  for (i = 0; ok && i < nin; i++) ins[i] = bufs[i];
  for (i = 0; ok && i < nout; i++) outs[i] = bufs[nin + i];
  for (r = 0; ok && r <= REPS; r++) {
    double t0 = now_s();
    if (kf_execute(plan, ins, outs, bufs[nin + nout], sb, NULL) != KF_OK) ok = 0;
    if (r) t[r - 1] = 1e3 * (now_s() - t0);
  }
  if (ok) {
    qsort(t, REPS, sizeof t[0], cmp_double);
    med = t[REPS / 2];
  }
  for (i = 0; i < nin + nout + 1; i++) free(bufs[i]);
  return med;
}

/* Plans one call in measured mode; 0, or -1 with msg. With compare, also
   times the rule's plan and the measured one (sum[0], sum[1] += ms). */
static int tune_call(const kfc_call *c, const kf_threads *th, int compare, double *sum, char *msg, size_t n) {
  kf_op op = kf_op_from_name(c->op);
  const kfi_op_def *od = kfi_op_def_of(op);
  kf_tensor_desc in[KFC_MAX_IO];
  kf_plan_options opt;
  kf_attrs a;
  kf_plan plan;
  kf_error err;
  char choices[400];
  const char *how[] = { "rule", "wisdom", "measured" };
  int i, j, k;
  double t0;
  if (!od) return snprintf(msg, n, "%s: unknown op %s", c->name, c->op), -1;
  kf_attrs_init(op, &a);
  for (i = 0; i < c->num_attrs; i++) {
    for (j = 0; j < od->num_attrs && strcmp(od->attrs[j].name, c->attr_name[i]); j++) {}
    if (j == od->num_attrs) continue; /* recorded for the reader (e.g. U), not an attr of this op */
    if (kf_attrs_set(op, &a, c->attr_name[i], c->attr_value[i], &err) != KF_OK)
      return snprintf(msg, n, "%s: %s", c->name, err.message), -1;
  }
  if (od->num_inputs > KFC_MAX_IO) return snprintf(msg, n, "%s: too many inputs", c->name), -1;
  memset(in, 0, sizeof in);
  for (i = 0; i < od->num_inputs; i++) {
    const char *type = od->inputs[i].type, *tv = NULL;
    for (k = 0; k < c->num_inputs && strcmp(c->input_name[k], od->inputs[i].name); k++) {}
    if (k == c->num_inputs) return snprintf(msg, n, "%s: input %s missing", c->name, od->inputs[i].name), -1;
    for (j = 0; j < c->num_attrs; j++)
      if (!strcmp(c->attr_name[j], type)) tv = c->attr_value[j];
    in[i].dtype = kf_dtype_from_name(tv ? tv : type);
    if (in[i].dtype == KF_DT_INVALID) in[i].dtype = KF_FLOAT; /* an attr left at its default: float */
    in[i].rank = c->rank[k];
    for (j = 0; j < c->rank[k]; j++) in[i].dims[j] = c->dims[k][j];
    if (c->num_values[k] >= 0) in[i].host_data = c->values[k];
  }
  memset(&opt, 0, sizeof opt);
  opt.measure = KF_PLAN_MEASURE;
  opt.threads = th;
  t0 = now_s();
  if (kf_plan_op(&plan, op, &a, in, od->num_inputs, &opt, &err) != KF_OK)
    return snprintf(msg, n, "%s: %s", c->name, err.message), -1;
  k = kf_plan_source(&plan);
  printf("%-44s %7.1f ms  %-8s %s\n", c->name, 1e3 * (now_s() - t0), k >= 0 && k <= 2 ? how[k] : "?",
         kf_plan_choices(&plan, choices, sizeof choices));
  if (compare) {
    kf_plan rule;
    double tr, tm;
    opt.measure = KF_PLAN_RULE;
    if (kf_plan_op(&rule, op, &a, in, od->num_inputs, &opt, &err) != KF_OK)
      return snprintf(msg, n, "%s: %s", c->name, err.message), -1;
    tr = time_plan(&rule, op, in);
    tm = time_plan(&plan, op, in);
    if (tr > 0 && tm > 0) sum[0] += tr, sum[1] += tm;
    printf("    | rule %.4f ms | measured plan %.4f ms | rule/measured %.2f |\n", tr, tm, tm > 0 ? tr / tm : 0.0);
  }
  return 0;
}

int kf_cli_tune(int argc, char **argv, char *msg, size_t n) {
  const char *manifest = NULL, *out = getenv("KFORGE_WISDOM");
  char def_out[512];
  kfc_call *calls;
  int ncalls, threads = 1, i, rc = 0, compare = 0;
  double sum[2] = { 0, 0 };
  pool p;
  kf_threads th;
  kf_error err;
  double t0;
  for (i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--manifest") && i + 1 < argc) manifest = argv[++i];
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--compare")) compare = 1;
    else return snprintf(msg, n, "usage: kforge tune --manifest FILE [--threads N] [--out FILE] [--compare]"), 2;
  }
  if (!manifest) return snprintf(msg, n, "usage: kforge tune --manifest FILE [--threads N] [--out FILE] [--compare]"), 2;
  if (threads < 1 || threads > 64) return snprintf(msg, n, "--threads must be 1 to 64"), 2;
  if (!out || !*out) {
    const char *base = strrchr(manifest, '/'), *dot;
    base = base ? base + 1 : manifest;
    dot = strrchr(base, '.');
    snprintf(def_out, sizeof def_out, "%.*s.wisdom", (int)(dot ? dot - base : (long)strlen(base)), base);
    out = def_out;
  }
  if (kfc_manifest_read(manifest, &calls, &ncalls, msg, n) != 0) return 1;
  memset(&p, 0, sizeof p);
  pthread_mutex_init(&p.mu, NULL);
  pthread_cond_init(&p.go, NULL);
  pthread_cond_init(&p.done, NULL);
  for (i = 0; i + 1 < threads; i++)
    if (pthread_create(&p.th[p.workers], NULL, worker, &p) == 0) p.workers++;
  th.parallel_for = parallel_for;
  th.pool = &p;
  th.num_threads = threads;
  /* What the file knows already is reused, not measured again. */
  if (kf_wisdom_import(out, &err) != KF_OK && strcmp(err.rule, "wisdom.io") != 0) {
    snprintf(msg, n, "%s", err.message);
    rc = 1;
  }
  t0 = now_s();
  for (i = 0; i < ncalls && rc == 0; i++)
    if (tune_call(&calls[i], threads > 1 ? &th : NULL, compare, sum, msg, n) != 0) rc = 1;
  if (rc == 0) {
    if (!compare) printf("%d calls planned in %.2f s (%d thread%s)\n", ncalls, now_s() - t0, threads, threads > 1 ? "s" : "");
    else
      printf("%d calls: rule's plans %.3f ms, measured plans %.3f ms, rule/measured %.3f (medians of %d runs, %d thread%s)\n",
             ncalls, sum[0], sum[1], sum[1] > 0 ? sum[0] / sum[1] : 0.0, REPS, threads, threads > 1 ? "s" : "");
    if (kf_wisdom_export(out, &err) != KF_OK) snprintf(msg, n, "%s", err.message), rc = 1;
    else printf("wisdom written to %s (%d entries of this process)\n", out, kf_wisdom_count());
  }
  pthread_mutex_lock(&p.mu);
  p.stop = 1;
  pthread_cond_broadcast(&p.go);
  pthread_mutex_unlock(&p.mu);
  for (i = 0; i < p.workers; i++) pthread_join(p.th[i], NULL);
  free(calls);
  return rc;
}
