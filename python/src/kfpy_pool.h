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

/* A pool running tasks on `num_threads` threads, the caller's included
   (num_threads - 1 workers are started). NULL when num_threads < 1 or the
   threads cannot be created. */
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
