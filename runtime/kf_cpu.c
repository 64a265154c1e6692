/*
** kf_cpu.c -- which ISAs this CPU and OS support. Computed on every call
** (a few cpuid instructions, only at plan time), so there is no cached
** global state and nothing to initialise or lock.
*/
#include <stdlib.h>
#include <string.h>

#include "kfi.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

static unsigned detect(void) {
  unsigned a, b, c, d, isas = KF_ISA_SCALAR;
  unsigned long long xcr0 = 0;
  int avx, fma, f16c, avx2 = 0, f = 0, dq = 0, bw = 0, vl = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return isas;
  avx = (c >> 28) & 1;
  fma = (c >> 12) & 1;
  f16c = (c >> 29) & 1;
  if ((c >> 27) & 1) { /* OSXSAVE: the OS says which register states it saves */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = ((unsigned long long)hi << 32) | lo;
  }
  if (__get_cpuid_max(0, NULL) >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    avx2 = (b >> 5) & 1;
    f = (b >> 16) & 1;
    dq = (b >> 17) & 1;
    bw = (b >> 30) & 1;
    vl = (b >> 31) & 1;
  }
  if (avx && avx2 && fma && f16c && (xcr0 & 0x6) == 0x6) isas |= KF_ISA_AVX2;
  if ((isas & KF_ISA_AVX2) && f && dq && bw && vl && (xcr0 & 0xe6) == 0xe6) isas |= KF_ISA_AVX512;
  return isas;
}
#elif defined(__aarch64__)
static unsigned detect(void) { return KF_ISA_SCALAR | KF_ISA_NEON; }
#else
static unsigned detect(void) { return KF_ISA_SCALAR; }
#endif

/* ORDER kf_isa bits */
static const char *const isa_names[] = { "scalar", "neon", "avx2", "avx512" };

const char *kf_isa_name(unsigned isa_bit) {
  int i;
  for (i = 0; i < 4; i++)
    if (isa_bit == 1u << i) return isa_names[i];
  return "unknown";
}

unsigned kf_cpu_isas(void) {
  unsigned isas = detect();
#if defined(__x86_64__) || defined(__aarch64__)
  const char *cap = getenv("KFORGE_ISA");
  if (cap && *cap) {
    unsigned keep = KF_ISA_SCALAR;
    if (strcmp(cap, "neon") == 0) keep |= KF_ISA_NEON;
    if (strcmp(cap, "avx2") == 0) keep |= KF_ISA_AVX2;
    if (strcmp(cap, "avx512") == 0) keep |= KF_ISA_AVX2 | KF_ISA_AVX512;
    isas &= keep;
  }
#endif
  return isas;
}
