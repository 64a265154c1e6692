/*
** test_pool.c -- the Python package's and TF ops' pool (python/src/kfpy_pool.c):
** every task of every job runs exactly once, with the job's own context,
** and parallel_for returns only after all of them finished. Jobs follow
** one another closely, with tasks short enough that the caller often takes
** them all before a worker wakes: a worker late for one job must then
** neither run an index of the next nor hold the caller up. Also two
** callers on one pool at once (they take turns). Pools of 2 to 4 threads.
** run.sh: no capped reruns (no kernels)
*/
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kfpy_pool.h"

#define MAX_TASKS 97
#define JOBS 3000

typedef struct job {
  long id;                            /* which job this context belongs to */
  atomic_long *current;               /* the job the caller is inside */
  atomic_int runs[MAX_TASKS];         /* times each index ran */
  atomic_int finished[MAX_TASKS];     /* set when the task's work is done */
  atomic_int foreign;                 /* tasks that ran outside their job */
  int spin;                           /* work per task (0: none) */
} job;

static void task(void *ctx, size_t i) {
  job *j = ctx;
  volatile int k;
  if (atomic_load(j->current) != j->id) atomic_fetch_add(&j->foreign, 1);
  atomic_fetch_add(&j->runs[i], 1);
  for (k = 0; k < j->spin; k++) {}
  if (i % 7 == 3) sched_yield(); /* let a late worker in now and then */
  atomic_store(&j->finished[i], 1);
}

/* Runs JOBS jobs of 2..MAX_TASKS tasks; 1 when every one was exact. */
static int run_jobs(const kf_threads *t, long first_id, atomic_long *current, unsigned seed) {
  static _Thread_local job j; /* one per caller thread */
  long n_bad = 0, k;
  for (k = 0; k < JOBS; k++) {
    size_t n, i;
    seed = seed * 1103515245u + 12345u;
    n = 2 + (seed >> 16) % (MAX_TASKS - 1);
    memset(&j, 0, sizeof j);
    j.id = first_id + k;
    j.current = current;
    j.spin = (int)((seed >> 8) % 4 == 0 ? 2000 : 0);
    atomic_store(current, j.id);
    t->parallel_for(t->pool, task, &j, n);
    for (i = 0; i < n; i++)
      if (atomic_load(&j.runs[i]) != 1 || !atomic_load(&j.finished[i])) break;
    if (i < n || atomic_load(&j.foreign) != 0) n_bad++;
    for (i = n; i < MAX_TASKS; i++)
      if (atomic_load(&j.runs[i]) != 0) { n_bad++; break; }
  }
  return n_bad == 0;
}

typedef struct caller {
  kfpy_pool *pool;
  long first_id;
  atomic_long current;
  int ok;
} caller;

static void *caller_main(void *arg) {
  caller *c = arg;
  c->ok = run_jobs(kfpy_pool_threads(c->pool), c->first_id, &c->current, (unsigned)c->first_id);
  return NULL;
}

int main(void) {
  int threads;
  for (threads = 2; threads <= 4; threads++) {
    kfpy_pool *pool = kfpy_pool_create(threads);
    atomic_long current;
    if (!th_check(pool != NULL, "a pool of %d threads", threads)) continue;
    atomic_init(&current, -1);
    th_check(run_jobs(kfpy_pool_threads(pool), 0, &current, 7u + (unsigned)threads),
             "%d threads, %d jobs one after another: every task once, in its own job, finished on return", threads,
             JOBS);
    {
      caller a = { pool, 1000000, -1, 0 }, b = { pool, 2000000, -1, 0 };
      pthread_t ta, tb;
      int made = pthread_create(&ta, NULL, caller_main, &a) == 0;
      int made2 = made && pthread_create(&tb, NULL, caller_main, &b) == 0;
      if (made) pthread_join(ta, NULL);
      if (made2) pthread_join(tb, NULL);
      th_check(made2 && a.ok && b.ok, "%d threads, two callers at once: every task once, in its own job", threads);
    }
    kfpy_pool_destroy(pool);
  }
  return th_done();
}
