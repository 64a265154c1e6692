-- Code-size report of a linked image from `nm -S` output on stdin:
-- per kernel (kfg_*) .text bytes, the kernel total, the runtime total
-- (kf_*, kfi_*), and the list of kfg_ symbols (proof of what is linked).
local kernels, ksum, rsum, tsum, kfg = {}, 0, 0, 0, {}
-- The generated tables (op, rule and registry tables; linked into .text on
-- some targets) are not kernel code.
local tables = { kfg_families = true, kfg_ops = true, kfg_op_count = true, kfg_registry = true,
                 kfg_registry_count = true, kfg_rules = true }
for line in io.lines() do
  local _, size, kind, name = line:match("^(%x+)%s+(%x+)%s+(%a)%s+(%S+)$")
  if not name then kind, name = line:match("^%s*(%a)%s+(%S+)$") end
  if name and name:match("^kfg_") then kfg[#kfg + 1] = name end
  if size and (kind == "t" or kind == "T") then
    local n = tonumber(size, 16)
    if tables[name] then
      tsum = tsum + n
    elseif name:match("^kfg_") then
      kernels[#kernels + 1] = { name, n }
      ksum = ksum + n
    elseif name:match("^kfi?_") then
      rsum = rsum + n
    end
  end
end
table.sort(kernels, function(a, b) return a[1] < b[1] end)
print("code (.text) per kernel function, as linked:")
for _, k in ipairs(kernels) do print(string.format("  %-60s %7d", k[1], k[2])) end
print(string.format("kernel code total: %d bytes", ksum))
print(string.format("runtime code (kf_*, kfi_*): %d bytes; generated tables: %d bytes", rsum, tsum))
table.sort(kfg)
print("kfg_ symbols linked (this model's kernels and tables, nothing else):")
print("  " .. table.concat(kfg, " "))
