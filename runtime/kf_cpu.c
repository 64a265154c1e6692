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
#elif defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
/* M-profile Helium with floating point: fixed by the -mcpu the library is
   built for (no CPUID-like registers to ask at run time). */
static unsigned detect(void) { return KF_ISA_SCALAR | KF_ISA_MVE; }
#else
static unsigned detect(void) { return KF_ISA_SCALAR; }
#endif

/* ORDER kf_isa bits */
static const char *const isa_names[] = { "scalar", "neon", "avx2", "avx512", "mve" };
#define NUM_ISAS ((int)(sizeof isa_names / sizeof isa_names[0]))

const char *kf_isa_name(unsigned isa_bit) {
  int i;
  for (i = 0; i < NUM_ISAS; i++)
    if (isa_bit == 1u << i) return isa_names[i];
  return "unknown";
}

/* KFORGE_ISA, read as a person would write it: case-insensitive, blanks
   around it ignored. Sets *keep to the ISA bits it allows (all when unset
   or empty); returns 0, or -1 for a value that names no ISA, so that a typo
   is an error rather than a silent fall back to scalar kernels. */
static const char *isa_env(void) {
#if defined(__x86_64__) || defined(__aarch64__)
  return getenv("KFORGE_ISA");
#else
  return NULL; /* microcontrollers: no environment */
#endif
}

static int isa_cap(unsigned *keep, char *word, size_t n) {
  const char *cap = isa_env();
  size_t len, i;
  *keep = ~0u;
  if (n) word[0] = 0;
  if (!cap) return 0;
  while (*cap == ' ' || *cap == '\t' || *cap == '\n' || *cap == '\r') cap++;
  len = strlen(cap);
  while (len && (cap[len - 1] == ' ' || cap[len - 1] == '\t' || cap[len - 1] == '\n' || cap[len - 1] == '\r')) len--;
  if (len == 0) return 0;
  for (i = 0; i < len && i + 1 < n; i++) word[i] = (char)(cap[i] >= 'A' && cap[i] <= 'Z' ? cap[i] - 'A' + 'a' : cap[i]);
  if (n) word[i < n ? i : n - 1] = 0;
  if (len >= n) return -1;
  if (strcmp(word, "scalar") == 0) *keep = KF_ISA_SCALAR;
  else if (strcmp(word, "neon") == 0) *keep = KF_ISA_SCALAR | KF_ISA_NEON;
  else if (strcmp(word, "avx2") == 0) *keep = KF_ISA_SCALAR | KF_ISA_AVX2;
  else if (strcmp(word, "avx512") == 0) *keep = KF_ISA_SCALAR | KF_ISA_AVX2 | KF_ISA_AVX512;
  else return -1;
  return 0;
}

unsigned kf_cpu_isas(void) {
  unsigned keep;
  char word[16];
  /* an invalid KFORGE_ISA caps nothing here; planning reports it */
  return detect() & (isa_cap(&keep, word, sizeof word) == 0 ? keep : ~0u);
}

kf_status kfi_check_isa_env(kf_error *err) {
  unsigned keep;
  char word[16];
  if (isa_cap(&keep, word, sizeof word) == 0) return KF_OK;
  return kfi_fail(err, KF_INVALID_ARGUMENT, "env.isa",
                  "KFORGE_ISA=\"%.40s\" names no ISA: use scalar, avx2, avx512 or neon (any case), or unset it",
                  isa_env());
}
