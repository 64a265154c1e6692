-- Arm Cortex-M0: Armv6-M, no FPU (float in software, libgcc).
-- Runs under qemu-system-arm -M mps2-an385 (a Cortex-M3 board runs v6-M code).
return {
  name = "cortex-m0",
  summary = "Cortex-M0 (thumbv6m, soft float), no OS, no heap.",
  isas = { "scalar" },
  cc = "arm-none-eabi-gcc",
  cflags = "-mcpu=cortex-m0 -mthumb -mfloat-abi=soft -Os -ffunction-sections -fdata-sections",
  mcu = {
    cpu = "armv6m:scalar:cortex-m0-mps2-an385",
    qemu = "qemu-system-arm -M mps2-an385 -icount shift=3",
    flash = 0x00000000, flash_size = 0x00400000,
    ram = 0x20000000, ram_size = 0x00400000,
    systick_hz = 25000000, -- 5 instructions per tick at shift=3 (mcu/ticks_arm.c)
  },
}
