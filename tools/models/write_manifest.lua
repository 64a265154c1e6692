-- write_manifest.lua -- validates and writes a model manifest given as a raw
-- Lua table (what tools/models/keras_manifest.py produces), in the canonical
-- format of generator/model.lua (model.format), with a comment line per
-- instance. Run from the repository root:
--   lua5.4 tools/models/write_manifest.lua --ops        the ops kforge's specs know, one a line
--   lua5.4 tools/models/write_manifest.lua RAW OUT      RAW returns { model = {...}, header = "...",
--                                                       comments = { "...", ... } }; OUT "-" is stdout
-- A manifest the specs reject is an error naming the model, the instance and
-- the field (model.validate), and nothing is written.
package.path = "generator/?.lua;" .. package.path
local spec = require "spec"
local model = require "model"

local families = dofile("specs/families.lua")
local specs = {}
for _, f in ipairs(families) do specs[f] = assert(spec.load_op("specs", f)) end

if arg[1] == "--ops" then
  for _, f in ipairs(families) do
    for _, op in ipairs(specs[f].ops) do print(op.name) end
  end
  os.exit(0)
end

local raw_file, out = arg[1], arg[2]
if not raw_file or not out then
  io.stderr:write("usage: lua5.4 tools/models/write_manifest.lua --ops | RAW.lua OUT.lua\n")
  os.exit(2)
end
local raw = assert(dofile(raw_file))
local m = raw.model
local ok, err = model.validate(m, specs, out == "-" and m.name or out)
if not ok then
  io.stderr:write("write_manifest: " .. err .. "\n")
  os.exit(1)
end
local text = model.format(m, specs, raw.header, raw.comments)
if out == "-" then
  io.write(text)
else
  local f = assert(io.open(out, "wb"))
  f:write(text)
  f:close()
end
