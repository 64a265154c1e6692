/*
** kfpy_pool.c -- see kfpy_pool.h. Workers sleep on a condition variable
** between jobs; a job hands out task indices through one atomic word, so
** any thread may run any task (kforge's kernels make results independent of
** which thread runs what), and the caller works too instead of waiting.
** The caller waits for the tasks, not for the workers: a worker that wakes
** after the caller took every task has nothing to join, so a descheduled
** worker (the other vCPU busy with a framework's concurrent op) costs the
** call nothing. The word carries the job's generation beside the next index,
** so a worker late for one job can never take an index of the next. One job
** runs at a time; a second caller meanwhile (TF runs independent ops at
** once) runs its tasks itself instead of waiting for the first job to end.
**
** Fork: a child has only the thread that called fork(). pthread_atfork
** handlers take every pool's locks before the fork (so no job is half
** handed out and no lock is held by a thread the child lacks), release them
** in the parent, and in the child reset each pool to "no workers started":
** its next parallel_for starts fresh workers, and destroying it joins none.
*/
#include "kfpy_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* What a worker starts with: its pool, and the last job it must not run
   (the generation when it was created: a worker may first get the lock
   after the job it was created for was handed out, and must still run it). */
typedef struct worker_start {
  kfpy_pool *pool;
  unsigned long seen;
} worker_start;

struct kfpy_pool {
  kf_threads threads;          /* handed to kf_plan_options */
  int num_workers;             /* workers wanted */
  int started;                 /* workers running in this process */
  pthread_t *workers;
  worker_start *starts;        /* one per worker */
  kfpy_pool *next_pool;        /* the registry (g_pools), for the fork handlers */
  pthread_mutex_t call_lock;   /* one parallel_for at a time; guards started */
  pthread_mutex_t lock;        /* guards the fields below */
  pthread_cond_t wake, done;
  unsigned long generation;    /* bumped per job; workers wait for a new one */
  int stopping;
  kf_task_fn task;
  void *ctx;
  size_t n;
  /* (generation mod 2^32) << 32 | next index: claimed by compare-exchange */
  _Atomic uint64_t next;
  atomic_size_t completed;     /* tasks of the current job finished */
};

static pthread_mutex_t g_pools_mu = PTHREAD_MUTEX_INITIALIZER;
static kfpy_pool *g_pools = NULL;
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

static void before_fork(void) {
  pthread_mutex_lock(&g_pools_mu);
  for (kfpy_pool *p = g_pools; p; p = p->next_pool) {
    pthread_mutex_lock(&p->call_lock); /* waits for a running job to end */
    pthread_mutex_lock(&p->lock);
  }
}

static void after_fork_parent(void) {
  for (kfpy_pool *p = g_pools; p; p = p->next_pool) {
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->call_lock);
  }
  pthread_mutex_unlock(&g_pools_mu);
}

static void after_fork_child(void) {
  for (kfpy_pool *p = g_pools; p; p = p->next_pool) {
    /* The parent's workers waited on these: fresh ones for the child. */
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->started = 0;
    p->stopping = 0;
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->call_lock);
  }
  pthread_mutex_unlock(&g_pools_mu);
}

static void register_atfork(void) { pthread_atfork(before_fork, after_fork_parent, after_fork_child); }

/* Runs tasks of job gen while it has unclaimed ones; the thread that
   finishes the job's last task wakes the caller. */
static void run_tasks(kfpy_pool *p, uint32_t gen, kf_task_fn task, void *ctx, size_t n) {
  uint64_t v = atomic_load_explicit(&p->next, memory_order_acquire);
  for (;;) {
    const size_t i = (size_t)(v & 0xffffffffu);
    if ((uint32_t)(v >> 32) != gen || i >= n) return;
    if (!atomic_compare_exchange_weak_explicit(&p->next, &v, v + 1, memory_order_acquire, memory_order_acquire))
      continue;
    task(ctx, i);
    if (atomic_fetch_add_explicit(&p->completed, 1, memory_order_acq_rel) + 1 == n) {
      pthread_mutex_lock(&p->lock);
      pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->lock);
    }
    v = atomic_load_explicit(&p->next, memory_order_acquire);
  }
}

static void *worker_main(void *arg) {
  const worker_start *w = arg;
  kfpy_pool *p = w->pool;
  unsigned long seen = w->seen;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->stopping && p->generation == seen) pthread_cond_wait(&p->wake, &p->lock);
    if (p->stopping) break;
    seen = p->generation;
    kf_task_fn task = p->task;
    void *ctx = p->ctx;
    size_t n = p->n;
    pthread_mutex_unlock(&p->lock);
    run_tasks(p, (uint32_t)seen, task, ctx, n);
    pthread_mutex_lock(&p->lock);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

/* Starts the missing workers (call_lock held). A worker that cannot be
   started is simply not there: the job runs on fewer threads. */
static void start_workers(kfpy_pool *p) {
  while (p->started < p->num_workers) {
    worker_start *w = &p->starts[p->started];
    w->pool = p;
    w->seen = p->generation; /* no job runs: call_lock is held */
    if (pthread_create(&p->workers[p->started], NULL, worker_main, w) != 0) return;
    p->started++;
  }
}

static void pool_parallel_for(void *pool, kf_task_fn task, void *ctx, size_t n) {
  kfpy_pool *p = pool;
  if (n == 0) return;
  /* Serial where there is nothing to share, or where a job already runs (a
     framework's concurrent op, another Python thread): this caller does its
     own tasks rather than queue behind it. */
  if (p->num_workers == 0 || n == 1 || n > 0xffffffffu || pthread_mutex_trylock(&p->call_lock) != 0) {
    for (size_t i = 0; i < n; i++) task(ctx, i);
    return;
  }
  start_workers(p);
  pthread_mutex_lock(&p->lock);
  p->task = task;
  p->ctx = ctx;
  p->n = n;
  const uint32_t gen = (uint32_t)++p->generation;
  atomic_store_explicit(&p->completed, 0, memory_order_relaxed);
  atomic_store_explicit(&p->next, (uint64_t)gen << 32, memory_order_release);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  run_tasks(p, gen, task, ctx, n);
  pthread_mutex_lock(&p->lock);
  while (atomic_load_explicit(&p->completed, memory_order_acquire) < n) pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
  pthread_mutex_unlock(&p->call_lock);
}

static void stop_workers(kfpy_pool *p) {
  pthread_mutex_lock(&p->lock);
  p->stopping = 1;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < p->started; i++) pthread_join(p->workers[i], NULL);
  p->started = 0;
}

kfpy_pool *kfpy_pool_create(int num_threads) {
  if (num_threads < 1 || num_threads > KFPY_POOL_MAX_THREADS) return NULL;
  if (pthread_once(&g_atfork_once, register_atfork) != 0) return NULL;
  kfpy_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->num_workers = num_threads - 1;
  p->workers = p->num_workers ? calloc((size_t)p->num_workers, sizeof *p->workers) : NULL;
  p->starts = p->num_workers ? calloc((size_t)p->num_workers, sizeof *p->starts) : NULL;
  if (p->num_workers && (!p->workers || !p->starts)) {
    free(p->workers);
    free(p->starts);
    free(p);
    return NULL;
  }
  pthread_mutex_init(&p->call_lock, NULL);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  atomic_init(&p->next, 0);
  atomic_init(&p->completed, 0);
  p->threads.parallel_for = pool_parallel_for;
  p->threads.pool = p;
  p->threads.num_threads = num_threads;
  /* All workers now, so that a pool that cannot have them is refused here;
     later starts happen only in a forked child. */
  start_workers(p);
  if (p->started < p->num_workers) {
    kfpy_pool_destroy(p);
    return NULL;
  }
  pthread_mutex_lock(&g_pools_mu);
  p->next_pool = g_pools;
  g_pools = p;
  pthread_mutex_unlock(&g_pools_mu);
  return p;
}

void kfpy_pool_destroy(kfpy_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&g_pools_mu);
  for (kfpy_pool **q = &g_pools; *q; q = &(*q)->next_pool)
    if (*q == p) { *q = p->next_pool; break; }
  pthread_mutex_unlock(&g_pools_mu);
  if (p->started) stop_workers(p);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  pthread_mutex_destroy(&p->call_lock);
  free(p->workers);
  free(p->starts);
  free(p);
}

const kf_threads *kfpy_pool_threads(const kfpy_pool *p) { return &p->threads; }

int kfpy_pool_num_threads(const kfpy_pool *p) { return p->threads.num_threads; }
