-- The machine kforge is built on (x86-64 or AArch64): every host ISA; the
-- runtime picks the best one the CPU has.
return {
  name = "host",
  summary = "This machine: portable C plus the SIMD variants its CPU may run.",
  isas = { "scalar", "avx2", "avx512", "neon" },
  cc = "clang",
  cflags = "-O2",
}
