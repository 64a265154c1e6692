/*
** ticks_riscv.c -- the RISC-V retired-instruction counter (minstret; the
** image runs in M-mode, so no counter enable is needed). qemu derives
** minstret from virtual time: under -icount shift=0 it is exactly the
** number of instructions retired; without -icount it is host time.
** The low 32 bits suffice: differences are taken modulo 2^32.
*/
#include "ticks.h"

void kfm_ticks_start(void) {}

uint32_t kfm_ticks(void) {
  uint32_t v;
  /* -march=rv32imac keeps the multilib's name, so Zicsr is enabled here */
  __asm__ volatile(".option push\n.option arch, +zicsr\ncsrr %0, minstret\n.option pop" : "=r"(v));
  return v;
}
