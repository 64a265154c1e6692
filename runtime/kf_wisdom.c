/*
** kf_wisdom.c -- wisdom: measured choices kept in memory and in text files,
** keyed so that they never mislead (CPU, build, call), and the step of
** kf_plan_op that consults them (docs/tuning.md, "Wisdom").
**
** File format, one entry a line, four tab-separated fields:
**   cpu=<vendor>/<family>/<model>/<isas>/l1d<KiB>/l2<KiB>/llc<KiB>  build=<hash>  call=<op, key, shapes, threads>  plan=<choices>
** after the header line "# kforge wisdom 1". Blank lines and other '#'
** lines are comments.
*/
#include <string.h>

#include "kfi_wisdom.h"

#if KFI_HAS_OS
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#define KFI_WZ_HEADER "# kforge wisdom 1"
#define KFI_WZ_FIELD 480

typedef struct wz_entry {
  char cpu[96], build[24], call[KFI_WZ_FIELD], plan[KFI_WZ_FIELD];
  int warned;                  /* its "ignored" line was printed */
} wz_entry;

static pthread_mutex_t wz_lock = PTHREAD_MUTEX_INITIALIZER;

/* fork() while another thread holds wz_lock would leave the child's copy
   locked for ever: hold it across fork in both processes instead. */
static void wz_prefork(void) { pthread_mutex_lock(&wz_lock); }
static void wz_postfork(void) { pthread_mutex_unlock(&wz_lock); }
static void wz_register(void) { pthread_atfork(wz_prefork, wz_postfork, wz_postfork); }
static pthread_once_t wz_once = PTHREAD_ONCE_INIT;
#define WZ_LOCK() (pthread_once(&wz_once, wz_register), pthread_mutex_lock(&wz_lock))
static wz_entry *wz_table;
static int wz_count, wz_cap, wz_env_loaded;

/* ---- keys ---- */

static void wz_cpu_key(char *buf, size_t n) {
  char vendor[16], isas[64] = "";
  unsigned family, model, bits = kf_cpu_isas(), b;
  size_t k = 0;
  kfi_caches cc;
  kfi_cpu_ident(vendor, &family, &model);
  for (b = 1; b && b <= KFI_ISA_MVE; b <<= 1)
    if (bits & b) k += (size_t)kfi_format(isas + k, sizeof isas - k, "%s%s", k ? "+" : "", kf_isa_name(b));
  kfi_cpu_caches(&cc);
  kfi_format(buf, n, "%s/%u/%u/%s/l1d%lldK/l2%lldK/llc%lldK", vendor, family, model, isas, (long long)(cc.l1d >> 10),
             (long long)(cc.l2 >> 10), (long long)(cc.llc >> 10));
}

static uint64_t wz_fnv(uint64_t h, const char *s) {
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return (h ^ 0xff) * 1099511628211ull; /* a separator: "ab","c" differs from "a","bc" */
}

static char wz_build_hash[24];

/* FNV-1a over the registry (names and configs) and the choices table: a
   build with other kernels or other parameters reads as stale. Computed
   once (pthread_once): it cannot change while the library is loaded. */
static void wz_hash_build(void) {
  uint64_t h = wz_fnv(1469598103934665603ull, KF_VERSION);
  int i;
  for (i = 0; i < kfg_registry_count; i++) h = wz_fnv(wz_fnv(h, kfg_registry[i].name), kfg_registry[i].config);
  for (i = 0; i < kfi_num_choices; i++) h = wz_fnv(h, kfi_choices[i].name);
  snprintf(wz_build_hash, sizeof wz_build_hash, "%08lx%08lx", (unsigned long)(h >> 32), (unsigned long)(h & 0xffffffffu));
}

static void wz_build_key(char *buf, size_t n) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, wz_hash_build);
  snprintf(buf, n, "%s", wz_build_hash);
}

/* The call: op, key, every input's and the output's shape, a hash of the
   rule's argument block (attributes that leave shapes alone: paddings,
   epsilon), and the thread wz_count. */
static void wz_call_key(const kfi_plan *p, const kf_tensor_desc *in, char *buf, size_t n) {
  char key[200];
  uint32_t h = 2166136261u;
  size_t k, j;
  int i, d;
  for (j = 0; j < sizeof p->args.bytes; j++) h = (h ^ p->args.bytes[j]) * 16777619u;
  kfi_key_str(p->family, p->key, key, sizeof key);
  for (j = 0; key[j]; j++)
    if (key[j] == ' ') key[j] = ',';
  k = (size_t)kfi_format(buf, n, "%s %s in=", kf_op_name(p->op), key);
  for (i = 0; i <= p->num_inputs && k < n; i++) {
    const kf_tensor_desc *t = i < p->num_inputs ? &in[i] : &p->outputs[0];
    if (i == p->num_inputs) k += (size_t)kfi_format(buf + k, n - k, " out=");
    else if (i) k += (size_t)kfi_format(buf + k, n - k, ",");
    for (d = 0; d < t->rank && k < n; d++) k += (size_t)kfi_format(buf + k, n - k, d ? "x%lld" : "%lld", (long long)t->dims[d]);
    if (!t->rank && k < n) k += (size_t)kfi_format(buf + k, n - k, "s");
  }
  if (k < n) snprintf(buf + k, n - k, " args=%08lx threads=%d", (unsigned long)h, p->par.num_threads > 0 ? p->par.num_threads : 1);
}

/* ---- the table (callers hold wz_lock) ---- */

static wz_entry *wz_find(const char *cpu, const char *build, const char *call) {
  int i;
  for (i = 0; i < wz_count; i++)
    if (!strcmp(wz_table[i].call, call) && !strcmp(wz_table[i].cpu, cpu) && !strcmp(wz_table[i].build, build)) return &wz_table[i];
  return NULL;
}

static int wz_put(int *num, int *room, wz_entry **where, const wz_entry *e) {
  int i;
  for (i = 0; i < *num; i++)
    if (!strcmp((*where)[i].call, e->call) && !strcmp((*where)[i].cpu, e->cpu) && !strcmp((*where)[i].build, e->build)) {
      (*where)[i] = *e;
      return 1;
    }
  if (*num == *room) {
    int r = *room ? *room * 2 : 64;
    wz_entry *t = realloc(*where, (size_t)r * sizeof *t);
    if (!t) return 0;
    *where = t;
    *room = r;
  }
  (*where)[(*num)++] = *e;
  return 1;
}

/* ---- files ---- */

static int wz_copy_field(char *dst, size_t n, const char *src, size_t len) {
  if (len >= n) return 0;
  memcpy(dst, src, len);
  dst[len] = 0;
  return 1;
}

/* One entry line into e: 1, or 0 with why set. */
static int wz_parse_line(char *line, wz_entry *e, const char **why) {
  static const char *const names[4] = { "cpu=", "build=", "call=", "plan=" };
  char *f = line;
  int i;
  memset(e, 0, sizeof *e);
  for (i = 0; i < 4; i++) {
    char *end = i < 3 ? strchr(f, '\t') : f + strlen(f);
    char *dst = i == 0 ? e->cpu : i == 1 ? e->build : i == 2 ? e->call : e->plan;
    size_t cap_ = i == 0 ? sizeof e->cpu : i == 1 ? sizeof e->build : KFI_WZ_FIELD;
    if (!end) return *why = "expected 4 tab-separated fields (cpu, build, call, plan)", 0;
    if (strncmp(f, names[i], strlen(names[i])) != 0) return *why = "a field is missing its name (cpu=, build=, call=, plan=)", 0;
    f += strlen(names[i]);
    if (end == f || !wz_copy_field(dst, cap_, f, (size_t)(end - f))) return *why = "a field is empty or too long", 0;
    f = end + 1;
  }
  if (strncmp(e->plan, "kernel=", 7) != 0) return *why = "plan= must start with kernel=", 0;
  return 1;
}

/* Reads a whole wisdom file into a fresh list (every entry, any CPU).
   Missing file: KF_OK with no entries when missing_ok. */
static kf_status wz_read_file(const char *path, int missing_ok, wz_entry **out, int *num, kf_error *err) {
  FILE *f = fopen(path, "r");
  char line[KFI_WZ_FIELD * 2 + 256];
  int room = 0, lineno = 0, header = 0;
  *out = NULL;
  *num = 0;
  if (!f) {
    if (missing_ok && errno == ENOENT) return KF_OK;
    return kfi_fail(err, KF_INVALID_ARGUMENT, "wisdom.io", "cannot read wisdom file %.200s: %.60s", path, strerror(errno));
  }
  while (fgets(line, sizeof line, f)) {
    size_t len = strlen(line);
    const char *why = NULL;
    wz_entry e;
    lineno++;
    if (len && line[len - 1] != '\n' && !feof(f)) why = "line too long";
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (!why && !header) {
      if (strcmp(line, KFI_WZ_HEADER) != 0) why = "not a kforge wisdom file (the first line must be \"" KFI_WZ_HEADER "\")";
      else { header = 1; continue; }
    }
    if (!why && (len == 0 || line[0] == '#')) continue;
    if (why || !wz_parse_line(line, &e, &why) || !wz_put(num, &room, out, &e)) {
      fclose(f);
      free(*out);
      *out = NULL;
      *num = 0;
      return kfi_fail(err, KF_INVALID_ARGUMENT, "wisdom.corrupt", "wisdom file %.200s, line %d: %s", path, lineno,
                      why ? why : "out of memory");
    }
  }
  fclose(f);
  if (!header && lineno == 0 && missing_ok) return KF_OK; /* an empty file: a fresh start */
  if (!header) return kfi_fail(err, KF_INVALID_ARGUMENT, "wisdom.corrupt", "wisdom file %.200s is empty", path);
  return KF_OK;
}

kf_status kf_wisdom_import(const char *path, kf_error *err) {
  char cpu[96], build[24];
  wz_entry *list;
  int num, i, added = 0;
  kf_status st;
  if (!path) return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "path must not be NULL");
  if ((st = wz_read_file(path, 0, &list, &num, err)) != KF_OK) return st;
  wz_cpu_key(cpu, sizeof cpu);
  wz_build_key(build, sizeof build);
  WZ_LOCK();
  for (i = 0; i < num; i++) {
    if (strcmp(list[i].cpu, cpu) != 0)
      fprintf(stderr, "kforge: wisdom %s: entry %d ignored: measured on another CPU (%s; this one is %s)\n", path, i + 1,
              list[i].cpu, cpu);
    else if (strcmp(list[i].build, build) != 0)
      fprintf(stderr, "kforge: wisdom %s: entry %d ignored: stale, from another kforge build (%s; this one is %s)\n",
              path, i + 1, list[i].build, build);
    else if (wz_put(&wz_count, &wz_cap, &wz_table, &list[i]))
      added++;
  }
  pthread_mutex_unlock(&wz_lock);
  free(list);
  (void)added;
  return KF_OK;
}

kf_status kf_wisdom_export(const char *path, kf_error *err) {
  char tmp[4200], lockpath[4200];
  wz_entry *list;
  int num, room, i, fd, lk;
  kf_status st;
  FILE *f;
  if (!path) return kfi_fail(err, KF_INVALID_ARGUMENT, "api.null", "path must not be NULL");
  if (strlen(path) > 4000) return kfi_fail(err, KF_INVALID_ARGUMENT, "wisdom.io", "wisdom path too long");
  /* The lock lives beside the file: the file itself is replaced by rename. */
  snprintf(lockpath, sizeof lockpath, "%s.lock", path);
  if ((lk = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "wisdom.io", "cannot create %.200s: %.60s", lockpath, strerror(errno));
  while (flock(lk, LOCK_EX) != 0 && errno == EINTR) {}
  /* Re-read under the lock and merge: other writers' entries (any CPU) stay. */
  if ((st = wz_read_file(path, 1, &list, &num, err)) != KF_OK) {
    close(lk);
    return st;
  }
  room = num;
  WZ_LOCK();
  for (i = 0; i < wz_count; i++)
    if (!wz_put(&num, &room, &list, &wz_table[i])) break;
  pthread_mutex_unlock(&wz_lock);
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
  fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    if (fd >= 0) close(fd);
    free(list);
    close(lk);
    return kfi_fail(err, KF_INVALID_ARGUMENT, "wisdom.io", "cannot write %.200s: %.60s", tmp, strerror(errno));
  }
  fprintf(f, "%s\n", KFI_WZ_HEADER);
  for (i = 0; i < num; i++) fprintf(f, "cpu=%s\tbuild=%s\tcall=%s\tplan=%s\n", list[i].cpu, list[i].build, list[i].call, list[i].plan);
  free(list);
  if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    close(lk);
    return kfi_fail(err, KF_INVALID_ARGUMENT, "wisdom.io", "cannot write wisdom file %.200s: %.60s", path, strerror(e));
  }
  close(lk);
  return KF_OK;
}

void kf_wisdom_forget(void) {
  WZ_LOCK();
  free(wz_table);
  wz_table = NULL;
  wz_count = wz_cap = 0;
  wz_env_loaded = 0; /* KFORGE_WISDOM is read again by the next plan */
  pthread_mutex_unlock(&wz_lock);
}

int kf_wisdom_count(void) {
  int n;
  WZ_LOCK();
  n = wz_count;
  pthread_mutex_unlock(&wz_lock);
  return n;
}

/* ---- the planning step ---- */

static const char *wz_wisdom_env(void) {
  const char *v = getenv("KFORGE_WISDOM");
  return v && *v ? v : NULL;
}

/* KFORGE_PLAN: KF_PLAN_MEASURE or KF_PLAN_MEASURE_COLD, 0 for rule (or
   unset), -1 anything else. */
static int wz_plan_env(void) {
  const char *v = getenv("KFORGE_PLAN");
  if (!v || !*v || !strcmp(v, "rule")) return 0;
  if (!strcmp(v, "measure")) return KF_PLAN_MEASURE;
  return !strcmp(v, "measure-cold") ? KF_PLAN_MEASURE_COLD : -1;
}

kf_status kfi_plan_choose(kfi_plan *p, const kf_tensor_desc *in, const kf_plan_options *opt, kf_error *err) {
  char why[160];
  wz_entry e, *w;
  int load, env = wz_plan_env(), mode, measure;
  if (env < 0)
    return kfi_fail(err, KF_INVALID_ARGUMENT, "env.plan",
                    "KFORGE_PLAN=\"%.40s\" is no plan mode: use measure, measure-cold or rule, or unset it", getenv("KFORGE_PLAN"));
  mode = opt && opt->measure ? opt->measure : env;
  measure = mode == KF_PLAN_MEASURE || mode == KF_PLAN_MEASURE_COLD;
  if (opt && opt->measure == KF_PLAN_RULE) return KF_OK; /* the rule alone, wisdom or not */
  WZ_LOCK();
  load = !wz_env_loaded;
  wz_env_loaded = 1;
  pthread_mutex_unlock(&wz_lock);
  if (load && wz_wisdom_env()) {
    kf_error e2;
    if (kf_wisdom_import(wz_wisdom_env(), &e2) != KF_OK && !(e2.status == KF_INVALID_ARGUMENT && !strcmp(e2.rule, "wisdom.io") && access(wz_wisdom_env(), F_OK) != 0))
      fprintf(stderr, "kforge: %s; plans follow the rule\n", e2.message);
  }
  if (!measure && kf_wisdom_count() == 0) return KF_OK; /* the rule, at no cost: no keys to compute */
  memset(&e, 0, sizeof e);
  wz_cpu_key(e.cpu, sizeof e.cpu);
  wz_build_key(e.build, sizeof e.build);
  wz_call_key(p, in, e.call, sizeof e.call);
  WZ_LOCK();
  w = wz_find(e.cpu, e.build, e.call);
  if (w) {
    if (kfi_choices_apply(p, w->plan, opt, why, sizeof why)) {
      pthread_mutex_unlock(&wz_lock);
      p->source = KF_PLAN_BY_WISDOM;
      return KF_OK;
    }
    if (!w->warned) fprintf(stderr, "kforge: wisdom entry for %s ignored: stale (%s)\n", w->call, why);
    w->warned = 1;
  }
  pthread_mutex_unlock(&wz_lock);
  if (!measure) return KF_OK;
  if (mode == KF_PLAN_MEASURE_COLD) { /* the measurement starts from the rule's plan: cold, the one for a step's fresh outputs */
    kf_plan_options o;
    if (opt) o = *opt;
    else memset(&o, 0, sizeof o);
    o.fresh_outputs = 1;
    kfi_plan_rule_caches(p, &o);
  } else
    kfi_plan_rule_caches(p, opt);
  kfi_measure(p, in, opt, mode == KF_PLAN_MEASURE_COLD, err);
  p->source = KF_PLAN_BY_MEASURE;
  kfi_choices_str(p, e.plan, sizeof e.plan);
  WZ_LOCK();
  wz_put(&wz_count, &wz_cap, &wz_table, &e);
  pthread_mutex_unlock(&wz_lock);
  if (wz_wisdom_env()) {
    kf_error e2;
    if (kf_wisdom_export(wz_wisdom_env(), &e2) != KF_OK) fprintf(stderr, "kforge: %s\n", e2.message);
  }
  return KF_OK;
}
#else
kf_status kf_wisdom_import(const char *path, kf_error *err) {
  (void)path;
  return kfi_fail(err, KF_UNIMPLEMENTED, "wisdom.os", "wisdom files need an operating system");
}
kf_status kf_wisdom_export(const char *path, kf_error *err) {
  (void)path;
  return kfi_fail(err, KF_UNIMPLEMENTED, "wisdom.os", "wisdom files need an operating system");
}
void kf_wisdom_forget(void) {}
int kf_wisdom_count(void) { return 0; }
kf_status kfi_plan_choose(kfi_plan *p, const kf_tensor_desc *in, const kf_plan_options *opt, kf_error *err) {
  (void)p, (void)in, (void)opt, (void)err;
  return KF_OK; /* the rule */
}
#endif

int kf_plan_source(const kf_plan *plan) {
  const kfi_plan *p = kfi_plan_of(plan);
  return p ? p->source : -1;
}

const char *kf_plan_choices(const kf_plan *plan, char *buf, size_t n) {
  const kfi_plan *p = kfi_plan_of(plan);
  if (!n) return buf;
  buf[0] = 0;
  if (p) kfi_choices_str(p, buf, n);
  return buf;
}
