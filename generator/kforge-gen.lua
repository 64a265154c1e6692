-- kforge-gen.lua -- the generator: specs + templates -> C kernels, registry,
-- op tables and the ninja fragment that builds them.
--
--   lua5.4 generator/kforge-gen.lua [--set specs/sets/default.lua]
--          [--out generated] [--root .] [--depfile F --deptarget T] [--quiet]
--   lua5.4 generator/kforge-gen.lua --model specs/models/M.lua
--          --target specs/targets/T.lua [--no-fallback] --out DIR ...
--   --isas LIST (either form): only the kernels of those ISAs (comma-separated
--   names of specs/isas.lua; generic kernels are scalar), e.g. the ASan build
--   compiles just what this CPU can run (tests/asan.sh).
-- The second form generates one model's kernel set for one target: the
-- exact specialization of every op instance of the model, in the target's
-- ISAs (plus generic fallbacks unless --no-fallback), and kfg_model.c, the
-- instance table the per-model tools plan, check and run.
--
-- Tuning (docs/tuning.md): --tuning FILE (repeatable) --cpu ARCH:ISAS:UARCH
-- --cc COMPILER applies the winning knobs of the record for this CPU (exact
-- CPU, else same ISA set, else spec defaults; stale records are reported
-- and skipped). --fingerprint --cc COMPILER prints the fingerprint a record
-- must carry and exits.
--
-- Deterministic: same inputs, same bytes (sorted, no dates, no absolute
-- paths). All-or-nothing: on any error it prints "kforge-gen: <file>:...",
-- writes nothing and exits 1.

local script_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = script_dir .. "/?.lua;" .. package.path

local spec = require "spec"
local template = require "template"
local expand = require "expand"
local emit = require "emit"
local output = require "output"
local dtypes = require "dtypes"

local function usage(msg)
  io.stderr:write("kforge-gen: " .. msg .. "\nusage: lua5.4 generator/kforge-gen.lua [--set FILE] " ..
    "[--out DIR] [--root DIR] [--isas LIST] [--depfile FILE --deptarget TARGET] [--quiet]\n")
  os.exit(2)
end

local opt = { set = "specs/sets/default.lua", out = "generated", root = ".", tuning = {} }
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "--quiet" then
    opt.quiet = true
  elseif a == "--no-fallback" then
    opt.no_fallback = true
  elseif a == "--fingerprint" then
    opt.fingerprint = true
  elseif a == "--tuning" then
    if not arg[i + 1] then usage(a .. " needs a value") end
    opt.tuning[#opt.tuning + 1] = arg[i + 1]
    i = i + 1
  elseif a == "--set" or a == "--out" or a == "--root" or a == "--depfile" or a == "--deptarget"
      or a == "--model" or a == "--target" or a == "--cpu" or a == "--cc" or a == "--isas" then
    if not arg[i + 1] then usage(a .. " needs a value") end
    opt[a:sub(3)] = arg[i + 1]
    i = i + 1
  else
    usage("unknown argument " .. a)
  end
  i = i + 1
end

local function fail(msg)
  io.stderr:write("kforge-gen: " .. msg .. "\n")
  os.exit(1)
end

local root = opt.root
local function rel(p) return root == "." and p or root .. "/" .. p end

-- 1. Specs.
local families, ferr = spec.load_data(rel("specs/families.lua"))
if not families then fail(ferr) end
do -- a list of family names: no holes, no other values
  local schema = require "schema"
  local ok, ferr2 = schema.validate(families, { list = { pattern = "^[%a_][%w_]*$" } }, rel("specs/families.lua"))
  if not ok then fail(ferr2) end
end
local set, specs, deps
local model_mod = require "model"
local the_model, target, resolved
if opt.model then
  if not opt.target then usage("--model needs --target") end
  specs, deps = {}, { opt.model, opt.target }
  for _, f in ipairs(families) do
    local s, err = spec.load_op(rel("specs"), f)
    if not s then fail(err) end
    specs[f] = s
    deps[#deps + 1] = s.file
  end
  local merr
  target, merr = spec.load_data(opt.target)
  if not target then fail(merr) end
  local schema = require "schema"
  local ok, terr = schema.validate(target, model_mod.target_schema, opt.target)
  if not ok then fail(terr) end
  the_model, merr = spec.load_data(opt.model)
  if not the_model then fail(merr) end
  ok, merr = model_mod.validate(the_model, specs, opt.model)
  if not ok then fail(merr) end
  set, resolved = model_mod.kernel_set(the_model, specs, target, opt.no_fallback, opt.model)
  if not set then fail(resolved) end
  opt.set = opt.model
else
  set, specs, deps = spec.load_set(rel("specs"), opt.set, families)
  if not set then fail(specs) end
end
for _, f in ipairs(families) do
  if type(f) ~= "string" then fail(rel("specs/families.lua") .. ": expected a list of family names") end
  if not specs[f] then
    local s, err = spec.load_op(rel("specs"), f)
    if not s then fail(err) end
    specs[f] = s
    deps[#deps + 1] = s.file
  end
end
for f in pairs(specs) do
  local known = false
  for _, g in ipairs(families) do if g == f then known = true end end
  if not known then fail(opt.set .. ": family " .. f .. " is not listed in specs/families.lua") end
end

-- The attribute fields and the runtime's own files.
local schema_m = require "schema"
local attrs_spec, aerr = spec.load_data(rel("specs/attrs.lua"))
if not attrs_spec then fail(aerr) end
do
  local ok, verr = schema_m.validate(attrs_spec, spec.attrs_schema, rel("specs/attrs.lua"))
  if not ok then fail(verr) end
  ok, verr = spec.check_attrs(attrs_spec, families, specs, rel("specs/attrs.lua"))
  if not ok then fail(verr) end
end
deps[#deps + 1] = rel("specs/attrs.lua")
local runtime_spec, rerr = spec.load_data(rel("specs/runtime.lua"))
if not runtime_spec then fail(rerr) end
do
  local ok, verr = schema_m.validate(runtime_spec, spec.runtime_schema, rel("specs/runtime.lua"))
  if not ok then fail(verr) end
end
deps[#deps + 1] = rel("specs/runtime.lua")
local runtime_files = {}
for _, p in ipairs(runtime_spec.runtime) do runtime_files[#runtime_files + 1] = p end
for _, f in ipairs(families) do
  for _, p in ipairs(specs[f].sources.runtime) do runtime_files[#runtime_files + 1] = p end
end

-- ISAs.
local isa_list, ierr = spec.load_data(rel("specs/isas.lua"))
if not isa_list then fail(ierr) end
do
  local schema = require "schema"
  local ok, verr = schema.validate(isa_list, spec.isa_schema, rel("specs/isas.lua"))
  if not ok then fail(verr) end
end
local isas = {}
for i, d in ipairs(isa_list) do
  isas[d.name] = d
  if d.vbytes ~= d.lanes * 4 then -- lanes count floats
    fail(string.format("%s: field '[%d].vbytes': %d is not lanes x 4 (%d)", rel("specs/isas.lua"), i, d.vbytes,
      d.lanes * 4))
  end
end
deps[#deps + 1] = rel("specs/isas.lua")

-- 2. Configurations.
local kernels, xerr = expand.expand(set, specs, opt.set, dtypes, isas)
if not kernels then fail(xerr) end
if opt.isas then
  local keep, kept = {}, {}
  for n in opt.isas:gmatch("[^,%s]+") do
    if not isas[n] then fail("--isas: unknown ISA \"" .. n .. "\" (specs/isas.lua)") end
    keep[n] = true
  end
  if not keep.scalar then fail("--isas: the list must include scalar (the generic kernels are scalar)") end
  for _, k in ipairs(kernels) do
    if keep[k.isa] then kept[#kept + 1] = k end
  end
  kernels = kept
end

-- Tuning: the fingerprint of what generates code, and records to apply.
local tuning = require "tuning"
local function fingerprint()
  local files = {}
  for _, m in ipairs({ "template", "expand", "emit", "dtypes", "tuning" }) do
    files[#files + 1] = script_dir .. "/" .. m .. ".lua"
  end
  files[#files + 1] = rel("specs/isas.lua")
  local fams = {}
  for f in pairs(specs) do fams[#fams + 1] = f end
  table.sort(fams)
  for _, f in ipairs(fams) do
    files[#files + 1] = specs[f].file
    local p = io.popen("find " .. rel("templates/" .. f) .. " -type f 2>/dev/null | LC_ALL=C sort")
    for line in p:lines() do files[#files + 1] = line end
    p:close()
  end
  local cc = ""
  if opt.cc then
    local p = io.popen(opt.cc .. " --version 2>/dev/null")
    cc = (p:read("l") or opt.cc)
    p:close()
  end
  return tuning.fingerprint(files, output.read, cc)
end
if opt.fingerprint then
  io.stdout:write(fingerprint(), "\n")
  os.exit(0)
end
if #opt.tuning > 0 then
  if not opt.cpu then usage("--tuning needs --cpu ARCH:ISAS:UARCH") end
  local map, note = tuning.select(opt.tuning, opt.cpu, fingerprint(), spec.load_data)
  if not map then fail(note) end
  io.stderr:write("kforge-gen: ", note, "\n")
  for _, k in ipairs(kernels) do
    local kn = map[k.name]
    if kn then
      local defs = {}
      for _, d in ipairs(k.spec.knobs or {}) do defs[d.name] = d end
      local tags = {}
      local names = {}
      for n in pairs(kn) do names[#names + 1] = n end
      table.sort(names)
      for _, n in ipairs(names) do
        local d = defs[n]
        local okv = false
        for _, v in ipairs(d and d.values or {}) do if v == kn[n] then okv = true end end
        if not okv then fail(string.format("tuning record: %s: knob %s=%s is not a value of the spec's knob",
          k.name, n, tostring(kn[n]))) end
        tags[#tags + 1] = n .. "=" .. tostring(kn[n])
      end
      k.knobs = kn
      k.config = k.config .. " tuned " .. table.concat(tags, ",")
    end
  end
end

-- 3. Render everything in memory.
local files, errors = {}, {}
local compiled = {}
-- include("dir/f.c.in"[, names]) in a template: the text of another
-- template under templates/, rendered with the same parameters (shared
-- helpers, e.g. the SIMD layer templates/isa/simd.c.in) plus the table
-- names, values the includer derived once (a name may not hide a
-- parameter). It is listed in the depfile.
local function helpers_for(params)
  local h = {}
  function h.include(p, names)
    local sub = params
    if names ~= nil then
      if type(names) ~= "table" then error("include: names must be a table", 2) end
      sub = setmetatable({}, { __index = params })
      local keys = {}
      for k in pairs(names) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
      for _, k in ipairs(keys) do
        if params[k] ~= nil then error("include: " .. k .. " would hide the parameter of that name", 2) end
        sub[k] = names[k]
      end
    end
    local ipath = "templates/" .. tostring(p)
    local t = compiled[ipath]
    if not t then
      local src = output.read(rel(ipath))
      if not src then error("include: cannot read " .. ipath, 2) end
      local cerr
      t, cerr = template.compile(src, ipath)
      if not t then error(cerr, 0) end
      compiled[ipath] = t
      deps[#deps + 1] = rel(ipath)
    end
    local text, rerr = template.render(t, sub, sub == params and h or helpers_for(sub))
    if not text then error(rerr, 0) end
    return (text:gsub("\n+$", ""))
  end
  return h
end
for _, k in ipairs(kernels) do
  local tpath = "templates/" .. k.template
  local tpl = compiled[tpath]
  if not tpl then
    local src = output.read(rel(tpath))
    if not src then
      errors[#errors + 1] = string.format("%s: kernel %s needs template %s, which cannot be read",
        k.spec.file, k.name, tpath)
    else
      local t, err = template.compile(src, tpath)
      if not t then errors[#errors + 1] = err else compiled[tpath] = t end
      tpl = t
      deps[#deps + 1] = rel(tpath)
    end
  end
  if tpl then
    local params = expand.params(k, dtypes)
    local text, err = template.render(tpl, params, helpers_for(params))
    if not text then
      errors[#errors + 1] = err
    else
      local hdr = emit.banner(k.name .. ".c -- " .. k.config .. " (" .. k.isa .. ")",
        tpath .. " and " .. k.spec.file:gsub("^" .. root:gsub("%p", "%%%0") .. "/", ""))
      -- Every kernel file: banner, the kernel header, its two entry points,
      -- and for a SIMD ISA the arch guard and target pragmas around it all.
      files[#files + 1] = { path = k.family .. "/" .. k.name .. ".c",
                            text = hdr .. emit.kernel_wrap(k, text) }
    end
  end
end
if #errors > 0 then
  local uniq, seen_err = {}, {}
  for _, e in ipairs(errors) do
    if not seen_err[e] then seen_err[e] = true; uniq[#uniq + 1] = e end
  end
  fail(table.concat(uniq, "\nkforge-gen: "))
end

local set_name = opt.set:gsub("^" .. root:gsub("%p", "%%%0") .. "/", "")
files[#files + 1] = { path = "kfg_spec.h", text = emit.spec_header(families, specs) }
files[#files + 1] = { path = "kfg_ops.c", text = emit.ops_source(families, specs, attrs_spec) }
files[#files + 1] = { path = "kforge_ops.h", text = emit.public_header(families, specs, attrs_spec) }
files[#files + 1] = { path = "kfg_planners.h", text = emit.planners_header(families, attrs_spec) }
files[#files + 1] = { path = "kfg_bench.h", text = emit.bench_header(families, specs) }
files[#files + 1] = { path = "bench.ninja", text = emit.bench_fragment(families, specs) }
files[#files + 1] = { path = "kfg_registry.c", text = emit.registry_source(kernels, set_name) }
if the_model then
  files[#files + 1] = { path = "kfg_model.c",
                        text = emit.model_source(the_model, resolved, specs, target, set_name, expand.subst) }
end
if not the_model then -- the Python package's op layer (python/kforge/_runtime.py runs it)
  local emit_python = require("emit_python")
  local py, perr = emit_python.files(families, specs)
  if not py then fail(perr) end
  for _, f in ipairs(py) do files[#files + 1] = f end
  -- its ctypes table, from the public header itself
  local hdr = output.read(rel("runtime/kforge.h"))
  if not hdr then fail("cannot read runtime/kforge.h") end
  deps[#deps + 1] = rel("runtime/kforge.h")
  local ops_h
  for _, f in ipairs(files) do if f.path == "kforge_ops.h" then ops_h = f.text end end
  local capi, cerr = emit_python.capi(hdr, ops_h)
  if not capi then fail(cerr) end
  files[#files + 1] = { path = "python/_capi.py", text = capi }
  -- the TensorFlow custom-op library's op table (python/kforge/tf/kforge_tf.c)
  local tf, terr = require("emit_tf").files(families, specs, attrs_spec)
  if not tf then fail(terr) end
  for _, f in ipairs(tf) do files[#files + 1] = f end
end
local csrc = {}
for _, f in ipairs(files) do if f.path:match("%.c$") then csrc[#csrc + 1] = f.path end end
table.sort(csrc)
files[#files + 1] = { path = "sources.ninja", text = emit.ninja_fragment(csrc, set_name, runtime_files) }

-- 4. Commit.
local n, werr = output.commit(opt.out, files)
if not n then fail(werr) end
if opt.depfile then
  for _, m in ipairs({ "kforge-gen", "spec", "schema", "template", "expand", "emit", "output", "dtypes", "model",
                       "tuning", "emit_python", "emit_tf" }) do
    deps[#deps + 1] = script_dir .. "/" .. m .. ".lua"
  end
  deps[#deps + 1] = rel("specs/families.lua")
  table.sort(deps)
  local h = io.open(opt.depfile, "wb")
  if not h then fail("cannot write " .. opt.depfile) end
  h:write((opt.deptarget or "generated/FILES") .. ": " .. table.concat(deps, " \\\n  ") .. "\n")
  h:close()
end
if not opt.quiet then
  io.stdout:write(string.format("kforge-gen: %d kernels, %d files, %d written to %s\n",
    #kernels, #files, n, opt.out))
end
