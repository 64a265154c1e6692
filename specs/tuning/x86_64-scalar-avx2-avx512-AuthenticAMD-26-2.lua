-- Tuning record for x86_64:scalar+avx2+avx512:AuthenticAMD-26-2, written by tools/tune.lua on this CPU. The generator
-- applies it with --tuning (docs/tuning.md); it is ignored for other CPUs and when stale.
return {
  cpu = "x86_64:scalar+avx2+avx512:AuthenticAMD-26-2",
  fingerprint = "4f6d023e6ce24ef4",
  compiler = "Debian clang version 14.0.6",
  tool = "tools/tune.lua",
  records = {
    { kernel = "kfg_bngrad_f32_nhwc_infer__avx512", knobs = { BLOCK = 128 }, shape = "bngrad float NHWC infer 8 56 56 256", ns = 2761711, default_ns = 3163548, noise = 0.0627, candidates = 11 },
    { kernel = "kfg_bngrad_f32_nhwc_train__avx512", knobs = { L1_ELEMS = 16384 }, shape = "bngrad float NHWC train 8 56 56 256", ns = 4657418, default_ns = 5970595, noise = 0.0141, candidates = 11 },
    { kernel = "kfg_dwbpi_f32_nhwc_k1x1s1x1d1x1m1__avx512", knobs = {  }, shape = "dwbpi float NHWC 1 1 1 8 56 56 144", ns = 921949, default_ns = 921949, noise = 0.0420, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k1x1s1x1d1x1m2__avx512", knobs = { PIX = 4 }, shape = "dwbpi float NHWC 1 1 2 8 56 56 144", ns = 1394402, default_ns = 1595756, noise = 0.0187, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k1x1s2x2d1x1m1__avx512", knobs = {  }, shape = "dwbpi float NHWC 1 2 1 8 56 56 144", ns = 612780, default_ns = 612780, noise = 0.1128, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k1x1s2x2d1x1m2__avx512", knobs = { PIX = 2 }, shape = "dwbpi float NHWC 1 2 2 8 56 56 144", ns = 616688, default_ns = 784958, noise = 0.0638, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k3x3s1x1d1x1m1__avx512", knobs = { PIX = 4 }, shape = "dwbpi float NHWC 3 1 1 8 56 56 144", ns = 1981733, default_ns = 2199258, noise = 0.0333, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k3x3s1x1d1x1m2__avx512", knobs = { PIX = 2 }, shape = "dwbpi float NHWC 3 1 2 8 56 56 144", ns = 3559905, default_ns = 4050551, noise = 0.0209, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k3x3s2x2d1x1m1__avx512", knobs = {  }, shape = "dwbpi float NHWC 3 2 1 8 56 56 144", ns = 686069, default_ns = 686069, noise = 0.1197, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k3x3s2x2d1x1m2__avx512", knobs = {  }, shape = "dwbpi float NHWC 3 2 2 8 56 56 144", ns = 1094578, default_ns = 1094578, noise = 0.0931, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k5x5s1x1d1x1m1__avx512", knobs = { PIX = 2 }, shape = "dwbpi float NHWC 5 1 1 8 56 56 144", ns = 3218914, default_ns = 3324234, noise = 0.0116, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k5x5s1x1d1x1m2__avx512", knobs = { TASK = 4096 }, shape = "dwbpi float NHWC 5 1 2 8 56 56 144", ns = 7464747, default_ns = 8407657, noise = 0.0050, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k5x5s2x2d1x1m1__avx512", knobs = {  }, shape = "dwbpi float NHWC 5 2 1 8 56 56 144", ns = 947118, default_ns = 947118, noise = 0.0293, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k5x5s2x2d1x1m2__avx512", knobs = {  }, shape = "dwbpi float NHWC 5 2 2 8 56 56 144", ns = 1735372, default_ns = 1735372, noise = 0.0460, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k7x7s1x1d1x1m1__avx512", knobs = {  }, shape = "dwbpi float NHWC 7 1 1 8 56 56 144", ns = 8261558, default_ns = 8261558, noise = 0.0107, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k7x7s1x1d1x1m2__avx512", knobs = {  }, shape = "dwbpi float NHWC 7 1 2 8 56 56 144", ns = 23554916, default_ns = 23554916, noise = 0.0078, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k7x7s2x2d1x1m1__avx512", knobs = { PIX = 6 }, shape = "dwbpi float NHWC 7 2 1 8 56 56 144", ns = 1627165, default_ns = 1769016, noise = 0.0337, candidates = 7 },
    { kernel = "kfg_dwbpi_f32_nhwc_k7x7s2x2d1x1m2__avx512", knobs = { PIX = 2 }, shape = "dwbpi float NHWC 7 2 2 8 56 56 144", ns = 3561828, default_ns = 3921985, noise = 0.0228, candidates = 7 },
  },
}
