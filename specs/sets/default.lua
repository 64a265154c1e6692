-- The default kernel set: every supported specialization of every op, plus
-- the generic kernels. This is what generated/ holds (checked in).
return {
  name = "default",
  summary = "Every specialized and generic kernel, for the host library.",
  kernels = {
    -- Batch-norm gradient: every (T, layout, mode), in every ISA.
    { family = "bngrad", kind = "specialized", T = "*", layout = "*", mode = "*" },
    { family = "bngrad", kind = "generic", T = "*" },
    -- Depthwise backprop input: square odd filters, equal unit or 2 strides,
    -- no dilation, multiplier 1 or 2 (the common MobileNet-style shapes);
    -- anything else runs on the generic kernel. Every dtype in portable C;
    -- SIMD variants for the training dtypes float, half and bfloat16 (NEON
    -- and MVE: NHWC only, see isa_only in specs/ops/dwbpi.lua).
    { family = "dwbpi", kind = "specialized", isa = "scalar", T = "*", layout = "*",
      kh = { 1, 3, 5, 7 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = { 1, 2 } },
    { family = "dwbpi", kind = "specialized", isa = { "avx2", "avx512", "neon", "mve" }, T = { "f32", "f16", "bf16" },
      layout = "*", kh = { 1, 3, 5, 7 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = { 1, 2 } },
    { family = "dwbpi", kind = "generic", T = "*" },
    -- Depthwise backprop filter: the MobileNet/EfficientNet shapes (3x3 and
    -- 5x5, strides 1 and 2, no dilation, multiplier 1) in every layout;
    -- SIMD for the training dtypes, portable C for all.
    { family = "dwbpf", kind = "specialized", isa = "scalar", T = "*", layout = "*",
      kh = { 3, 5 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = 1 },
    { family = "dwbpf", kind = "specialized", isa = { "avx2", "avx512", "neon", "mve" }, T = { "f32", "f16", "bf16" },
      layout = "*", kh = { 3, 5 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = 1 },
    { family = "dwbpf", kind = "generic", T = "*" },
  },
}
