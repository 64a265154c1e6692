/* kfi_simd_avx512.h -- the kernels' SIMD layer for x86-64 AVX-512
** F/BW/VL/DQ: 16 float lanes, masked partial vectors. Include inside the
** kernel's target region after defining KV_T; names and semantics in
** kfi_simd.h. */
#ifndef kfi_simd_avx512_h
#define kfi_simd_avx512_h
#include "kfi_simd.h"

typedef __m512 kv_f;
#define KV_W 16
#define KV_HAS_STREAM 1
KV_FN kv_f kv_zero(void) { return _mm512_setzero_ps(); }
KV_FN kv_f kv_set1(float f) { return _mm512_set1_ps(f); }
KV_FN kv_f kv_add(kv_f a, kv_f b) { return _mm512_add_ps(a, b); }
KV_FN kv_f kv_sub(kv_f a, kv_f b) { return _mm512_sub_ps(a, b); }
KV_FN kv_f kv_mul(kv_f a, kv_f b) { return _mm512_mul_ps(a, b); }
KV_FN kv_f kv_div(kv_f a, kv_f b) { return _mm512_div_ps(a, b); }
KV_FN kv_f kv_sqrt(kv_f a) { return _mm512_sqrt_ps(a); }
KV_FN kv_f kv_fma(kv_f a, kv_f b, kv_f c) { return _mm512_fmadd_ps(a, b, c); }
KV_FN kv_f kv_pair(kv_f a, kv_f b) {
  const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  return _mm512_add_ps(_mm512_permutex2var_ps(a, ev, b), _mm512_permutex2var_ps(a, od, b));
}
KV_FN float kv_hsum(kv_f v) {
  __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
  __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  q = _mm_add_ps(q, _mm_movehl_ps(q, q));
  q = _mm_add_ss(q, _mm_movehdup_ps(q));
  return _mm_cvtss_f32(q);
}
KV_FN __mmask16 kv_mask(int64_t n) { return (__mmask16)((1u << n) - 1u); }
KV_FN kv_f kv_ldf(const float *p) { return _mm512_loadu_ps(p); }
KV_FN void kv_stf(float *p, kv_f v) { _mm512_storeu_ps(p, v); }
KV_FN kv_f kv_ldfn(const float *p, int64_t n, kv_f fill) { return _mm512_mask_loadu_ps(fill, kv_mask(n), p); }
KV_FN void kv_stfn(float *p, kv_f v, int64_t n) { _mm512_mask_storeu_ps(p, kv_mask(n), v); }
KV_FN void kv_stfp(float *p, kv_f v, int64_t n) {
  __m256 h = _mm512_castps512_ps256(v);
  __m128 q;
  if (n >= 16) {
    _mm512_storeu_ps(p, v);
    return;
  }
  if (n & 8) _mm256_storeu_ps(p, h), p += 8, h = _mm512_extractf32x8_ps(v, 1);
  q = _mm256_castps256_ps128(h);
  if (n & 4) _mm_storeu_ps(p, q), p += 4, q = _mm256_extractf128_ps(h, 1);
  if (n & 2) _mm_storel_pi((__m64 *)(void *)p, q), p += 2, q = _mm_movehl_ps(q, q);
  if (n & 1) _mm_store_ss(p, q);
}
KV_FN void kv_sfence(void) { _mm_sfence(); }
#if KV_T == KV_T_F32
#define KV_VBYTES 64
KV_FN kv_f kv_ld(const float *p) { return _mm512_loadu_ps(p); }
KV_FN void kv_st(float *p, kv_f v) { _mm512_storeu_ps(p, v); }
KV_FN kv_f kv_ldn(const float *p, int64_t n, kv_f fill) { return _mm512_mask_loadu_ps(fill, kv_mask(n), p); }
KV_FN void kv_stn(float *p, kv_f v, int64_t n) { _mm512_mask_storeu_ps(p, kv_mask(n), v); }
KV_FN void kv_stream(float *p, kv_f v) { _mm512_stream_ps(p, v); }
#else
#define KV_VBYTES 32
#if KV_T == KV_T_F16
KV_FN kv_f kv_cvt_in(__m256i h) { return _mm512_cvtph_ps(h); }
KV_FN __m256i kv_cvt_out(kv_f v) { return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
#else
KV_FN kv_f kv_cvt_in(__m256i h) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
/* Round to nearest even; NaN quieted (kfi_f32_to_bf16). */
KV_FN __m256i kv_cvt_out(kv_f v) {
  const __m512i x = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(_mm512_add_epi32(x, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x40)));
  return _mm512_cvtepi32_epi16(r);
}
#endif
KV_FN kv_f kv_ld(const uint16_t *p) { return kv_cvt_in(_mm256_loadu_si256((const __m256i *)p)); }
KV_FN void kv_st(uint16_t *p, kv_f v) { _mm256_storeu_si256((__m256i *)p, kv_cvt_out(v)); }
KV_FN kv_f kv_ldn(const uint16_t *p, int64_t n, kv_f fill) {
  return _mm512_mask_blend_ps(kv_mask(n), fill, kv_cvt_in(_mm256_maskz_loadu_epi16(kv_mask(n), p)));
}
KV_FN void kv_stn(uint16_t *p, kv_f v, int64_t n) { _mm256_mask_storeu_epi16(p, kv_mask(n), kv_cvt_out(v)); }
KV_FN void kv_stream(uint16_t *p, kv_f v) { _mm256_stream_si256((__m256i *)p, kv_cvt_out(v)); }
#endif

#endif
