-- A small kernel set for the sanitizer builds that exercise the runtime
-- (fuzzing, ThreadSanitizer): every generic kernel and the portable-C
-- specializations the tests there call. The ASan suite runs every kernel.
return {
  name = "small",
  summary = "Generic kernels plus a few portable-C specializations.",
  kernels = {
    { family = "bngrad", kind = "specialized", isa = "scalar", T = "*", layout = "*", mode = "*" },
    { family = "bngrad", kind = "generic", T = "*" },
    { family = "dwbpi", kind = "specialized", isa = "scalar", T = { "f32", "bf16" }, layout = "*", kh = 3, kw = 3,
      sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = { 1, 2 } },
    { family = "dwbpi", kind = "generic", T = "*" },
    { family = "dwbpf", kind = "specialized", isa = "scalar", T = { "f32", "bf16" }, layout = "*", kh = 3, kw = 3,
      sh = { 1, 2 }, sw = "=sh", dh = 1, dw = 1, dm = 1 },
    { family = "dwbpf", kind = "generic", T = "*" },
  },
}
