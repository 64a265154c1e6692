-- Every knob value of every batch-norm configuration, in portable C and in
-- AVX-512 (the ISA the tuner picks on this machine class), and of the
-- depthwise SIMD kernels (AVX-512 and AVX2, the ISA of machines without
-- AVX-512), and of the depthwise filter gradient's partition: the library
-- the correctness suite runs test_bngrad, test_dwbpi and test_dwbpf against, so the variants the tuner can pick are checked
-- against the references (tests/tuning/test_tuning.sh).
-- One knob at a time around the defaults, as tools/tune.lua varies them.
return {
  name = "knobs",
  summary = "Tunable variants of the batch-norm and depthwise kernels, for the correctness suite.",
  kernels = {
    { family = "bngrad", kind = "specialized", isa = { "scalar", "avx512" }, T = "*", layout = "*", mode = "*" },
    { family = "bngrad", kind = "specialized", isa = { "scalar", "avx512" }, T = "*", layout = "*", mode = "*",
      knobs = { L1_ELEMS = { 1024, 2048, 8192, 16384 } } },
    { family = "bngrad", kind = "specialized", isa = { "scalar", "avx512" }, T = "*", layout = "*", mode = "*",
      knobs = { BLOCK = { 64, 128, 512 } } },
    { family = "bngrad", kind = "specialized", isa = { "scalar", "avx512" }, T = "*", layout = "*", mode = "*",
      knobs = { TASK = { 16384, 262144 } } },
    { family = "bngrad", kind = "specialized", isa = { "scalar", "avx512" }, T = "*", layout = "*", mode = "*",
      knobs = { NT_MIN = { 1048576, 1073741824 } } },
    -- pass 1 over rows wider than a tile, always by tiles (0) and always by
    -- sweeps (2), on SIMD ISAs (AVX2 too: the ISA it was measured on); the
    -- default (1) chooses by size, and the suite's shapes are small
    { family = "bngrad", kind = "specialized", isa = { "avx2", "avx512" }, T = "*", layout = "*", mode = "*",
      knobs = { SWEEP = { 0, 2 } } },
    { family = "bngrad", kind = "generic", T = "*" },
    -- Depthwise: the SIMD kernels that have knobs, at the filter sizes and
    -- multipliers that stress their register blocking. The blocking knobs
    -- (PIX, TASK, L1B) generate the same loops and register tiles for every
    -- dtype (templates/dwbpi/nhwc.c.in: only the element size in L1B's
    -- channel chunk and the stores differ), so they are varied in float;
    -- bfloat16 (converted stores) keeps its default kernels and NT_MIN.
    { family = "dwbpi", kind = "specialized", isa = "avx512", T = { "f32", "bf16" }, layout = "nhwc",
      kh = { 3, 5 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = { 1, 2 } },
    { family = "dwbpi", kind = "specialized", isa = { "avx2", "avx512" }, T = "f32", layout = "nhwc",
      kh = { 3, 5 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = { 1, 2 },
      knobs = { PIX = { 2, 4, 6 } } },
    { family = "dwbpi", kind = "specialized", isa = "avx512", T = "f32", layout = "nhwc",
      kh = 3, kw = 3, sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = { 1, 2 },
      knobs = { TASK = { 4096, 65536 } } },
    { family = "dwbpi", kind = "specialized", isa = "avx512", T = { "f32", "bf16" }, layout = "nhwc",
      kh = 3, kw = 3, sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = { 1, 2 },
      knobs = { NT_MIN = { 1048576, 1073741824 } } },
    { family = "dwbpi", kind = "specialized", isa = { "avx2", "avx512" }, T = "f32", layout = "nhwc",
      kh = { 3, 5 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = { 1, 2 },
      knobs = { L1B = { 8192, 32768 } } },
    -- AVX2: the defaults and the streaming-store variants as well.
    { family = "dwbpi", kind = "specialized", isa = "avx2", T = { "f32", "bf16" }, layout = "nhwc",
      kh = { 3, 5 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = { 1, 2 } },
    { family = "dwbpi", kind = "specialized", isa = "avx2", T = { "f32", "bf16" }, layout = "nhwc",
      kh = 3, kw = 3, sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = { 1, 2 },
      knobs = { NT_MIN = { 65536, 1073741824 } } },
    { family = "dwbpi", kind = "generic", T = "*" },
    -- Depthwise filter gradient: its partition knobs (PIECE: pixels per
    -- piece, NCHW vectors per lane; TASKWORK: the task grain, and with it
    -- the channel groups; L1B: the L1 bound of an NHWC piece), prefetching
    -- (PF) and the wide NHWC walker (L1W: never, always) in float on
    -- both x86 SIMD ISAs and in portable C, NHWC and NCHW, the 3x3 and 5x5
    -- filters at strides 1 and 2 (NCHW stride 2 runs the plain loops).
    { family = "dwbpf", kind = "specialized", isa = { "scalar", "avx2", "avx512" }, T = "f32", layout = "*",
      kh = { 3, 5 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = 1 },
    { family = "dwbpf", kind = "specialized", isa = { "scalar", "avx2", "avx512" }, T = "f32", layout = "*",
      kh = { 3, 5 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = 1,
      knobs = { PIECE = { 32, 64, 256 } } },
    { family = "dwbpf", kind = "specialized", isa = { "scalar", "avx2", "avx512" }, T = "f32", layout = "*",
      kh = 3, kw = 3, sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = { 1, 2 },
      knobs = { TASKWORK = { 65536, 1048576 } } },
    { family = "dwbpf", kind = "specialized", isa = { "scalar", "avx2", "avx512" }, T = "f32", layout = "nhwc",
      kh = { 3, 5 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = 1,
      knobs = { L1B = { 16384, 32768, 65536 } } },
    { family = "dwbpf", kind = "specialized", isa = { "avx2", "avx512" }, T = "f32", layout = "*",
      kh = 3, kw = 3, sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = 1, knobs = { PF = 0 } },
    { family = "dwbpf", kind = "specialized", isa = { "avx2", "avx512" }, T = "f32", layout = "nhwc",
      kh = { 3, 5 }, kw = "=kh", sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = 1,
      knobs = { L1W = { 0, 100000 } } },
    { family = "dwbpf", kind = "generic", T = "*" },
  },
}
