/*
** kfpy_pool.h -- a small persistent thread pool for the kforge shared library
** of the Python package and the TensorFlow custom-op library: it provides
** the kf_threads (kforge.h) that plans run on. Not part of the kernel
** runtime, which never creates threads (microcontroller builds have none).
*/
#ifndef kfpy_pool_h
#define kfpy_pool_h

#include "kforge.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kfpy_pool kfpy_pool;

/* The most threads a pool may have. */
#define KFPY_POOL_MAX_THREADS 4096

/* A pool running tasks on `num_threads` threads, the caller's included
   (num_threads - 1 workers are started). NULL when num_threads is outside
   1..KFPY_POOL_MAX_THREADS or the threads cannot be created.
   Fork-safe: a child made by fork() (only the forking thread exists there)
   may keep using the pools it inherited (each starts fresh workers at its
   first parallel_for in the child) and destroy them (no thread is joined
   that the child does not have). fork() waits for running jobs to end.
   One job runs on the workers at a time; a parallel_for called meanwhile
   from another thread runs its tasks on its own thread. */
kfpy_pool *kfpy_pool_create(int num_threads);
/* Joins the workers. The pool must not be running a parallel_for. */
void kfpy_pool_destroy(kfpy_pool *pool);
/* The kf_threads to put in kf_plan_options.threads; lives as long as the
   pool. Calls from several threads at once are run one after another. */
const kf_threads *kfpy_pool_threads(const kfpy_pool *pool);
int kfpy_pool_num_threads(const kfpy_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
