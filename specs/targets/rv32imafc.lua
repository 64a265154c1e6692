-- RISC-V RV32IMAFC, single-precision FPU (F), hard float (ilp32f).
-- Runs under qemu-system-riscv32 -M virt -bios none (no firmware: reset
-- jumps to 0x80000000; docs/models.md). -icount shift=0
-- makes minstret (mcu/ticks_riscv.c) the exact instruction count.
return {
  name = "rv32imafc",
  summary = "RISC-V RV32IMAFC (F extension, hard float ilp32f), no OS, no heap.",
  isas = { "scalar" },
  cc = "riscv64-unknown-elf-gcc",
  -- plain -march (no _zicsr): the multilib rv32imafc/ilp32f is picked by name
  cflags = "-march=rv32imafc -mabi=ilp32f -mcmodel=medany -Os -ffunction-sections -fdata-sections",
  mcu = {
    cpu = "rv32imafc:scalar:qemu-virt", -- the tuning key: arch:isas:board
    qemu = "qemu-system-riscv32 -M virt -bios none -icount shift=0",
    flash = 0x80000000, flash_size = 0x00200000,
    ram = 0x80200000, ram_size = 0x00200000,
  },
}
