-- The host with portable C only: the same kernel code a microcontroller
-- runs, compiled for this machine (the bit-exact reference of MCU runs).
return {
  name = "host-scalar",
  summary = "This machine, portable C kernels only.",
  isas = { "scalar" },
  cc = "clang",
  cflags = "-O2",
}
