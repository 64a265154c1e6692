-- spec.lua -- loads and validates op specs (specs/ops/*.lua) and kernel-set
-- manifests (specs/sets/*.lua). Specs are data: they are loaded with an
-- empty environment (no functions, no I/O) and checked against the schemas
-- below plus cross-references, so errors name the file and the field.

local schema = require "schema"
local dtypes = require "dtypes"

local M = {}

local ident = { pattern = "^[%a_][%w_]*$" }
local tag = { pattern = "^[%w_]+$" }
local path = { pattern = "^[%w_][%w_/]*%.[%w]+$" }

local tensor = {
  -- range: the values tools draw random inputs from (default [-1, 1)): a
  -- variance must be positive. in_place_of (outputs only): the input whose
  -- buffer this output may be, exactly (every kernel of the op reads each
  -- element of that input before it writes the output's; kf_execute,
  -- the TF ops and the model planner rely on it).
  record = { name = ident, type = "string", doc = "string", range = { list = "number", min = 2 },
             in_place_of = ident },
  required = { "name", "type" },
}

local attr = {
  record = {
    name = ident,
    kind = { oneof = { "type", "float", "bool", "string", "int_list" } },
    default = "any",
    allowed = { list = "any", min = 1 },
    required = "boolean", -- no default: the caller must set it
    doc = "string",
  },
  required = { "name", "kind" },
}

local op = {
  record = {
    name = ident,
    enum = { pattern = "^KF_OP_[%u%d_]+$" },
    inputs = { list = tensor, min = 1 },
    outputs = { list = tensor, min = 1 },
    attrs = { list = attr },
    doc = "string",
  },
  required = { "name", "enum", "inputs", "outputs", "attrs" },
}

local rule = {
  record = { id = ident, message = "string", tf = "string" },
  required = { "id", "message" },
}

local axis = {
  record = {
    name = ident,
    values = { list = { alt = { tag, "integer" } }, min = 1 },
    c = { map = "string" }, -- C constant per value tag (default: the value itself)
    doc = "string",
  },
  required = { "name", "values" },
}

local kernel = {
  record = {
    kind = ident,                        -- "specialized", "generic", ...
    name = "string",                     -- ${axis} pattern of the kernel name
    template = "string",                 -- ${axis} pattern of the template path
    axes = { list = ident },             -- the axes this kind is specialized on
    config = "string",                   -- ${axis} pattern shown by `kforge list`
    isas = { list = ident, min = 1 },    -- ISAs the template supports (default: scalar)
    -- Per ISA, the axis values it has a variant for (default: all): an ISA
    -- whose template would only repeat another variant (plain C on NEON,
    -- say) is not generated for the other configurations.
    isa_only = { map = { map = { list = { alt = { "string", "integer" } }, min = 1 } } },
    doc = "string",
  },
  required = { "kind", "name", "template", "axes" },
}

M.op_schema = {
  record = {
    family = ident,
    summary = "string",
    ops = { list = op, min = 1 },
    rules = { list = rule, min = 1 },
    axes = { list = axis, min = 1 },
    kernels = { list = kernel, min = 1 },
    params = { map = "any" }, -- constants handed to every template of the family
    -- Tunable params: every value is correct; the tuner times them (docs/tuning.md).
    knobs = {
      list = {
        record = { name = ident, tag = { pattern = "^[%l][%l%d]*$" }, values = { list = "integer", min = 2 },
                   doc = "string" },
        required = { "name", "tag", "values" },
      },
    },
    -- The family's hand-written files, by role (paths from the root): its
    -- planner (runtime), its benchmark (bench) and PyTorch timing script
    -- (bench_py). The build and the tools take every list from here.
    -- Default: { runtime = { "runtime/<family>_plan.c" } }.
    sources = {
      record = { runtime = { list = path, min = 1 }, bench = { list = path }, bench_py = { list = path } },
      required = { "runtime" },
    },
    -- Block widths as kernel metadata (kf_kernel_block): dimension name ->
    -- the param or knob that sets it, e.g. { W = "PIX" }.
    blocks = { map = ident },
  },
  required = { "family", "summary", "ops", "rules", "axes", "kernels" },
}

-- specs/attrs.lua: the fields of kf_attrs and the enums of string attrs.
M.attrs_schema = {
  record = {
    enums = {
      list = {
        record = {
          name = ident, ctype = ident, invalid = ident,
          values = { list = { list = "string", min = 2, max = 2 }, min = 1 },
        },
        required = { "name", "ctype", "invalid", "values" },
      },
    },
    fields = {
      list = {
        record = {
          name = ident,
          kind = { oneof = { "type", "float", "bool", "string", "int_list", "int64_list" } },
          enum = ident, max = "integer", stored = "boolean", doc = "string",
        },
        required = { "name", "kind" },
      },
      min = 1,
    },
  },
  required = { "enums", "fields" },
}

-- specs/runtime.lua: the runtime's own C files.
M.runtime_schema = { record = { runtime = { list = path, min = 1 } }, required = { "runtime" } }

M.isa_schema = {
  list = {
    record = {
      name = ident, rank = "integer", bit = { pattern = "^KFI_ISA_[%u%d_]+$" }, guard = "string",
      target = "string", header = "string", doc = "string",
      lanes = "integer", vregs = "integer", vbytes = "integer", masks = "boolean", sweep = "boolean",
      simd = ident, cached = "boolean", maskregs = "boolean", tcm = "boolean", word = "integer",
    },
    required = { "name", "rank", "bit", "guard", "lanes", "vregs", "vbytes", "masks", "sweep", "simd",
                 "cached", "maskregs", "tcm", "word" },
  },
  min = 1,
}

local selector = { alt = { { pattern = "^=?[%w_*]+$" }, "integer", { list = { alt = { tag, "integer" } }, min = 1 } } }

M.set_schema = {
  record = {
    name = ident,
    summary = "string",
    kernels = {
      -- family=, kind=, isa=, one selector per axis, and knobs = { NAME = value or list }
      list = { map = { alt = { selector, { map = { alt = { "integer", { list = "integer", min = 1 } } } } } } },
      min = 1,
    },
  },
  required = { "name", "summary", "kernels" },
}

-- Reads and evaluates a data file in an empty environment.
local function load_data(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, path .. ": cannot open (" .. tostring(err) .. ")" end
  local src = f:read("a")
  f:close()
  local fn, perr = load(src, "@" .. path, "t", {})
  if not fn then return nil, perr end
  -- Data takes few instructions to evaluate: a budget turns a runaway spec
  -- (an endless loop) into a located error instead of a hung build. Huge
  -- strings fail with Lua's own "not enough memory" error, caught here too.
  local co = coroutine.create(fn)
  debug.sethook(co, function() error(path .. ": evaluating this file takes too long (is it data?)", 0) end, "", 1e7)
  local ok, v = coroutine.resume(co)
  if not ok then return nil, tostring(v) end
  if coroutine.status(co) ~= "dead" then return nil, path .. ": must return a table, not yield" end
  if type(v) ~= "table" then return nil, path .. ": must return a table, got " .. type(v) end
  return v
end
M.load_data = load_data

local function dup_check(list, field, where, file)
  local seen = {}
  for i, e in ipairs(list) do
    local k = e[field]
    if seen[k] then
      return false, string.format("%s: field '%s[%d].%s': duplicate %q", file, where, i, field, k)
    end
    seen[k] = true
  end
  return true
end

-- Placeholder names ${...} used in a pattern.
local function placeholders(pat)
  local r = {}
  for n in pat:gmatch("%${([%w_]+)}") do r[#r + 1] = n end
  return r
end

local function contains(list, v)
  for _, x in ipairs(list) do if x == v then return true end end
  return false
end

-- Validates an op-family spec beyond its schema. Returns true or false, msg.
local function cross_check(s, file)
  local ok, err
  -- sources defaults to the planner's conventional file
  s.sources = s.sources or { runtime = { "runtime/" .. s.family .. "_plan.c" } }
  ok, err = dup_check(s.ops, "name", "ops", file); if not ok then return ok, err end
  ok, err = dup_check(s.rules, "id", "rules", file); if not ok then return ok, err end
  ok, err = dup_check(s.axes, "name", "axes", file); if not ok then return ok, err end
  ok, err = dup_check(s.kernels, "kind", "kernels", file); if not ok then return ok, err end
  for _, dim in ipairs(schema.sorted_keys(s.blocks or {})) do
    if type((s.params or {})[s.blocks[dim]]) ~= "number" then
      return false, string.format("%s: field 'blocks.%s': %q is not a numeric param of the family", file, dim,
        s.blocks[dim])
    end
  end
  for i, op in ipairs(s.ops) do
    for j, t in ipairs(op.inputs) do
      if t.in_place_of then
        return false, string.format("%s: field 'ops[%d].inputs[%d].in_place_of': only outputs may alias", file, i, j)
      end
    end
    for j, t in ipairs(op.outputs) do
      if t.in_place_of then
        local found
        for _, x in ipairs(op.inputs) do
          if x.name == t.in_place_of then found = x end
        end
        if not found or found.type ~= t.type then
          return false, string.format("%s: field 'ops[%d].outputs[%d].in_place_of': %q is not an input of type %s",
            file, i, j, t.in_place_of, t.type)
        end
      end
    end
  end
  local axes = {}
  for i, a in ipairs(s.axes) do
    axes[a.name] = a
    if a.name == "T" then -- dtype tags: their C constants are generator/dtypes.lua's
      a.c = a.c or {}
      for _, v in ipairs(a.values) do
        if type(v) == "string" and dtypes[v] and not a.c[v] then a.c[v] = dtypes[v].c end
      end
    end
    for j, v in ipairs(a.values) do
      if type(v) == "string" and not (a.c and a.c[v]) then
        return false, string.format("%s: field 'axes[%d].c': missing the C constant of value %q (axes[%d].values[%d])",
          file, i, v, i, j)
      end
    end
  end
  for i, k in ipairs(s.kernels) do
    for j, an in ipairs(k.axes) do
      if not axes[an] then
        return false, string.format("%s: field 'kernels[%d].axes[%d]': unknown axis %q", file, i, j, an)
      end
    end
    if not k.name:gsub("%${[%w_]+}", "x"):match("^[%w_]+$") then
      return false, string.format("%s: field 'kernels[%d].name': %q must make a C identifier " ..
        "(letters, digits, _ and ${axis})", file, i, k.name)
    end
    local listed = {}
    for _, an in ipairs(k.axes) do listed[an] = true end
    local kisas = {}
    for _, isa in ipairs(k.isas or { "scalar" }) do kisas[isa] = true end
    for _, isa in ipairs(schema.sorted_keys(k.isa_only or {})) do
      local only = k.isa_only[isa]
      if not kisas[isa] then
        return false, string.format("%s: field 'kernels[%d].isa_only.%s': not one of this kind's isas", file, i, isa)
      end
      for _, an in ipairs(schema.sorted_keys(only)) do
        local vs = only[an]
        if not listed[an] then
          return false, string.format("%s: field 'kernels[%d].isa_only.%s.%s': not an axis of this kernel kind",
            file, i, isa, an)
        end
        for j, v in ipairs(vs) do
          if not contains(axes[an].values, v) then
            return false, string.format("%s: field 'kernels[%d].isa_only.%s.%s[%d]': %s is not a value of axis %s",
              file, i, isa, an, j, tostring(v), an)
          end
        end
      end
    end
    for _, f in ipairs({ "name", "template", "config" }) do
      for _, p in ipairs(placeholders(k[f] or "")) do
        if not listed[p] then
          return false, string.format("%s: field 'kernels[%d].%s': ${%s} is not an axis of this kernel kind",
            file, i, f, p)
        end
      end
    end
  end
  for i, k in ipairs(s.knobs or {}) do
    local def = s.params and s.params[k.name]
    if def == nil then
      return false, string.format("%s: field 'knobs[%d].name': %s is not one of params", file, i, k.name)
    end
    if not contains(k.values, def) then
      return false, string.format("%s: field 'knobs[%d].values': the default %s (params.%s) must be one of them",
        file, i, tostring(def), k.name)
    end
  end
  for i, o in ipairs(s.ops) do
    for j, a in ipairs(o.attrs) do
      if a.allowed and a.default ~= nil then
        if not contains(a.allowed, a.default) then
          return false, string.format("%s: field 'ops[%d].attrs[%d].default': %s is not in allowed",
            file, i, j, tostring(a.default))
        end
      end
    end
  end
  return true
end

-- Cross-checks specs/attrs.lua against the op specs: every op attr has a
-- field, a string attr with a field has an enum holding its allowed values.
function M.check_attrs(attrs, families, specs, file)
  local fields, enums = {}, {}
  for _, e in ipairs(attrs.enums) do
    enums[e.name] = {}
    for _, v in ipairs(e.values) do enums[e.name][v[1]] = true end
  end
  for i, a in ipairs(attrs.fields) do
    if fields[a.name] then return false, string.format("%s: field 'fields[%d].name': duplicate %q", file, i, a.name) end
    fields[a.name] = a
    if a.enum and not enums[a.enum] then
      return false, string.format("%s: field 'fields[%d].enum': unknown enum %q", file, i, a.enum)
    end
    if (a.kind == "int_list" or a.kind == "int64_list") and not a.max and a.stored ~= false then
      return false, string.format("%s: field 'fields[%d].max': a list needs its largest length", file, i)
    end
  end
  for _, f in ipairs(families) do
    for _, op in ipairs(specs[f].ops) do
      for j, a in ipairs(op.attrs) do
        local d = fields[a.name]
        if not d then
          return false, string.format("%s: %s attr %q (attrs[%d]) has no field in %s", specs[f].file, op.name,
            a.name, j, file)
        end
        local ok_kind = d.kind == a.kind or (a.kind == "int_list" and d.kind == "int64_list")
        if not ok_kind then
          return false, string.format("%s: %s attr %q is a %s, but %s declares a %s", specs[f].file, op.name,
            a.name, a.kind, file, d.kind)
        end
        if d.enum then
          for _, v in ipairs(a.allowed or {}) do
            if not enums[d.enum][v] then
              return false, string.format("%s: %s attr %q allows %q, which enum %s of %s lacks", specs[f].file,
                op.name, a.name, tostring(v), d.enum, file)
            end
          end
        end
      end
    end
  end
  return true
end

-- Loads specs/ops/<family>.lua. Returns the spec or nil, err.
function M.load_op(dir, family)
  local file = dir .. "/ops/" .. family .. ".lua"
  local s, err = load_data(file)
  if not s then return nil, err end
  local ok, verr = schema.validate(s, M.op_schema, file)
  if not ok then return nil, verr end
  if s.family ~= family then
    return nil, string.format("%s: field 'family': expected %q (the file's name), got %q", file, family, s.family)
  end
  ok, verr = cross_check(s, file)
  if not ok then return nil, verr end
  s.file = file
  return s
end

-- Loads a kernel-set manifest and the op specs it names (which must be
-- listed in families, when given).
-- Returns set, specs (family -> spec), files read; or nil, err.
function M.load_set(dir, path, families)
  local set, err = load_data(path)
  if not set then return nil, err end
  local ok, verr = schema.validate(set, M.set_schema, path)
  if not ok then return nil, verr end
  local specs, files = {}, { path }
  for i, e in ipairs(set.kernels) do
    local where = string.format("%s: field 'kernels[%d]", path, i)
    if type(e.family) ~= "string" then return nil, where .. ".family': missing (the op family, e.g. \"bngrad\")" end
    if type(e.kind) ~= "string" then return nil, where .. ".kind': missing (a kernel kind of the family)" end
    if families then
      local known = false
      for _, f in ipairs(families) do if f == e.family then known = true end end
      if not known then
        return nil, string.format("%s.family': unknown family %q (specs/families.lua lists: %s)",
          where, e.family, table.concat(families, ", "))
      end
    end
    if not specs[e.family] then
      local s, lerr = M.load_op(dir, e.family)
      if not s then return nil, lerr end
      specs[e.family] = s
      files[#files + 1] = s.file
    end
  end
  return set, specs, files
end

return M
