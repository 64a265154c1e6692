/*
** kf_cpu.c -- which ISAs this CPU and OS support, and its L1 data, L2
** and last-level cache sizes. Computed on every call (a few cpuid instructions, only at plan
** time), so there is no cached global state and nothing to initialise or
** lock.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfi.h"

/* Linux's sysfs view of cpu0's data or unified caches, or 0: AArch64's
   source, and the tests' check of cpuid's. which: KFI_CACHE_L1D or
   KFI_CACHE_L2 (that level's), KFI_CACHE_LLC (the largest of the highest
   level). */
int64_t kfi_cpu_cache_sysfs(int which) {
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
  int64_t best = 0;
  long best_level = 0;
  int i;
  for (i = 0; i < 8; i++) {
    char path[96], buf[32];
    long level = 0, kb = 0;
    FILE *f;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    if (!(f = fopen(path, "r"))) break;
    if (fgets(buf, sizeof buf, f)) level = strtol(buf, NULL, 10);
    fclose(f);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
    if ((f = fopen(path, "r"))) {
      if (fgets(buf, sizeof buf, f) && strncmp(buf, "Instruction", 11) == 0) level = 0;
      fclose(f);
    }
    if (which != KFI_CACHE_LLC && level != (which == KFI_CACHE_L1D ? 1 : 2)) level = 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if (level > 0 && (f = fopen(path, "r"))) {
      if (fgets(buf, sizeof buf, f)) kb = strtol(buf, NULL, 10); /* "32768K" */
      fclose(f);
      if (level > best_level || (level == best_level && kb * 1024 > best)) best_level = level, best = (int64_t)kb * 1024;
    }
  }
  return best;
#else
  (void)which;
  return 0;
#endif
}

int64_t kfi_cpu_llc_sysfs(void) { return kfi_cpu_cache_sysfs(KFI_CACHE_LLC); }

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

/* A data or unified cache of the deterministic cache parameters (Intel
   leaf 4, AMD leaf 0x8000001D: the same layout), chosen as
   kfi_cpu_cache_sysfs chooses, or 0. */
static int64_t cache_leaf(unsigned leaf, int which) {
  int64_t best = 0;
  unsigned i, a, b, c, d, best_level = 0;
  for (i = 0; i < 16; i++) {
    unsigned type, level;
    int64_t bytes;
    __cpuid_count(leaf, i, a, b, c, d);
    type = a & 0x1f;
    if (type == 0) break; /* no more caches */
    if (type == 2) continue; /* instruction cache */
    level = (a >> 5) & 7;
    if (which != KFI_CACHE_LLC && level != (which == KFI_CACHE_L1D ? 1u : 2u)) continue;
    bytes = (int64_t)((b >> 22) + 1) * (int64_t)(((b >> 12) & 0x3ff) + 1) * (int64_t)((b & 0xfff) + 1) *
            ((int64_t)c + 1);
    if (level > best_level || (level == best_level && bytes > best)) best_level = level, best = bytes;
  }
  return best;
}

static int64_t cache_bytes(int which) {
  unsigned a, b, c, d, max_ext;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
  if (b == 0x756e6547u && a >= 4) return cache_leaf(4, which); /* "Genu"ineIntel */
  max_ext = __get_cpuid_max(0x80000000u, NULL);
  if (max_ext >= 0x8000001du && __get_cpuid(0x80000001u, &a, &b, &c, &d) && ((c >> 22) & 1))
    return cache_leaf(0x8000001du, which); /* AMD with topology extensions */
  if (which == KFI_CACHE_L1D) /* older AMD: L1d in KiB */
    return max_ext >= 0x80000005u && __get_cpuid(0x80000005u, &a, &b, &c, &d) ? (int64_t)(c >> 24) * 1024 : 0;
  if (max_ext >= 0x80000006u && __get_cpuid(0x80000006u, &a, &b, &c, &d)) {
    if (which == KFI_CACHE_LLC && (d >> 18)) return (int64_t)(d >> 18) * 512 * 1024; /* L3, 512 KiB units */
    return (int64_t)(c >> 16) * 1024;                                              /* L2, KiB */
  }
  return 0;
}

void kfi_cpu_ident(char vendor[16], unsigned *family, unsigned *model) {
  unsigned a, b, c, d;
  memcpy(vendor, "unknown", 8);
  *family = *model = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return;
  memcpy(vendor, &b, 4);
  memcpy(vendor + 4, &d, 4);
  memcpy(vendor + 8, &c, 4);
  vendor[12] = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return;
  *family = (a >> 8) & 0xf;
  *model = (a >> 4) & 0xf;
  if (*family == 0xf) *family += (a >> 20) & 0xff; /* extended family */
  if (*family >= 6) *model += ((a >> 16) & 0xf) << 4;
}
#elif defined(__aarch64__)
static unsigned detect(void) { return KF_ISA_SCALAR | KF_ISA_NEON; }
void kfi_cpu_ident(char vendor[16], unsigned *family, unsigned *model) {
  memcpy(vendor, "arm64", 6); /* no CPUID for user space: the architecture names the CPU */
  *family = *model = 0;
}
#if defined(__linux__)
/* No cache-size instructions for user space: what Linux reports. */
static int64_t cache_bytes(int which) { return kfi_cpu_cache_sysfs(which); }
#else
static int64_t cache_bytes(int which) { (void)which; return 0; }
#endif
#elif defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
/* M-profile Helium with floating point: fixed by the -mcpu the library is
   built for (no CPUID-like registers to ask at run time). */
static unsigned detect(void) { return KF_ISA_SCALAR | KF_ISA_MVE; }
static int64_t cache_bytes(int which) { (void)which; return 0; }
#else
static unsigned detect(void) { return KF_ISA_SCALAR; }
static int64_t cache_bytes(int which) { (void)which; return 0; }
#endif


/* KFORGE_L1D, KFORGE_L2 and KFORGE_LLC (indexed by KFI_CACHE_*) override
   the detected sizes (a container's share of a host's cache; tests that
   simulate another CPU or need either side of a cache-size choice). */
static const char *const cache_vars[] = { "KFORGE_L1D", "KFORGE_L2", "KFORGE_LLC" };
static const char *const cache_rules[] = { "env.l1d", "env.l2", "env.llc" };

/* A size as a person writes it: a byte count with an optional K, M or G
   (KiB, MiB, GiB; any case, "B"/"iB" allowed), blanks around it ignored.
   Returns the bytes, 0 when v is NULL or blank, -1 when it is no size. */
int64_t kfi_parse_size(const char *v) {
  const char *p;
  char *end;
  long long n;
  int64_t unit = 1;
  if (!v) return 0;
  for (p = v; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'; p++) {}
  if (!*p) return 0;
  if (*p < '0' || *p > '9') return -1;
  n = strtoll(p, &end, 10);
  p = end;
  if (*p == 'k' || *p == 'K') unit = (int64_t)1 << 10, p++;
  else if (*p == 'm' || *p == 'M') unit = (int64_t)1 << 20, p++;
  else if (*p == 'g' || *p == 'G') unit = (int64_t)1 << 30, p++;
  if (unit > 1 && (*p == 'i' || *p == 'I')) p++;
  if (*p == 'b' || *p == 'B') p++;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  if (*p || n <= 0 || n > ((int64_t)1 << 40) / unit) return -1;
  return (int64_t)n * unit;
}

/* A cache-size variable (kfi_parse_size), its text in *text. */
static int64_t cache_env(int which, const char **text) {
#if defined(__x86_64__) || defined(__aarch64__)
  *text = getenv(cache_vars[which]);
  return kfi_parse_size(*text);
#else
  (void)which;
  *text = NULL; /* microcontrollers: no environment */
  return 0;
#endif
}

int64_t kfi_cpu_cache_bytes(int which) {
  const char *text;
  const int64_t e = cache_env(which, &text);
  return e > 0 ? e : cache_bytes(which);
}

int64_t kfi_cpu_llc_bytes(void) { return kfi_cpu_cache_bytes(KFI_CACHE_LLC); }

void kfi_cpu_caches(kfi_caches *c) {
  c->l1d = kfi_cpu_cache_bytes(KFI_CACHE_L1D);
  c->l2 = kfi_cpu_cache_bytes(KFI_CACHE_L2);
  c->llc = kfi_cpu_cache_bytes(KFI_CACHE_LLC);
  if (c->l1d <= 0) c->l1d = KFI_L1D_DEFAULT;
  if (c->l2 <= 0) c->l2 = KFI_L2_DEFAULT;
  if (c->llc <= 0) c->llc = KFI_LLC_DEFAULT;
  c->stream = kfi_stream_bytes(c, 0);
}

/* The planners' threshold, the same in every process (wisdom keys hash
   the plan's argument block): a quarter of the LLC, or the L2 for fresh
   outputs. Where the rule stands, kf_plan_op replaces the warm one by
   kfi_stream_warm's (kf_stream.c). A caller that re-uses its outputs finds
   them in cache: storing around the cache pays once the output would
   evict a good part of the LLC, or earlier where this CPU's streamed
   stores cost no more than ordinary ones. A fresh output (just allocated,
   in a step that streams far more than the LLC) is in no cache: every
   ordinary store first reads its line from DRAM, so anything past the
   core's L2 is cheaper streamed (docs/performance.md, "Fresh outputs"). */
int64_t kfi_stream_bytes(const kfi_caches *c, int fresh) {
  return fresh ? c->l2 : c->llc / 4;
}

kf_status kfi_check_cache_env(kf_error *err) {
  const char *text;
  int w;
  for (w = KFI_CACHE_L1D; w <= KFI_CACHE_LLC; w++)
    if (cache_env(w, &text) < 0)
      return kfi_fail(err, KF_INVALID_ARGUMENT, cache_rules[w],
                      "%s=\"%.40s\" is no cache size: use bytes with an optional K, M or G (\"32M\"), or unset it",
                      cache_vars[w], text);
  return KF_OK;
}

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
