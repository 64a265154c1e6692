/* kfi_simd_avx2.h -- the kernels' SIMD layer for x86-64 AVX2 + FMA + F16C:
** 8 float lanes. Include inside the kernel's target region after defining
** KV_T; names and semantics in kfi_simd.h. */
#ifndef kfi_simd_avx2_h
#define kfi_simd_avx2_h
#include "kfi_simd.h"

typedef __m256 kv_f;
#define KV_W 8
#define KV_HAS_STREAM 1
KV_FN kv_f kv_zero(void) { return _mm256_setzero_ps(); }
KV_FN kv_f kv_set1(float f) { return _mm256_set1_ps(f); }
KV_FN kv_f kv_add(kv_f a, kv_f b) { return _mm256_add_ps(a, b); }
KV_FN kv_f kv_sub(kv_f a, kv_f b) { return _mm256_sub_ps(a, b); }
KV_FN kv_f kv_mul(kv_f a, kv_f b) { return _mm256_mul_ps(a, b); }
KV_FN kv_f kv_div(kv_f a, kv_f b) { return _mm256_div_ps(a, b); }
KV_FN kv_f kv_sqrt(kv_f a) { return _mm256_sqrt_ps(a); }
KV_FN kv_f kv_fma(kv_f a, kv_f b, kv_f c) { return _mm256_fmadd_ps(a, b, c); }
/* hadd works per 128-bit half: (a0+a1, a2+a3, b0+b1, b2+b3 | a4+a5, ...); the permute restores order */
KV_FN kv_f kv_pair(kv_f a, kv_f b) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_hadd_ps(a, b)), 0xD8));
}
KV_FN float kv_hsum(kv_f v) {
  __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  q = _mm_add_ps(q, _mm_movehl_ps(q, q));
  q = _mm_add_ss(q, _mm_movehdup_ps(q));
  return _mm_cvtss_f32(q);
}
KV_FN kv_f kv_ldf(const float *p) { return _mm256_loadu_ps(p); }
KV_FN void kv_stf(float *p, kv_f v) { _mm256_storeu_ps(p, v); }
KV_FN void kv_sfence(void) { _mm_sfence(); }
/* Partial float vectors by masked moves (lanes >= n neither read nor
   written): a tail through a buffer stalls on store forwarding, which costs
   short NCHW planes (7x7) a fifth of their time. */
KV_FN __m256i kv_mask(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
KV_FN kv_f kv_ldfn(const float *p, int64_t n, kv_f fill) {
  const __m256i m = kv_mask(n);
  return _mm256_blendv_ps(fill, _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
}
KV_FN void kv_stfn(float *p, kv_f v, int64_t n) { _mm256_maskstore_ps(p, kv_mask(n), v); }
KV_FN void kv_stfp(float *p, kv_f v, int64_t n) {
  __m128 q = _mm256_castps256_ps128(v);
  if (n >= 8) {
    _mm256_storeu_ps(p, v);
    return;
  }
  if (n & 4) _mm_storeu_ps(p, q), p += 4, q = _mm256_extractf128_ps(v, 1);
  if (n & 2) _mm_storel_pi((__m64 *)(void *)p, q), p += 2, q = _mm_movehl_ps(q, q);
  if (n & 1) _mm_store_ss(p, q);
}
#define KV_PIECES_F 1
#define KV_PARTIAL_F 1
#if KV_T == KV_T_F32
#define KV_VBYTES 32
KV_FN kv_f kv_ld(const float *p) { return _mm256_loadu_ps(p); }
KV_FN void kv_st(float *p, kv_f v) { _mm256_storeu_ps(p, v); }
KV_FN void kv_stream(float *p, kv_f v) { _mm256_stream_ps(p, v); }
KV_FN kv_f kv_ldn(const float *p, int64_t n, kv_f fill) { return kv_ldfn(p, n, fill); }
KV_FN void kv_stn(float *p, kv_f v, int64_t n) { kv_stfn(p, v, n); }
#define KV_PARTIAL_T 1
#else
#define KV_VBYTES 16
#if KV_T == KV_T_F16
KV_FN kv_f kv_cvt_in(__m128i h) { return _mm256_cvtph_ps(h); }
KV_FN __m128i kv_cvt_out(kv_f v) { return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
#else
/* bfloat16 is a float's upper half. Widening: a 128-bit broadcast load (no
   ALU operation) and one byte shuffle that puts element j of the half in
   the upper 16 bits of lane j (the shift and zero extension took two).
   Narrowing: round, then gather the lanes' upper halves with one byte
   shuffle and one 64-bit permute. */
KV_FN __m256i kv_bf16_widen_bytes(void) {
  return _mm256_setr_epi8(-1, -1, 0, 1, -1, -1, 2, 3, -1, -1, 4, 5, -1, -1, 6, 7,
                          -1, -1, 8, 9, -1, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14, 15);
}
KV_FN kv_f kv_cvt_in(__m128i h) {
  return _mm256_castsi256_ps(_mm256_shuffle_epi8(_mm256_broadcastsi128_si256(h), kv_bf16_widen_bytes()));
}
/* Round to nearest even; NaN quieted (kfi_f32_to_bf16): a NaN lane takes
   x with the quiet bit set instead of the rounded x. */
KV_FN __m128i kv_cvt_out(kv_f v) {
  const __m256i x = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
  __m256i r = _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), lsb);
  r = _mm256_blendv_epi8(r, _mm256_or_si256(x, _mm256_set1_epi32(0x400000)),
                         _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
  r = _mm256_shuffle_epi8(r, _mm256_setr_epi8(2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1,
                                              2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1));
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(r, 0x08));
}
#endif
KV_FN kv_f kv_ld(const uint16_t *p) { return kv_cvt_in(_mm_loadu_si128((const __m128i *)p)); }
KV_FN void kv_st(uint16_t *p, kv_f v) { _mm_storeu_si128((__m128i *)p, kv_cvt_out(v)); }
KV_FN void kv_stream(uint16_t *p, kv_f v) { _mm_stream_si128((__m128i *)p, kv_cvt_out(v)); }
#endif
#include "kfi_simd_partial.h"

#endif
