/* kfi_simd_scalar.h -- the kernels' SIMD layer for portable C: a 1-lane
** "vector" (no kv_fma, no kv_pair). Include after defining KV_T; names and
** semantics in kfi_simd.h. */
#ifndef kfi_simd_scalar_h
#define kfi_simd_scalar_h
#include "kfi_simd.h"

typedef float kv_f;
#define KV_W 1
#define KV_HAS_STREAM 0
#if KV_T == KV_T_F32
#define KV_VBYTES 4
#else
#define KV_VBYTES 2
#endif
KV_FN kv_f kv_zero(void) { return 0.0f; }
KV_FN kv_f kv_set1(float f) { return f; }
KV_FN kv_f kv_add(kv_f a, kv_f b) { return a + b; }
KV_FN kv_f kv_sub(kv_f a, kv_f b) { return a - b; }
KV_FN kv_f kv_mul(kv_f a, kv_f b) { return a * b; }
KV_FN kv_f kv_div(kv_f a, kv_f b) { return a / b; }
KV_FN kv_f kv_sqrt(kv_f a) { return sqrtf(a); }
KV_FN float kv_hsum(kv_f v) { return v; }
KV_FN kv_f kv_ldf(const float *p) { return *p; }
KV_FN void kv_stf(float *p, kv_f v) { *p = v; }
KV_FN void kv_sfence(void) {}
KV_FN kv_f kv_ld(const KV_CT *p) { return KV_CVT_LD(*p); }
KV_FN void kv_st(KV_CT *p, kv_f v) { *p = KV_CVT_ST(v); }
KV_FN void kv_stream(KV_CT *p, kv_f v) { kv_st(p, v); }
#include "kfi_simd_partial.h"

#endif
