/*
** ticks_arm.c -- Cortex-M SysTick as the counter: 24 bits on the processor
** clock, counting down; its wraps are counted in the interrupt. On the mps2
** boards the clock is 25 MHz, so under -icount shift=3 (8 ns per
** instruction) one tick is 5 instructions (the target spec says so).
*/
#include "ticks.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

static volatile uint32_t wraps;

/* Overrides picolibc's weak handler: counts the 24-bit counter's wraps. */
void arm_systick_isr(void);
void arm_systick_isr(void) { wraps++; }

void kfm_ticks_start(void) {
  SYST_RVR = 0xFFFFFFu;
  SYST_CVR = 0;
  SYST_CSR = 7u; /* enable, interrupt on wrap, processor clock */
}

uint32_t kfm_ticks(void) {
  uint32_t w, v;
  do {
    w = wraps;
    v = SYST_CVR;
  } while (w != wraps);
  return w * 0x1000000u + (0xFFFFFFu - v);
}
