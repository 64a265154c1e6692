-- compare_manifests.lua -- the differences between two model manifests as
-- op calls (names aside): instance counts per op, the calls (op, attrs,
-- input shapes, values) only one of them makes, and whether the calls they
-- share come in the same order. Run from the repository root:
--   lua5.4 tools/models/compare_manifests.lua A.lua B.lua
-- Exit status 0 when both make the same calls in the same order.
local a_file, b_file = arg[1], arg[2]
local A, B = dofile(a_file), dofile(b_file)

local function key(inst)
  local parts = { inst.op }
  local function kv(t)
    local ks = {}
    for k in pairs(t or {}) do ks[#ks + 1] = k end
    table.sort(ks)
    for _, k in ipairs(ks) do
      local v = t[k]
      parts[#parts + 1] = k .. "=" .. (type(v) == "table" and "[" .. table.concat(v, ",") .. "]" or tostring(v))
    end
  end
  kv(inst.attrs); kv(inst.inputs); kv(inst.values)
  return table.concat(parts, " ")
end

local function census(m)
  local n, by = {}, {}
  for _, inst in ipairs(m.instances) do
    n[inst.op] = (n[inst.op] or 0) + 1
    local k = key(inst)
    by[k] = by[k] or {}
    table.insert(by[k], inst.name)
  end
  return n, by
end
local na, ba = census(A)
local nb, bb = census(B)
local same = true
print(string.format("A = %s (%d instances), B = %s (%d instances)", a_file, #A.instances, b_file, #B.instances))
local ops = {}
for op in pairs(na) do ops[op] = true end
for op in pairs(nb) do ops[op] = true end
local ol = {}
for op in pairs(ops) do ol[#ol + 1] = op end
table.sort(ol)
for _, op in ipairs(ol) do
  print(string.format("  %-38s A %3d  B %3d", op, na[op] or 0, nb[op] or 0))
  if na[op] ~= nb[op] then same = false end
end
local function only(x, y, label)
  local ks = {}
  for k, names in pairs(x) do
    local d = #names - (y[k] and #y[k] or 0)
    if d > 0 then ks[#ks + 1] = string.format("%s x%d (%s)", k, d, table.concat(names, ", ")) end
  end
  table.sort(ks)
  for _, s in ipairs(ks) do print("  only in " .. label .. ": " .. s); same = false end
end
only(ba, bb, "A")
only(bb, ba, "B")
-- order of the shared calls: A's sequence against B's, and B's reversed
local function seq(m, other)
  local r = {}
  for _, inst in ipairs(m.instances) do local k = key(inst) if other[k] then r[#r + 1] = k end end
  return r
end
local sa, sb = seq(A, bb), seq(B, ba)
local fwd, rev = #sa == #sb, #sa == #sb
for i = 1, #sa do
  if sa[i] ~= sb[i] then fwd = false end
  if sa[i] ~= sb[#sb + 1 - i] then rev = false end
end
print("  order of the shared calls: " .. (fwd and "the same" or rev and "reversed" or "different"))
if not fwd then same = false end
os.exit(same and 0 or 1)
