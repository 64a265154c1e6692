/* kfi_simd_partial.h -- partial vectors (tails only) through a float buffer,
** for the ISAs without masked loads and stores (kfi_simd_avx2.h,
** kfi_simd_neon.h, kfi_simd_scalar.h include it after kv_f, kv_ldf and
** kv_stf). A header that has masked float moves defines KV_PARTIAL_F (and
** KV_PARTIAL_T for its storage type) first. See kfi_simd.h. */
#ifndef kfi_simd_partial_h
#define kfi_simd_partial_h

#ifndef KV_PARTIAL_F
KV_FN kv_f kv_ldfn(const float *p, int64_t n, kv_f fill) {
  float t[KV_W];
  int64_t i;
  kv_stf(t, fill);
  for (i = 0; i < n; i++) t[i] = p[i];
  return kv_ldf(t);
}
KV_FN void kv_stfn(float *p, kv_f v, int64_t n) {
  float t[KV_W];
  int64_t i;
  kv_stf(t, v);
  for (i = 0; i < n; i++) p[i] = t[i];
}
#endif
#ifndef KV_PIECES_F
KV_FN void kv_stfp(float *p, kv_f v, int64_t n) { kv_stfn(p, v, n); }
#endif
#ifndef KV_PARTIAL_T
KV_FN kv_f kv_ldn(const KV_CT *p, int64_t n, kv_f fill) {
  float t[KV_W];
  int64_t i;
  kv_stf(t, fill);
  for (i = 0; i < n; i++) t[i] = KV_CVT_LD(p[i]);
  return kv_ldf(t);
}
KV_FN void kv_stn(KV_CT *p, kv_f v, int64_t n) {
  float t[KV_W];
  int64_t i;
  kv_stf(t, v);
  for (i = 0; i < n; i++) p[i] = KV_CVT_ST(t[i]);
}
#endif

#endif
