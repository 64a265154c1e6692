-- Prints a target spec's build settings as shell assignments for
-- tools/build-model.sh: lua5.4 tools/model/target_env.lua specs/targets/T.lua
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
  print("t_qemu=" .. q(m.qemu))
  print("t_cpu=" .. q(m.cpu or ""))
  print("t_ram=" .. m.ram_size)
  -- the instruction counter: qemu -icount shift and the SysTick clock
  print("t_shift=" .. (m.icount_shift or 3))
  print("t_systick=" .. (m.systick_hz or 25000000))
  print("t_mem=" .. q(string.format(
    "-Wl,--defsym=__flash=0x%x -Wl,--defsym=__flash_size=0x%x -Wl,--defsym=__ram=0x%x -Wl,--defsym=__ram_size=0x%x",
    m.flash, m.flash_size, m.ram, m.ram_size)))
end
