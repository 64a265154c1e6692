/*
** th_pool.c -- th_pool3: kf_threads over pthreads for the tests. A new pair
** of threads per call keeps it stateless; the tests' calls are few.
*/
#include <pthread.h>
#include <stdatomic.h>

#include "th_pool.h"

#define TH_POOL_EXTRA 2 /* threads besides the caller */

typedef struct {
  kf_task_fn task;
  void *ctx;
  size_t n;
  atomic_size_t next;
} th_job;

static void *worker(void *p) {
  th_job *j = p;
  size_t i;
  while ((i = atomic_fetch_add(&j->next, 1)) < j->n) j->task(j->ctx, i);
  return NULL;
}

static void parallel_for(void *pool, kf_task_fn task, void *ctx, size_t n) {
  pthread_t th[TH_POOL_EXTRA];
  th_job j;
  int k, made = 0;
  (void)pool;
  j.task = task;
  j.ctx = ctx;
  j.n = n;
  atomic_init(&j.next, 0);
  for (k = 0; k < TH_POOL_EXTRA; k++)
    if (pthread_create(&th[made], NULL, worker, &j) == 0) made++;
  worker(&j); /* with no thread made, the caller runs every task */
  for (k = 0; k < made; k++) pthread_join(th[k], NULL);
}

const kf_threads th_pool3 = { parallel_for, NULL, TH_POOL_EXTRA + 1 };
