/*
** kfpy_pool.c -- see kfpy_pool.h. Workers sleep on a condition variable
** between jobs; a job hands out task indices through one atomic counter, so
** any thread may run any task (kforge's kernels make results independent of
** which thread runs what), and the caller works too instead of waiting.
*/
#include "kfpy_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct kfpy_pool {
  kf_threads threads;          /* handed to kf_plan_options */
  int num_workers;
  pthread_t *workers;
  pthread_mutex_t call_lock;   /* one parallel_for at a time */
  pthread_mutex_t lock;        /* guards the fields below */
  pthread_cond_t wake, done;
  unsigned long generation;    /* bumped per job; workers wait for a new one */
  int stopping;
  int busy;                    /* workers still inside the current job */
  kf_task_fn task;
  void *ctx;
  size_t n;
  atomic_size_t next;
};

static void run_tasks(kfpy_pool *p, kf_task_fn task, void *ctx, size_t n) {
  for (;;) {
    size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
    if (i >= n) return;
    task(ctx, i);
  }
}

static void *worker_main(void *arg) {
  kfpy_pool *p = arg;
  unsigned long seen = 0;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->stopping && p->generation == seen) pthread_cond_wait(&p->wake, &p->lock);
    if (p->stopping) break;
    seen = p->generation;
    kf_task_fn task = p->task;
    void *ctx = p->ctx;
    size_t n = p->n;
    pthread_mutex_unlock(&p->lock);
    run_tasks(p, task, ctx, n);
    pthread_mutex_lock(&p->lock);
    if (--p->busy == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static void pool_parallel_for(void *pool, kf_task_fn task, void *ctx, size_t n) {
  kfpy_pool *p = pool;
  if (n == 0) return;
  if (p->num_workers == 0 || n == 1) {
    for (size_t i = 0; i < n; i++) task(ctx, i);
    return;
  }
  pthread_mutex_lock(&p->call_lock);
  pthread_mutex_lock(&p->lock);
  p->task = task;
  p->ctx = ctx;
  p->n = n;
  atomic_store_explicit(&p->next, 0, memory_order_relaxed);
  p->busy = p->num_workers;
  p->generation++;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  run_tasks(p, task, ctx, n);
  pthread_mutex_lock(&p->lock);
  while (p->busy > 0) pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
  pthread_mutex_unlock(&p->call_lock);
}

static void stop_workers(kfpy_pool *p, int started) {
  pthread_mutex_lock(&p->lock);
  p->stopping = 1;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < started; i++) pthread_join(p->workers[i], NULL);
}

kfpy_pool *kfpy_pool_create(int num_threads) {
  if (num_threads < 1 || num_threads > 4096) return NULL;
  kfpy_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->num_workers = num_threads - 1;
  p->workers = p->num_workers ? calloc((size_t)p->num_workers, sizeof *p->workers) : NULL;
  if (p->num_workers && !p->workers) { free(p); return NULL; }
  pthread_mutex_init(&p->call_lock, NULL);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  atomic_init(&p->next, 0);
  p->threads.parallel_for = pool_parallel_for;
  p->threads.pool = p;
  p->threads.num_threads = num_threads;
  for (int i = 0; i < p->num_workers; i++) {
    if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0) {
      stop_workers(p, i);
      p->num_workers = 0;
      kfpy_pool_destroy(p);
      return NULL;
    }
  }
  return p;
}

void kfpy_pool_destroy(kfpy_pool *p) {
  if (!p) return;
  if (p->num_workers) stop_workers(p, p->num_workers);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  pthread_mutex_destroy(&p->call_lock);
  free(p->workers);
  free(p);
}

const kf_threads *kfpy_pool_threads(const kfpy_pool *p) { return &p->threads; }

int kfpy_pool_num_threads(const kfpy_pool *p) { return p->threads.num_threads; }
