/* kfi_simd_neon.h -- the kernels' SIMD layer for AArch64 Advanced SIMD:
** 4 float lanes, no streaming stores. Include after defining KV_T; names
** and semantics in kfi_simd.h. */
#ifndef kfi_simd_neon_h
#define kfi_simd_neon_h
#include "kfi_simd.h"

typedef float32x4_t kv_f;
#define KV_W 4
#define KV_HAS_STREAM 0
KV_FN kv_f kv_zero(void) { return vdupq_n_f32(0.0f); }
KV_FN kv_f kv_set1(float f) { return vdupq_n_f32(f); }
KV_FN kv_f kv_add(kv_f a, kv_f b) { return vaddq_f32(a, b); }
KV_FN kv_f kv_sub(kv_f a, kv_f b) { return vsubq_f32(a, b); }
KV_FN kv_f kv_mul(kv_f a, kv_f b) { return vmulq_f32(a, b); }
KV_FN kv_f kv_div(kv_f a, kv_f b) { return vdivq_f32(a, b); }
KV_FN kv_f kv_sqrt(kv_f a) { return vsqrtq_f32(a); }
KV_FN kv_f kv_fma(kv_f a, kv_f b, kv_f c) { return vfmaq_f32(c, a, b); }
KV_FN kv_f kv_pair(kv_f a, kv_f b) { return vpaddq_f32(a, b); }
KV_FN float kv_hsum(kv_f v) {
  float32x2_t h = vadd_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(vpadd_f32(h, h), 0);
}
KV_FN kv_f kv_ldf(const float *p) { return vld1q_f32(p); }
KV_FN void kv_stf(float *p, kv_f v) { vst1q_f32(p, v); }
KV_FN void kv_sfence(void) {}
#if KV_T == KV_T_F32
#define KV_VBYTES 16
KV_FN kv_f kv_ld(const float *p) { return vld1q_f32(p); }
KV_FN void kv_st(float *p, kv_f v) { vst1q_f32(p, v); }
#elif KV_T == KV_T_F16
#define KV_VBYTES 8
KV_FN kv_f kv_ld(const uint16_t *p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
KV_FN void kv_st(uint16_t *p, kv_f v) { vst1_u16(p, vreinterpret_u16_f16(vcvt_f16_f32(v))); }
#else
#define KV_VBYTES 8
KV_FN kv_f kv_ld(const uint16_t *p) { return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16)); }
/* Round to nearest even; NaN quieted (kfi_f32_to_bf16). */
KV_FN void kv_st(uint16_t *p, kv_f v) {
  const uint32x4_t x = vreinterpretq_u32_f32(v);
  const uint32x4_t lsb = vandq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(1));
  uint32x4_t r = vshrq_n_u32(vaddq_u32(x, vaddq_u32(lsb, vdupq_n_u32(0x7fff))), 16);
  const uint32x4_t q = vorrq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(0x40));
  r = vbslq_u32(vceqq_f32(v, v), r, q);
  vst1_u16(p, vmovn_u32(r));
}
#endif
KV_FN void kv_stream(KV_CT *p, kv_f v) { kv_st(p, v); }
#include "kfi_simd_partial.h"

#endif
