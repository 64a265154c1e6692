-- Arm Cortex-M55: Armv8.1-M with Helium (MVE, integer and float) and the
-- FPU, hard float. Runs under qemu-system-arm -M mps3-an547
-- (docs/models.md): ITCM 512K at 0 holds the image,
-- DTCM 512K at 0x20000000 the data, stack and arena.
return {
  name = "cortex-m55",
  summary = "Cortex-M55 (thumbv8.1m.main, Helium MVE-F, hard float), no OS, no heap.",
  isas = { "scalar", "mve" },
  cc = "arm-none-eabi-gcc",
  cflags = "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -Os -ffunction-sections -fdata-sections",
  mcu = {
    cpu = "armv8_1m:scalar+mve:cortex-m55-mps3-an547", -- the tuning key: arch:isas:board
    qemu = "qemu-system-arm -M mps3-an547",
    flash = 0x00000000, flash_size = 0x00080000,
    ram = 0x20000000, ram_size = 0x00080000,
    -- SysTick runs on the an547's 32 MHz processor clock. At -icount shift=3
    -- a tick is 3.90625 instructions (not whole); at shift=10 an instruction
    -- is 1024 ns = 32.768 ticks, so round(ticks / 32.768) is the exact count
    -- of an interval (the tick quantization is under 1/32 instruction).
    systick_hz = 32000000,
    icount_shift = 10,
  },
}
