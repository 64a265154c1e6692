-- emit_python.lua -- writes the Python package's op layer from the op specs:
-- python/_ops.py (one keyword-only function per TF op with TF's input,
-- attr and output names and defaults, typed annotations, docstrings, the
-- output namedtuples, the op metadata the runtime (python/kforge/_runtime.py)
-- marshals with, and snake_case aliases) and python/raw_ops.py (the TF-named
-- functions, as tf.raw_ops). setup.py copies generated/python/*.py into the
-- package. Deterministic: specs in specs/families.lua order, no dates.

local M = {}

local PY_KEYWORDS = {}
for w in ([[False None True and as assert async await break class continue def del elif else except
  finally for from global if import in is lambda nonlocal not or pass raise return try while with yield]]):gmatch("%S+") do
  PY_KEYWORDS[w] = true
end
-- Parameters every op function takes besides the op's own.
local RESERVED = { out = true, threads = true, name = true }

-- A Python string literal (double quotes).
local function pystr(s)
  return '"' .. tostring(s):gsub('[\\"]', "\\%0"):gsub("\n", "\\n") .. '"'
end
M.pystr = pystr

-- Docstring text: backslashes and triple quotes escaped, so any spec text
-- is safe inside """...""".
local function doctext(s)
  return (tostring(s):gsub("\\", "\\\\"):gsub('"""', '\\"""'))
end

-- The shortest %g text that reads back as the same double, always with a
-- '.' or exponent so Python reads a float.
local function pyfloat(v)
  if v ~= v then return 'float("nan")' end
  if v == math.huge then return 'float("inf")' end
  if v == -math.huge then return '-float("inf")' end
  local s
  for p = 1, 17 do
    s = string.format("%." .. p .. "g", v)
    if tonumber(s) == v then break end
  end
  if not s:find("[%.eEn]") then s = s .. ".0" end
  return s
end

local function pyvalue(kind, v)
  if kind == "bool" then return v and "True" or "False" end
  if kind == "float" then return pyfloat(v + 0.0) end
  if kind == "int_list" then
    local t = {}
    for i, x in ipairs(v) do t[i] = string.format("%d", x) end
    if #t == 1 then return "(" .. t[1] .. ",)" end
    return "(" .. table.concat(t, ", ") .. ")"
  end
  return pystr(v)
end

-- TF's generated-wrapper name: FusedBatchNormGradV3 -> fused_batch_norm_grad_v3,
-- DepthwiseConv2dNativeBackpropInput -> depthwise_conv2d_native_backprop_input.
local function snake(name)
  return (name:gsub("([%l%d])(%u)", "%1_%2"):lower())
end
M.snake = snake

local function annotation(a)
  if a.kind == "float" then return "float" end
  if a.kind == "bool" then return "bool" end
  if a.kind == "int_list" then return "Sequence[int]" end
  if a.kind == "string" then
    if a.allowed then
      local t = {}
      for i, x in ipairs(a.allowed) do t[i] = pystr(x) end
      return "Literal[" .. table.concat(t, ", ") .. "]"
    end
    return "str"
  end
  error("attr kind " .. tostring(a.kind) .. " has no Python annotation")
end

-- The type an input or output is described with: a dtype attr's allowed
-- values, or the fixed type.
local function type_text(op, ty)
  for _, a in ipairs(op.attrs) do
    if a.name == ty and a.kind == "type" then
      if a.allowed then return ty .. " (" .. table.concat(a.allowed, ", ") .. ")" end
      return ty
    end
  end
  return ty
end

local function check_name(op, n, what, file)
  if PY_KEYWORDS[n] or RESERVED[n] then
    return nil, string.format("%s: op %s: %s '%s' cannot be a Python keyword argument " ..
      "(a Python keyword, or one of out, threads, name)", file, op.name, what, n)
  end
  return true
end

-- One op: metadata, the output namedtuple, the function.
local function emit_op(o, s, op)
  local fname = op.name
  local nout = #op.outputs
  local args = {} -- attrs the caller passes (type attrs are inferred from the inputs)
  for _, a in ipairs(op.attrs) do
    if a.kind ~= "type" then args[#args + 1] = a end
  end
  local result = fname .. "Output"

  -- Metadata: what _runtime needs to marshal a call.
  local outs = {}
  for i, x in ipairs(op.outputs) do outs[i] = pystr(x.name) end
  o[#o + 1] = string.format("%s = _namedtuple(%s, [%s])\n", result, pystr(fname), table.concat(outs, ", "))
  o[#o + 1] = string.format("%s.__doc__ = %s\n", result,
    pystr("The outputs of " .. fname .. ", in TF order (tf.raw_ops returns the same namedtuple)."))
  o[#o + 1] = string.format("_OP_%s = _OpDef(\n    name=%s, family=%s, snake=%s,\n    inputs=(\n", fname,
    pystr(fname), pystr(s.family), pystr(snake(fname)))
  for _, x in ipairs(op.inputs) do
    -- int32 inputs are read at plan time (TF keeps them in host memory):
    -- their values travel in the descriptor's host_data.
    o[#o + 1] = string.format("        _InputDef(%s, %s, host=%s),\n", pystr(x.name), pystr(x.type),
      x.type == "int32" and "True" or "False")
  end
  o[#o + 1] = "    ),\n    outputs=(" .. table.concat(outs, ", ") .. (nout == 1 and ",)" or ")") .. ",\n"
  o[#o + 1] = "    attrs=(\n"
  for _, a in ipairs(op.attrs) do
    local allowed = "None"
    if a.allowed then
      local t = {}
      for i, x in ipairs(a.allowed) do t[i] = pystr(x) end
      allowed = "(" .. table.concat(t, ", ") .. (#t == 1 and ",)" or ")")
    end
    local def = "_REQUIRED"
    if a.default ~= nil then
      def = a.kind == "type" and pystr(a.default) or pyvalue(a.kind, a.default)
    elseif a.kind == "type" then
      def = "None"
    end
    o[#o + 1] = string.format("        _AttrDef(%s, %s, %s, %s),\n", pystr(a.name), pystr(a.kind), def, allowed)
  end
  o[#o + 1] = string.format("    ),\n    result=%s,\n)\n\n\n", nout == 1 and "None" or result)

  -- The function.
  local sig = { "def " .. fname .. "(\n    *,\n" }
  for _, x in ipairs(op.inputs) do sig[#sig + 1] = "    " .. x.name .. ": ArrayLike,\n" end
  for _, a in ipairs(args) do
    if a.default ~= nil then
      sig[#sig + 1] = string.format("    %s: %s = %s,\n", a.name, annotation(a), pyvalue(a.kind, a.default))
    else
      sig[#sig + 1] = string.format("    %s: %s,\n", a.name, annotation(a))
    end
  end
  if nout == 1 then
    sig[#sig + 1] = "    out: Optional[np.ndarray] = None,\n"
  else
    sig[#sig + 1] = "    out: Optional[Sequence[np.ndarray]] = None,\n"
  end
  sig[#sig + 1] = "    threads: Optional[int] = None,\n    name: Optional[str] = None,\n"
  sig[#sig + 1] = ") -> " .. (nout == 1 and "np.ndarray" or result) .. ":\n"
  o[#o + 1] = table.concat(sig)

  -- Docstring.
  local d = { '    """' .. doctext(fname .. ": " .. s.summary) }
  if op.doc then d[#d + 1] = "    " .. doctext(op.doc) end
  d[#d + 1] = ""
  d[#d + 1] = "    tf.raw_ops." .. fname .. " on numpy arrays: keyword-only, TF's names and defaults."
  d[#d + 1] = ""
  d[#d + 1] = "    Args:"
  for _, x in ipairs(op.inputs) do
    local t = "      " .. x.name .. ": " .. type_text(op, x.type) ..
      (x.type == "int32" and ", read at plan time (list or array)" or "") .. "."
    if x.doc then t = t .. " " .. x.doc .. "." end
    d[#d + 1] = doctext(t)
  end
  for _, a in ipairs(args) do
    local t = "      " .. a.name .. ": " .. a.kind
    if a.allowed then t = t .. ", one of " .. table.concat(a.allowed, ", ") end
    if a.default ~= nil then t = t .. "; default " .. pyvalue(a.kind, a.default)
    else t = t .. "; required" end
    t = t .. "."
    if a.doc then t = t .. " " .. a.doc .. "." end
    d[#d + 1] = doctext(t)
  end
  for _, a in ipairs(op.attrs) do
    if a.kind == "type" then
      d[#d + 1] = doctext("      (" .. a.name .. ": not an argument, inferred from the inputs" ..
        (a.allowed and ": " .. table.concat(a.allowed, ", ") or "") .. ".)")
    end
  end
  if nout == 1 then
    d[#d + 1] = "      out: optional preallocated output (dtype, shape, C-contiguous, writeable,"
  else
    d[#d + 1] = "      out: optional preallocated outputs, a sequence in output order (dtype, shape, C-contiguous,"
  end
  d[#d + 1] = "        not overlapping an input), written in place and returned."
  d[#d + 1] = "      threads: None or 1: the calling thread; n > 1: a pool of n threads; 0: os.cpu_count()."
  d[#d + 1] = "        Results are bitwise identical for any thread count."
  d[#d + 1] = "      name: ignored (tf.raw_ops compatibility)."
  d[#d + 1] = ""
  d[#d + 1] = "    Returns:"
  if nout == 1 then
    local x = op.outputs[1]
    d[#d + 1] = doctext("      " .. x.name .. ": " .. type_text(op, x.type) .. ", a numpy array" ..
      (x.doc and "; " .. x.doc or "") .. ".")
  else
    d[#d + 1] = "      " .. result .. ", a namedtuple of numpy arrays:"
    for _, x in ipairs(op.outputs) do
      d[#d + 1] = doctext("        " .. x.name .. ": " .. type_text(op, x.type) .. (x.doc and "; " .. x.doc or "") .. ".")
    end
  end
  d[#d + 1] = ""
  d[#d + 1] = "    Raises:"
  d[#d + 1] = "      KforgeError: TF's message; .status and .rule, one of the rules of specs/ops/" .. s.family .. ".lua:"
  local line = "       "
  for i, r in ipairs(s.rules) do
    local w = " " .. s.family .. "." .. r.id .. (i < #s.rules and "," or ".")
    if #line + #w > 100 then
      d[#d + 1] = line
      line = "       "
    end
    line = line .. w
  end
  d[#d + 1] = line
  d[#d + 1] = '    """'
  o[#o + 1] = table.concat(d, "\n") .. "\n"

  local ins, avs = {}, {}
  for i, x in ipairs(op.inputs) do ins[i] = x.name end
  for i, a in ipairs(args) do avs[i] = a.name end
  o[#o + 1] = string.format("    return _call(_OP_%s, (%s%s), (%s%s), out, threads)\n\n\n", fname,
    table.concat(ins, ", "), #ins == 1 and "," or "", table.concat(avs, ", "), #avs == 1 and "," or "")
end

-- The two files: { path = "python/_ops.py", text = ... }, { path = "python/raw_ops.py", ... }.
-- Returns nil, message when a spec name cannot be a Python keyword argument.
-- ctypes of C scalar types (after const is dropped); pointers are handled apart.
local CTYPES = { void = "None", int = "ctypes.c_int", unsigned = "ctypes.c_uint", size_t = "ctypes.c_size_t",
  float = "ctypes.c_float", double = "ctypes.c_double", uint16_t = "ctypes.c_uint16", int32_t = "ctypes.c_int32",
  uint32_t = "ctypes.c_uint32", int64_t = "ctypes.c_int64" }

-- The ctypes type of a C declaration's type (a parameter without its name,
-- or a return type). structs: typedef struct names (never by value).
local function ctype_of(decl, structs, where)
  local t = decl:gsub("%f[%w_]const%f[^%w_]", ""):gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")
  if t:match("%*") then
    return t:gsub(" ?%*", "") == "char" and not t:match("%*.*%*") and "ctypes.c_char_p" or "ctypes.c_void_p"
  end
  if CTYPES[t] then return CTYPES[t] end
  if t:match("^kf_[%w_]+$") and not structs[t] then return "ctypes.c_int" end -- an enum
  return nil, string.format("runtime/kforge.h: %s: no ctypes mapping for %q (a struct by value?)", where, t)
end

-- python/_capi.py: the ctypes signature of every function runtime/kforge.h
-- declares, read from the header itself (header: its text; extra: more C
-- text whose struct typedefs count, the generated kforge_ops.h), so the
-- Python package never copies a prototype by hand.
function M.capi(header, extra)
  local text = header:gsub("/%*.-%*/", " "):gsub("#ifdef __cplusplus.-#endif", " "):gsub("//[^\n]*", " ")
  text = text:gsub("#[^\n]*", " ")
  local structs = {}
  for _, src in ipairs({ header, extra or "" }) do
    for name in src:gmatch("typedef%s+struct%s+[%w_]*%s*%b{}%s*([%w_]+)%s*;") do structs[name] = true end
  end
  local rows = {}
  -- file-scope declarations: drop bodies of typedefs first
  local flat = text:gsub("%b{}", ";")
  for decl in flat:gmatch("[^;]+") do
    local ret, name, params = decl:match("^%s*([%w_%s%*]-)%s*%f[%w_](kf_[%w_]+)%s*(%b())%s*$")
    if ret and not decl:match("typedef") then
      local r, err = ctype_of(ret, structs, name)
      if not r then return nil, err end
      local args = {}
      local inner = params:sub(2, -2)
      if inner:match("^%s*void%s*$") or inner:match("^%s*$") then inner = "" end
      for p in inner:gmatch("[^,]+") do
        local arr = p:match("%[.-%]")
        p = p:gsub("%[.-%]", "")
        local ty = p:gsub("[%w_]+%s*$", "")      -- drop the parameter's name
        if arr then ty = ty .. "*" end
        local a, aerr = ctype_of(ty, structs, name)
        if not a then return nil, aerr end
        args[#args + 1] = a
      end
      rows[#rows + 1] = string.format("    (%s, %s, [%s]),\n", pystr(name), r, table.concat(args, ", "))
    end
  end
  if #rows == 0 then return nil, "runtime/kforge.h: no function declarations found" end
  return "# _capi.py -- the ctypes signatures of runtime/kforge.h's functions, read from the\n" ..
    "# header by generator/kforge-gen.lua (emit_python.lua). Do not edit. Pointers to kforge's\n" ..
    "# structs are c_void_p: kforge/_runtime.py passes addresses (and checks its struct\n" ..
    "# mirrors' sizes against the library at import).\n" ..
    '"""ctypes signatures of kforge.h (generated)."""\n' ..
    "import ctypes\n\n" ..
    "#: (name, restype, argtypes) of every function kforge.h declares, in its order.\n" ..
    "SIGNATURES = [\n" .. table.concat(rows) .. "]\n"
end

function M.files(families, specs)
  local names = {}
  for _, f in ipairs(families) do
    local s = specs[f]
    for _, op in ipairs(s.ops) do
      for _, x in ipairs(op.inputs) do
        local ok, err = check_name(op, x.name, "input", s.file)
        if not ok then return nil, err end
      end
      for _, a in ipairs(op.attrs) do
        if a.kind ~= "type" then
          local ok, err = check_name(op, a.name, "attr", s.file)
          if not ok then return nil, err end
        end
      end
      names[#names + 1] = op.name
    end
  end

  local o = { "# _ops.py -- kforge's ops for Python: one keyword-only function per TensorFlow op\n" ..
    "# (tf.raw_ops names, defaults and output namedtuples) and the op metadata\n" ..
    "# kforge/_runtime.py marshals with. Generated by generator/kforge-gen.lua\n" ..
    "# (emit_python.lua) from the specs in specs/ops/. Do not edit.\n",
    '"""kforge\'s ops, generated from the op specs (specs/ops/*.lua)."""\n',
    "from collections import namedtuple as _namedtuple\n",
    "from typing import Literal, Optional, Sequence\n\n",
    "import numpy as np\n",
    "from numpy.typing import ArrayLike\n\n",
    "from ._runtime import REQUIRED as _REQUIRED\n",
    "from ._runtime import AttrDef as _AttrDef\n",
    "from ._runtime import InputDef as _InputDef\n",
    "from ._runtime import OpDef as _OpDef\n",
    "from ._runtime import call as _call\n\n",
    "__all__ = [\n" }
  local all = {}
  for _, n in ipairs(names) do all[#all + 1] = n; all[#all + 1] = snake(n); all[#all + 1] = n .. "Output" end
  table.sort(all)
  for _, n in ipairs(all) do o[#o + 1] = "    " .. pystr(n) .. ",\n" end
  o[#o + 1] = "]\n\n\n"
  for _, f in ipairs(families) do
    local s = specs[f]
    for _, op in ipairs(s.ops) do emit_op(o, s, op) end
  end
  o[#o + 1] = "# snake_case names (TF's generated wrappers: tf.raw_ops.X is gen_*_ops.x).\n"
  for _, n in ipairs(names) do o[#o + 1] = snake(n) .. " = " .. n .. "\n" end
  o[#o + 1] = "\n# Every op, by TF name.\nOPS = {\n"
  for _, n in ipairs(names) do o[#o + 1] = "    " .. pystr(n) .. ": _OP_" .. n .. ",\n" end
  o[#o + 1] = "}\n"

  local r = { "# raw_ops.py -- kforge's ops by their TF names, as tf.raw_ops. Generated by\n" ..
    "# generator/kforge-gen.lua (emit_python.lua) from the specs in specs/ops/. Do not edit.\n",
    '"""kforge\'s ops by their TensorFlow names: kforge.raw_ops.X(**kwargs) as tf.raw_ops.X(**kwargs)."""\n' }
  for _, n in ipairs(names) do r[#r + 1] = "from ._ops import " .. n .. "\n" end
  r[#r + 1] = "\n__all__ = [\n"
  local sorted = {}
  for i, n in ipairs(names) do sorted[i] = n end
  table.sort(sorted)
  for _, n in ipairs(sorted) do r[#r + 1] = "    " .. pystr(n) .. ",\n" end
  r[#r + 1] = "]\n"
  return { { path = "python/_ops.py", text = table.concat(o) },
           { path = "python/raw_ops.py", text = table.concat(r) } }
end

return M
