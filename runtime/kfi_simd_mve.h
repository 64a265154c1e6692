/* kfi_simd_mve.h -- the kernels' SIMD layer for Armv8.1-M Helium (MVE with
** floating point, Cortex-M55): 4 float lanes in the 8 Q registers, which
** alias the FPU's S registers (so a lane read is one VMOV, but lanes are
** still kept out of hot loops). Partial vectors are tail-predicated
** (VCTP + predicated loads and stores), 16-bit types are widened and
** narrowed by the 16-bit loads and stores (VLDRH.U32 / VSTRH.32), half
** converted in integer lanes (see kv_cvt_in), bfloat16 by shifts. No streaming
** stores. Include after defining KV_T; names and semantics in kfi_simd.h. */
#ifndef kfi_simd_mve_h
#define kfi_simd_mve_h
#include "kfi_simd.h"

/* Always inlined: at -Os (the microcontroller targets) gcc keeps even the
   conversions out of line, a call and register spills per vector. */
#define KV_MFN static inline __attribute__((unused, always_inline))

typedef float32x4_t kv_f;
#define KV_W 4
#define KV_HAS_STREAM 0
KV_MFN kv_f kv_zero(void) { return vdupq_n_f32(0.0f); }
KV_MFN kv_f kv_set1(float f) { return vdupq_n_f32(f); }
KV_MFN kv_f kv_add(kv_f a, kv_f b) { return vaddq_f32(a, b); }
KV_MFN kv_f kv_sub(kv_f a, kv_f b) { return vsubq_f32(a, b); }
KV_MFN kv_f kv_mul(kv_f a, kv_f b) { return vmulq_f32(a, b); }
/* MVE has no vector divide or square root: lane by lane (plan-time use) */
KV_MFN kv_f kv_div(kv_f a, kv_f b) {
  kv_f r = a;
  r = vsetq_lane_f32(vgetq_lane_f32(a, 0) / vgetq_lane_f32(b, 0), r, 0);
  r = vsetq_lane_f32(vgetq_lane_f32(a, 1) / vgetq_lane_f32(b, 1), r, 1);
  r = vsetq_lane_f32(vgetq_lane_f32(a, 2) / vgetq_lane_f32(b, 2), r, 2);
  return vsetq_lane_f32(vgetq_lane_f32(a, 3) / vgetq_lane_f32(b, 3), r, 3);
}
KV_MFN kv_f kv_sqrt(kv_f a) {
  kv_f r = a;
  r = vsetq_lane_f32(sqrtf(vgetq_lane_f32(a, 0)), r, 0);
  r = vsetq_lane_f32(sqrtf(vgetq_lane_f32(a, 1)), r, 1);
  r = vsetq_lane_f32(sqrtf(vgetq_lane_f32(a, 2)), r, 2);
  return vsetq_lane_f32(sqrtf(vgetq_lane_f32(a, 3)), r, 3);
}
KV_MFN kv_f kv_fma(kv_f a, kv_f b, kv_f c) { return vfmaq_f32(c, a, b); }
/* a + rev64(a) holds a0+a1 in lanes 0 and 1, a2+a3 in 2 and 3 (x+y == y+x
   exactly); lanes 0 and 2 of each are then gathered. MVE has no pairwise
   add across two registers; this is for multiplier-2 depthwise only. */
KV_MFN kv_f kv_pair(kv_f a, kv_f b) {
  const kv_f sa = vaddq_f32(a, vrev64q_f32(a)), sb = vaddq_f32(b, vrev64q_f32(b));
  kv_f r = vsetq_lane_f32(vgetq_lane_f32(sa, 2), sa, 1);
  r = vsetq_lane_f32(vgetq_lane_f32(sb, 0), r, 2);
  return vsetq_lane_f32(vgetq_lane_f32(sb, 2), r, 3);
}
/* (v0 + v2) + (v1 + v3), the order of kfi_simd_neon.h; MVE has no float
   add-across (integer VADDV only), and the lanes are S registers. */
KV_MFN float kv_hsum(kv_f v) {
  return (vgetq_lane_f32(v, 0) + vgetq_lane_f32(v, 2)) + (vgetq_lane_f32(v, 1) + vgetq_lane_f32(v, 3));
}
/* the predicate of lanes [0, n) */
KV_MFN mve_pred16_t kv_tail(int64_t n) { return vctp32q((uint32_t)n); }
KV_MFN kv_f kv_ldf(const float *p) { return vld1q_f32(p); }
KV_MFN void kv_stf(float *p, kv_f v) { vst1q_f32(p, v); }
KV_MFN kv_f kv_ldfn(const float *p, int64_t n, kv_f fill) {
  const mve_pred16_t m = kv_tail(n);
  return vpselq_f32(vldrwq_z_f32(p, m), fill, m);
}
KV_MFN void kv_stfn(float *p, kv_f v, int64_t n) { vstrwq_p_f32(p, v, kv_tail(n)); }
KV_MFN void kv_stfp(float *p, kv_f v, int64_t n) { kv_stfn(p, v, n); }
KV_MFN void kv_sfence(void) {}
#if KV_T == KV_T_F32
#define KV_VBYTES 16
KV_MFN kv_f kv_ld(const float *p) { return vld1q_f32(p); }
KV_MFN void kv_st(float *p, kv_f v) { vst1q_f32(p, v); }
KV_MFN kv_f kv_ldn(const float *p, int64_t n, kv_f fill) { return kv_ldfn(p, n, fill); }
KV_MFN void kv_stn(float *p, kv_f v, int64_t n) { kv_stfn(p, v, n); }
#else
#define KV_VBYTES 8
/* 16-bit storage: VLDRH.U32 / VSTRH.32 widen and narrow between memory
   halves and the bottom half of each 32-bit lane. */
#if KV_T == KV_T_F16
/* Half in integer lanes and one float add, not VCVTB: gcc 12.2 with
   binutils 2.40 encode the MVE VCVTB/VCVTT (f16 <-> f32) registers so that
   qemu 7.2 reads other registers (q4-q7 sources UNDEFINED, wrong values
   for the others), and neither can be trusted until checked on hardware.
   Exactly kfi_f16_to_f32 / kfi_f32_to_f16 (round to nearest even, NaN
   quieted with its payload), lane-wise with predicated selects. */
KV_MFN kv_f kv_cvt_in(uint32x4_t h) {
  const uint32x4_t em = vandq_u32(h, vdupq_n_u32(0x7fff)), m13 = vshlq_n_u32(em, 13);
  /* subnormal: 0.5 + em * 2^-24 is exact in float, and so is taking 0.5 off */
  const kv_f sub = vsubq_f32(vreinterpretq_f32_u32(vaddq_n_u32(em, 0x3f000000)), vdupq_n_f32(0.5f));
  uint32x4_t r = vaddq_n_u32(m13, 0x38000000); /* normal: rebias the exponent by 127 - 15 */
  r = vpselq_u32(r, vreinterpretq_u32_f32(sub), vcmpcsq_n_u32(em, 0x400));
  r = vpselq_u32(vorrq_u32(m13, vdupq_n_u32(0x7f800000)), r, vcmpcsq_n_u32(em, 0x7c00)); /* inf, NaN */
  return vreinterpretq_f32_u32(vorrq_u32(r, vshlq_n_u32(vandq_u32(h, vdupq_n_u32(0x8000)), 16)));
}
KV_MFN uint32x4_t kv_cvt_out(kv_f v) {
  const uint32x4_t x = vreinterpretq_u32_f32(v), ax = vandq_u32(x, vdupq_n_u32(0x7fffffff));
  /* normal half: rebias, round the 13 dropped bits to nearest even */
  uint32x4_t r = vsubq_u32(ax, vdupq_n_u32(0x38000000));
  r = vshrq_n_u32(vaddq_u32(r, vaddq_n_u32(vandq_u32(vshrq_n_u32(r, 13), vdupq_n_u32(1)), 0x0fff)), 13);
  /* below 2^-14: adding 0.5 puts the float's rounding point at 2^-24, the
     half's subnormal unit, so the adder rounds to nearest even (values
     <= 2^-25 and float subnormals give 0) */
  const uint32x4_t sub = vsubq_u32(vreinterpretq_u32_f32(vaddq_f32(vreinterpretq_f32_u32(ax), vdupq_n_f32(0.5f))),
                                   vdupq_n_u32(0x3f000000));
  r = vpselq_u32(r, sub, vcmpcsq_n_u32(ax, 0x38800000));
  r = vpselq_u32(vdupq_n_u32(0x7c00), r, vcmpcsq_n_u32(ax, 0x477ff000));
  r = vpselq_u32(vorrq_u32(vandq_u32(vshrq_n_u32(ax, 13), vdupq_n_u32(0x3ff)), vdupq_n_u32(0x7e00)), r,
                 vcmphiq_n_u32(ax, 0x7f800000));
  return vorrq_u32(r, vandq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(0x8000)));
}
#else
KV_MFN kv_f kv_cvt_in(uint32x4_t h) { return vreinterpretq_f32_u32(vshlq_n_u32(h, 16)); }
/* Round to nearest even; NaN quieted (kfi_f32_to_bf16). */
KV_MFN uint32x4_t kv_cvt_out(kv_f v) {
  const uint32x4_t x = vreinterpretq_u32_f32(v);
  const uint32x4_t hi = vshrq_n_u32(x, 16);
  const uint32x4_t r = vshrq_n_u32(vaddq_u32(x, vaddq_n_u32(vandq_u32(hi, vdupq_n_u32(1)), 0x7fff)), 16);
  return vpselq_u32(r, vorrq_u32(hi, vdupq_n_u32(0x40)), vcmpeqq_f32(v, v));
}
#endif
KV_MFN kv_f kv_ld(const uint16_t *p) { return kv_cvt_in(vldrhq_u32(p)); }
KV_MFN void kv_st(uint16_t *p, kv_f v) { vstrhq_u32(p, kv_cvt_out(v)); }
KV_MFN kv_f kv_ldn(const uint16_t *p, int64_t n, kv_f fill) {
  const mve_pred16_t m = kv_tail(n);
  return vpselq_f32(kv_cvt_in(vldrhq_z_u32(p, m)), fill, m);
}
KV_MFN void kv_stn(uint16_t *p, kv_f v, int64_t n) { vstrhq_p_u32(p, kv_cvt_out(v), kv_tail(n)); }
#endif
KV_MFN void kv_stream(KV_CT *p, kv_f v) { kv_st(p, v); }

#endif
