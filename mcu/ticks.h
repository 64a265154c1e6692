/*
** ticks.h -- the per-architecture counter of the bare-metal image
** (mcu/ticks_<arch>.c, picked by tools/model/target_env.lua from the
** target's cpu key). Under qemu -icount the counter is deterministic;
** the target spec gives the instructions per tick.
*/
#ifndef kfm_ticks_h
#define kfm_ticks_h

#include <stdint.h>

void kfm_ticks_start(void); /* starts the counter (once, before the first read) */
uint32_t kfm_ticks(void);   /* the count now; differences are taken modulo 2^32 */

#endif
