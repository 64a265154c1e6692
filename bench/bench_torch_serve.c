/*
** bench_torch_serve.c -- PyTorch's timings row by row: the bench's PyTorch
** scripts (bench/torch_timing.py) run as servers that kforge_bench asks for
** each row right after timing kforge's, so that a drifting load (other
** tenants of a shared host) falls on both alike (docs/performance.md,
** "Timing rules").
**
** One server per (family, threads, dispatch), started on the family's first
** row and stopped when the next family starts: 1-thread servers pinned to
** CPU 0 and all-thread ones to CPUs 0..N-1 (taskset, as kforge pins itself); on an
** AVX-512 CPU a second server of each with ATEN_CPU_CAPABILITY=avx512 (Debian's
** PyTorch dispatches AVX2 by default), the faster median kept, unless the
** caller set ATEN_CPU_CAPABILITY (the bench's AVX2 section).
*/
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

#define MAX_SCRIPTS 8
#define MAX_SERVERS 4 /* one family's: 1 and all threads, 1 or 2 dispatches */
#define MAX_NOTES 16

typedef struct server {
  int threads, dispatch; /* dispatch 1: ATEN_CPU_CAPABILITY=avx512 */
  pid_t pid;
  FILE *to, *from;
} server;

static const char *g_py;
static int g_nscripts, g_nservers, g_dispatches = 1;
static struct {
  const char *path;
  char prefix[32];
} g_scripts[MAX_SCRIPTS];
static int g_family = -1; /* the script whose servers run */
static server g_servers[MAX_SERVERS];
static char g_notes[MAX_NOTES][200];
static int g_nnotes;

static void note(const char *fmt, const char *a, const char *b) {
  int i;
  char line[200];
  snprintf(line, sizeof line, fmt, a, b);
  line[strcspn(line, "\n")] = 0;
  for (i = 0; i < g_nnotes; i++)
    if (!strcmp(g_notes[i], line)) return;
  if (g_nnotes < MAX_NOTES) snprintf(g_notes[g_nnotes++], sizeof g_notes[0], "%s", line);
}

static int cpu_has_avx512(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[16384]; /* the flags line whole */
  int yes = 0;
  while (f && !yes && fgets(line, sizeof line, f))
    if (!strncmp(line, "flags", 5) && strstr(line, " avx512f")) yes = 1;
  if (f) fclose(f);
  return yes;
}

/* Closes its pipes (EOF: the server exits) and waits for it; to == NULL
   then marks a server that gives no answers. */
static void stop(server *s) {
  if (s->to) fclose(s->to);
  if (s->from) fclose(s->from);
  if (s->pid > 0) waitpid(s->pid, NULL, 0);
  s->to = s->from = NULL;
  s->pid = -1;
}

static void stop_all(void) {
  int i;
  for (i = 0; i < g_nservers; i++) stop(&g_servers[i]);
  g_nservers = 0;
  g_family = -1;
}

int bench_torch_serve_init(const char *py, const char *const *scripts, int n) {
  int i;
  signal(SIGPIPE, SIG_IGN); /* a server that dies is an answer of EOF, not our end */
  stop_all();
  g_nscripts = g_nnotes = 0;
  g_py = py;
  g_dispatches = getenv("ATEN_CPU_CAPABILITY") || !cpu_has_avx512() ? 1 : 2;
  for (i = 0; i < n && g_nscripts < MAX_SCRIPTS; i++) {
    char cmd[1024];
    FILE *p;
    snprintf(cmd, sizeof cmd, "'%s' '%s' --prefix", py, scripts[i]);
    if (strchr(py, '\'') || strchr(scripts[i], '\'') || !(p = popen(cmd, "r"))) continue;
    if (fgets(g_scripts[g_nscripts].prefix, sizeof g_scripts[0].prefix, p)) {
      g_scripts[g_nscripts].prefix[strcspn(g_scripts[g_nscripts].prefix, "\n")] = 0;
      g_scripts[g_nscripts].path = scripts[i];
      g_nscripts++;
    }
    pclose(p);
  }
  return g_nscripts;
}

/* Starts a server of script k; its pipes close on exec in every other child. */
static int start(server *s, int k, int threads, int dispatch) {
  int in[2], out[2], i, ne = 0, ok;
  char line[128], cpus[32];
  const char *argv[8];
  char **envp;
  posix_spawn_file_actions_t fa;
  memset(s, 0, sizeof *s);
  s->threads = threads, s->dispatch = dispatch, s->pid = -1;
  if (pipe(in) != 0) return 0;
  if (pipe(out) != 0) {
    close(in[0]), close(in[1]);
    return 0;
  }
  fcntl(in[1], F_SETFD, FD_CLOEXEC);
  fcntl(out[0], F_SETFD, FD_CLOEXEC);
  for (i = 0; environ[i]; i++) ne++;
  envp = calloc((size_t)ne + 8, sizeof *envp);
  if (!envp) exit(1);
  ne = 0;
  for (i = 0; environ[i]; i++)
    if (strncmp(environ[i], "MALLOC_", 7) && strncmp(environ[i], "OMP_WAIT_POLICY=", 16) &&
        (!dispatch || strncmp(environ[i], "ATEN_CPU_CAPABILITY=", 20)))
      envp[ne++] = environ[i];
  /* as bench/torch_timing.py's HEAP_ENV: large blocks stay in the heap */
  envp[ne++] = "MALLOC_MMAP_THRESHOLD_=33554432";
  envp[ne++] = "MALLOC_TRIM_THRESHOLD_=4294967296";
  envp[ne++] = "MALLOC_TOP_PAD_=268435456";
  envp[ne++] = "OMP_WAIT_POLICY=passive";
  if (dispatch) envp[ne++] = "ATEN_CPU_CAPABILITY=avx512";
  /* pinned either way: a child inherits the spawning thread's CPUs */
  snprintf(cpus, sizeof cpus, threads == 1 ? "0" : "0-%d", threads - 1);
  argv[0] = "taskset", argv[1] = "-c", argv[2] = cpus;
  argv[3] = g_py, argv[4] = g_scripts[k].path, argv[5] = "--serve", argv[6] = NULL;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  ok = posix_spawnp(&s->pid, argv[0], &fa, NULL, (char *const *)argv, envp) == 0;
  posix_spawn_file_actions_destroy(&fa);
  free(envp);
  close(in[0]), close(out[1]);
  if (!ok) {
    close(in[1]), close(out[0]);
    s->pid = -1;
    return 0;
  }
  s->to = fdopen(in[1], "w");
  s->from = fdopen(out[0], "r");
  if (s->to && s->from && fgets(line, sizeof line, s->from) && !strncmp(line, "ready ", 6)) return 1;
  note("PyTorch: %s --serve did not start%s", g_scripts[k].path, "");
  stop(s);
  return 0;
}

/* Script k's server for (threads, dispatch), started on first use; NULL if
   it did not start or stopped answering (never retried). */
static server *get(int k, int threads, int dispatch) {
  server *s;
  int i;
  if (g_family != k) stop_all();
  g_family = k;
  for (i = 0; i < g_nservers; i++)
    if (g_servers[i].threads == threads && g_servers[i].dispatch == dispatch) return g_servers[i].to ? &g_servers[i] : NULL;
  if (g_nservers == MAX_SERVERS) return NULL;
  s = &g_servers[g_nservers++];
  return start(s, k, threads, dispatch) ? s : NULL;
}

double bench_torch_serve_ms(const bench_ctx *ctx, const char *key, int threads) {
  size_t plen;
  int k, d;
  double best = -1.0;
  for (k = 0; k < g_nscripts; k++) {
    plen = strlen(g_scripts[k].prefix);
    if (!strncmp(key, g_scripts[k].prefix, plen) && key[plen] == ' ') break;
  }
  if (k == g_nscripts) return -1.0;
  for (d = 0; d < g_dispatches; d++) {
    server *s = get(k, threads == 1 ? 1 : ctx->all_threads, d);
    char line[256];
    if (!s) continue;
    if (fprintf(s->to, "%d %s\n", ctx->reps, key) < 0 || fflush(s->to) != 0 || !fgets(line, sizeof line, s->from)) {
      note("PyTorch: the server of %s stopped%s", g_scripts[k].path, "");
      stop(s);
      continue;
    }
    if (line[0] == '-') {
      note("PyTorch did not time %s: %s", key, line + 2);
      continue;
    }
    if (best < 0 || strtod(line, NULL) < best) best = strtod(line, NULL);
  }
  return best;
}

void bench_torch_serve_close(const bench_ctx *ctx) {
  int i;
  stop_all();
  for (i = 0; i < g_nnotes; i++) bench_printf(ctx, "%s\n", g_notes[i]);
}
