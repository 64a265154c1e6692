/*
** dump.h -- writes a run's outputs to DIR/<i>_<j>.<dtype>, raw, one file
** each, for tools/model/compare.c: the host check (--dump) and the image
** (mcu/main.c with KFM_DUMP, over semihosting) write the same files.
*/
#ifndef kfm_dump_h
#define kfm_dump_h

#include "runner.h"

/* 1 when every output was written, else 0. */
int kfm_dump(const char *dir, int i, const kfm_run *r);

#endif
