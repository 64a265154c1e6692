/*
** test_fork.c -- what a process that forks may do (kforge.h, "fork"):
** after plans ran on a pool in the parent, a child made by fork() plans
** and executes (on no pool, on a pool it creates, and on the kfpy_pool it
** inherited, which starts fresh workers), or exits without using kforge,
** destroying the inherited pool as an atexit hook would (no join of the
** parent's workers). Also while another thread of the parent is inside a
** parallel job. Every child runs under alarm(): a hang is a failure, not a
** stuck test. Results must equal the parent's single-threaded ones bit for
** bit; pools with 1 and 2 threads. run.sh: no capped reruns (no kernel
** choice is tested).
*/
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <pthreadpool.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kfpy_pool.h"

#define N 16
#define H 32
#define W 32
#define C 32
#define ELEMS (N * H * W * C) /* over the kernels' PAR_MIN (specs/ops/bngrad.lua): jobs of several tasks */
#define CHILD_SECONDS 30

static float dy[ELEMS], x[ELEMS], scale[C], mean[C], var[C];
static float want_dx[ELEMS], want_ds[C], want_do[C];
static kf_attrs attrs;
static kf_tensor_desc desc[5];

/* The pool's parallel_for, counting the largest job: the test must hand
   the pool jobs of several tasks, or the workers are never asked. */
static const kf_threads *g_inner;
static size_t g_max_tasks;
static void counting_for(void *pool, kf_task_fn task, void *ctx, size_t n) {
  (void)pool;
  if (n > g_max_tasks) g_max_tasks = n;
  g_inner->parallel_for(g_inner->pool, task, ctx, n);
}

static void pthreadpool_for(void *pool, kf_task_fn task, void *ctx, size_t n) {
  pthreadpool_parallelize_1d((pthreadpool_t)pool, (pthreadpool_task_1d_t)task, ctx, n, 0);
}

/* Plans on threads (NULL: the calling thread), runs, compares with the
   single-threaded result; 1 when equal. */
static int run_and_compare(const kf_threads *threads) {
  kf_plan plan;
  kf_plan_options opt;
  kf_error err = {0};
  static float dx[ELEMS], ds[C], doff[C];
  const void *in[5] = { dy, x, scale, mean, var };
  void *out[5] = { dx, ds, doff, NULL, NULL };
  static unsigned char scratch[1 << 20];
  memset(&opt, 0, sizeof opt);
  opt.threads = threads;
  if (kf_plan_op(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V2, &attrs, desc, 5, &opt, &err) != KF_OK) return 0;
  if (kf_plan_scratch_bytes(&plan) > sizeof scratch) return 0;
  if (kf_execute(&plan, in, out, scratch, sizeof scratch, &err) != KF_OK) return 0;
  return memcmp(dx, want_dx, sizeof dx) == 0 && memcmp(ds, want_ds, sizeof ds) == 0 &&
         memcmp(doff, want_do, sizeof doff) == 0;
}

static void setup(void) {
  th_rng r;
  int i;
  th_seed_case(&r, "test_fork data");
  for (i = 0; i < ELEMS; i++) {
    dy[i] = (float)th_uniform(&r, -1, 1);
    x[i] = (float)th_uniform(&r, -1, 1);
  }
  for (i = 0; i < C; i++) {
    scale[i] = (float)th_uniform(&r, -1, 1);
    mean[i] = (float)th_uniform(&r, -0.1, 0.1);
    var[i] = (float)th_uniform(&r, 0.5, 1.5);
  }
  kf_attrs_init(KF_OP_FUSED_BATCH_NORM_GRAD_V2, &attrs);
  kf_attrs_set(KF_OP_FUSED_BATCH_NORM_GRAD_V2, &attrs, "T", "float", NULL);
  kf_attrs_set(KF_OP_FUSED_BATCH_NORM_GRAD_V2, &attrs, "U", "float", NULL);
  for (i = 0; i < 5; i++) {
    memset(&desc[i], 0, sizeof desc[i]);
    desc[i].dtype = KF_FLOAT;
    desc[i].rank = i < 2 ? 4 : 1;
    if (i < 2) {
      desc[i].dims[0] = N; desc[i].dims[1] = H; desc[i].dims[2] = W; desc[i].dims[3] = C;
    } else {
      desc[i].dims[0] = C;
    }
  }
  {
    kf_plan plan;
    kf_error err = {0};
    const void *in[5] = { dy, x, scale, mean, var };
    void *out[5] = { want_dx, want_ds, want_do, NULL, NULL };
    static unsigned char scratch[1 << 20];
    int ok = kf_plan_op(&plan, KF_OP_FUSED_BATCH_NORM_GRAD_V2, &attrs, desc, 5, NULL, &err) == KF_OK &&
             kf_plan_scratch_bytes(&plan) <= sizeof scratch &&
             kf_execute(&plan, in, out, scratch, sizeof scratch, &err) == KF_OK;
    if (!th_check(ok, "reference run: %s", ok ? "" : err.message)) exit(th_done());
  }
}

enum child_job { USE_INHERITED, USE_NONE, USE_NEW_PTHREADPOOL, USE_NEW_KFPY_POOL, EXIT_DESTROYING };

/* How the last child ended, for the failure messages: "exit 3" (a wrong
   result), "signal 14" (SIGALRM: it hung), ... */
static char g_how[64];

/* Forks; the child does job on pool (the parent's) and exits 0 when all its
   results are right; 1 when the child exited 0 in time. */
static int in_child(enum child_job job, kfpy_pool *pool) {
  int status = 0;
  pid_t pid = fork();
  snprintf(g_how, sizeof g_how, "fork failed");
  if (pid < 0) return 0;
  if (pid == 0) {
    int ok = 1;
    alarm(CHILD_SECONDS); /* SIGALRM kills a hung child */
    switch (job) {
      case USE_INHERITED: ok = run_and_compare(kfpy_pool_threads(pool)) && run_and_compare(kfpy_pool_threads(pool)); break;
      case USE_NONE: ok = run_and_compare(NULL); break;
      case USE_NEW_PTHREADPOOL: {
        /* a pthreadpool of the parent is not usable in the child: make one */
        pthreadpool_t pp = pthreadpool_create(2);
        kf_threads t = { pthreadpool_for, pp, 2 };
        ok = pp && run_and_compare(&t);
        pthreadpool_destroy(pp);
        break;
      }
      case USE_NEW_KFPY_POOL: {
        kfpy_pool *p = kfpy_pool_create(3);
        ok = p && run_and_compare(kfpy_pool_threads(p));
        kfpy_pool_destroy(p);
        break;
      }
      case EXIT_DESTROYING: break;
    }
    kfpy_pool_destroy(pool); /* what an atexit hook does: joins no thread of the parent */
    _exit(ok ? 0 : 3);
  }
  if (waitpid(pid, &status, 0) != pid) return 0;
  if (WIFEXITED(status)) snprintf(g_how, sizeof g_how, "exit %d", WEXITSTATUS(status));
  else if (WIFSIGNALED(status)) snprintf(g_how, sizeof g_how, "signal %d", WTERMSIG(status));
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

typedef struct busy_arg {
  kfpy_pool *pool;
  atomic_int stop, runs;
  int ok;
} busy_arg;

static void *busy_main(void *p) {
  busy_arg *b = p;
  while (!atomic_load(&b->stop)) {
    b->ok &= run_and_compare(kfpy_pool_threads(b->pool));
    atomic_fetch_add(&b->runs, 1);
  }
  return NULL;
}

int main(void) {
  static const char *const names[] = { "inherited pool", "no pool", "new pthreadpool", "new kfpy_pool",
                                       "exit destroying the pool" };
  int threads, job, i;
  setup();
  for (threads = 1; threads <= 2; threads++) {
    kfpy_pool *pool = kfpy_pool_create(threads);
    th_check(pool != NULL, "kfpy_pool_create(%d)", threads);
    if (!pool) continue;
    {
      kf_threads counting = { counting_for, pool, threads };
      g_inner = kfpy_pool_threads(pool);
      g_max_tasks = 0;
      th_check(run_and_compare(&counting) && (threads == 1 || g_max_tasks > 1),
               "parent, %d threads, before fork (jobs of up to %zu tasks)", threads, g_max_tasks);
    }
    for (job = USE_INHERITED; job <= EXIT_DESTROYING; job++)
      th_check(in_child((enum child_job)job, pool), "child (parent pool of %d threads): %s, exits in time (%s)",
               threads, names[job], g_how);
    th_check(run_and_compare(kfpy_pool_threads(pool)), "parent, %d threads, after the forks", threads);
    kfpy_pool_destroy(pool);
  }
  {
    /* another thread keeps the pool busy while this one forks */
    busy_arg b;
    pthread_t th;
    int forks_ok = 1;
    char how[96] = ""; /* "fork NN: " and g_how */
    b.pool = kfpy_pool_create(2);
    atomic_init(&b.stop, 0);
    atomic_init(&b.runs, 0);
    b.ok = 1;
    if (th_check(b.pool && pthread_create(&th, NULL, busy_main, &b) == 0, "busy thread started")) {
      /* Fork only once the busy thread has finished a job: a thread still
         starting up may hold the sanitizers' thread registry lock (libasan
         before LLVM 18 does not take it around fork), and a child's
         pthread_create would then wait on it forever. */
      while (atomic_load(&b.runs) == 0) sched_yield();
      for (i = 0; i < 20; i++)
        if (!in_child(i % 2 ? USE_INHERITED : EXIT_DESTROYING, b.pool) && forks_ok) {
          forks_ok = 0;
          snprintf(how, sizeof how, "fork %d: %s", i, g_how);
        }
      atomic_store(&b.stop, 1);
      pthread_join(th, NULL);
      th_check(forks_ok, "20 forks while another thread runs jobs on the pool: children in time and right%s%s",
               forks_ok ? "" : "; the first failed: ", how);
      th_check(b.ok, "the busy thread's results stayed right");
    }
    kfpy_pool_destroy(b.pool);
  }
  return th_done();
}
