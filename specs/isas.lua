-- The instruction sets kernels are generated for. Every kernel file of an
-- ISA is compiled on every machine: its body is guarded by `guard` (empty
-- elsewhere) and compiled for the ISA through `target` pragmas, not through
-- command-line flags, so the checked-in generated/ builds with plain
-- `cc -c` anywhere. The runtime runs a kernel only when the CPU has `bit`
-- (runtime/kf_cpu.c), trying higher `rank` first. `lanes` (float lanes of a
-- vector) and `vregs` (vector registers) size the templates' register
-- blocks. Capabilities, given to templates as ISA_* parameters
-- (docs/templates.md): `vbytes` (bytes of a vector: lanes x 4), `masks`
-- (lane masks are cheap enough for masked vector rows: blends or mask
-- registers), `sweep` (batch norm's whole-row cache sweep pays off: the
-- hardware prefetchers follow rows), `simd` (the SIMD layer,
-- runtime/kfi_simd_<simd>.h), `cached` (its CPUs have data caches: blocking
-- reads the cache sizes the plan detected, software prefetch and wider code
-- pay off; false where the ISA also runs on microcontrollers: the defaults,
-- folded at compile time), `maskregs` (lane masks are registers of their
-- own, taken by masked loads: AVX-512's k registers), `tcm` (data sit in
-- tightly coupled memory: no caches, no streaming stores, a strided walk
-- costs what a contiguous one does), `word` (bits of the core's native
-- integers: loop counters of 32-bit cores stay 32-bit). Data only.
return {
  { name = "scalar", rank = 0, lanes = 1, vregs = 32, bit = "KFI_ISA_SCALAR", guard = "1",
    vbytes = 4, masks = false, sweep = false, simd = "scalar", cached = false, maskregs = false, tcm = false, word = 64,
    doc = "portable C: the baseline of every target, microcontrollers included" },
  { name = "avx2", rank = 20, lanes = 8, vregs = 16, bit = "KFI_ISA_AVX2", guard = "defined(__x86_64__)",
    vbytes = 32, masks = true, sweep = true, simd = "avx2", cached = true, maskregs = false, tcm = false, word = 64,
    target = "avx2,fma,f16c", header = "immintrin.h",
    doc = "x86-64 AVX2 with FMA and F16C (Haswell, Zen 1 and later)" },
  { name = "avx512", rank = 30, lanes = 16, vregs = 32, bit = "KFI_ISA_AVX512", guard = "defined(__x86_64__)",
    vbytes = 64, masks = true, sweep = true, simd = "avx512", cached = true, maskregs = true, tcm = false, word = 64,
    target = "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c", header = "immintrin.h",
    doc = "x86-64 AVX-512 F/BW/VL/DQ (Skylake-SP, Zen 4 and later)" },
  { name = "neon", rank = 10, lanes = 4, vregs = 32, bit = "KFI_ISA_NEON", guard = "defined(__aarch64__)",
    vbytes = 16, masks = false, sweep = true, simd = "neon", cached = true, maskregs = false, tcm = false, word = 64,
    header = "arm_neon.h",
    doc = "AArch64 Advanced SIMD (part of the AArch64 baseline)" },
  -- M-profile: a compile-time property (-mcpu=cortex-m55), no target pragma
  -- and no runtime detection; bit 2 of the macro is MVE with floating point.
  -- Its tail predication (VCTP) is not used for masked rows yet: masks = false.
  { name = "mve", rank = 10, lanes = 4, vregs = 8, bit = "KFI_ISA_MVE",
    vbytes = 16, masks = false, sweep = false, simd = "mve", cached = false, maskregs = false, tcm = true, word = 32,
    guard = "defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)", header = "arm_mve.h",
    doc = "Armv8.1-M Helium (MVE) with floating point (Cortex-M55, Cortex-M85)" },
}
