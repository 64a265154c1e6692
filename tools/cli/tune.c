/*
** tune.c -- `kforge tune --batch | --manifest FILE [--batch-size N]
** [--threads N] [--out FILE] [--compare] [--cold]`: plans every call (plan
** --batch's lines on stdin, or a model manifest's, at batch N if given, which
** lua5.4 tools/tune_calls.lua writes so) in measured mode (--cold:
** KF_PLAN_MEASURE_COLD, as a model's calls find their data; docs/tuning.md)
** and writes the wisdom, so that later runs (C, Python, TF ops with
** KFORGE_WISDOM) plan those calls as measured without measuring.
*/
#include "tune.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "call.h"

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

double kfc_now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int kfc_bufs_alloc(kfc_bufs *b, const kf_plan *plan, kf_op op, const kf_tensor_desc *in) {
  int i;
  memset(b, 0, sizeof *b);
  b->nin = kf_op_num_inputs(op), b->nout = kf_plan_num_outputs(plan);
  b->scratch_bytes = kf_plan_scratch_bytes(plan);
  if (b->nin > KFC_MAX_IO || b->nout > KFC_MAX_IO) return -1;
  for (i = 0; i < b->nin + b->nout + 1; i++) {
    const kf_tensor_desc *d = i < b->nin ? &in[i] : i < b->nin + b->nout ? kf_plan_output_desc(plan, i - b->nin) : NULL;
    size_t bytes = d ? kf_dtype_size(d->dtype) : b->scratch_bytes, k;
    int j;
    for (j = 0; d && j < d->rank; j++) bytes *= (size_t)d->dims[j];
    if (d && d->host_data) bytes = 0;
    if (!bytes) continue;
    if (posix_memalign(&b->buf[i], 64, bytes)) {
      b->buf[i] = NULL;
      kfc_bufs_free(b);
      return -1;
    }
    b->size[i] = bytes;
    memset(b->buf[i], 0, bytes);
    if (i < b->nin && d->dtype == KF_FLOAT)
      for (k = 0; k < bytes / 4; k++) ((float *)b->buf[i])[k] = 0.5f + (float)(k % 97) / 97.0f;
  }
  return 0;
}

int kfc_bufs_run(const kf_plan *plan, const kfc_bufs *b) {
  const void *ins[KFC_MAX_IO];
  void *outs[KFC_MAX_IO];
  int i;
  for (i = 0; i < b->nin; i++) ins[i] = b->buf[i];
  for (i = 0; i < b->nout; i++) outs[i] = b->buf[b->nin + i];
  return kf_execute(plan, ins, outs, b->buf[b->nin + b->nout], b->scratch_bytes, NULL) == KF_OK ? 0 : -1;
}

void kfc_bufs_free(kfc_bufs *b) {
  int i;
  for (i = 0; i < 2 * KFC_MAX_IO + 1; i++) free(b->buf[i]), b->buf[i] = NULL;
}

double kfc_median(double *t, int n) {
  qsort(t, (size_t)n, sizeof t[0], cmp_double);
  return t[n / 2];
}

double kfc_time_bufs(const kf_plan *plan, const kfc_bufs *b, int cold) {
  double t[KFC_REPS];
  int r, i;
  for (r = 0; r <= KFC_REPS; r++) {
    double t0;
    for (i = 0; r && cold && i < b->nin + b->nout + 1; i++) kf_flush_caches(b->buf[i], b->size[i]);
    t0 = kfc_now_s();
    if (kfc_bufs_run(plan, b) != 0) return -1;
    if (r) t[r - 1] = 1e3 * (kfc_now_s() - t0);
  }
  return kfc_median(t, KFC_REPS);
}

double kfc_time_plan(const kf_plan *plan, kf_op op, const kf_tensor_desc *in, int cold) {
  kfc_bufs b;
  double med;
  if (kfc_bufs_alloc(&b, plan, op, in) != 0) return -1;
  med = kfc_time_bufs(plan, &b, cold);
  kfc_bufs_free(&b);
  return med;
}

/* Plans one call in measured mode; 0, or -1 with msg. With compare, also
   times the rule's plan and the measured one (sum[0], sum[1] += ms). */
static int tune_call(const kfc_call *c, const kf_threads *th, int compare, int cold, double *sum, char *msg, size_t n) {
  const char *label = c->name;
  kf_plan_options opt;
  kf_plan plan;
  kf_error err;
  char choices[400];
  const char *how[] = { "rule", "wisdom", "measured" };
  int k;
  double t0;
  memset(&opt, 0, sizeof opt);
  opt.measure = cold ? KF_PLAN_MEASURE_COLD : KF_PLAN_MEASURE;
  opt.threads = th;
  t0 = kfc_now_s();
  if (kf_plan_op(&plan, c->op, &c->attrs, c->in, c->num_inputs, &opt, &err) != KF_OK)
    return snprintf(msg, n, "%s: %s", label, err.message), -1;
  k = kf_plan_source(&plan);
  printf("%-44s %7.1f ms  %-8s %s\n", label, 1e3 * (kfc_now_s() - t0), k >= 0 && k <= 2 ? how[k] : "?",
         kf_plan_choices(&plan, choices, sizeof choices));
  if (compare) {
    kf_plan rule;
    double tr, tm;
    opt.measure = KF_PLAN_RULE;
    opt.fresh_outputs = cold; /* cold: the rule a step's ops plan (TF's, kforge.tf), the measurement's start */
    if (kf_plan_op(&rule, c->op, &c->attrs, c->in, c->num_inputs, &opt, &err) != KF_OK)
      return snprintf(msg, n, "%s: %s", label, err.message), -1;
    tr = kfc_time_plan(&rule, c->op, c->in, cold);
    tm = kfc_time_plan(&plan, c->op, c->in, cold);
    if (tr > 0 && tm > 0) sum[0] += tr, sum[1] += tm;
    printf("    | rule %.4f ms | measured plan %.4f ms | rule/measured %.2f |\n", tr, tm, tm > 0 ? tr / tm : 0.0);
  }
  return 0;
}

char *kfc_read_all(FILE *f) {
  size_t len = 0, cap = 1 << 16;
  char *buf = malloc(cap), *nb;
  while (buf) {
    len += fread(buf + len, 1, cap - 1 - len, f);
    if (len < cap - 1) break;
    if (!(nb = realloc(buf, cap * 2))) {
      free(buf);
      return NULL;
    }
    buf = nb, cap *= 2;
  }
  if (buf) buf[len] = 0;
  return buf;
}

/* s in single quotes for sh, into buf; 0 when it does not fit. */
static int sh_quote(char *buf, size_t n, const char *s) {
  size_t k = 0;
  if (n < 3) return 0;
  buf[k++] = '\'';
  for (; *s; s++) {
    if (k + 5 >= n) return 0;
    if (*s == '\'') memcpy(buf + k, "'\\''", 4), k += 4;
    else buf[k++] = *s;
  }
  buf[k++] = '\'';
  buf[k] = 0;
  return 1;
}

/* The one reader of model manifests is generator/model.lua: the calls of
   one come from lua5.4 tools/tune_calls.lua in kforge's source tree
   ($KFORGE_ROOT, else the directory above the CLI's, else the current
   one). The calls as text, or NULL with msg. */
char *kfc_manifest_calls(const char *argv0, const char *manifest, int batch_size, char *msg, size_t n) {
  const char *lua = getenv("KFORGE_LUA"), *root = getenv("KFORGE_ROOT");
  char script[1024], cmd[4096], q[3][1100];
  char *out;
  int st;
  script[0] = 0;
  if (root && *root) snprintf(script, sizeof script, "%s/tools/tune_calls.lua", root);
  if ((!*script || access(script, R_OK) != 0) && strrchr(argv0, '/'))
    snprintf(script, sizeof script, "%.*s/../tools/tune_calls.lua", (int)(strrchr(argv0, '/') - argv0), argv0);
  if (!*script || access(script, R_OK) != 0) snprintf(script, sizeof script, "tools/tune_calls.lua");
  if (access(script, R_OK) != 0)
    return snprintf(msg, n, "tune --manifest reads a manifest with tools/tune_calls.lua of kforge's source tree, not "
                            "found here (set KFORGE_ROOT); or pass the calls as lines: kforge tune --batch < CALLS"),
           NULL;
  if (!lua || !*lua) lua = "lua5.4";
  if (!sh_quote(q[0], sizeof q[0], lua) || !sh_quote(q[1], sizeof q[1], script) || !sh_quote(q[2], sizeof q[2], manifest))
    return snprintf(msg, n, "tune --manifest: a path too long"), NULL;
  if (batch_size > 0) snprintf(cmd, sizeof cmd, "%s %s --batch %d %s 2>&1", q[0], q[1], batch_size, q[2]);
  else snprintf(cmd, sizeof cmd, "%s %s %s 2>&1", q[0], q[1], q[2]);
  fflush(stdout);
  FILE *p = popen(cmd, "r");
  if (!p) return snprintf(msg, n, "tune --manifest: cannot start %s", lua), NULL;
  out = kfc_read_all(p);
  st = pclose(p);
  if (out && st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) return out;
  if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
    snprintf(msg, n, "tune --manifest needs Lua 5.4 (%s: not found; KFORGE_LUA names another); without it, pass the "
                     "calls as lines: kforge tune --batch < CALLS (docs/tuning.md)", lua);
  else if (out) {
    size_t k = strlen(out);
    while (k && (out[k - 1] == '\n' || out[k - 1] == '\r')) out[--k] = 0;
    snprintf(msg, n, "%s", out);
  } else
    snprintf(msg, n, "tune --manifest: out of memory");
  free(out);
  return NULL;
}

#define TUNE_USAGE \
  "usage: kforge tune --batch | --manifest FILE [--batch-size N] [--threads N] [--out FILE] [--compare] [--cold]"

int kf_cli_tune(int argc, char **argv, char *msg, size_t n) {
  const char *manifest = NULL, *out = getenv("KFORGE_WISDOM");
  char def_out[512], *text, *line, *next;
  static kfc_call call; /* large */
  int ncalls = 0, threads = 1, i, rc = 0, compare = 0, batch = 0, cold = 0, batch_size = 0;
  double sum[2] = { 0, 0 };
  pool p;
  kf_threads th;
  kf_error err;
  double t0;
  for (i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--manifest") && i + 1 < argc) manifest = argv[++i];
    else if (!strcmp(argv[i], "--batch")) batch = 1;
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--compare")) compare = 1;
    else if (!strcmp(argv[i], "--cold")) cold = 1;
    else if (!strcmp(argv[i], "--batch-size") && i + 1 < argc && (batch_size = atoi(argv[++i])) > 0) continue;
    else return snprintf(msg, n, TUNE_USAGE), 2;
  }
  if (!manifest == !batch) return snprintf(msg, n, TUNE_USAGE), 2;
  if (threads < 1 || threads > 64) return snprintf(msg, n, "--threads must be 1 to 64"), 2;
  if ((!out || !*out) && manifest) {
    const char *base = strrchr(manifest, '/'), *dot;
    base = base ? base + 1 : manifest;
    dot = strrchr(base, '.');
    snprintf(def_out, sizeof def_out, "%.*s.wisdom", (int)(dot ? dot - base : (long)strlen(base)), base);
    out = def_out;
  }
  if (!out || !*out) out = "kforge.wisdom";
  if (batch_size && !manifest) return snprintf(msg, n, "--batch-size goes with --manifest\n" TUNE_USAGE), 2;
  text = manifest ? kfc_manifest_calls(argv[0], manifest, batch_size, msg, n) : kfc_read_all(stdin);
  if (!text) {
    if (!manifest) snprintf(msg, n, "tune --batch: out of memory");
    return 1;
  }
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
  t0 = kfc_now_s();
  for (line = text, i = 1; line && *line && rc == 0; line = next, i++) {
    char *words[256], label[160];
    const char *rule;
    int nw;
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    if (!(nw = kfc_split(line, words, 256))) continue; /* a blank line */
    if (kfc_call_parse(nw, words, 0, &call, label, sizeof label, &rule) != 0) {
      snprintf(msg, n, "%s line %d: %s", manifest ? manifest : "tune --batch", i, label);
      rc = 1;
      break;
    }
    if (!call.name[0]) snprintf(call.name, sizeof call.name, "line %d", i);
    if (tune_call(&call, threads > 1 ? &th : NULL, compare, cold, sum, msg, n) != 0) rc = 1;
    ncalls++;
  }
  if (rc == 0 && ncalls == 0) snprintf(msg, n, "%s: no calls", manifest ? manifest : "tune --batch"), rc = 1;
  if (rc == 0) {
    if (!compare)
      printf("%d calls planned%s in %.2f s (%d thread%s)\n", ncalls, cold ? " cold" : "", kfc_now_s() - t0, threads,
             threads > 1 ? "s" : "");
    else
      printf("%d calls: rule's plans %.3f ms, measured plans %.3f ms, rule/measured %.3f (medians of %d %s runs, %d "
             "thread%s)\n",
             ncalls, sum[0], sum[1], sum[1] > 0 ? sum[0] / sum[1] : 0.0, KFC_REPS, cold ? "cold" : "warm", threads,
             threads > 1 ? "s" : "");
    if (kf_wisdom_export(out, &err) != KF_OK) snprintf(msg, n, "%s", err.message), rc = 1;
    else printf("wisdom written to %s (%d entries of this process)\n", out, kf_wisdom_count());
  }
  pthread_mutex_lock(&p.mu);
  p.stop = 1;
  pthread_cond_broadcast(&p.go);
  pthread_mutex_unlock(&p.mu);
  for (i = 0; i < p.workers; i++) pthread_join(p.th[i], NULL);
  free(text);
  return rc;
}
