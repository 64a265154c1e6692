-- RISC-V RV32IMAC, no FPU (float in software, libgcc).
-- Runs under qemu-system-riscv32 -M virt -bios none (no firmware: reset
-- jumps to 0x80000000; docs/models.md). -icount shift=0
-- makes minstret (mcu/ticks_riscv.c) the exact instruction count.
return {
  name = "rv32imac",
  summary = "RISC-V RV32IMAC (soft float, ilp32), no OS, no heap.",
  isas = { "scalar" },
  cc = "riscv64-unknown-elf-gcc",
  -- plain -march (no _zicsr): the multilib rv32imac/ilp32 is picked by name
  cflags = "-march=rv32imac -mabi=ilp32 -mcmodel=medany -Os -ffunction-sections -fdata-sections",
  mcu = {
    cpu = "rv32imac:scalar:qemu-virt", -- the tuning key: arch:isas:board
    qemu = "qemu-system-riscv32 -M virt -bios none -icount shift=0",
    flash = 0x80000000, flash_size = 0x00200000,
    ram = 0x80200000, ram_size = 0x00200000,
  },
}
