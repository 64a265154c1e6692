-- tune_calls.lua -- the calls of model manifests as `kforge tune --batch`
-- lines (`kforge plan --batch`'s, each named --name MODEL/INSTANCE), so that
-- generator/model.lua stays the one reader of the manifests: `kforge tune
-- --manifest FILE` runs this script and tunes what it prints.
--
--   lua5.4 tools/tune_calls.lua [--batch N] specs/models/X.lua... > calls.txt
--   build/kforge tune --batch < calls.txt     (on a machine without Lua too)
--
-- --batch N: the calls at batch N (the manifests are traced at batch 1, a
-- training step runs larger ones): the leading dimension of every 4-D input
-- but a filter, and of the input_sizes value.
--
-- A manifest that does not load or validate fails with its file and line
-- (or instance) on stderr, exit status 1, and nothing on stdout.
local root = arg[0]:match("^(.*)/tools/[^/]+$") or "."
package.path = root .. "/generator/?.lua;" .. package.path
local spec = require "spec"
local model = require "model"

local function die(msg)
  io.stderr:write(msg, "\n")
  os.exit(1)
end

local usage = "usage: lua5.4 tools/tune_calls.lua [--batch N] MANIFEST.lua..."
local batch, files = nil, {}
local i = 1
while i <= #arg do
  if arg[i] == "--batch" then
    batch = math.tointeger(tonumber(arg[i + 1] or ""))
    if not batch or batch < 1 then die("--batch takes a positive integer\n" .. usage) end
    i = i + 2
  else
    files[#files + 1] = arg[i]
    i = i + 1
  end
end
if #files == 0 then die(usage) end

local function copy_list(t)
  local c = {}
  for k, v in ipairs(t) do c[k] = v end
  return c
end

-- The instance at batch n (a copy; the manifest's own tables stay).
local function rebatch(inst, n)
  local c = { name = inst.name, op = inst.op, attrs = inst.attrs, inputs = {}, values = inst.values and {} }
  for name, dims in pairs(inst.inputs) do
    c.inputs[name] = copy_list(dims)
    if #dims == 4 and not name:find("^filter") then c.inputs[name][1] = n end
  end
  for name, v in pairs(inst.values or {}) do
    c.values[name] = copy_list(v)
    if name == "input_sizes" then c.values[name][1] = n end
  end
  return c
end
local families = assert(spec.load_data(root .. "/specs/families.lua"))
local specs = {}
for _, f in ipairs(families) do specs[f] = assert(spec.load_op(root .. "/specs", f)) end
local ops = model.op_index(specs)

local lines = {}
for _, file in ipairs(files) do
  local m, err = spec.load_data(file)
  if not m then die(err) end
  local ok, verr = model.validate(m, specs, file)
  if not ok then die(verr) end
  for _, inst in ipairs(m.instances) do
    if batch then inst = rebatch(inst, batch) end
    for name, v in pairs(inst.attrs) do
      if v:find("%s") then die(string.format("%s: instance '%s': attr %s: blanks in %q", file, inst.name, name, v)) end
    end
    lines[#lines + 1] = string.format("%s --name %s/%s%s", inst.op, m.name, inst.name,
      model.plan_args(ops[inst.op].op, inst):sub(#inst.op + 1))
  end
end
io.write(table.concat(lines, "\n"), "\n")
