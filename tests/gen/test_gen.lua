-- test_gen.lua -- tests of the kforge generator (generator/*.lua).
--
--   lua5.4 tests/gen/test_gen.lua        (from the repository root)
--
-- Prints "ok - ..." / "FAIL - ..." per check and ends with "N passed, M
-- failed"; exits 1 on failures. The template engine is tested by requiring
-- generator/template.lua; everything else by running the generator as a
-- subprocess on copies of specs/, templates/ and generator/ in a temporary
-- directory (--root), so the real tree is only read, never written.
-- KFG_TEST_KEEP=1 keeps the temporary directory for inspection.

package.path = "generator/?.lua;" .. package.path

local passed, failed = 0, 0

local function check(what, ok, detail)
  if ok then
    passed = passed + 1
    print("ok - " .. what)
  else
    failed = failed + 1
    print("FAIL - " .. what)
    if detail and detail ~= "" then
      local d = tostring(detail)
      if #d > 4000 then d = d:sub(1, 4000) .. "\n...(truncated)" end
      print("  # " .. d:gsub("\n+$", ""):gsub("\n", "\n  # "))
    end
  end
  return ok
end

-- Runs check(what, fn()) where fn returns ok, detail; an error in fn is a failure.
local function try(what, fn)
  local ok, r, detail = pcall(fn)
  if not ok then return check(what, false, "test error: " .. tostring(r)) end
  return check(what, r, detail)
end

local function has(s, frag) return type(s) == "string" and s:find(frag, 1, true) ~= nil end

-- ---------------------------------------------------------------- shell ----

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Runs a shell command; returns its stdout+stderr and exit status.
local function run(cmd)
  local p = io.popen("(" .. cmd .. ") 2>&1; echo \"@@rc=$?\"")
  local out = p:read("a")
  p:close()
  local body, rc = out:match("^(.*)@@rc=(%d+)\n?$")
  return body or out, tonumber(rc) or -1
end

local function readf(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function writef(path, text)
  local dir = path:match("^(.*)/[^/]*$")
  if dir then os.execute("mkdir -p " .. q(dir)) end
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

local function exists(path)
  local _, rc = run("test -e " .. q(path))
  return rc == 0
end

-- Replaces exactly one plain occurrence of old in the file.
local function edit(path, old, new)
  local s = assert(readf(path), "cannot read " .. path)
  local i, j = s:find(old, 1, true)
  assert(i, path .. ": text to replace not found: " .. old)
  assert(not s:find(old, j + 1, true), path .. ": text to replace found twice: " .. old)
  writef(path, s:sub(1, i - 1) .. new .. s:sub(j + 1))
end

-- Line number (1-based) of the first line containing frag.
local function line_of(text, frag)
  local i = assert(text:find(frag, 1, true), "not found: " .. frag)
  local _, n = text:sub(1, i):gsub("\n", "")
  return n + 1
end

-- Every file and directory under dir: relative path -> content ("<dir>" for directories).
local function snapshot(dir)
  local list = run("cd " .. q(dir) .. " && find . -mindepth 1 | LC_ALL=C sort")
  local t = {}
  for p in list:gmatch("[^\n]+") do
    local full = dir .. "/" .. p:sub(3)
    local c = readf(full)
    local isdir = select(2, run("test -d " .. q(full))) == 0
    t[p:sub(3)] = isdir and "<dir>" or c or "<unreadable>"
  end
  return t
end

local function same_snapshot(a, b)
  for k, v in pairs(a) do
    if b[k] ~= v then return false, "differs or missing: " .. k end
  end
  for k in pairs(b) do
    if a[k] == nil then return false, "new: " .. k end
  end
  return true
end

if not readf("generator/kforge-gen.lua") or not readf("specs/families.lua") then
  io.stderr:write("test_gen.lua: run from the repository root\n")
  os.exit(2)
end

local TMP = (run("mktemp -d"):gsub("%s+$", ""))
assert(TMP:match("^/") and exists(TMP), "mktemp -d failed: " .. TMP)

-- ------------------------------------------------------------- template ----

local template = require "template"

local function render(src, params, name)
  name = name or "t.c.in"
  local t, err = template.compile(src, name)
  if not t then return nil, err end
  return template.render(t, params or {})
end

-- Expects render(src) to fail with every fragment in frags.
local function render_err(what, src, params, frags)
  try(what, function()
    local out, err = render(src, params)
    if out then return false, "rendered without error:\n" .. out end
    for _, f in ipairs(frags) do
      if not has(err, f) then return false, "message lacks " .. f .. ": " .. tostring(err) end
    end
    return true
  end)
end

local function render_is(what, src, params, want)
  try(what, function()
    local out, err = render(src, params)
    if out ~= want then
      return false, "got " .. (out and string.format("%q", out) or "error " .. tostring(err)) ..
        "\nwant " .. string.format("%q", want)
    end
    return true
  end)
end

render_is("template: ${expr} substitutes names and expressions",
  "a ${x} b ${CT * 2} c ${s:upper()}${x}\n", { x = "X", CT = 8, s = "ab" }, "a X b 16 c ABX\n")
render_is("template: $$ is a literal $, also before {",
  "cost $$5 and $${x} $$$$\n", { x = "X" }, "cost $5 and ${x} $$\n")
render_is("template: a lone $ inside a text line is kept",
  "a $ b $x c$\n", {}, "a $ b $x c$\n")
render_is("template: $for / $end lines, indented $ lines",
  "{\n$for i = 0, N - 1 do\n  v${i} = ${i * 10};\n  $end\n}\n", { N = 3 }, "{\n  v0 = 0;\n  v1 = 10;\n  v2 = 20;\n}\n")
render_is("template: $if / $else / $end lines",
  "$if MODE == \"train\" then\ntrain\n$else\ninfer\n$end\n$if MODE ~= \"train\" then\nnot train\n$end\n",
  { MODE = "infer" }, "infer\nnot train\n")
render_is("template: $local and $-- comment lines emit nothing",
  "$-- a comment ${nothing}\n$local K = N * N\nk=${K}\n", { N = 3 }, "k=9\n")
render_is("template: integers print as integers (also integral floats, large, negative)",
  "${7} ${-3} ${1 << 40} ${2^3} ${N / 2}\n", { N = 8 }, "7 -3 1099511627776 8 4\n")
render_err("template: a non-integer number in ${} is an error naming file:line",
  "ok\n${N / 3}\n", { N = 8 }, { "t.c.in:2:", "non-integer", "f32() or f64()" })
render_err("template: a nil value in ${} is an error naming file:line",
  "a\nb\n${nil}\n", {}, { "t.c.in:3:", "nil" })
render_err("template: a boolean value in ${} is an error naming file:line",
  "a\n${N > 1}\n", { N = 8 }, { "t.c.in:2:", "boolean" })
render_err("template: an undefined variable in ${} names the variable and file:line",
  "a\nb\nc ${nope} d\n", {}, { "t.c.in:3:", "undefined template variable 'nope'" })
render_err("template: an undefined variable in a $ line names the variable and file:line",
  "a\n$if MISSING then\nx\n$end\n", {}, { "t.c.in:2:", "'MISSING'" })
render_err("template: Lua syntax error in a $ line reports the exact template line",
  "l1\nl2 ${x}\n$for i = 0, 3 do\nl4\n$if i ==  then\nl6\n$end\n$end\nl9\n", { x = 1 },
  { "t.c.in:5:" })
render_err("template: Lua syntax error inside ${} reports the exact template line",
  "l1\nl2\nl3\nl4 ${1 +} x\n", {}, { "t.c.in:4:" })
render_err("template: a missing $end is reported against the opening line",
  "l1\n$for i = 1, 2 do\nx\n", {}, { "t.c.in:", "line 2" })
render_err("template: an unterminated ${ is reported with file:line",
  "l1\nl2\nx = ${a + (b;\nl4\n", {}, { "t.c.in:3:", "unterminated ${" })
render_err("template: an empty ${} is reported with file:line",
  "l1\nx = ${ };\n", {}, { "t.c.in:2:", "empty ${}" })
render_err("template: a runtime error names file:line",
  "l1\nl2\n$local t = {} .. \"x\"\n", {}, { "t.c.in:3:", "concatenate" })
render_err("template: pairs is not available (iteration order is not deterministic)",
  "$for k, v in pairs({ a = 1 }) do\n${k}\n$end\n", {}, { "t.c.in:1:", "'pairs'" })
render_err("template: next is not available either", "${next({})}\n", {}, { "'next'" })
render_err("template: os, io, load are not available", "${os.time()}\n", {}, { "'os'" })
render_is("template: math, string, table, ipairs, tostring are available",
  "$local t = {} for _, v in ipairs({ 3, 1, 2 }) do t[#t + 1] = v end table.sort(t)\n" ..
  "${table.concat(t, \",\")} ${math.max(2, 5)} ${string.rep(\"a\", 3)} ${tostring(4)}\n", {}, "1,2,3 5 aaa 4\n")
render_is("template: f32()/f64() give C float literals",
  "${f64(0.1)} ${f64(1)} ${f64(2^53)} ${f64(1e300)} ${f32(0.5)} ${f32(3)} ${f64(-0.25)}\n", {},
  "0.10000000000000001 1.0 9007199254740992.0 1.0000000000000001e+300 0.5f 3.0f -0.25\n")
try("template: f32(x) is the float nearest x (RNE), e.g. f32(1 + 2^-24) denotes 1.0f", function()
  -- 1 + 2^-24 lies exactly between the floats 1 and 1 + 2^-23: C's (float)
  -- rounds it to even (1.0f), so the literal must denote 1.0f too. A
  -- 17-digit decimal of the double is read by the C compiler as slightly
  -- above the tie, giving 1.00000012f (double rounding).
  local lit = template.f32(1 + 2^-24)
  local v = tonumber((lit:gsub("f$", "")))
  return v == string.unpack("f", string.pack("f", 1 + 2^-24)), "f32(1 + 2^-24) = " .. lit .. " (C reads it as 1.00000012f)"
end)
render_is("template: mul/div/mod/add/sub/sum fold unit and zero constants (no `* 1`, `/ 1`, `% 1`, `+ 0`, `0 *`)",
  "${mul(\"c0\", 1)}|${mul(3, \"CM\")}|${mul(0, \"CM\")}|${mul(2, 3)}|${div(\"ty\", 1)}|${div(\"ty\", 2)}|" ..
  "${mod(\"oy\", 1)}|${mod(\"oy\", 3)}|${add(\"q\", 0)}|${add(\"q\", -2)}|${sub(\"ix + PL\", 0)}|${sub(\"ix\", 2)}|" ..
  "${sum(\"flt\", mul(0, \"CM\"), mul(\"c0\", 2), 0)}|${sum(0, \"0\")}|${par(\"q + 1\")}|${par(\"q\")}\n", {},
  "c0|3 * CM|0|6|ty|ty / 2|0|oy % 3|q|q - 2|ix + PL|ix - 2|flt + c0 * 2|0|(q + 1)|q\n")
render_err("template: f64() of a non-finite value is an error naming file:line",
  "a\nb\n${f64(1/0)}\n", {}, { "t.c.in:3:", "non-finite" })
render_err("template: f32() of a non-finite value is an error naming the template's file:line",
  "a\n${f32(0/0)}\n", {}, { "t.c.in:2:", "non-finite" })
render_is("template: a bare $ line is an empty statement",
  "a\n$\nb\n", {}, "a\nb\n")
render_is("template: require(cond, msg) passes a true condition through",
  "$require(N > 1, \"N must exceed 1\")\nn=${N}\n", { N = 2 }, "n=2\n")
render_err("template: require(cond, msg) stops with msg at the template's file:line",
  "a\n  $require(N > 1, \"N must exceed 1\")\n", { N = 1 }, { "t.c.in:2:", "N must exceed 1" })
try("template: one compiled template renders with different params", function()
  local t = assert(template.compile("v=${V}\n", "t.c.in"))
  local a, b = template.render(t, { V = 1 }), template.render(t, { V = 2 })
  local c = template.render(t, {})
  return a == "v=1\n" and b == "v=2\n" and c == nil, tostring(a) .. tostring(b) .. tostring(c)
end)
render_is("template: trailing blanks are trimmed, blank-line runs collapse to one",
  "a   \n$if false then\nx\n$end\n\n\n\nb\t\n", {}, "a\n\nb\n")

-- ------------------------------------------------------------ toy root ----
-- A small family under our full control, so the checks below do not depend
-- on the real specs: 3 axes (a string one with C constants, two integers).

local TOY_SPEC = [[
-- toy: a family for the generator tests.
return {
  family = "toy",
  summary = "A toy family.",
  ops = {
    {
      name = "Toy", enum = "KF_OP_TOY",
      inputs = { { name = "x", type = "T" } },
      outputs = { { name = "y", type = "T", doc = "like x" } },
      attrs = {
        { name = "T", kind = "type", allowed = { "float", "double" } },
        { name = "mode", kind = "string", default = "fast", allowed = { "fast", "exact" } },
        { name = "eps", kind = "float", default = 0.5 },
      },
    },
  },
  rules = {
    { id = "x_rank", tf = "toy 1", message = "x must be %d-dimensional" },
    { id = "y_rank", message = "y must be %d-dimensional" },
  },
  axes = {
    { name = "T", values = { "f32", "f64" }, c = { f32 = "KF_FLOAT", f64 = "KF_DOUBLE" } },
    { name = "kh", values = { 1, 2, 3 } },
    { name = "kw", values = { 1, 2, 3 } },
  },
  kernels = {
    { kind = "specialized", axes = { "T", "kh", "kw" },
      name = "toy_${T}_k${kh}x${kw}", template = "toy/spec.c.in", config = "T=${T} k=${kh}x${kw}" },
    { kind = "generic", axes = { "T" }, name = "toy_${T}_generic", template = "toy/generic.c.in" },
  },
  params = { UNROLL = 4 },
}
]]

local TOY_SET = [[
return {
  name = "toy",
  summary = "The toy kernels.",
  kernels = {
    { family = "toy", kind = "specialized", T = "*", kh = { 1, 3 }, kw = "=kh" },
    { family = "toy", kind = "generic", T = "f32" },
  },
}
]]

local TOY_SPEC_TPL = [[
$-- Toy specialized kernel: ${kh}x${kw} taps unrolled.
$local TAPS = kh * kw
/* ${FAMILY} ${KERNEL} isa=${ISA} T=${T} ctype=${ctype} acc=${acc} tf=${tf_type} unroll=${UNROLL} */
size_t ${KERNEL}_scratch(const void *args) {
  (void)args;
  return ${TAPS} * sizeof(${acc});
}

void ${KERNEL}(const void *args) {
  ${acc} s = ${T == "f32" and f32(0.5) or f64(0.5)};
$for i = 0, TAPS - 1 do
  s += (${acc})${i}; /* tap ${i} */
$end
$if kh == kw then
  /* square */
$else
  /* not square */
$end
  (void)args; (void)s;
}
]]

local TOY_GENERIC_TPL = [[
/* generic ${KERNEL} ${T} */
size_t ${KERNEL}_scratch(const void *args) { (void)args; return 0; }
void ${KERNEL}(const void *args) { (void)args; }
]]

local TOY = TMP .. "/toy"
writef(TOY .. "/specs/families.lua", 'return { "toy" }\n')
writef(TOY .. "/specs/isas.lua", readf("specs/isas.lua"))
-- the toy op's attrs are fields of its kf_attrs (specs/attrs.lua of the toy tree)
writef(TOY .. "/specs/attrs.lua", [[
return {
  enums = { { name = "mode", ctype = "toy_mode", invalid = "TOY_MODE_INVALID",
              values = { { "fast", "TOY_FAST" }, { "exact", "TOY_EXACT" } } } },
  fields = {
    { name = "T", kind = "type" },
    { name = "mode", kind = "string", enum = "mode" },
    { name = "eps", kind = "float" },
  },
}
]])
writef(TOY .. "/specs/runtime.lua", readf("specs/runtime.lua"))
-- the public header: the Python package's ctypes table (python/_capi.py) is read from it
writef(TOY .. "/runtime/kforge.h", readf("runtime/kforge.h"))
writef(TOY .. "/specs/ops/toy.lua", TOY_SPEC)
writef(TOY .. "/specs/sets/toy.lua", TOY_SET)
writef(TOY .. "/templates/toy/spec.c.in", TOY_SPEC_TPL)
writef(TOY .. "/templates/toy/generic.c.in", TOY_GENERIC_TPL)
run("cp -r generator " .. q(TOY .. "/generator"))

local ncopies = 0
local function copy_root(from)
  ncopies = ncopies + 1
  local dir = TMP .. "/root" .. ncopies
  local out, rc = run("cp -r " .. q(from) .. " " .. q(dir))
  assert(rc == 0, out)
  return dir
end

-- Runs the root's own generator on the root (set: specs/sets/<set>).
local function gen(root, out, extra, set)
  return run("lua5.4 " .. q(root .. "/generator/kforge-gen.lua") .. " --root " .. q(root) ..
    " --set " .. q(root .. "/specs/sets/" .. (set or "toy.lua")) .. " --out " .. q(out) .. (extra or ""))
end

-- ----------------------------------------------------- toy: the output ----

local SPEC_PATH = "/specs/ops/toy.lua"
local TOUT = TMP .. "/toy_out"
local tmsg, trc = gen(TOY, TOUT)
check("generator: the toy family generates (exit 0)", trc == 0, tmsg)
local toy_snap = snapshot(TOUT)

local TOY_KERNELS = { "kfg_toy_f32_generic__scalar", "kfg_toy_f32_k1x1__scalar", "kfg_toy_f32_k3x3__scalar",
  "kfg_toy_f64_k1x1__scalar", "kfg_toy_f64_k3x3__scalar" }

local TOY_TABLES = { "bench.ninja", "kfg_bench.h", "kfg_ops.c", "kfg_planners.h", "kfg_registry.c", "kfg_spec.h",
  "kforge_ops.h", "sources.ninja", "python/_capi.py", "python/_ops.py", "python/raw_ops.py",
  "tf/kfg_tf_ops.h" }
try("output: the files are FILES, the tables (ops, registry, public ops header, planners, build lists) and one file per kernel",
  function()
    local want = { "FILES", "python", "tf", "toy" }
    for _, f in ipairs(TOY_TABLES) do want[#want + 1] = f end
    for _, k in ipairs(TOY_KERNELS) do want[#want + 1] = "toy/" .. k .. ".c" end
    local got = {}
    for k in pairs(toy_snap) do got[#got + 1] = k end
    table.sort(want)
    table.sort(got)
    return table.concat(want, " ") == table.concat(got, " "), "got: " .. table.concat(got, " ")
  end)

try("output: FILES lists every generated file, sorted, FILES last", function()
  local want = {}
  for _, k in ipairs(TOY_KERNELS) do want[#want + 1] = "toy/" .. k .. ".c" end
  for _, f in ipairs(TOY_TABLES) do want[#want + 1] = f end
  table.sort(want)
  want[#want + 1] = "FILES"
  local f = toy_snap["FILES"]
  return f == table.concat(want, "\n") .. "\n", f
end)

try("python: _ops.py has the op as a keyword-only function with the spec's names, defaults and docs; raw_ops.py its TF name",
  function()
    local o, r = toy_snap["python/_ops.py"] or "", toy_snap["python/raw_ops.py"] or ""
    local frags = { 'def Toy(\n    *,\n    x: ArrayLike,\n    mode: Literal["fast", "exact"] = "fast",\n' ..
      '    eps: float = 0.5,\n    out: Optional[np.ndarray] = None,\n    threads: Optional[int] = None,\n' ..
      '    name: Optional[str] = None,\n) -> np.ndarray:\n    """Toy: A toy family.',
      '      y: T (float, double), a numpy array; like x.',
      '_InputDef("x", "T", host=False)', '_AttrDef("eps", "float", 0.5, None)',
      '        toy.x_rank, toy.y_rank.', "    return _call(_OP_Toy, (x,), (mode, eps), out, threads)",
      "\ntoy = Toy\n" }
    local bad = {}
    for _, f in ipairs(frags) do if not has(o, f) then bad[#bad + 1] = f end end
    if not has(r, "from ._ops import Toy\n") then bad[#bad + 1] = "raw_ops.py: from ._ops import Toy" end
    return #bad == 0, "missing:\n" .. table.concat(bad, "\n") .. "\n_ops.py:\n" .. o
  end)

try("tf: kfg_tf_ops.h has the op's TF and Kforge names, kf_op and TF op-def strings of its inputs, outputs and attrs",
  function()
    local h = toy_snap["tf/kfg_tf_ops.h"] or ""
    local frags = { 'static const char *const kfg_tf_Toy_in[] = {\n  "x: T",\n  NULL\n};',
      'static const char *const kfg_tf_Toy_out[] = {\n  "y: T",\n  NULL\n};',
      'static const char *const kfg_tf_Toy_attr_defs[] = {\n  "T: {float, double}",\n' ..
      '  "mode: {\'fast\', \'exact\'} = \'fast\'",\n  "eps: float = 0.5",\n  NULL\n};',
      'static const TF_DataType kfg_tf_Toy_a1_types[] = { TF_FLOAT, TF_DOUBLE };',
      '{ "eps", KFG_TF_FLOAT, NULL, NULL, 0, offsetof(kf_attrs, eps), 0, sizeof(((kf_attrs *)0)->eps), 1 },',
      '{ "Toy", "KforgeToy", KF_OP_TOY, 0x0u,', "#define KFG_TF_NUM_OPS 1\n",
      "#define KFG_TF_FOR_EACH_OP(X) X(0)\n" }
    local bad = {}
    for _, f in ipairs(frags) do if not has(h, f) then bad[#bad + 1] = f end end
    return #bad == 0, "missing:\n" .. table.concat(bad, "\n") .. "\nkfg_tf_ops.h:\n" .. h
  end)

try("tf: op-def rendering: int32 inputs are host inputs, list and bool defaults, quoted strings, shortest floats",
  function()
    local et = require "emit_tf"
    local checks = {
      { et.attr_def({ name = "s", kind = "int_list", default = { 1, 2 } }), "s: list(int) = [1, 2]" },
      { et.attr_def({ name = "s", kind = "int_list", required = true }), "s: list(int)" },
      { et.attr_def({ name = "b", kind = "bool", default = false }), "b: bool = false" },
      { et.attr_def({ name = "p", kind = "string", default = "it's" }), "p: string = 'it\\'s'" },
      { et.attr_def({ name = "e", kind = "float", default = 1e-3 }), "e: float = 0.001" },
      { et.attr_def({ name = "e", kind = "float", default = 1 }), "e: float = 1" },
      { et.attr_def({ name = "T", kind = "type", default = "float", allowed = { "float" } }), "T: {float}" },
      { et.attr_def({ name = "T", kind = "type" }), "T: type" },
    }
    local bad = {}
    for _, c in ipairs(checks) do if c[1] ~= c[2] then bad[#bad + 1] = tostring(c[1]) .. " ~= " .. c[2] end end
    local f = et.files({ "x" }, { x = { file = "x.lua", ops = { { name = "X", enum = "KF_OP_X",
      inputs = { { name = "a", type = "T" }, { name = "n", type = "int32" } }, outputs = { { name = "y", type = "T" } },
      attrs = {} } } } }, { fields = {} })
    if not has(f[1].text, '{ "X", "KforgeX", KF_OP_X, 0x2u,') then bad[#bad + 1] = "host_inputs 0x2u" end
    return #bad == 0, table.concat(bad, "\n")
  end)

try("output: a kernel file is banner, #include \"kfi_kernel.h\" and its family's kfi_<family>.h, its two prototypes, then the template text",
  function()
    local f = toy_snap["toy/kfg_toy_f32_k1x1__scalar.c"] or ""
    local want = "/* kfg_toy_f32_k1x1__scalar.c -- T=f32 k=1x1 (scalar)\n" ..
      "** Generated by generator/kforge-gen.lua from templates/toy/spec.c.in and specs/ops/toy.lua. Do not edit. */\n" ..
      "#include \"kfi_kernel.h\"\n#include \"kfi_toy.h\"\n\n" ..
      "void kfg_toy_f32_k1x1__scalar(const void *args, const kfi_par *par);\n" ..
      "size_t kfg_toy_f32_k1x1__scalar_scratch(const void *args);\n" ..
      "/* toy kfg_toy_f32_k1x1__scalar isa=scalar T=f32 ctype=float acc=float tf=float unroll=4 */\n" ..
      "size_t kfg_toy_f32_k1x1__scalar_scratch(const void *args) {\n"
    return f:sub(1, #want) == want, f
  end)

try("output: templates see axis values, KERNEL, FAMILY, ISA, ctype/acc/tf_type, params", function()
  local f = toy_snap["toy/kfg_toy_f64_k3x3__scalar.c"] or ""
  local _, taps = f:gsub("/%* tap %d %*/", "")
  return has(f, "/* toy kfg_toy_f64_k3x3__scalar isa=scalar T=f64 ctype=double acc=double tf=double unroll=4 */")
    and has(f, "return 9 * sizeof(double);") and has(f, "double s = 0.5;") and taps == 9
    and has(f, "/* square */") and not has(f, "not square"), f
end)

try("output: a kernel without the T axis value tie still gets its generic template", function()
  local f = toy_snap["toy/kfg_toy_f32_generic__scalar.c"] or ""
  return has(f, "(scalar)") and has(f, "from templates/toy/generic.c.in and specs/ops/toy.lua")
    and has(f, "/* generic kfg_toy_f32_generic__scalar f32 */"), f
end)

try("output: \"=kh\" ties kw to kh (no k1x3 / k3x1 kernels)", function()
  return toy_snap["toy/kfg_toy_f32_k1x3__scalar.c"] == nil and toy_snap["toy/kfg_toy_f32_k3x1__scalar.c"] == nil
    and toy_snap["toy/kfg_toy_f32_k3x3__scalar.c"] ~= nil
end)

try("output: kfg_registry.c is in selection order: most specific first, then by name; keys use C constants", function()
  local f = toy_snap["kfg_registry.c"] or ""
  local names = {}
  for n in f:gmatch('\n  { "([%w_]+)",') do names[#names + 1] = n end
  local want = "kfg_toy_f32_k1x1__scalar kfg_toy_f32_k3x3__scalar kfg_toy_f64_k1x1__scalar " ..
    "kfg_toy_f64_k3x3__scalar kfg_toy_f32_generic__scalar"
  return table.concat(names, " ") == want
    and has(f, '{ "kfg_toy_f64_k3x3__scalar", "T=f64 k=3x3 isa=scalar", KFG_FAMILY_TOY, KFI_ISA_SCALAR, 0, { KF_DOUBLE, 3, 3 }, ' ..
      "kfg_toy_f64_k3x3__scalar, kfg_toy_f64_k3x3__scalar_scratch, 1, { { NULL, 0 } } },")
    and has(f, '{ "kfg_toy_f32_generic__scalar", "toy_f32_generic isa=scalar", KFG_FAMILY_TOY, KFI_ISA_SCALAR, 1, ' ..
      "{ KF_FLOAT, KFI_ANY, KFI_ANY },")
    and has(f, "const int kfg_registry_count = (int)(sizeof kfg_registry / sizeof kfg_registry[0]) - 1;")
    and has(f, "from specs/sets/toy.lua. Do not edit."), f
end)

try("output: kfg_spec.h has the family, key slots and rule ids", function()
  local f = toy_snap["kfg_spec.h"] or ""
  return has(f, "KFG_FAMILY_TOY = 0,") and has(f, "KFG_FAMILY_COUNT = 1") and has(f, "#define KFG_TOY_KEY_KH 1")
    and has(f, "#define KFG_TOY_KEY_LEN 3") and has(f, "#define KFG_MAX_KEY 3")
    and has(f, "KFG_RULE_TOY_Y_RANK = 1,") and has(f, "KFG_RULE_COUNT = 2"), f
end)

try("output: kfg_ops.c has the op, attr, axis and rule tables", function()
  local f = toy_snap["kfg_ops.c"] or ""
  return has(f, '{ KF_OP_TOY, "Toy", KFG_FAMILY_TOY, 1, Toy_in, 1, Toy_out, 3, Toy_attrs },')
    and has(f, '{ "mode", KFI_ATTR_STRING, "fast", Toy_a2, 2, 0,\n    { offsetof(kf_attrs, mode), 0, 1, sizeof(((kf_attrs *)0)->mode), kfg_enum_mode, 2 } },')
    and has(f, '{ "eps", KFI_ATTR_FLOAT, "0.5", NULL, 0, 0,\n    { offsetof(kf_attrs, eps), 0, 1, sizeof(((kf_attrs *)0)->eps), NULL, 0 } },')
    and has(f, '{ "T", KFI_ATTR_TYPE, NULL, Toy_a1, 2, 0,')
    and has(f, '{ "toy", 3, toy_axes, kfi_plan_toy, kfi_exec_toy },')
    and has(f, '{ KF_FLOAT, "f32" }, { KF_DOUBLE, "f64" }')
    and has(f, '{ "toy.x_rank", "x must be %d-dimensional" },'), f
end)

try("output: sources.ninja has one kcc edge per kernel file and the libkfg.a archive", function()
  local f = toy_snap["sources.ninja"] or ""
  local _, n = f:gsub("\nbuild %$builddir/obj/[%w_/]+%.o: kcc %$gen/[%w_/]+%.c", "")
  return n == 7 and has(f, "build $builddir/obj/toy/kfg_toy_f32_k1x1__scalar.o: kcc $gen/toy/kfg_toy_f32_k1x1__scalar.c")
    and has(f, "build $builddir/libkfg.a: ar ") and has(f, "from specs/sets/toy.lua"), f
end)

try("isa_only: an ISA variant is generated only for the axis values it lists", function()
  local r = copy_root(TOY)
  edit(r .. SPEC_PATH, 'template = "toy/spec.c.in",', 'template = "toy/spec.c.in", isa_only = { scalar = { kh = { 1 } } },')
  local out = TMP .. "/isa_only_out"
  local msg, rc = gen(r, out)
  if rc ~= 0 then return false, msg end
  local snap = snapshot(out)
  return snap["toy/kfg_toy_f32_k1x1__scalar.c"] ~= nil and snap["toy/kfg_toy_f32_k3x3__scalar.c"] == nil
    and snap["toy/kfg_toy_f64_k3x3__scalar.c"] == nil and snap["toy/kfg_toy_f32_generic__scalar.c"] ~= nil,
    "files: " .. (snap["FILES"] or "?")
end)

try("include: a part sees the kernel's params plus the names its includer passes", function()
  local r = copy_root(TOY)
  writef(r .. "/templates/toy/part.c.in", "/* part ${KERNEL} taps=${TAPS} sq=${SQUARE and 1 or 0} */\n")
  edit(r .. "/templates/toy/spec.c.in", "$local TAPS = kh * kw\n",
    "$local TAPS = kh * kw\n${include(\"toy/part.c.in\", { TAPS = TAPS, SQUARE = kh == kw })}\n")
  local out = TMP .. "/include_out"
  local msg, rc = gen(r, out)
  if rc ~= 0 then return false, msg end
  local f = snapshot(out)["toy/kfg_toy_f32_k3x3__scalar.c"] or ""
  return has(f, "/* part kfg_toy_f32_k3x3__scalar taps=9 sq=1 */"), f
end)

try("include: a name that would hide a kernel param is an error naming the template line", function()
  local r = copy_root(TOY)
  writef(r .. "/templates/toy/part.c.in", "x\n")
  edit(r .. "/templates/toy/spec.c.in", "$local TAPS = kh * kw\n", "$local TAPS = kh * kw\n${include(\"toy/part.c.in\", { kh = 1 })}\n")
  local msg, rc = gen(r, TMP .. "/include_bad_out")
  return rc ~= 0 and has(msg, "templates/toy/spec.c.in:3:") and has(msg, "extra name 'kh' is also a kernel parameter"), msg
end)

-- ------------------------------------------------- malformed specs ----

-- Each case: mutate a copy of the toy root, run into TOUT (must stay
-- byte-identical) and into a fresh dir (must not be created), exit 1,
-- message with every fragment.
local function bad_case(name, mutate, frags)
  local ok, root = pcall(function()
    local r = copy_root(TOY)
    mutate(r)
    return r
  end)
  if not ok then
    check(name .. ": reported", false, "test setup error: " .. tostring(root))
    check(name .. ": nothing written", false, "test setup error")
    return
  end
  local fresh = TMP .. "/fresh" .. ncopies
  local dep = TMP .. "/dep" .. ncopies .. ".d"
  local msg, rc = gen(root, TOUT, " --depfile " .. q(dep) .. " --deptarget x")
  local msg2, rc2 = gen(root, fresh)
  local bad = {}
  if rc ~= 1 then bad[#bad + 1] = "exit status " .. rc .. ", want 1" end
  if has(msg, "stack traceback") then bad[#bad + 1] = "a Lua traceback instead of a message" end
  for _, f in ipairs(frags) do
    if not has(msg, f) then bad[#bad + 1] = "message lacks: " .. f end
  end
  if not has(msg, "kforge-gen: ") then bad[#bad + 1] = "message does not start with kforge-gen:" end
  check(name .. ": exit 1, message names " .. table.concat(frags, " | "), #bad == 0,
    table.concat(bad, "\n") .. "\nmessage: " .. msg)
  local same, why = same_snapshot(toy_snap, snapshot(TOUT))
  local w = {}
  if not same then w[#w + 1] = "existing output dir changed: " .. why end
  if exists(fresh) then w[#w + 1] = "fresh output dir was created" end
  if exists(dep) then w[#w + 1] = "depfile was written" end
  if rc2 ~= 1 then w[#w + 1] = "fresh run exit status " .. rc2 .. ": " .. msg2 end
  check(name .. ": nothing written (existing output untouched, fresh output and depfile not created)", #w == 0,
    table.concat(w, "\n"))
  -- A failed case may have changed TOUT: restore it for the next one.
  if not same then
    run("rm -rf " .. q(TOUT))
    gen(TOY, TOUT)
  end
end

local SPEC = "/specs/ops/toy.lua"
local SET = "/specs/sets/toy.lua"
local SPEC_TPL = "/templates/toy/spec.c.in"

bad_case("spec: not a table", function(r)
  writef(r .. SPEC, 'return "toy"\n')
end, { "specs/ops/toy.lua: must return a table, got string" })

bad_case("spec: Lua syntax error (file:line)", function(r)
  edit(r .. SPEC, 'summary = "A toy family.",', 'summary = = "A toy family.",')
end, { "specs/ops/toy.lua:" .. line_of(TOY_SPEC, "summary =") .. ":" })

bad_case("spec: unknown field in an op", function(r)
  edit(r .. SPEC, 'name = "Toy",', 'name = "Toy", colour = "red",')
end, { "specs/ops/toy.lua: field 'ops[1].colour': unknown field" })

bad_case("spec: missing required field summary", function(r)
  edit(r .. SPEC, 'summary = "A toy family.",', "")
end, { "specs/ops/toy.lua: field 'summary': missing required field (string)" })

bad_case("spec: wrong type (a float among axis values)", function(r)
  edit(r .. SPEC, 'name = "kh", values = { 1, 2, 3 }', 'name = "kh", values = { 1, 2.5, 3 }')
end, { "specs/ops/toy.lua: field 'axes[2].values[2]': expected", "integer", "got 2.5" })

bad_case("spec: wrong type (summary a number)", function(r)
  edit(r .. SPEC, 'summary = "A toy family.",', "summary = 42,")
end, { "specs/ops/toy.lua: field 'summary': expected string, got 42" })

bad_case("spec: a string axis value without its C constant", function(r)
  edit(r .. SPEC, '{ name = "kw", values = { 1, 2, 3 } },', '{ name = "kw", values = { 1, 2, 3 } }, { name = "v", values = { "a" } },')
end, { "specs/ops/toy.lua: field 'axes[4].c': missing the C constant of value \"a\"" })

try("spec: blocks become registry metadata (lanes and block widths)", function()
  local root = copy_root(TOY)
  edit(root .. SPEC, "params = { UNROLL = 4 },", 'params = { UNROLL = 4 }, blocks = { W = "UNROLL" },')
  local out = TMP .. "/tblocks"
  local m, rc = gen(root, out)
  local reg = readf(out .. "/kfg_registry.c") or ""
  return rc == 0 and has(reg, 'kfg_toy_f64_k3x3__scalar_scratch, 1, { { "W", 4 } } },'), m .. reg
end)

bad_case("spec: blocks naming no numeric param", function(r)
  edit(r .. SPEC, "params = { UNROLL = 4 },", 'params = { UNROLL = 4 }, blocks = { W = "NOPE" },')
end, { "specs/ops/toy.lua: field 'blocks.W': \"NOPE\" is not a numeric param of the family" })

try("spec: a T axis without C constants takes them from generator/dtypes.lua", function()
  local root = copy_root(TOY)
  edit(root .. SPEC, ', c = { f32 = "KF_FLOAT", f64 = "KF_DOUBLE" }', "")
  local out = TMP .. "/tdtypes"
  local m, rc = gen(root, out)
  local reg = readf(out .. "/kfg_registry.c") or ""
  return rc == 0 and has(reg, "{ KF_DOUBLE, 3, 3 }") and has(reg, "{ KF_FLOAT, 1, 1 }"), m .. reg
end)

bad_case("spec: a kernel kind using an axis not in the spec", function(r)
  edit(r .. SPEC, 'axes = { "T", "kh", "kw" }', 'axes = { "T", "kh", "kz" }')
end, { "specs/ops/toy.lua: field 'kernels[1].axes[3]': unknown axis \"kz\"" })

bad_case("spec: ${name} in a kernel name pattern that is not an axis of the kind", function(r)
  edit(r .. SPEC, 'name = "toy_${T}_generic"', 'name = "toy_${T}_${kh}_generic"')
end, { "specs/ops/toy.lua: field 'kernels[2].name': ${kh} is not an axis of this kernel kind" })

bad_case("spec: ${name} in a kernel template pattern that is not an axis of the kind", function(r)
  edit(r .. SPEC, 'template = "toy/generic.c.in"', 'template = "toy/${kw}.c.in"')
end, { "specs/ops/toy.lua: field 'kernels[2].template': ${kw} is not an axis" })

bad_case("spec: isa_only names an ISA the kind does not have", function(r)
  edit(r .. SPEC, 'template = "toy/spec.c.in",', 'template = "toy/spec.c.in", isa_only = { neon = { kh = { 1 } } },')
end, { "specs/ops/toy.lua: field 'kernels[1].isa_only.neon': not one of this kind's isas" })

bad_case("spec: isa_only names an axis the kind does not have", function(r)
  edit(r .. SPEC, 'template = "toy/spec.c.in",', 'template = "toy/spec.c.in", isa_only = { scalar = { kz = { 1 } } },')
end, { "specs/ops/toy.lua: field 'kernels[1].isa_only.scalar.kz': not an axis of this kernel kind" })

bad_case("spec: isa_only lists a value the axis does not have", function(r)
  edit(r .. SPEC, 'template = "toy/spec.c.in",', 'template = "toy/spec.c.in", isa_only = { scalar = { kh = { 1, 9 } } },')
end, { "specs/ops/toy.lua: field 'kernels[1].isa_only.scalar.kh[2]': 9 is not a value of axis kh" })

bad_case("spec: duplicate rule id", function(r)
  edit(r .. SPEC, 'id = "y_rank"', 'id = "x_rank"')
end, { "specs/ops/toy.lua: field 'rules[2].id': duplicate \"x_rank\"" })

bad_case("spec: attr default not in its allowed list", function(r)
  edit(r .. SPEC, 'default = "fast"', 'default = "slow"')
end, { "specs/ops/toy.lua: field 'ops[1].attrs[2].default': slow is not in allowed" })

bad_case("spec: attr kind not one of the kinds", function(r)
  edit(r .. SPEC, 'kind = "float", default = 0.5', 'kind = "real", default = 0.5')
end, { "specs/ops/toy.lua: field 'ops[1].attrs[3].kind': expected one of" })

bad_case("spec: family field not matching the file name", function(r)
  edit(r .. SPEC, 'family = "toy",', 'family = "toys",')
end, { "specs/ops/toy.lua: field 'family': expected \"toy\" (the file's name), got \"toys\"" })

bad_case("spec: calling a function (empty environment) is a located error", function(r)
  edit(r .. SPEC, 'family = "toy",', 'family = print("x"),')
end, { "specs/ops/toy.lua:" .. line_of(TOY_SPEC, 'family = "toy"') .. ":", "print" })

bad_case("python: an input named like a Python keyword cannot be a keyword argument", function(r)
  edit(r .. SPEC, 'inputs = { { name = "x", type = "T" } }', 'inputs = { { name = "lambda", type = "T" } }')
end, { "specs/ops/toy.lua: op Toy: input 'lambda' cannot be a Python keyword argument" })

bad_case("python: an input named threads (every op function's own parameter) is an error", function(r)
  edit(r .. SPEC, 'inputs = { { name = "x", type = "T" } }', 'inputs = { { name = "threads", type = "T" } }')
end, { "specs/ops/toy.lua: op Toy: input 'threads' cannot be a Python keyword argument" })

bad_case("spec: a T axis value with no entry in generator/dtypes.lua", function(r)
  edit(r .. SPEC, 'values = { "f32", "f64" }, c = { f32 = "KF_FLOAT", f64 = "KF_DOUBLE" }',
    'values = { "f32", "i32" }, c = { f32 = "KF_FLOAT", i32 = "KF_INT32" }')
end, { "specs/ops/toy.lua", "i32" })

bad_case("spec: a kernel name pattern that does not make a C identifier", function(r)
  edit(r .. SPEC, 'name = "toy_${T}_generic"', 'name = "toy-${T} generic"')
end, { "specs/ops/toy.lua: field 'kernels[2].name'" })

bad_case("spec: two kernel kinds that make the same kernel name", function(r)
  edit(r .. SPEC, 'name = "toy_${T}_generic"', 'name = "toy_${T}_k1x1"')
end, { "kfg_toy_f32_k1x1__scalar" })

bad_case("manifest: unknown family (names the manifest's field)", function(r)
  edit(r .. SET, '{ family = "toy", kind = "generic"', '{ family = "nosuch", kind = "generic"')
end, { "specs/sets/toy.lua: field 'kernels[2].family'", "nosuch" })

bad_case("manifest: a family with a spec but not in specs/families.lua", function(r)
  writef(r .. "/specs/ops/toy2.lua", (TOY_SPEC:gsub('family = "toy"', 'family = "toy2"')))
  edit(r .. SET, '{ family = "toy", kind = "generic"', '{ family = "toy2", kind = "generic"')
end, { "field 'kernels[2].family': unknown family \"toy2\"" })

bad_case("manifest: unknown kernel kind", function(r)
  edit(r .. SET, 'kind = "generic"', 'kind = "fancy"')
end, { "specs/sets/toy.lua: field 'kernels[2].kind': family toy has no kernel kind \"fancy\"" })

bad_case("manifest: unknown axis", function(r)
  edit(r .. SET, 'kind = "generic", T = "f32"', 'kind = "generic", T = "f32", kz = 1')
end, { "specs/sets/toy.lua: field 'kernels[2].kz': not an axis of toy generic kernels" })

bad_case("manifest: an axis of the family that is not an axis of the kind", function(r)
  edit(r .. SET, 'kind = "generic", T = "f32"', 'kind = "generic", T = "f32", kh = 1')
end, { "specs/sets/toy.lua: field 'kernels[2].kh': not an axis of toy generic kernels" })

bad_case("manifest: a value not in the axis", function(r)
  edit(r .. SET, 'kind = "generic", T = "f32"', 'kind = "generic", T = "f16"')
end, { "specs/sets/toy.lua: field 'kernels[2].T': f16 is not a value of axis T" })

bad_case("manifest: an integer value not in the axis (in a list)", function(r)
  edit(r .. SET, "kh = { 1, 3 }", "kh = { 1, 9 }")
end, { "specs/sets/toy.lua: field 'kernels[1].kh': 9 is not a value of axis kh" })

bad_case("manifest: a missing axis of the kind", function(r)
  edit(r .. SET, 'kind = "generic", T = "f32"', 'kind = "generic"')
end, { "specs/sets/toy.lua: field 'kernels[2].T': missing" })

bad_case("manifest: \"=other\" naming a later axis", function(r)
  edit(r .. SET, 'kh = { 1, 3 }, kw = "=kh"', 'kh = "=kw", kw = { 1, 3 }')
end, { "specs/sets/toy.lua: field 'kernels[1].kh': \"=kw\" must name an axis listed before kh" })

bad_case("manifest: missing required field summary", function(r)
  edit(r .. SET, 'summary = "The toy kernels.",', "")
end, { "specs/sets/toy.lua: field 'summary': missing required field" })

bad_case("template: a runtime error names the template's file:line", function(r)
  edit(r .. SPEC_TPL, "  (void)args; (void)s;", "  (void)args; (void)s; ${UNROLL .. {}}")
end, { "templates/toy/spec.c.in:" .. line_of(TOY_SPEC_TPL, "(void)args; (void)s;") .. ":" })

bad_case("template: a Lua syntax error names the template's file and exact line", function(r)
  edit(r .. SPEC_TPL, "$if kh == kw then", "$if kh == then")
end, { "templates/toy/spec.c.in:" .. line_of(TOY_SPEC_TPL, "$if kh == kw then") .. ":" })

bad_case("template: an undefined variable (an axis the kind does not have)", function(r)
  edit(r .. "/templates/toy/generic.c.in", "/* generic ${KERNEL} ${T} */", "/* generic ${KERNEL} ${T} ${kh} */")
end, { "templates/toy/generic.c.in:1: undefined template variable 'kh'" })

bad_case("template: a missing template file", function(r)
  os.remove(r .. "/templates/toy/generic.c.in")
end, { "kernel kfg_toy_f32_generic__scalar needs template templates/toy/generic.c.in, which cannot be read" })

-- ------------------------------------------------- include(path, extra) ----

-- The toy kernel includes toy/part.c.in with extra names (a value, a
-- function, false); part.c.in includes toy/inner.c.in with its own extra.
local PART_TPL = [[
$-- From toy/spec.c.in: TAPS, tap_name, SQUARE.
/* part ${KERNEL} taps=${TAPS} first=${tap_name(0)} square=${SQUARE and "yes" or "no"} */
${include("toy/inner.c.in", { WHO = "part" })}
]]
local INNER_TPL = "/* inner of ${WHO} T=${T} */\n"
local INCLUDE_LINE = '${include("toy/part.c.in", { TAPS = TAPS, tap_name = function(i) return "tap" .. i end, SQUARE = false })}'
local function with_include(r, line, part, inner)
  edit(r .. SPEC_TPL, "  (void)args; (void)s;\n}\n", "  (void)args; (void)s;\n}\n" .. line .. "\n")
  writef(r .. "/templates/toy/part.c.in", part or PART_TPL)
  writef(r .. "/templates/toy/inner.c.in", inner or INNER_TPL)
end

try("include: the included template sees the kernel's parameters and the extra names; a nested include its own", function()
  local r = copy_root(TOY)
  with_include(r, INCLUDE_LINE)
  local out = TMP .. "/include_out"
  local msg, rc = gen(r, out)
  if rc ~= 0 then return false, msg end
  local f = readf(out .. "/toy/kfg_toy_f64_k3x3__scalar.c") or ""
  return has(f, "/* part kfg_toy_f64_k3x3__scalar taps=9 first=tap0 square=no */\n/* inner of part T=f64 */\n"), f
end)

bad_case("include: an extra name that is also a kernel parameter", function(r)
  with_include(r, '${include("toy/part.c.in", { TAPS = TAPS, tap_name = tostring, SQUARE = true, T = "f16" })}')
end, { "templates/toy/spec.c.in:" .. (line_of(TOY_SPEC_TPL, "(void)args; (void)s;") + 2) .. ": " ..
       "include templates/toy/part.c.in: extra name 'T' is also a kernel parameter" })

bad_case("include: an extra name that is also a builtin", function(r)
  with_include(r, '${include("toy/part.c.in", { TAPS = TAPS, tap_name = tostring, SQUARE = true, f32 = 1 })}')
end, { "include templates/toy/part.c.in: extra name 'f32' is also a builtin" })

bad_case("include: a nested include does not see its includer's extra names", function(r)
  with_include(r, INCLUDE_LINE, nil, "/* inner of ${WHO}, ${TAPS} taps */\n")
end, { "templates/toy/inner.c.in:1: undefined template variable 'TAPS'" })

bad_case("include: extra must be a table", function(r)
  with_include(r, '${include("toy/part.c.in", "TAPS")}')
end, { "include templates/toy/part.c.in: extra must be a table of names, got string" })

-- ------------------------------------------------------------- ISAs ----

try("isa: a kind with isas makes one guarded, target-pragma'd file per ISA, best ISA first in the registry", function()
  local root = copy_root(TOY)
  local out = TMP .. "/isa_out"
  edit(root .. SPEC, 'template = "toy/spec.c.in",', 'template = "toy/spec.c.in", isas = { "scalar", "avx2" },')
  local m, r = gen(root, out)
  local avx = readf(out .. "/toy/kfg_toy_f32_k3x3__avx2.c") or ""
  local reg = readf(out .. "/kfg_registry.c") or ""
  local names = {}
  for n in reg:gmatch('\n  { "([%w_]+)",') do names[#names + 1] = n end
  return r == 0 and exists(out .. "/toy/kfg_toy_f32_k3x3__scalar.c")
    and has(avx, "#if defined(__x86_64__)") and has(avx, '#pragma GCC target("avx2,fma,f16c")')
    and has(avx, "#pragma clang attribute push(__attribute__((target(\"avx2,fma,f16c\"))), apply_to = function)")
    and has(avx, "isa=avx2") and has(reg, '#if defined(__x86_64__)\n  { "kfg_toy_f32_k1x1__avx2"')
    and names[1] == "kfg_toy_f32_k1x1__avx2" and names[5] == "kfg_toy_f32_k1x1__scalar"
    and not exists(out .. "/toy/kfg_toy_f32_generic__avx2.c"), m .. "\n" .. reg
end)

try("isa: a manifest can choose ISAs; an ISA the kind lacks is a located error", function()
  local root = copy_root(TOY)
  edit(root .. SPEC, 'template = "toy/spec.c.in",', 'template = "toy/spec.c.in", isas = { "scalar", "avx2" },')
  edit(root .. SET, 'T = "*", kh = { 1, 3 }', 'isa = "avx2", T = "*", kh = { 1, 3 }')
  local _, r1 = gen(root, TMP .. "/isa_sel")
  local only = not exists(TMP .. "/isa_sel/toy/kfg_toy_f32_k3x3__scalar.c")
    and exists(TMP .. "/isa_sel/toy/kfg_toy_f32_k3x3__avx2.c")
  edit(root .. SET, 'isa = "avx2"', 'isa = "neon"')
  local m2, r2 = gen(root, TMP .. "/isa_bad")
  return r1 == 0 and only and r2 == 1 and has(m2, "specs/sets/toy.lua: field 'kernels[1].isa': neon is not an ISA")
    and not exists(TMP .. "/isa_bad"), m2
end)

-- ----------------------------------------------- stale and rewrites ----

try("write-if-changed: a second run into the same dir rewrites nothing", function()
  local out = TMP .. "/rewrite"
  local m1, r1 = gen(TOY, out)
  local stamp = TMP .. "/stamp1"
  run("sleep 1; touch " .. q(stamp) .. "; sleep 1")
  local m2, r2 = gen(TOY, out)
  local newer = run("find " .. q(out) .. " -newer " .. q(stamp))
  return r1 == 0 and r2 == 0 and has(m1, ", 18 files, 18 written to") and has(m2, ", 0 written to") and newer == "",
    m1 .. m2 .. "newer: " .. newer
end)

try("write-if-changed: a template edit rewrites only the kernels made from it", function()
  local root = copy_root(TOY)
  local out = TMP .. "/rewrite2"
  gen(root, out)
  local stamp = TMP .. "/stamp2"
  run("sleep 1; touch " .. q(stamp) .. "; sleep 1")
  edit(root .. "/templates/toy/generic.c.in", "{ (void)args; }", "{ (void)args; /* changed */ }")
  local m, r = gen(root, out)
  local newer = run("cd " .. q(out) .. " && find . -type f -newer " .. q(stamp))
  return r == 0 and has(m, ", 1 written to") and newer == "./toy/kfg_toy_f32_generic__scalar.c\n", m .. newer
end)

try("stale files: a kernel removed from the manifest is deleted and FILES no longer lists it", function()
  local root = copy_root(TOY)
  local out = TMP .. "/stale"
  local _, r1 = gen(root, out)
  local gone = out .. "/toy/kfg_toy_f64_k3x3__scalar.c"
  if r1 ~= 0 or not exists(gone) then return false, "first run did not produce " .. gone end
  edit(root .. SET, 'T = "*", kh = { 1, 3 }', 'T = "*", kh = { 1 }')
  local m, r2 = gen(root, out)
  local files = readf(out .. "/FILES") or ""
  local reg = readf(out .. "/kfg_registry.c") or ""
  local fresh = TMP .. "/stale_fresh"
  gen(root, fresh)
  local d = run("diff -r " .. q(fresh) .. " " .. q(out))
  return r2 == 0 and not exists(gone) and not exists(out .. "/toy/kfg_toy_f32_k3x3__scalar.c")
    and not has(files, "k3x3") and has(files, "toy/kfg_toy_f64_k1x1__scalar.c") and not has(reg, "k3x3")
    and d == "", m .. "\nFILES:\n" .. files .. "\ndiff with a fresh run:\n" .. d
end)

try("stale files: files the generator did not list are left alone", function()
  local out = TMP .. "/stale2"
  gen(TOY, out)
  writef(out .. "/README.local", "mine\n")
  gen(TOY, out)
  return readf(out .. "/README.local") == "mine\n"
end)

-- ----------------------------------------------------------- depfile ----

try("depfile: lists exactly the manifest, spec, families.lua, templates and generator files read", function()
  local dep = TMP .. "/toy.d"
  local _, r = gen(TOY, TMP .. "/dep_out", " --depfile " .. q(dep) .. " --deptarget build.ninja")
  local d = readf(dep) or ""
  local target, rest = d:match("^([^:]+): (.*)$")
  local got = {}
  for p in (rest or ""):gmatch("[^%s\\]+") do got[#got + 1] = p end
  table.sort(got)
  local want = { TOY .. SET, TOY .. SPEC, TOY .. "/specs/families.lua", TOY .. "/specs/isas.lua",
    TOY .. "/specs/attrs.lua", TOY .. "/specs/runtime.lua", TOY .. SPEC_TPL,
    TOY .. "/templates/toy/generic.c.in", TOY .. "/runtime/kforge.h" }
  for _, m in ipairs({ "kforge-gen", "spec", "schema", "template", "expand", "emit", "output", "dtypes", "model",
                       "tuning", "emit_python", "emit_tf" }) do
    want[#want + 1] = TOY .. "/generator/" .. m .. ".lua"
  end
  table.sort(want)
  local missing = {}
  for _, p in ipairs(got) do if not readf(p) then missing[#missing + 1] = p end end
  return r == 0 and target == "build.ninja" and table.concat(got, " ") == table.concat(want, " ") and #missing == 0,
    "depfile:\n" .. d .. "\nwant:\n" .. table.concat(want, "\n")
end)

try("depfile: --deptarget defaults to generated/FILES", function()
  local dep = TMP .. "/toy2.d"
  gen(TOY, TMP .. "/dep_out2", " --depfile " .. q(dep))
  return (readf(dep) or ""):match("^generated/FILES: ") ~= nil, readf(dep)
end)

-- ---------------------------------------- the real specs: determinism ----

local REAL = TMP .. "/real"
do
  local out, rc = run("mkdir -p " .. q(REAL .. "/runtime") .. " && cp -r specs templates generator " .. q(REAL .. "/") ..
    " && cp runtime/kforge.h " .. q(REAL .. "/runtime/"))
  check("setup: copy of specs/, templates/, generator/, runtime/kforge.h", rc == 0, out)
end

local A, B = TMP .. "/det_a", TMP .. "/det_b"
-- A's run also writes the depfile (checked below) and is compared with the
-- checked-in generated/: one generation of the default set serves all three.
local ma, ra = gen(REAL, A, " --depfile " .. q(TMP .. "/real.d"), "default.lua")
-- The second run from inside the copy with relative paths: the output must
-- not depend on where the tree is or how it was named.
local mb, rb = run("cd " .. q(REAL) .. " && lua5.4 generator/kforge-gen.lua --out " .. q(B))
check("determinism: the real default set generates (absolute --root, and relative from the root)",
  ra == 0 and rb == 0, ma .. mb)
try("determinism: two runs into fresh dirs give byte-identical trees (diff -r)", function()
  local d, rc = run("diff -r " .. q(A) .. " " .. q(B))
  return rc == 0 and d == "", d
end)
try("determinism: a third run (another hash seed) is identical too", function()
  local C = TMP .. "/det_c"
  gen(REAL, C, "", "default.lua")
  local d, rc = run("diff -r " .. q(A) .. " " .. q(C))
  return rc == 0 and d == "", d
end)
try("determinism: output contains no absolute paths (temp dir, /work, /home, /tmp)", function()
  local hits = {}
  for _, pat in ipairs({ TMP, "/work", "/home/", "/tmp" }) do
    local g = run("grep -rlF -- " .. q(pat) .. " " .. q(A))
    if g ~= "" then hits[#hits + 1] = pat .. ":\n" .. g end
  end
  return #hits == 0, table.concat(hits, "\n")
end)
try("determinism: output contains no dates or times", function()
  local g = run("grep -rnE '(19|20)[0-9]{2}-[0-9]{2}-[0-9]{2}|[0-9]{2}:[0-9]{2}:[0-9]{2}|" ..
    "(Mon|Tue|Wed|Thu|Fri|Sat|Sun),? [0-9 ]?[0-9]? ?(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)' " .. q(A))
  return g == "", g
end)
try("determinism: the real tree's second run writes nothing", function()
  local stamp = TMP .. "/stamp3"
  run("sleep 1; touch " .. q(stamp) .. "; sleep 1")
  local m, r = gen(REAL, A, "", "default.lua")
  local newer = run("find " .. q(A) .. " -newer " .. q(stamp))
  return r == 0 and has(m, " 0 written to ") and newer == "", m .. newer
end)

try("depfile: the real default set lists every op spec (also families outside the set) and its templates", function()
  local d = readf(TMP .. "/real.d") or ""
  local bad = {}
  local fams = dofile("specs/families.lua")
  for _, f in ipairs(fams) do
    if not has(d, REAL .. "/specs/ops/" .. f .. ".lua") then bad[#bad + 1] = "no specs/ops/" .. f .. ".lua" end
  end
  -- Every template named in a generated kernel banner is a dependency.
  local ls = run("cd " .. q(A) .. " && grep -rhoE 'from templates/[^ ]+' .")
  for t in ls:gmatch("from (templates/%S+)") do
    if not has(d, REAL .. "/" .. t) then bad[#bad + 1] = "no " .. t end
  end
  return ra == 0 and #bad == 0, table.concat(bad, "\n") .. "\n" .. d
end)

-- ------------------------------------------- the checked-in tree ----

-- A is the default set generated from a copy of this tree (the determinism
-- checks above show that where the tree lies does not change a byte).
try("checked-in generated/ is current (the default set generated afresh; diff -r with generated)", function()
  if ra ~= 0 then return false, "generator failed: " .. ma end
  local d, rc = run("diff -r " .. q(A) .. " generated")
  return rc == 0 and d == "", "regenerate with `lua5.4 generator/kforge-gen.lua` and commit generated/:\n" .. d
end)

try("--isas: only the listed ISAs' kernels (FILES, registry), the rest of the default set unchanged", function()
  local out = TMP .. "/isas"
  local m, r = run("lua5.4 generator/kforge-gen.lua --quiet --isas scalar,avx2 --out " .. q(out))
  if r ~= 0 then return false, "generator failed: " .. m end
  local files, want = readf(out .. "/FILES") or "", readf("generated/FILES") or ""
  local kept = {}
  for line in want:gmatch("[^\n]+") do
    local isa = line:match("__([%w]+)%.c$")
    if not isa or isa == "scalar" or isa == "avx2" then kept[#kept + 1] = line end
  end
  local reg = readf(out .. "/kfg_registry.c") or ""
  return files == table.concat(kept, "\n") .. "\n" and has(reg, "__avx2") and not has(reg, "__avx512") and
    not has(reg, "__neon"), "FILES:\n" .. files
end)

try("--isas: an unknown ISA, or a list without scalar, is an error and writes nothing", function()
  local bad = {}
  for _, case in ipairs({ { "scalar,avx3", "unknown ISA \"avx3\"" }, { "avx2", "must include scalar" } }) do
    local out = TMP .. "/isas_bad"
    local m, r = run("lua5.4 generator/kforge-gen.lua --quiet --isas " .. case[1] .. " --out " .. q(out))
    if r == 0 or not has(m, case[2]) or exists(out .. "/FILES") then bad[#bad + 1] = case[1] .. ": " .. m end
  end
  return #bad == 0, table.concat(bad, "\n")
end)

-- -------------------------------------------------------------- done ----

if os.getenv("KFG_TEST_KEEP") then
  print("# kept " .. TMP)
else
  os.execute("rm -rf " .. q(TMP))
end
print(string.format("%d passed, %d failed", passed, failed))
os.exit(failed > 0 and 1 or 0)
