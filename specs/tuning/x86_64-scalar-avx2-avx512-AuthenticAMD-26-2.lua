-- Tuning record for x86_64:scalar+avx2+avx512:AuthenticAMD-26-2, written by tools/tune.lua on this CPU. The generator
-- applies it with --tuning (docs/tuning.md); it is ignored for other CPUs and when stale.
return {
  cpu = "x86_64:scalar+avx2+avx512:AuthenticAMD-26-2",
  fingerprint = "ab77c1c1ae35fd61",
  compiler = "Debian clang version 14.0.6",
  tool = "tools/tune.lua",
  records = {
    { kernel = "kfg_bngrad_f32_nhwc_infer__avx512", knobs = {  }, shape = "bngrad float NHWC infer 8 56 56 256", ns = 1824422, default_ns = 1824422, noise = 0.0227, candidates = 11 },
    { kernel = "kfg_bngrad_f32_nhwc_train__avx512", knobs = { L1_ELEMS = 16384 }, shape = "bngrad float NHWC train 8 56 56 256", ns = 3895054, default_ns = 4036335, noise = 0.0103, candidates = 11 },
    { kernel = "kfg_dwbpi_f32_nhwc_k1x1s1x1d1x1m1__avx512", knobs = {  }, shape = "dwbpi float NHWC 1 1 1 8 56 56 144", ns = 929905, default_ns = 929905, noise = 0.0439, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k1x1s1x1d1x1m2__avx512", knobs = { PIX = 4 }, shape = "dwbpi float NHWC 1 1 2 8 56 56 144", ns = 1296564, default_ns = 1600515, noise = 0.0236, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k1x1s2x2d1x1m1__avx512", knobs = {  }, shape = "dwbpi float NHWC 1 2 1 8 56 56 144", ns = 539980, default_ns = 539980, noise = 0.2685, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k1x1s2x2d1x1m2__avx512", knobs = {  }, shape = "dwbpi float NHWC 1 2 2 8 56 56 144", ns = 678796, default_ns = 678796, noise = 0.1201, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k3x3s1x1d1x1m1__avx512", knobs = {  }, shape = "dwbpi float NHWC 3 1 1 8 56 56 144", ns = 1985739, default_ns = 1985739, noise = 0.0700, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k3x3s1x1d1x1m2__avx512", knobs = { PIX = 4 }, shape = "dwbpi float NHWC 3 1 2 8 56 56 144", ns = 3248870, default_ns = 3864926, noise = 0.0024, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k3x3s2x2d1x1m1__avx512", knobs = {  }, shape = "dwbpi float NHWC 3 2 1 8 56 56 144", ns = 551784, default_ns = 551784, noise = 0.1219, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k3x3s2x2d1x1m2__avx512", knobs = { PIX = 6 }, shape = "dwbpi float NHWC 3 2 2 8 56 56 144", ns = 882284, default_ns = 1159673, noise = 0.0813, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k5x5s1x1d1x1m1__avx512", knobs = { PIX = 2 }, shape = "dwbpi float NHWC 5 1 1 8 56 56 144", ns = 3065600, default_ns = 3277826, noise = 0.0102, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k5x5s1x1d1x1m2__avx512", knobs = { NT_MIN = 1048576 }, shape = "dwbpi float NHWC 5 1 2 8 56 56 144", ns = 7255587, default_ns = 8205701, noise = 0.0098, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k5x5s2x2d1x1m1__avx512", knobs = {  }, shape = "dwbpi float NHWC 5 2 1 8 56 56 144", ns = 967256, default_ns = 967256, noise = 0.0393, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k5x5s2x2d1x1m2__avx512", knobs = { PIX = 2 }, shape = "dwbpi float NHWC 5 2 2 8 56 56 144", ns = 1539418, default_ns = 1741493, noise = 0.0203, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k7x7s1x1d1x1m1__avx512", knobs = { TASK = 65536 }, shape = "dwbpi float NHWC 7 1 1 8 56 56 144", ns = 6858601, default_ns = 7464757, noise = 0.0121, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k7x7s1x1d1x1m2__avx512", knobs = {  }, shape = "dwbpi float NHWC 7 1 2 8 56 56 144", ns = 16922547, default_ns = 16922547, noise = 0.0068, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k7x7s2x2d1x1m1__avx512", knobs = {  }, shape = "dwbpi float NHWC 7 2 1 8 56 56 144", ns = 1703602, default_ns = 1703602, noise = 0.0304, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k7x7s2x2d1x1m2__avx512", knobs = { PIX = 2 }, shape = "dwbpi float NHWC 7 2 2 8 56 56 144", ns = 2971983, default_ns = 3224805, noise = 0.0246, candidates = 7 },
  },
}
