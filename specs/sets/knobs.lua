-- Every knob value of every batch-norm configuration, in portable C and in
-- AVX-512 (the ISA the tuner picks on this machine class): the library the
-- correctness suite runs test_bngrad against, so every variant the tuner
-- can pick is checked against the reference (tests/tuning/test_tuning.sh).
-- One knob at a time around the defaults, as tools/tune.lua varies them.
return {
  name = "knobs",
  summary = "Every tunable variant of the batch-norm kernels, for the correctness suite.",
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
    { family = "bngrad", kind = "generic", T = "*" },
  },
}
