/*
** test_wisdom.c -- measured plans and wisdom (docs/tuning.md): the rule
** unchanged by default, the measured mode (C API and KFORGE_PLAN), a
** wisdom round trip, foreign, stale and corrupt files, two processes
** writing one file, and every variant a plan can choose (every kernel that
** serves the call, every value of every plan-time parameter in
** kfi_choices[]) checked against the float64 references.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "th_pool.h"
#include "kfi_wisdom.h" /* kfi_choices[]: the values every_variant forces */
#include "ref/bngrad_ref.h"
#include "ref/dwbpf_ref.h"
#include "ref/dwbpi_ref.h"

static char dir[256];

/* ---- calls: a batch-norm gradient, depthwise input and filter gradients ---- */
typedef struct call {
  kf_op op;
  kf_attrs a;
  kf_tensor_desc in[6];
  int nin;
  int32_t sizes[4];
  int64_t n, c, s;           /* bngrad: [n, s, c] */
  ref_dwbpi_conf cf;         /* dwbpi */
  void *buf[6], *out[3];
  double *want[3];
  double *l1;                /* dwbpf: the sum of the terms' magnitudes per output */
  size_t nout[3];
} call;

static void set(kf_op op, kf_attrs *a, const char *name, const char *v) {
  kf_error err = {0};
  if (kf_attrs_set(op, a, name, v, &err) != KF_OK) th_check(0, "attr %s=%s: %s", name, v, err.message);
}

/* A training batch-norm call on [n, h, h, c] (NHWC) or [n, c, h, h] (nchw). */
static void bn_call(call *k, int64_t n, int64_t h, int64_t c, int nchw) {
  int64_t dims[4], cd[1];
  th_rng r;
  double *d[5];
  int i;
  int64_t e;
  memset(k, 0, sizeof *k);
  k->op = KF_OP_FUSED_BATCH_NORM_GRAD_V3;
  kf_attrs_init(k->op, &k->a);
  set(k->op, &k->a, "is_training", "true");
  if (nchw) set(k->op, &k->a, "data_format", "NCHW");
  dims[0] = n, dims[1] = nchw ? c : h, dims[2] = h, dims[3] = nchw ? h : c, cd[0] = c;
  k->n = n, k->s = h * h, k->c = c;
  k->in[0] = th_desc(KF_FLOAT, 4, dims);
  k->in[1] = k->in[0];
  for (i = 2; i < 6; i++) k->in[i] = th_desc(KF_FLOAT, 1, cd);
  k->nin = 6;
  th_seed_case(&r, "wisdom bngrad %lldx%lldx%lld%s", (long long)n, (long long)h, (long long)c, nchw ? " nchw" : "");
  for (i = 0; i < 5; i++) {
    int64_t m = i < 2 ? n * h * h * c : c;
    k->buf[i] = calloc((size_t)m, sizeof(float));
    d[i] = calloc((size_t)m, sizeof(double));
    for (e = 0; e < m; e++) {
      double v = i == 4 ? th_uniform(&r, 0.5, 2) : th_uniform(&r, -1, 1);
      th_store(KF_FLOAT, k->buf[i], (size_t)e, v);
      d[i][e] = th_load(KF_FLOAT, k->buf[i], (size_t)e);
    }
  }
  k->nout[0] = (size_t)(n * h * h * c), k->nout[1] = k->nout[2] = (size_t)c;
  for (i = 0; i < 3; i++) {
    k->out[i] = calloc(k->nout[i], sizeof(float));
    k->want[i] = calloc(k->nout[i], sizeof(double));
  }
  ref_bngrad(!nchw, 1, n, c, k->s, k->a.epsilon, d[0], d[1], d[2], d[3], d[4], k->want[0], k->want[1], k->want[2]);
  for (i = 0; i < 5; i++) free(d[i]);
}

static void dw_call(call *k, int64_t n, int64_t h, int64_t c, int stride) {
  int64_t fd[4] = { 3, 3, c, 1 }, gd[4], sd[1] = { 4 };
  double *f, *g;
  th_rng r;
  int64_t e, nf, ng;
  char st[32];
  memset(k, 0, sizeof *k);
  k->op = KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT;
  kf_attrs_init(k->op, &k->a);
  snprintf(st, sizeof st, "1,%d,%d,1", stride, stride);
  set(k->op, &k->a, "strides", st);
  set(k->op, &k->a, "padding", "SAME");
  k->cf.n = n, k->cf.h = h, k->cf.w = h, k->cf.c = c, k->cf.m = 1, k->cf.kh = 3, k->cf.kw = 3;
  k->cf.sh = k->cf.sw = stride, k->cf.dh = k->cf.dw = 1;
  ref_dwbpi_window(h, 3, 1, stride, REF_SAME, 0, 0, &k->cf.oh, &k->cf.pad_top);
  ref_dwbpi_window(h, 3, 1, stride, REF_SAME, 0, 0, &k->cf.ow, &k->cf.pad_left);
  gd[0] = n, gd[1] = k->cf.oh, gd[2] = k->cf.ow, gd[3] = c;
  k->sizes[0] = (int32_t)n, k->sizes[1] = k->sizes[2] = (int32_t)h, k->sizes[3] = (int32_t)c;
  k->in[0] = th_desc(KF_INT32, 1, sd);
  k->in[0].host_data = k->sizes;
  k->in[1] = th_desc(KF_FLOAT, 4, fd);
  k->in[2] = th_desc(KF_FLOAT, 4, gd);
  k->nin = 3;
  nf = 9 * c, ng = n * k->cf.oh * k->cf.ow * c;
  th_seed_case(&r, "wisdom dwbpi %lldx%lldx%lld s%d", (long long)n, (long long)h, (long long)c, stride);
  k->buf[1] = calloc((size_t)nf, sizeof(float));
  k->buf[2] = calloc((size_t)ng, sizeof(float));
  f = calloc((size_t)nf, sizeof(double));
  g = calloc((size_t)ng, sizeof(double));
  for (e = 0; e < nf; e++) th_store(KF_FLOAT, k->buf[1], (size_t)e, th_uniform(&r, -1, 1)), f[e] = th_load(KF_FLOAT, k->buf[1], (size_t)e);
  for (e = 0; e < ng; e++) th_store(KF_FLOAT, k->buf[2], (size_t)e, th_uniform(&r, -1, 1)), g[e] = th_load(KF_FLOAT, k->buf[2], (size_t)e);
  k->nout[0] = (size_t)(n * h * h * c);
  k->out[0] = calloc(k->nout[0], sizeof(float));
  k->want[0] = calloc(k->nout[0], sizeof(double));
  ref_dwbpi(&k->cf, f, g, k->want[0]);
  free(f);
  free(g);
}

/* A depthwise filter gradient, 3x3, SAME, multiplier 1. */
static void bf_call(call *k, int64_t n, int64_t h, int64_t c, int stride) {
  int64_t xd[4] = { n, h, h, c }, gd[4], sd[1] = { 4 };
  ref_dwbpf_conf cf;
  double *x, *g;
  th_rng r;
  int64_t e, nx, ng;
  char st[32];
  memset(k, 0, sizeof *k);
  memset(&cf, 0, sizeof cf);
  k->op = KF_OP_DEPTHWISE_CONV2D_NATIVE_BACKPROP_FILTER;
  kf_attrs_init(k->op, &k->a);
  snprintf(st, sizeof st, "1,%d,%d,1", stride, stride);
  set(k->op, &k->a, "strides", st);
  set(k->op, &k->a, "padding", "SAME");
  cf.n = n, cf.h = h, cf.w = h, cf.c = c, cf.m = 1, cf.kh = 3, cf.kw = 3, cf.sh = cf.sw = stride, cf.dh = cf.dw = 1;
  ref_dwbpi_window(h, 3, 1, stride, REF_SAME, 0, 0, &cf.oh, &cf.pad_top);
  ref_dwbpi_window(h, 3, 1, stride, REF_SAME, 0, 0, &cf.ow, &cf.pad_left);
  gd[0] = n, gd[1] = cf.oh, gd[2] = cf.ow, gd[3] = c;
  k->sizes[0] = k->sizes[1] = 3, k->sizes[2] = (int32_t)c, k->sizes[3] = 1;
  k->in[0] = th_desc(KF_FLOAT, 4, xd);
  k->in[1] = th_desc(KF_INT32, 1, sd);
  k->in[1].host_data = k->sizes;
  k->in[2] = th_desc(KF_FLOAT, 4, gd);
  k->nin = 3;
  nx = n * h * h * c, ng = n * cf.oh * cf.ow * c;
  th_seed_case(&r, "wisdom dwbpf %lldx%lldx%lld s%d", (long long)n, (long long)h, (long long)c, stride);
  k->buf[0] = calloc((size_t)nx, sizeof(float));
  k->buf[2] = calloc((size_t)ng, sizeof(float));
  x = calloc((size_t)nx, sizeof(double));
  g = calloc((size_t)ng, sizeof(double));
  for (e = 0; e < nx; e++) th_store(KF_FLOAT, k->buf[0], (size_t)e, th_uniform(&r, -1, 1)), x[e] = th_load(KF_FLOAT, k->buf[0], (size_t)e);
  for (e = 0; e < ng; e++) th_store(KF_FLOAT, k->buf[2], (size_t)e, th_uniform(&r, -1, 1)), g[e] = th_load(KF_FLOAT, k->buf[2], (size_t)e);
  k->nout[0] = (size_t)(9 * c);
  k->out[0] = calloc(k->nout[0], sizeof(float));
  k->want[0] = calloc(k->nout[0], sizeof(double));
  k->l1 = calloc(k->nout[0], sizeof(double));
  ref_dwbpf(&cf, x, g, k->want[0], k->l1);
  free(x);
  free(g);
}

static void free_call(call *k) {
  int i;
  for (i = 0; i < 6; i++) free(k->buf[i]);
  for (i = 0; i < 3; i++) free(k->out[i]), free(k->want[i]);
  free(k->l1);
}

static kf_status plan(const call *k, kf_plan *p, int measure, kf_error *err) {
  kf_plan_options o;
  memset(&o, 0, sizeof o);
  o.measure = measure;
  return kf_plan_op(p, k->op, &k->a, k->in, k->nin, &o, err);
}

/* The same, on three threads (th_pool3): the wisdom key names the count. */
static kf_status plan_on3(const call *k, kf_plan *p, kf_error *err) {
  kf_plan_options o;
  memset(&o, 0, sizeof o);
  o.threads = &th_pool3;
  return kf_plan_op(p, k->op, &k->a, k->in, k->nin, &o, err);
}

/* Runs the plan and compares with the reference: 1 when within tolerance. */
static int run_ok(const call *k, const kf_plan *p, const char *what) {
  kf_error err = {0};
  void *outs[5] = { k->out[0], k->out[1], k->out[2], NULL, NULL };
  size_t sb = kf_plan_scratch_bytes(p);
  void *scratch = sb ? malloc(sb) : NULL;
  int i, ok = 1;
  char ch[300];
  kf_status st = kf_execute(p, (const void *const *)k->buf, outs, scratch, sb, &err);
  free(scratch);
  if (!th_check(st == KF_OK, "%s: executes (%s)", what, st == KF_OK ? "" : err.message)) return 0;
  if (k->l1) { /* a long sum: its error against the magnitudes of its terms (test_dwbpf's f32 bound) */
    double worst = 0;
    size_t e;
    for (e = 0; e < k->nout[0]; e++) {
      double q = fabs(th_load(KF_FLOAT, k->out[0], e) - k->want[0][e]) / (1e-6 * (k->l1[e] > 0 ? k->l1[e] : 1));
      if (!(q <= worst)) worst = q;
    }
    return th_check(worst <= 1, "%s: within tolerance of the float64 reference (%.3g of it) [%s]", what, worst,
                    kf_plan_choices(p, ch, sizeof ch));
  }
  for (i = 0; i < 3 && k->out[i]; i++) {
    double e = th_rel_err(KF_FLOAT, k->out[i], k->want[i], k->nout[i], i ? 1.0 : 0.0);
    ok &= th_check(e <= th_tol(KF_FLOAT), "%s: output %d within tolerance of the float64 reference (%.3g) [%s]", what, i,
                   e, kf_plan_choices(p, ch, sizeof ch));
  }
  return ok;
}

/* ---- files ---- */
static void path_of(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", dir, name); }

static int read_text(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  size_t k;
  if (!f) return 0;
  k = fread(buf, 1, n - 1, f);
  buf[k] = 0;
  fclose(f);
  return 1;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static int count_lines(const char *text, const char *prefix) {
  int n = 0;
  const char *s = text;
  while (s && *s) {
    if (!strncmp(s, prefix, strlen(prefix))) n++;
    s = strchr(s, '\n');
    if (s) s++;
  }
  return n;
}

/* The one entry line of a file holding one entry, split at its plan field. */
static int entry_of(const char *path, char *head, size_t n) {
  char text[8192], *line, *plan, *end;
  if (!read_text(path, text, sizeof text) || !(line = strstr(text, "\ncpu="))) return 0;
  line++;
  if (!(plan = strstr(line, "\tplan=")) || (size_t)(plan - line) + 1 >= n) return 0;
  end = plan + 6; /* through "\tplan=" */
  memcpy(head, line, (size_t)(end - line));
  head[end - line] = 0;
  return 1;
}

/* ---- cases ---- */

static void rule_by_default(call *k, const char *what) {
  kf_plan p, q;
  kf_error err = {0};
  char a[300], b[300];
  unsetenv("KFORGE_PLAN");
  kf_wisdom_forget();
  if (!th_check(plan(k, &p, 0, &err) == KF_OK && plan(k, &q, KF_PLAN_RULE, &err) == KF_OK, "%s: plans", what)) return;
  th_check(kf_plan_source(&p) == KF_PLAN_BY_RULE && !strcmp(kf_plan_choices(&p, a, sizeof a), kf_plan_choices(&q, b, sizeof b)),
           "%s: without wisdom or measuring, the rule's plan (%s)", what, a);
}

/* Measure (C API), reuse from memory, export, forget, import, reuse. */
static void measured_round_trip(call *k, const char *what, const char *file) {
  kf_plan p, q;
  kf_error err = {0};
  char a[300], b[300], path[512];
  path_of(path, sizeof path, file);
  kf_wisdom_forget();
  if (!th_check(plan(k, &p, KF_PLAN_MEASURE, &err) == KF_OK, "%s: measured plan (%s)", what, err.message)) return;
  th_check(kf_plan_source(&p) == KF_PLAN_BY_MEASURE && kf_wisdom_count() == 1, "%s: measured, one entry", what);
  run_ok(k, &p, what);
  th_check(plan(k, &q, KF_PLAN_MEASURE, &err) == KF_OK && kf_plan_source(&q) == KF_PLAN_BY_WISDOM &&
               !strcmp(kf_plan_choices(&p, a, sizeof a), kf_plan_choices(&q, b, sizeof b)),
           "%s: measured once, then from wisdom (%s / %s)", what, a, b);
  th_check(kf_wisdom_export(path, &err) == KF_OK, "%s: export", what);
  kf_wisdom_forget();
  th_check(kf_wisdom_count() == 0 && plan(k, &q, 0, &err) == KF_OK && kf_plan_source(&q) == KF_PLAN_BY_RULE,
           "%s: forgotten, the rule again", what);
  th_check(kf_wisdom_import(path, &err) == KF_OK && kf_wisdom_count() == 1, "%s: import", what);
  th_check(plan(k, &q, 0, &err) == KF_OK && kf_plan_source(&q) == KF_PLAN_BY_WISDOM &&
               !strcmp(a, kf_plan_choices(&q, b, sizeof b)),
           "%s: round trip keeps the choice (%s / %s)", what, a, b);
  th_check(plan(k, &q, KF_PLAN_RULE, &err) == KF_OK && kf_plan_source(&q) == KF_PLAN_BY_RULE,
           "%s: KF_PLAN_RULE ignores wisdom", what);
}

/* The words a wisdom entry may add to its kernel: "" (the rule's values),
   then each value of each of the family's plan-time parameters. */
static int choice_words(int family, char words[][48], int max) {
  int idx[KFI_MAX_CHOICES], n = kfi_family_choices(family, idx), i, v, nw = 0;
  words[nw++][0] = 0;
  for (i = 0; i < n; i++)
    for (v = 0; v < kfi_choices[idx[i]].num_values && nw < max; v++)
      snprintf(words[nw++], 48, " %.20s=%lld", kfi_choices[idx[i]].name, (long long)kfi_choices[idx[i]].values[v]);
  return nw;
}

/* Runs p3 (three threads) and compares with the outputs k->out holds
   (p's, one thread) bitwise: a plan's results never depend on the thread
   count, whatever its choices. */
static void same_on3(call *k, const kf_plan *p3, const char *what) {
  void *one[3] = { NULL, NULL, NULL };
  kf_error err = {0};
  int i, same = 1;
  for (i = 0; i < 3 && k->out[i]; i++) {
    one[i] = malloc(k->nout[i] * sizeof(float));
    memcpy(one[i], k->out[i], k->nout[i] * sizeof(float));
  }
  {
    void *outs[5] = { k->out[0], k->out[1], k->out[2], NULL, NULL };
    size_t sb = kf_plan_scratch_bytes(p3);
    void *scratch = sb ? malloc(sb) : NULL;
    if (kf_execute(p3, (const void *const *)k->buf, outs, scratch, sb, &err) != KF_OK) same = 0;
    free(scratch);
  }
  for (i = 0; i < 3 && k->out[i]; i++) {
    same &= memcmp(one[i], k->out[i], k->nout[i] * sizeof(float)) == 0;
    free(one[i]);
  }
  th_check(same, "%s: 3 threads bitwise as 1", what);
}

/* Every variant, forced through a wisdom entry: kernels that serve the call
   here are used and checked, under every parameter value, on one thread
   and on three; others are stale and leave the rule. */
static void every_variant(call *k, int family_id, const char *family, const char *what, const char *file) {
  char head[2048], head3[2048], text[4096], path[512], ch[300], words[KFI_MAX_CHOICES * KFI_CHOICE_VALUES + 1][48];
  kf_plan p, r, rule;
  kf_error err = {0};
  kf_kernel_info key;
  int i, v, nv = choice_words(family_id, words, (int)(sizeof words / sizeof words[0])), used = 0, others = 0, fitting = 0;
  path_of(path, sizeof path, file);
  unlink(path); /* the file must hold this call's entry alone */
  kf_wisdom_forget();
  if (plan(k, &r, KF_PLAN_MEASURE, &err) != KF_OK || kf_wisdom_export(path, &err) != KF_OK || !entry_of(path, head, sizeof head) ||
      kf_plan_key(&r, &key) != KF_OK || plan(k, &rule, KF_PLAN_RULE, &err) != KF_OK) {
    th_check(0, "%s: an entry to vary", what);
    return;
  }
  { /* the same call's key on three threads */
    char *t = strstr(head, " threads=1\t");
    snprintf(head3, sizeof head3, "%s", head);
    if (!th_check(t != NULL, "%s: the key names one thread", what)) return;
    head3[t - head + 9] = '3';
  }
  for (i = -1; (i = th_next_kernel(family, i)) >= 0;) {
    const kf_kernel_info *ki = th_kernel(i);
    int fits = th_kernel_runnable(ki->name), a;
    for (a = 0; a < key.num_keys; a++)
      if (strcmp(ki->key_value[a], "*") && strcmp(ki->key_value[a], key.key_value[a])) fits = 0;
    if (!fits && others++ >= 3) continue; /* a few kernels that cannot serve the call are enough */
    fitting += fits;
    for (v = 0; v < nv; v++) {
      char w[300], word[64];
      snprintf(text, sizeof text, "# kforge wisdom 1\n%.1900skernel=%.80s%.47s\n%.1900skernel=%.80s%.47s\n", head, ki->name,
               words[v], head3, ki->name, words[v]);
      write_text(path, text);
      kf_wisdom_forget();
      snprintf(w, sizeof w, "%.40s, %.180s%.47s", what, ki->name, words[v]);
      if (!th_check(kf_wisdom_import(path, &err) == KF_OK, "%s: import", w) || !th_check(plan(k, &p, 0, &err) == KF_OK, "%s: plan", w))
        continue;
      if (fits) {
        size_t len;
        kf_plan_choices(&p, ch, sizeof ch);
        len = strlen(ch);
        if (len + 1 < sizeof ch) ch[len] = ' ', ch[len + 1] = 0; /* every word ends in a blank */
        snprintf(word, sizeof word, "%.47s ", words[v]);
        th_check(kf_plan_source(&p) == KF_PLAN_BY_WISDOM && !strcmp(kf_plan_kernel_name(&p), ki->name) &&
                     strstr(ch, word) != NULL,
                 "%s: the entry is used (source %d: %s)", w, kf_plan_source(&p), ch);
        if (run_ok(k, &p, w)) {
          kf_plan p3;
          used++;
          if (th_check(plan_on3(k, &p3, &err) == KF_OK && kf_plan_source(&p3) == KF_PLAN_BY_WISDOM, "%s: planned on 3 threads from wisdom", w))
            same_on3(k, &p3, w);
        }
      } else {
        th_check(kf_plan_source(&p) == KF_PLAN_BY_RULE && !strcmp(kf_plan_kernel_name(&p), kf_plan_kernel_name(&rule)),
                 "%s: a kernel that cannot serve the call is ignored (stale), the rule stands", w);
      }
    }
  }
  th_check(nv > 1 && used == fitting * nv, "%s: %d variants (%d kernels x %d values) checked against the reference", what,
           used, fitting, nv);
  kf_wisdom_forget();
}

/* Foreign and stale entries are skipped; a corrupt file fails clearly and
   the plan keeps the rule (also through KFORGE_WISDOM). */
static void foreign_stale_corrupt(call *k) {
  char head[2048], text[4096], path[512], *f;
  kf_plan p;
  kf_error err = {0};
  path_of(path, sizeof path, "keys.wisdom");
  kf_wisdom_forget();
  if (plan(k, &p, KF_PLAN_MEASURE, &err) != KF_OK || kf_wisdom_export(path, &err) != KF_OK || !entry_of(path, head, sizeof head)) {
    th_check(0, "an entry to alter");
    return;
  }
  /* another CPU: replace the cpu field */
  f = strchr(head, '\t');
  snprintf(text, sizeof text, "# kforge wisdom 1\ncpu=GenuineIntel/6/207/scalar+avx2+avx512/llc307200K%skernel=%s\n", f,
           kf_plan_kernel_name(&p));
  write_text(path, text);
  kf_wisdom_forget();
  th_check(kf_wisdom_import(path, &err) == KF_OK && kf_wisdom_count() == 0, "a foreign CPU's entry is skipped");
  th_check(plan(k, &p, 0, &err) == KF_OK && kf_plan_source(&p) == KF_PLAN_BY_RULE, "foreign: the rule");
  /* another build: replace the build field's hash */
  {
    char *b = strstr(head, "\tbuild=") + 7, *e = strchr(b, '\t');
    char alt[2048];
    snprintf(alt, sizeof alt, "%.*s0123456789abcdef%s", (int)(b - head), head, e);
    snprintf(text, sizeof text, "# kforge wisdom 1\n%skernel=%s\n", alt, kf_plan_kernel_name(&p));
  }
  write_text(path, text);
  kf_wisdom_forget();
  th_check(kf_wisdom_import(path, &err) == KF_OK && kf_wisdom_count() == 0, "another build's entry is stale, skipped");
  /* corrupt: no header; a truncated line */
  write_text(path, "cpu=x\tbuild=y\n");
  err.rule = "";
  th_check(kf_wisdom_import(path, &err) == KF_INVALID_ARGUMENT && !strcmp(err.rule, "wisdom.corrupt") &&
               strstr(err.message, "line 1") && kf_wisdom_count() == 0,
           "no header: a clear error (%s)", err.message);
  snprintf(text, sizeof text, "# kforge wisdom 1\n%skernel=%s\ncpu=truncated\tbuild=", head, kf_plan_kernel_name(&p));
  write_text(path, text);
  th_check(kf_wisdom_import(path, &err) == KF_INVALID_ARGUMENT && !strcmp(err.rule, "wisdom.corrupt") &&
               strstr(err.message, "line 3") && kf_wisdom_count() == 0,
           "a bad line: a clear error, nothing imported (%s)", err.message);
  setenv("KFORGE_WISDOM", path, 1);
  kf_wisdom_forget();
  th_check(plan(k, &p, 0, &err) == KF_OK && kf_plan_source(&p) == KF_PLAN_BY_RULE,
           "KFORGE_WISDOM naming a corrupt file: the plan falls back to the rule");
  unsetenv("KFORGE_WISDOM");
  th_check(kf_wisdom_import("/nonexistent/kforge.wisdom", &err) == KF_INVALID_ARGUMENT && !strcmp(err.rule, "wisdom.io"),
           "a missing file: wisdom.io");
  kf_wisdom_forget();
}

/* KFORGE_PLAN=measure and KFORGE_WISDOM: measured on the first plan, written to the file. */
static void env_mode(call *k) {
  char path[512], text[8192];
  kf_plan p;
  kf_error err = {0};
  path_of(path, sizeof path, "env.wisdom");
  unlink(path);
  setenv("KFORGE_PLAN", "measure", 1);
  setenv("KFORGE_WISDOM", path, 1);
  kf_wisdom_forget();
  th_check(plan(k, &p, 0, &err) == KF_OK && kf_plan_source(&p) == KF_PLAN_BY_MEASURE, "KFORGE_PLAN=measure measures");
  th_check(read_text(path, text, sizeof text) && count_lines(text, "cpu=") == 1, "KFORGE_WISDOM receives the entry");
  th_check(plan(k, &p, 0, &err) == KF_OK && kf_plan_source(&p) == KF_PLAN_BY_WISDOM, "then the plan comes from wisdom");
  kf_wisdom_forget(); /* a new process, as it were: the file is read again */
  th_check(plan(k, &p, 0, &err) == KF_OK && kf_plan_source(&p) == KF_PLAN_BY_WISDOM, "and from the file after a restart");
  setenv("KFORGE_PLAN", "mesure", 1);
  err.rule = "";
  th_check(plan(k, &p, 0, &err) == KF_INVALID_ARGUMENT && !strcmp(err.rule, "env.plan"), "KFORGE_PLAN typo: env.plan (%s)",
           err.message);
  unsetenv("KFORGE_PLAN");
  unsetenv("KFORGE_WISDOM");
  kf_wisdom_forget();
}

/* The caller's alignments: buffers at odd offsets, in place included. */
static void caller_buffers(call *k) {
  kf_plan_options o;
  kf_plan p;
  kf_error err = {0};
  const void *bufs[11]; /* 6 inputs, 5 outputs */
  unsigned char *raw = malloc(1 << 12);
  int i;
  memset(&o, 0, sizeof o);
  bufs[0] = raw + 16, bufs[1] = raw + 48;
  for (i = 2; i < 11; i++) bufs[i] = raw + 8;
  bufs[6] = bufs[0]; /* x_backprop in place of y_backprop */
  o.measure = KF_PLAN_MEASURE;
  o.buffers = bufs;
  kf_wisdom_forget();
  th_check(kf_plan_op(&p, k->op, &k->a, k->in, k->nin, &o, &err) == KF_OK && kf_plan_source(&p) == KF_PLAN_BY_MEASURE,
           "measured at the caller's alignments");
  run_ok(k, &p, "caller's alignments");
  free(raw);
  kf_wisdom_forget();
}

/* Cold measuring (KF_PLAN_MEASURE_COLD, KFORGE_PLAN=measure-cold): it
   measures, its plan computes the reference's result, and its entry is
   the call's one entry, which the warm mode and the rule-with-wisdom use. */
static void cold_mode(call *k, const char *what) {
  kf_plan_options o;
  kf_plan p, q;
  kf_error err = {0};
  char a[300], b[300];
  const void *bufs[11]; /* bngrad's 6 inputs and 5 outputs; dwbpi uses 4 */
  unsigned char *raw = malloc(1 << 12);
  int i;
  kf_wisdom_forget();
  if (!th_check(plan(k, &p, KF_PLAN_MEASURE_COLD, &err) == KF_OK, "%s cold: measured plan (%s)", what, err.message)) {
    free(raw);
    return;
  }
  th_check(kf_plan_source(&p) == KF_PLAN_BY_MEASURE && kf_wisdom_count() == 1, "%s cold: measured, one entry", what);
  run_ok(k, &p, what);
  th_check(plan(k, &q, KF_PLAN_MEASURE, &err) == KF_OK && kf_plan_source(&q) == KF_PLAN_BY_WISDOM &&
               !strcmp(kf_plan_choices(&p, a, sizeof a), kf_plan_choices(&q, b, sizeof b)) && kf_wisdom_count() == 1,
           "%s cold: the same key as warm, not measured again (%s / %s)", what, a, b);
  th_check(plan(k, &q, 0, &err) == KF_OK && kf_plan_source(&q) == KF_PLAN_BY_WISDOM, "%s cold: the default uses it", what);
  kf_wisdom_forget();
  setenv("KFORGE_PLAN", "measure-cold", 1);
  th_check(plan(k, &q, 0, &err) == KF_OK && kf_plan_source(&q) == KF_PLAN_BY_MEASURE, "%s: KFORGE_PLAN=measure-cold measures",
           what);
  run_ok(k, &q, what);
  unsetenv("KFORGE_PLAN");
  /* The caller's alignments, an output in place of an input: evicted once. */
  for (i = 0; i < 11; i++) bufs[i] = raw + 8 * (i % 3);
  if (k->op == KF_OP_FUSED_BATCH_NORM_GRAD_V3) bufs[6] = bufs[0];
  memset(&o, 0, sizeof o);
  o.measure = KF_PLAN_MEASURE_COLD;
  o.buffers = bufs;
  kf_wisdom_forget();
  th_check(kf_plan_op(&q, k->op, &k->a, k->in, k->nin, &o, &err) == KF_OK && kf_plan_source(&q) == KF_PLAN_BY_MEASURE,
           "%s cold: measured at the caller's alignments", what);
  run_ok(k, &q, what);
  free(raw);
  kf_wisdom_forget();
}

/* The confirmation's noise rule on given ratios (winner over rule per
   pair): a steady 10% gain passes; a gain by less than the noise, a median
   gain carried by too few pairs, and an equal plan seen through a burst of
   noise on some pairs do not; neither does a failed timing. */
static void confirmation_rule(void) {
  const double steady[KFI_MS_CONFIRM_PAIRS] = { 0.90, 0.91, 0.89, 0.92, 0.90, 0.88, 0.91 };
  double r[KFI_MS_CONFIRM_PAIRS];
  int i;
  th_check(kfi_measure_confirmed(steady, KFI_MS_CONFIRM_PAIRS), "a steady 10%% gain is confirmed");
  for (i = 0; i < KFI_MS_CONFIRM_PAIRS; i++) r[i] = 1 - KFI_MS_NOISE / 2;
  th_check(!kfi_measure_confirmed(r, KFI_MS_CONFIRM_PAIRS), "a gain within the noise is not");
  /* the median pair gains 20%, but fewer than KFI_MS_CONFIRM_WINS pairs are faster */
  for (i = 0; i < KFI_MS_CONFIRM_PAIRS; i++) r[i] = i < KFI_MS_CONFIRM_WINS - 1 ? 0.8 : 1.05;
  th_check(KFI_MS_CONFIRM_WINS - 1 > KFI_MS_CONFIRM_PAIRS / 2 && !kfi_measure_confirmed(r, KFI_MS_CONFIRM_PAIRS),
           "a median gain on too few pairs is not");
  for (i = 0; i < KFI_MS_CONFIRM_PAIRS; i++) r[i] = i < KFI_MS_CONFIRM_WINS ? 0.8 : 1.05;
  th_check(kfi_measure_confirmed(r, KFI_MS_CONFIRM_PAIRS), "a 20%% gain on enough pairs is");
  /* equal plans; the rule's runs preempted in 3 pairs (ratio 0.3) */
  for (i = 0; i < KFI_MS_CONFIRM_PAIRS; i++) r[i] = i % 2 ? 0.3 : 1.0 + 0.01 * i;
  th_check(!kfi_measure_confirmed(r, KFI_MS_CONFIRM_PAIRS), "a burst of noise on 3 pairs elects no equal plan");
  memcpy(r, steady, sizeof r);
  r[3] = -1;
  th_check(!kfi_measure_confirmed(r, KFI_MS_CONFIRM_PAIRS), "a failed timing confirms nothing");
  th_check(!kfi_measure_confirmed(steady, 0) && !kfi_measure_confirmed(steady, KFI_MS_CONFIRM_PAIRS + 1),
           "no pairs, or more than the rule knows, confirm nothing");
  th_check(kfi_measure_confirmed(steady, 3), "three steady pairs of three confirm");
}

/* Two processes measure different calls and export to one file. */
static void two_writers(void) {
  char path[512], text[65536];
  pid_t pid[2];
  int w, i, status, ok = 1;
  path_of(path, sizeof path, "shared.wisdom");
  unlink(path);
  fflush(stdout);
  for (w = 0; w < 2; w++) {
    if ((pid[w] = fork()) == 0) {
      int bad = 0;
      kf_wisdom_forget();
      for (i = 0; i < 6; i++) {
        call k;
        kf_plan p;
        kf_error err = {0};
        bn_call(&k, 1, 2 + i, 8 + 8 * w, 0);
        bad |= plan(&k, &p, KF_PLAN_MEASURE, &err) != KF_OK || kf_wisdom_export(path, &err) != KF_OK;
        free_call(&k);
      }
      _exit(bad);
    }
  }
  for (w = 0; w < 2; w++) ok &= waitpid(pid[w], &status, 0) == pid[w] && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  th_check(ok, "two writers finish");
  th_check(read_text(path, text, sizeof text) && count_lines(text, "cpu=") == 12, "two writers: all 12 entries kept (%d)",
           count_lines(text, "cpu="));
  kf_wisdom_forget();
  th_check(kf_wisdom_import(path, NULL) == KF_OK && kf_wisdom_count() == 12, "and all import");
  kf_wisdom_forget();
}

int main(void) {
  call b, b2, b3, b4, b5, d, d2, f, f2;
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/kforge-wisdom-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    th_check(0, "a temporary directory");
    return th_done();
  }
  unsetenv("KFORGE_WISDOM");
  unsetenv("KFORGE_PLAN");
  bn_call(&b, 2, 6, 48, 0);
  dw_call(&d, 2, 9, 24, 1);
  dw_call(&d2, 1, 11, 16, 2);
  bn_call(&b2, 2, 8, 160, 0); /* C wider than two AVX-512 tiles: the llc choice switches the sweep */
  bn_call(&b3, 16, 6, 192, 0);
  bn_call(&b4, 1, 8, 1100, 0); /* 64 rows of 1100 channels: the few-rows plan by channel blocks, or not (columns=0) */
  bn_call(&b5, 4, 16, 64, 1); /* channels first, 786 KB: llc=2^40 takes the channel-block plan, l2 sizes its blocks */
  bf_call(&f, 2, 9, 24, 1);
  bf_call(&f2, 1, 11, 40, 2);
  rule_by_default(&b, "bngrad");
  rule_by_default(&d, "dwbpi");
  rule_by_default(&f, "dwbpf");
  measured_round_trip(&b, "bngrad", "bn.wisdom");
  measured_round_trip(&d, "dwbpi", "dw.wisdom");
  measured_round_trip(&d2, "dwbpi s2", "dw2.wisdom");
  measured_round_trip(&f, "dwbpf", "bf.wisdom");
  every_variant(&b, KFG_FAMILY_BNGRAD, "bngrad", "bngrad", "var.wisdom");
  every_variant(&b2, KFG_FAMILY_BNGRAD, "bngrad", "bngrad C=160", "var.wisdom");
  every_variant(&b4, KFG_FAMILY_BNGRAD, "bngrad", "bngrad 64 rows C=1100", "var.wisdom");
  every_variant(&b5, KFG_FAMILY_BNGRAD, "bngrad", "bngrad NCHW 4x64x16x16", "var.wisdom");
  every_variant(&d, KFG_FAMILY_DWBPI, "dwbpi", "dwbpi", "var.wisdom");
  every_variant(&d2, KFG_FAMILY_DWBPI, "dwbpi", "dwbpi s2", "var.wisdom");
  every_variant(&f, KFG_FAMILY_DWBPF, "dwbpf", "dwbpf", "var.wisdom");
  every_variant(&f2, KFG_FAMILY_DWBPF, "dwbpf", "dwbpf s2", "var.wisdom");
  confirmation_rule();
  foreign_stale_corrupt(&b);
  env_mode(&d);
  caller_buffers(&b);
  cold_mode(&b, "bngrad");
  cold_mode(&b3, "bngrad 16x6x6x192"); /* combined choices once needed more scratch than any one */
  cold_mode(&d2, "dwbpi s2");
  cold_mode(&f, "dwbpf");
  two_writers();
  free_call(&b);
  free_call(&b2);
  free_call(&b3);
  free_call(&b4);
  free_call(&b5);
  free_call(&d);
  free_call(&d2);
  free_call(&f);
  free_call(&f2);
  {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) th_check(0, "cleaning %s", dir);
  }
  return th_done();
}
