/*
** th_pool.h -- a real parallel-for for the tests that run kernels on threads
** (tests/th_pool.c; link with -lpthread).
*/
#ifndef TH_POOL_H
#define TH_POOL_H

#include "kforge.h"

/* Three threads, the caller and two more, each taking the next task index
   from one atomic counter: tasks run in any order on any thread. */
extern const kf_threads th_pool3;

#endif
