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
  /* csrr %0, minstret, i.e. csrrs rd, x0, 0xB02, written with .insn: GNU as
     wants Zicsr, which the plain -march that picks the multilib lacks, and
     clang 14 knows no ".option arch". The CSR number is the I-type
     immediate, signed: 0xB02 - 0x1000 = -1278. */
  __asm__ volatile(".insn i 0x73, 2, %0, x0, -1278" : "=r"(v));
  return v;
}
