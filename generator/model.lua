-- model.lua -- per-model kernel sets. A model manifest (specs/models/*.lua)
-- lists the op instances one model's training step calls: op, attributes
-- (as text, as on the CLI) and input shapes. This module validates a
-- manifest against the op specs, derives each instance's kernel key, and
-- turns the model plus a target (specs/targets/*.lua) into a kernel-set
-- manifest for expand.lua: the exact specialization of every instance, in
-- the target's ISAs, plus the generic fallbacks unless no_fallback.
-- TF's shape rules are checked by the runtime itself when the per-model
-- build plans every instance (tools/model/check.c): one implementation.

local schema = require "schema"

local M = {}

local ident = { pattern = "^[%a_][%w_]*$" }
local shape = { list = "integer" } -- may be empty: a scalar

M.model_schema = {
  record = {
    name = ident,
    summary = "string",
    instances = {
      list = {
        record = {
          name = { pattern = "^[%w_./:%-]+$" },
          op = ident,
          attrs = { map = "string" },
          inputs = { map = shape },
          values = { map = shape },
        },
        required = { "name", "op", "attrs", "inputs" },
      },
      min = 1,
    },
  },
  required = { "name", "summary", "instances" },
}

M.target_schema = {
  record = {
    name = { pattern = "^[%w_%-]+$" },
    summary = "string",
    isas = { list = ident, min = 1 },
    cc = "string",
    cflags = "string",
    mcu = {
      record = {
        cpu = { pattern = "^[%w_]+:[%w_+]+:[%w_%-]+$" },
        qemu = "string", flash = "integer", flash_size = "integer", ram = "integer", ram_size = "integer",
        systick_hz = "integer",
        icount_shift = "integer", -- qemu -icount shift (default 3)
      },
      required = { "qemu", "flash", "flash_size", "ram", "ram_size" },
    },
  },
  required = { "name", "summary", "isas", "cc", "cflags" },
}

-- ---- kernel keys, from the C planner --------------------------------------
-- An instance's kernel key (the family's axis values the call needs) is
-- what the runtime's planner computes: the host CLI plans every instance
-- without data (`kforge plan --batch`, which prints kf_plan_key as a Lua
-- table) and this module reads the answers. No key logic lives here, so a
-- new op needs none. The CLI is build/kforge (`ninja build/kforge`), or
-- $KFORGE_CLI.
M.cli = os.getenv("KFORGE_CLI") or "build/kforge"

-- The dtype (TF name) of an input: its spec type names a type attr (T, U)
-- set by the instance or defaulted by the op, or is a dtype itself.
local function input_dtype(op, inst, t)
  if inst.attrs[t.type] then return inst.attrs[t.type] end
  for _, a in ipairs(op.attrs) do
    if a.name == t.type then return a.default end
  end
  return t.type
end

local function list(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = tostring(v) end
  return table.concat(s, ",")
end

-- The `kforge plan` arguments of an instance (one line of --batch input).
function M.plan_args(op, inst)
  local args = { inst.op }
  for _, a in ipairs(op.attrs) do
    local v = inst.attrs[a.name]
    if v ~= nil then args[#args + 1] = "--attr " .. a.name .. "=" .. v end
  end
  for _, t in ipairs(op.inputs) do
    args[#args + 1] = string.format("--input %s=%s:%s", t.name, input_dtype(op, inst, t), list(inst.inputs[t.name]))
    if inst.values and inst.values[t.name] then
      args[#args + 1] = string.format("--values %s=%s", t.name, list(inst.values[t.name]))
    end
  end
  return table.concat(args, " ")
end

-- Plans every instance with the host CLI. Returns a list of
-- { family, axes, key } (key values as text), or nil, err.
function M.plan_keys(model, specs, file)
  local ops = M.op_index(specs)
  local lines = {}
  for i, inst in ipairs(model.instances) do
    for name, v in pairs(inst.attrs) do
      if v:find("%s") then
        return nil, string.format("%s: model %s, instance '%s': attr %s: blanks in %q", file, model.name, inst.name, name, v)
      end
    end
    lines[i] = M.plan_args(ops[inst.op].op, inst)
  end
  local tmp = os.tmpname()
  local f = assert(io.open(tmp, "w"))
  f:write(table.concat(lines, "\n"), "\n")
  f:close()
  local cli = io.open(M.cli, "r")
  if not cli then
    os.remove(tmp)
    return nil, string.format("%s: per-model kernel keys come from the host CLI %s, which is not built " ..
      "(run `ninja %s`, or set KFORGE_CLI)", file, M.cli, M.cli)
  end
  cli:close()
  local p = io.popen(string.format("%q plan --batch < %q 2>&1", M.cli, tmp), "r")
  local out = {}
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  os.remove(tmp)
  local keys = {}
  for i, inst in ipairs(model.instances) do
    local where = string.format("%s: model %s, instance '%s' (instances[%d])", file, model.name, inst.name, i)
    local line = out[i]
    local chunk = line and load("return " .. line, "=kforge plan", "t", {})
    local ok, r = pcall(chunk or error)
    if not line or not chunk or not ok or type(r) ~= "table" then
      return nil, string.format("%s: %s plan --batch answered %q", where, M.cli, tostring(line))
    end
    if r.error then
      return nil, string.format("%s: rule %s: %s", where, r.rule ~= "" and r.rule or "none", r.error)
    end
    keys[i] = r
  end
  return keys
end

-- The key's values in the types of the spec's axes (numbers where the
-- axis lists numbers), so they compare with the axis values and fill the
-- kernel names' ${axis} patterns.
local function typed_values(spec, r)
  local v = {}
  for _, an in ipairs(r.axes) do
    local text, axis = r.key[an], nil
    for _, a in ipairs(spec.axes) do if a.name == an then axis = a end end
    if axis and type(axis.values[1]) == "number" then v[an] = math.tointeger(tonumber(text)) or text
    else v[an] = text end
  end
  return v
end

local function op_index(specs)
  local r = {}
  for fam, s in pairs(specs) do
    for _, op in ipairs(s.ops) do r[op.name] = { family = fam, op = op, spec = s } end
  end
  return r
end
M.op_index = op_index

local function has(list, v)
  for _, x in ipairs(list) do if x == v then return true end end
  return false
end

-- Validates a loaded model against the specs. Returns true or false, msg
-- (naming the model file, the instance and the field).
function M.validate(model, specs, file)
  local ok, err = schema.validate(model, M.model_schema, file)
  if not ok then return false, err end
  local ops, seen = op_index(specs), {}
  for i, inst in ipairs(model.instances) do
    local where = string.format("%s: model %s, instance '%s' (instances[%d])", file, model.name, inst.name, i)
    if seen[inst.name] then return false, where .. ": duplicate instance name" end
    seen[inst.name] = true
    local o = ops[inst.op]
    if not o then return false, where .. ": unknown op " .. inst.op end
    local attrs = {}
    for _, a in ipairs(o.op.attrs) do attrs[a.name] = a end
    for name, v in pairs(inst.attrs) do
      local a = attrs[name]
      if not a then return false, string.format("%s: attr %s: %s has no such attr", where, name, inst.op) end
      if a.allowed and a.kind ~= "int_list" then
        local allowed = {}
        for j, x in ipairs(a.allowed) do allowed[j] = tostring(x) end
        if not has(allowed, v) then
          return false, string.format("%s: attr %s: %q is not in the list of allowed values: %s", where, name, v,
            table.concat(allowed, ", "))
        end
      end
    end
    if not inst.attrs.T then return false, where .. ": attr T: missing (the dtype)" end
    for _, a in ipairs(o.op.attrs) do
      if a.required and inst.attrs[a.name] == nil then
        return false, string.format("%s: attr %s: missing (required by %s)", where, a.name, inst.op)
      end
    end
    local names = {}
    for _, t in ipairs(o.op.inputs) do
      names[t.name] = t
      if not inst.inputs[t.name] then return false, string.format("%s: input %s: missing", where, t.name) end
    end
    for name, dims in pairs(inst.inputs) do
      if not names[name] then return false, string.format("%s: input %s: %s has no such input", where, name, inst.op) end
      for j, d in ipairs(dims) do
        if d < 0 then return false, string.format("%s: input %s: dimension %d is negative", where, name, j - 1) end
      end
    end
    for name, v in pairs(inst.values or {}) do
      if not names[name] or names[name].type ~= "int32" then
        return false, string.format("%s: values %s: only int32 inputs read while planning carry values", where, name)
      end
      local n = 1
      for _, d in ipairs(inst.inputs[name]) do n = n * d end
      if #v ~= n then
        return false, string.format("%s: values %s: %d values for a shape of %d elements", where, name, #v, n)
      end
    end
    for _, t in ipairs(o.op.inputs) do
      if t.type == "int32" and not (inst.values and inst.values[t.name]) then
        return false, string.format("%s: values %s: missing (the op reads them while planning)", where, t.name)
      end
    end
  end
  return true
end

-- Resolves each instance: family, key values, kernel kind. Builds the
-- kernel-set manifest for expand. Returns set, resolved; or nil, err.
function M.kernel_set(model, specs, target, no_fallback, file)
  local ops = op_index(specs)
  local keys, kerr = M.plan_keys(model, specs, file)
  if not keys then return nil, kerr end
  local set = { name = model.name, summary = model.summary, kernels = {} }
  local resolved, generic_for = {}, {}
  local function isas_of(kind)
    local r = {}
    for _, i in ipairs(kind.isas or { "scalar" }) do if has(target.isas, i) then r[#r + 1] = i end end
    return r
  end
  for i, inst in ipairs(model.instances) do
    local o = ops[inst.op]
    local fam, spec = o.family, o.spec
    if keys[i].family ~= fam then
      return nil, string.format("%s: model %s, instance '%s': the runtime plans it in family %s, the specs in %s",
        file, model.name, inst.name, tostring(keys[i].family), fam)
    end
    local values = typed_values(spec, keys[i])
    local special
    for _, k in ipairs(spec.kernels) do if k.kind == "specialized" then special = k end end
    -- A specialization exists when every axis value of the key is one of the axis's values.
    local missing
    for _, an in ipairs(special.axes) do
      local axis
      for _, a in ipairs(spec.axes) do if a.name == an then axis = a end end
      if values[an] == nil or not has(axis.values, values[an]) then
        missing = missing or string.format("axis %s has no value %s", an, tostring(values[an]))
      end
    end
    local r = { inst = inst, family = fam, values = values, op = o.op }
    if missing then
      if no_fallback then
        return nil, string.format("%s: model %s, instance '%s' (instances[%d]): no specialization (%s) and " ..
          "--no-fallback leaves no generic kernel", file, model.name, inst.name, i, missing)
      end
      r.kind = "generic"
    else
      r.kind = "specialized"
      local e = { family = fam, kind = "specialized", isa = isas_of(special) }
      for _, an in ipairs(special.axes) do e[an] = values[an] end
      set.kernels[#set.kernels + 1] = e
    end
    generic_for[fam .. "/" .. values.T] = { family = fam, kind = "generic", T = values.T }
    resolved[i] = r
  end
  if not no_fallback then
    local ks = {}
    for k in pairs(generic_for) do ks[#ks + 1] = k end
    table.sort(ks)
    for _, k in ipairs(ks) do set.kernels[#set.kernels + 1] = generic_for[k] end
  end
  return set, resolved
end

-- The canonical text of a model manifest (tools/models/make_models.lua and
-- the recorder write the same format: one instance per line). comments, if
-- given, holds per instance index a comment written on the line before it
-- (tools/models/keras_manifest.py: the Keras layer).
function M.format(model, specs, header, comments)
  local ops = op_index(specs)
  local o = { header or "", "return {\n", string.format("  name = %q,\n  summary = %q,\n  instances = {\n",
    model.name, model.summary) }
  local function list(t)
    local s = {}
    for i, v in ipairs(t) do s[i] = tostring(v) end
    return #s == 0 and "{}" or "{ " .. table.concat(s, ", ") .. " }"
  end
  for i, inst in ipairs(model.instances) do
    if comments and comments[i] then o[#o + 1] = "    -- " .. comments[i]:gsub("\n", " ") .. "\n" end
    local op = ops[inst.op].op
    local a, ins, vals = {}, {}, {}
    for _, d in ipairs(op.attrs) do
      if inst.attrs[d.name] then a[#a + 1] = string.format("%s = %q", d.name, inst.attrs[d.name]) end
    end
    for _, t in ipairs(op.inputs) do
      ins[#ins + 1] = string.format("%s = %s", t.name, list(inst.inputs[t.name]))
      if inst.values and inst.values[t.name] then vals[#vals + 1] = string.format("%s = %s", t.name, list(inst.values[t.name])) end
    end
    o[#o + 1] = string.format('    { name = %q, op = %q,\n      attrs = { %s },\n      inputs = { %s }%s },\n',
      inst.name, inst.op, table.concat(a, ", "), table.concat(ins, ", "),
      #vals > 0 and (",\n      values = { " .. table.concat(vals, ", ") .. " }") or "")
  end
  o[#o + 1] = "  },\n}\n"
  return table.concat(o)
end

return M
