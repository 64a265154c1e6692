-- tune_calls.lua -- the calls of model manifests as `kforge tune --batch`
-- lines (`kforge plan --batch`'s, each named --name MODEL/INSTANCE), so that
-- generator/model.lua stays the one reader of the manifests: `kforge tune
-- --manifest FILE` runs this script and tunes what it prints.
--
--   lua5.4 tools/tune_calls.lua specs/models/X.lua... > calls.txt
--   build/kforge tune --batch < calls.txt     (on a machine without Lua too)
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

if #arg == 0 then die("usage: lua5.4 tools/tune_calls.lua MANIFEST.lua...") end
local families = assert(spec.load_data(root .. "/specs/families.lua"))
local specs = {}
for _, f in ipairs(families) do specs[f] = assert(spec.load_op(root .. "/specs", f)) end
local ops = model.op_index(specs)

local lines = {}
for _, file in ipairs(arg) do
  local m, err = spec.load_data(file)
  if not m then die(err) end
  local ok, verr = model.validate(m, specs, file)
  if not ok then die(verr) end
  for _, inst in ipairs(m.instances) do
    for name, v in pairs(inst.attrs) do
      if v:find("%s") then die(string.format("%s: instance '%s': attr %s: blanks in %q", file, inst.name, name, v)) end
    end
    lines[#lines + 1] = string.format("%s --name %s/%s%s", inst.op, m.name, inst.name,
      model.plan_args(ops[inst.op].op, inst):sub(#inst.op + 1))
  end
end
io.write(table.concat(lines, "\n"), "\n")
