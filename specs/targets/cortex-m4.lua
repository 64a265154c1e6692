-- Arm Cortex-M4F: Armv7E-M, single-precision FPU (FPv4-SP), hard float.
-- Runs under qemu-system-arm -M mps2-an386 (docs/models.md).
return {
  name = "cortex-m4",
  summary = "Cortex-M4F (thumbv7em, FPv4-SP-D16, hard float), no OS, no heap.",
  isas = { "scalar" },
  cc = "arm-none-eabi-gcc",
  cflags = "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard -Os -ffunction-sections -fdata-sections",
  mcu = {
    cpu = "armv7em:scalar:cortex-m4f-mps2-an386", -- the tuning key: arch:isas:board
    qemu = "qemu-system-arm -M mps2-an386 -icount shift=3", -- 8 ns per instruction
    flash = 0x00000000, flash_size = 0x00400000,
    ram = 0x20000000, ram_size = 0x00400000,
    systick_hz = 25000000, -- SysTick on the 25 MHz processor clock: 5 instructions per tick at shift=3
  },
}
