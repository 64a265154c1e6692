/* kfi_simd.h -- what every per-ISA SIMD header of the kernels shares
** (kfi_simd_avx2.h, kfi_simd_avx512.h, kfi_simd_neon.h, kfi_simd_mve.h,
** kfi_simd_scalar.h).
**
** The SIMD layer of the kernel templates: one vector of float lanes (kv_f,
** KV_W lanes) and its operations, for the kernel's ISA, plus loads and
** stores that convert the kernel's storage type (KV_T) to and from float.
** A kernel selects its storage type and ISA with
**   #define KV_T KV_T_F32        (or KV_T_F16, KV_T_BF16)
**   #include "kfi_simd_avx2.h"   (or _avx512, _neon, _mve, _scalar)
** inside its target-pragma region (generator/emit.lua kernel_wrap), so that
** every helper is compiled for the kernel's ISA; templates get this from
** ${include("isa/simd.c.in")}. The one place where intrinsics are spelled.
** Every helper is static inline (KV_FN). One ISA and one storage type per
** translation unit (the names do not change with either).
**   float memory: kv_ldf(p) kv_stf(p, v) kv_ldfn(p, n, fill) kv_stfn(p, v, n)
**                 kv_stfp(p, v, n): as kv_stfn, in whole pieces (8, 4, 2, 1
**                 lanes) where kv_stfn masks: a masked store beside streamed
**                 lines stalls (docs/performance_dwbpi.md)
**   T memory:     kv_ld(p)  kv_st(p, v)  kv_ldn(p, n, fill)  kv_stn(p, v, n)
**                 kv_stream(p, v): non-temporal store, p aligned to KV_VBYTES
**                 (a plain store where the ISA has none: KV_HAS_STREAM 0)
**   arithmetic:   kv_zero() kv_set1(f) kv_add kv_sub kv_mul (no FMA: the
**                 build is -ffp-contract=off and so are these); kv_div and
**                 kv_sqrt, correctly rounded, as C's / and sqrtf
**   kv_fma(a, b, c) = a*b + c rounded once, for templates that choose FMA
**                 explicitly (SIMD ISAs only: scalar has none, by design)
**   kv_pair(a, b): sums of adjacent lanes of the concatenation a|b, in
**                 order: lane j = (a|b)[2j] + (a|b)[2j+1] (SIMD ISAs only)
**   kv_hsum(v): the lanes' sum in a fixed order; kv_sfence(): orders
**   streamed stores before the task returns.
** "n" (partial vectors) is 0 <= n <= KV_W; lanes >= n of a partial load
** are fill (float) and a partial store writes n elements. */
#ifndef kfi_simd_h
#define kfi_simd_h

#define KV_T_F32 1
#define KV_T_F16 2
#define KV_T_BF16 3

#if !defined(KV_T)
#error "define KV_T (KV_T_F32, KV_T_F16 or KV_T_BF16) before including a kfi_simd_<isa>.h"
#elif KV_T == KV_T_F32
#define KV_CT float
#define KV_CVT_LD kfi_ld_f32
#define KV_CVT_ST kfi_st_f32
#elif KV_T == KV_T_F16
#define KV_CT uint16_t
#define KV_CVT_LD kfi_ld_f16
#define KV_CVT_ST kfi_st_f16
#elif KV_T == KV_T_BF16
#define KV_CT uint16_t
#define KV_CVT_LD kfi_ld_bf16
#define KV_CVT_ST kfi_st_bf16
#else
#error "KV_T is not one of KV_T_F32, KV_T_F16, KV_T_BF16"
#endif
/* the storage type this translation unit was set up for */
#define KV_T_SET KV_T

#if defined(__GNUC__)
#define KV_FN static inline __attribute__((unused))
#else
#define KV_FN static inline
#endif

#elif KV_T != KV_T_SET
#error "kfi_simd: one storage type (KV_T) per translation unit"
#endif
