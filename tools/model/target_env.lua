-- Prints a target spec's build settings as shell assignments for
-- tools/build-model.sh: lua5.4 tools/model/target_env.lua specs/targets/T.lua
-- For a microcontroller target also how to run and count: t_qemu (the whole
-- qemu command line from the spec, -icount included), t_ticks_src (the
-- counter, mcu/ticks_<arch>.c) and t_insn_per_tick (instructions per
-- counter tick under that -icount shift), so the script has no per-
-- architecture cases.
local t = assert(dofile(arg[1]))
local function q(s) return "'" .. tostring(s):gsub("'", "") .. "'" end
print("t_cc=" .. q(t.cc))
print("t_cflags=" .. q(t.cflags))
-- vector kernels: compared with the host within a tolerance (tools/model/compare.c)
local vec = 0
for _, i in ipairs(t.isas or {}) do if i ~= "scalar" then vec = 1 end end
print("t_vector=" .. vec)
local m = t.mcu
print("t_mcu=" .. (m and "1" or "0"))
if m then
  -- The counter by the cpu key's architecture, and its clock in qemu's
  -- virtual time (-icount shift=N: one instruction is 2^N ns). The target
  -- schema (generator/model.lua) has no field for the counter itself.
  local arch = (m.cpu or ""):match("^[^:]*")
  local counter, hz
  if arch:match("^armv") then
    counter, hz = "arm", assert(m.systick_hz, arg[1] .. ": mcu.systick_hz: the SysTick clock")
  elseif arch:match("^rv%d") then
    counter, hz = "riscv", 1000000000 -- qemu's minstret counts virtual nanoseconds
  else
    error(arg[1] .. ": mcu.cpu: no instruction counter for architecture '" .. arch .. "' (mcu/ticks_*.c)")
  end
  -- -icount shift=N in mcu.qemu, or mcu.icount_shift (appended to it)
  local qemu = m.qemu
  if m.icount_shift then qemu = qemu .. " -icount shift=" .. m.icount_shift end
  local shift = tonumber(qemu:match("%-icount%s+shift=(%d+)"))
  assert(shift, arg[1] .. ": mcu.qemu: needs -icount shift=N (a deterministic instruction count)")
  -- Rounding ticks * per to the nearest integer counts an interval exactly
  -- when a tick is a whole number of instructions (mps2: 25 MHz at shift 3,
  -- 5 a tick) or much finer than one (an547: 32 MHz at shift 10, 32.768
  -- ticks an instruction).
  local per = 1000000000 / (hz * 2 ^ shift)
  assert((per >= 1 and per == math.floor(per)) or per <= 0.25,
    string.format("%s: %d Hz at -icount shift=%d: %.4g instructions per tick cannot be rounded exactly", arg[1], hz,
      shift, per))
  print("t_qemu=" .. q(qemu))
  print("t_cpu=" .. q(m.cpu or ""))
  print("t_ram=" .. m.ram_size)
  print("t_ticks_src=" .. q("mcu/ticks_" .. counter .. ".c"))
  print("t_insn_per_tick=" .. (per >= 1 and string.format("%d", per) or string.format("%.17g", per)))
  print("t_mem=" .. q(string.format(
    "-Wl,--defsym=__flash=0x%x -Wl,--defsym=__flash_size=0x%x -Wl,--defsym=__ram=0x%x -Wl,--defsym=__ram_size=0x%x",
    m.flash, m.flash_size, m.ram, m.ram_size)))
end
