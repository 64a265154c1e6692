-- test_record.lua -- recording: running a model's calls through the CLI with
-- --record yields a manifest equal to the model's shipped manifest, and the
-- generator makes the same minimal kernel set from either.
--   lua5.4 tests/models/test_record.lua build/kforge
package.path = "generator/?.lua;" .. package.path
local kforge = assert(arg[1], "usage: test_record.lua path/to/kforge")
local passed, failed = 0, 0
local function check(ok, what, detail)
  if ok then passed = passed + 1 else failed = failed + 1 end
  print((ok and "ok - " or "FAIL - ") .. what .. ((not ok and detail) and (": " .. detail) or ""))
end
local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local out = p:read("a")
  local ok = p:close()
  return ok, out
end
local tmp = select(2, sh("mktemp -d")):gsub("%s+$", "")

-- A .npy file of zeros (float32 or the given int32 values).
local function npy(path, dims, int_values)
  local shape = #dims == 0 and "()" or #dims == 1 and ("(" .. dims[1] .. ",)") or ("(" .. table.concat(dims, ", ") .. ")")
  local hdr = string.format("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", int_values and "<i4" or "<f4", shape)
  local total = 10 + #hdr + 1
  hdr = hdr .. string.rep(" ", (64 - total % 64) % 64) .. "\n"
  local n = 1
  for _, d in ipairs(dims) do n = n * d end
  local f = assert(io.open(path, "wb"))
  f:write("\x93NUMPY\1\0", string.pack("<I2", #hdr), hdr)
  if int_values then
    for i = 1, n do f:write(string.pack("<i4", int_values[i])) end
  else
    f:write(string.rep("\0", 4 * n))
  end
  f:close()
end

local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

for _, name in ipairs({ "kws_dscnn", "resnet8_cifar" }) do
  local shipped = dofile("specs/models/" .. name .. ".lua")
  local rec = tmp .. "/" .. name .. ".lua"
  local ran = true
  for i, inst in ipairs(shipped.instances) do
    local args = { kforge, "run", inst.op }
    local keys = {}
    for k in pairs(inst.attrs) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do args[#args + 1] = "--attr '" .. k .. "=" .. inst.attrs[k] .. "'" end
    args[#args + 1] = "--record " .. rec .. " --record-name '" .. inst.name .. "' --out " .. tmp .. "/out" .. i
    for input, dims in pairs(inst.inputs) do
      local p = string.format("%s/%d_%s.npy", tmp, i, input)
      npy(p, dims, inst.values and inst.values[input])
      args[#args + 1] = input .. "=" .. p
    end
    local ok, out = sh(table.concat(args, " "))
    if not ok then
      check(false, name .. ": instance " .. inst.name .. " runs through the CLI", out)
      ran = false
    end
  end
  check(ran, name .. ": every instance ran through the CLI with --record")
  local ok, recorded = pcall(dofile, rec)
  check(ok and type(recorded) == "table", name .. ": the recorded manifest loads", tostring(recorded))
  if ok then
    check(#recorded.instances == #shipped.instances and same(recorded.instances, shipped.instances),
      name .. ": the recorded instances equal the shipped manifest's (names, ops, attrs, shapes, values)")
    -- The same minimal set from either manifest.
    local g1 = tmp .. "/gen_shipped_" .. name
    local g2 = tmp .. "/gen_recorded_" .. name
    local o1, m1 = sh("lua5.4 generator/kforge-gen.lua --quiet --model specs/models/" .. name ..
      ".lua --target specs/targets/host-scalar.lua --out " .. g1)
    local o2, m2 = sh("lua5.4 generator/kforge-gen.lua --quiet --model " .. rec ..
      " --target specs/targets/host-scalar.lua --out " .. g2)
    local f1 = io.open(g1 .. "/FILES") and io.open(g1 .. "/FILES"):read("a") or ""
    local f2 = io.open(g2 .. "/FILES") and io.open(g2 .. "/FILES"):read("a") or ""
    check(o1 and o2 and f1 ~= "" and f1 == f2, name .. ": the recorded manifest generates the same kernel set",
      (m1 or "") .. (m2 or "") .. f1 .. "\n---\n" .. f2)
  end
end
sh("rm -rf " .. tmp)
print(string.format("%d passed, %d failed", passed, failed))
os.exit(failed == 0 and 0 or 1)
