/*
** profile.c -- `kforge profile --manifest FILE [--batch-size N] [--top K] |
** --batch`: where a model's calls spend their time against their DRAM floor
** (issue 26). Each call, planned as this process would plan it (the rule,
** or KFORGE_WISDOM's entry), runs on one thread warm (its buffers in the
** caches) and cold (evicted before each run, as a model's calls find their
** data); its floor is the bytes it must move (inputs and outputs) over the
** bandwidth of a 1-thread 128 MiB copy measured here (before and after the
** calls, the faster). Then all calls run in model order, each on buffers of
** its own, as a step runs them: the "order" column, where every call finds
** its data evicted by the calls before it and the caches full of their
** outputs. --fresh plans as TF's ops do (kf_plan_options.fresh_outputs).
** Prints every call in model order, then sums by op and by kernel, and the
** calls that hold most of the gap (docs/training.md, "Where the gradient
** ops' time goes").
*/
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "tune.h"

#define PROFILE_USAGE \
  "usage: kforge profile --manifest FILE [--batch-size N] [--top K] [--fresh] | --batch [--top K] [--fresh] < CALLS"
#define MAX_CALLS 1024
#define MAX_GROUPS 64

typedef struct row {
  char name[128], kernel[96];
  kf_op op;
  double bytes, warm, cold, floor, order; /* bytes; ms */
} row;

typedef struct group {
  const char *name;
  int calls;
  double bytes, warm, cold, floor, order;
} group;

static kf_plan plans[MAX_CALLS];
static kfc_bufs bufs[MAX_CALLS];

/* Bytes per second of a 1-thread copy of 128 MiB (read + write counted),
   best of 10: the bandwidth bench_train_step.py's floor uses too (best of 5). */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy; /* not elided */

static double copy_bandwidth(void) {
  size_t n = (size_t)128 << 20;
  char *a = malloc(n), *b = malloc(n);
  double best = -1;
  int r;
  if (!a || !b) {
    free(a), free(b);
    return -1;
  }
  memset(a, 1, n);
  memset(b, 2, n);
  for (r = 0; r < 11; r++) {
    double t0 = kfc_now_s(), t;
    copy_fn(b, a, n);
    t = kfc_now_s() - t0;
    if (r && (best < 0 || t < best)) best = t;
  }
  free(a), free(b);
  return 2.0 * (double)n / best;
}

static double bytes_of(const kf_tensor_desc *d) {
  double b = (double)kf_dtype_size(d->dtype);
  int i;
  if (d->host_data) return 0; /* sizes read at plan time: no traffic */
  for (i = 0; i < d->rank; i++) b *= (double)d->dims[i];
  return b;
}

static int profile_call(const kfc_call *c, row *w, kf_plan *plan_out, kfc_bufs *b, int fresh, char *msg, size_t n) {
  kf_plan plan;
  kf_error err;
  kf_plan_options opt;
  int i;
  memset(&opt, 0, sizeof opt); /* as the process plans: KFORGE_PLAN, KFORGE_WISDOM, else the rule */
  opt.fresh_outputs = fresh;
  if (kf_plan_op(&plan, c->op, &c->attrs, c->in, c->num_inputs, &opt, &err) != KF_OK)
    return snprintf(msg, n, "%s: %s", c->name, err.message), -1;
  memset(w, 0, sizeof *w);
  snprintf(w->name, sizeof w->name, "%s", c->name);
  snprintf(w->kernel, sizeof w->kernel, "%s", kf_plan_kernel_name(&plan));
  w->op = c->op;
  for (i = 0; i < c->num_inputs; i++) w->bytes += bytes_of(&c->in[i]);
  for (i = 0; i < kf_plan_num_outputs(&plan); i++) w->bytes += bytes_of(kf_plan_output_desc(&plan, i));
  *plan_out = plan;
  if (kfc_bufs_alloc(b, plan_out, c->op, c->in) != 0) /* kept for the model-order pass */
    return snprintf(msg, n, "%s: out of memory for its buffers", c->name), -1;
  w->warm = kfc_time_bufs(plan_out, b, 0);
  w->cold = kfc_time_bufs(plan_out, b, 1);
  if (w->warm < 0 || w->cold < 0) return kfc_bufs_free(b), snprintf(msg, n, "%s: the plan did not run", c->name), -1;
  return 0;
}

/* Every call in model order on its own buffers, one warm-up pass and
   KFC_REPS timed ones: each call's median (ms). */
static int run_in_order(row *rows, int nrows) {
  static double t[MAX_CALLS][KFC_REPS];
  int r, i;
  for (r = 0; r <= KFC_REPS; r++)
    for (i = 0; i < nrows; i++) {
      const double t0 = kfc_now_s();
      if (kfc_bufs_run(&plans[i], &bufs[i]) != 0) return -1;
      if (r) t[i][r - 1] = 1e3 * (kfc_now_s() - t0);
    }
  for (i = 0; i < nrows; i++) rows[i].order = kfc_median(t[i], KFC_REPS);
  return 0;
}

static void add(group *g, int *ng, const char *name, const row *w) {
  int i;
  for (i = 0; i < *ng && strcmp(g[i].name, name) != 0; i++) {}
  if (i == *ng) {
    if (*ng == MAX_GROUPS) return;
    memset(&g[i], 0, sizeof g[i]);
    g[i].name = name;
    (*ng)++;
  }
  g[i].calls++, g[i].bytes += w->bytes, g[i].warm += w->warm, g[i].cold += w->cold, g[i].floor += w->floor;
  g[i].order += w->order;
}

static void print_groups(const char *what, const group *g, int ng, double gap) {
  int i;
  printf("\n%-44s %5s %9s %9s %9s %9s %9s %8s %9s\n", what, "calls", "MB", "floor ms", "warm ms", "cold ms",
         "order ms", "cold/fl", "gap share");
  for (i = 0; i < ng; i++)
    printf("%-44s %5d %9.2f %9.3f %9.3f %9.3f %9.3f %7.2fx %8.0f%%\n", g[i].name, g[i].calls, g[i].bytes / 1e6,
           g[i].floor, g[i].warm, g[i].cold, g[i].order, g[i].cold / g[i].floor,
           gap > 0 ? 100 * (g[i].cold - g[i].floor) / gap : 0.0);
}

static int by_gap(const void *a, const void *b) {
  const row *x = a, *y = b;
  double gx = x->cold - x->floor, gy = y->cold - y->floor;
  return gx < gy ? 1 : gx > gy ? -1 : 0;
}

int kf_cli_profile(int argc, char **argv, char *msg, size_t n) {
  const char *manifest = NULL;
  char *text, *line, *next;
  static kfc_call call;
  static row rows[MAX_CALLS];
  group ops[MAX_GROUPS], kernels[MAX_GROUPS];
  int nrows = 0, nops = 0, nkernels = 0, batch = 0, batch_size = 0, top = 10, fresh = 0, i, rc = 0;
  double bw, bw2, tot[5] = { 0, 0, 0, 0, 0 }, gap;
  for (i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--manifest") && i + 1 < argc) manifest = argv[++i];
    else if (!strcmp(argv[i], "--batch")) batch = 1;
    else if (!strcmp(argv[i], "--fresh")) fresh = 1;
    else if (!strcmp(argv[i], "--batch-size") && i + 1 < argc && (batch_size = atoi(argv[++i])) > 0) continue;
    else if (!strcmp(argv[i], "--top") && i + 1 < argc && (top = atoi(argv[++i])) >= 0) continue;
    else return snprintf(msg, n, PROFILE_USAGE), 2;
  }
  if (!manifest == !batch || (batch_size && !manifest)) return snprintf(msg, n, PROFILE_USAGE), 2;
  text = manifest ? kfc_manifest_calls(argv[0], manifest, batch_size, msg, n) : kfc_read_all(stdin);
  if (!text) {
    if (!manifest) snprintf(msg, n, "profile --batch: out of memory");
    return 1;
  }
  if ((bw = copy_bandwidth()) <= 0) {
    free(text);
    return snprintf(msg, n, "profile: out of memory for the bandwidth copy"), 1;
  }
  for (line = text, i = 1; line && *line && rc == 0; line = next, i++) {
    char *words[256], label[160];
    const char *rule;
    int nw;
    row *w;
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    if (!(nw = kfc_split(line, words, 256))) continue;
    if (nrows == MAX_CALLS) {
      snprintf(msg, n, "profile: more than %d calls", MAX_CALLS);
      rc = 1;
      break;
    }
    if (kfc_call_parse(nw, words, 0, &call, label, sizeof label, &rule) != 0) {
      snprintf(msg, n, "%s line %d: %s", manifest ? manifest : "profile --batch", i, label);
      rc = 1;
      break;
    }
    if (!call.name[0]) snprintf(call.name, sizeof call.name, "line %d", i);
    w = &rows[nrows];
    if (profile_call(&call, w, &plans[nrows], &bufs[nrows], fresh, msg, n) != 0) {
      rc = 1;
      break;
    }
    nrows++;
  }
  free(text);
  if (!rc && nrows && run_in_order(rows, nrows) != 0) rc = 1, snprintf(msg, n, "profile: a call did not run in order");
  for (i = 0; i < nrows; i++) kfc_bufs_free(&bufs[i]);
  if (rc) return rc;
  if (!nrows) return snprintf(msg, n, "%s: no calls", manifest ? manifest : "profile --batch"), 1;
  /* Again after the calls, the faster kept: on a shared host one copy
     can fall on a neighbour's burst. */
  if ((bw2 = copy_bandwidth()) > bw) bw = bw2;
  if (!kf_flush_caches(NULL, 0))
    printf("(no cache-line flush known on this architecture: the cold column is not evicted)\n");
  printf("%-44s %-44s %9s %9s %9s %9s %9s %8s\n", "call (model order, 1 thread)", "kernel", "KB", "floor us",
         "warm us", "cold us", "order us", "cold/fl");
  for (i = 0; i < nrows; i++) {
    row *w = &rows[i];
    w->floor = 1e3 * w->bytes / bw;
    printf("%-44s %-44s %9.1f %9.1f %9.1f %9.1f %9.1f %7.2fx\n", w->name, w->kernel, w->bytes / 1e3,
           1e3 * w->floor, 1e3 * w->warm, 1e3 * w->cold, 1e3 * w->order, w->cold / w->floor);
  }
  for (i = 0; i < nrows; i++) {
    add(ops, &nops, kf_op_name(rows[i].op), &rows[i]);
    add(kernels, &nkernels, rows[i].kernel, &rows[i]);
    tot[0] += rows[i].bytes, tot[1] += rows[i].floor, tot[2] += rows[i].warm, tot[3] += rows[i].cold;
    tot[4] += rows[i].order;
  }
  gap = tot[3] - tot[1];
  print_groups("by op (medians of 15 runs, summed)", ops, nops, gap);
  print_groups("by kernel", kernels, nkernels, gap);
  qsort(rows, (size_t)nrows, sizeof rows[0], by_gap);
  if (top > nrows) top = nrows;
  printf("\nthe %d calls holding most of the gap (cold - floor):\n", top);
  for (i = 0; i < top; i++)
    printf("%-44s %-44s %8.1f us over a floor of %.1f us (cold %.2fx, warm %.2fx the floor)\n", rows[i].name,
           rows[i].kernel, 1e3 * (rows[i].cold - rows[i].floor), 1e3 * rows[i].floor, rows[i].cold / rows[i].floor,
           rows[i].warm / rows[i].floor);
  printf("\n%d calls, 1 thread%s: cold %.3f ms, warm %.3f ms, in model order %.3f ms, DRAM floor %.3f ms (%.1f MB at "
         "%.1f GB/s, 1-thread copy): cold %.2fx the floor, in order %.2fx\n",
         nrows, fresh ? ", fresh outputs" : "", tot[3], tot[2], tot[4], tot[1], tot[0] / 1e6, bw / 1e9,
         tot[3] / tot[1], tot[4] / tot[1]);
  return 0;
}
