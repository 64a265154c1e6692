-- fuzz_specs.lua -- fuzzes the generator's data loaders with malformed Lua
-- data: random mutations of the real specs/ops/*.lua, specs/sets/default.lua
-- and specs/families.lua texts, and random Lua data tables.
--
--   lua5.4 tests/fuzz/fuzz_specs.lua [--seconds S] [--iterations N] [--seed K]
--                                    [--gen-every M]
--
-- Each iteration writes one mutated file into a temp copy of specs/ and
--   1. calls the loaders in-process, as the generator does (no pcall around
--      them: they must never raise): spec.load_data on the file, spec.load_op
--      for op specs, spec.load_set for the manifest (and spec.load_tuning,
--      when the generator has a tuning-record loader). They must return a
--      value, or nil plus one located line "<file>: ..." / "<file>:<line>: ...";
--      an error raised out of them is caught only to be reported as a FAIL;
--   2. every --gen-every'th iteration (default 4) runs the generator as a
--      subprocess, `kforge-gen.lua --root <copy>`, which must exit 0, or 1 with
--      only lines "kforge-gen: <file>: ..." naming a spec/template file (never
--      a generator source, never a traceback), within 20 s (or 120 s on a retry).
-- Prints one ok/FAIL line per check and "N passed, M failed". Stops after S
-- seconds (default 20) or N iterations, whichever comes first.

local script_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = script_dir .. "/../.."
package.path = root .. "/generator/?.lua;" .. package.path
local spec = require "spec"

local opt = { seconds = 20, iterations = math.huge, seed = os.time(), gen_every = 4 }
do
  local i = 1
  while i <= #arg do
    local a, v = arg[i], arg[i + 1]
    if a == "--seconds" then opt.seconds = tonumber(v)
    elseif a == "--iterations" then opt.iterations = tonumber(v)
    elseif a == "--seed" then opt.seed = tonumber(v)
    elseif a == "--gen-every" then opt.gen_every = tonumber(v)
    else io.stderr:write("usage: lua5.4 tests/fuzz/fuzz_specs.lua [--seconds S] [--iterations N] [--seed K] [--gen-every M]\n"); os.exit(2) end
    if not v then io.stderr:write(a .. " needs a value\n"); os.exit(2) end
    i = i + 2
  end
end
math.randomseed(opt.seed)

local passed, failed = 0, 0
local function check(ok, what)
  if ok then passed = passed + 1 else failed = failed + 1 end
  print((ok and "ok - " or "FAIL - ") .. what)
end

local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function read(p)
  local f = io.open(p, "rb"); if not f then return nil end
  local s = f:read("a"); f:close(); return s
end
local function write(p, s)
  local f = assert(io.open(p, "wb")); f:write(s); f:close()
end
local function run(cmd)
  local ok, how, code = os.execute(cmd)
  if how == "exit" then return code end
  return 128 + (code or 0)
end

-- A temp copy of what the generator reads (--root points at it).
local tmp = assert(io.popen("mktemp -d \"${TMPDIR:-/tmp}/kforge-fuzz-specs.XXXXXX\"")):read("l")
assert(tmp and #tmp > 0, "mktemp failed")
local function cleanup() run("rm -rf " .. sh_quote(tmp)) end
-- runtime/kforge.h too: the generator reads its declarations (python/_capi.py).
if run("cp -R " .. sh_quote(root .. "/specs") .. " " .. sh_quote(root .. "/templates") .. " " .. sh_quote(tmp) .. "/") ~= 0 or
    run("mkdir -p " .. sh_quote(tmp .. "/runtime") .. " && cp " .. sh_quote(root .. "/runtime/kforge.h") .. " " ..
      sh_quote(tmp .. "/runtime/")) ~= 0 then
  print("FAIL - cannot copy specs/, templates/ and runtime/kforge.h"); print("0 passed, 1 failed"); cleanup(); os.exit(1)
end

local targets = {
  { rel = "specs/ops/bngrad.lua", kind = "op", family = "bngrad" },
  { rel = "specs/ops/dwbpi.lua", kind = "op", family = "dwbpi" },
  { rel = "specs/sets/default.lua", kind = "set" },
  { rel = "specs/families.lua", kind = "data" },
}
for _, t in ipairs(targets) do t.text = read(root .. "/" .. t.rel) end

-- ---------------------------------------------------------------- mutations
local tokens = {
  "nil", "{", "}", "{}", "=", ",", ";", "\"", "'", "[[", "]]", "0", "-1", "1e309", "0/0", "-0.0", "true", "false",
  "\"\"", "\"x\"", "\"${T}\"", "\"${nope}\"", "\"../x\"", "\"a b\"", "name", "kind", "axes", "values", "ops",
  "rules", "kernels", "family", "inputs", "outputs", "attrs", "allowed", "default", "template", "config", "id",
  "message", "isas", "c", "params", "summary", "{ name = \"x\" }", "{ 1, 2, 3 }", "{ {} }", "return", "local",
  "error(\"boom\")", "error({})", "error()", "(nil)()", "#x", "x.y.z", "..", "...", "\n", "--", "--[[", "\0",
  "\255", "9223372036854775807", "0x7fffffffffffffff", "2^63", "math", "_ENV", "print(1)", "load", "string",
}

local function mutate_text(s)
  local n = math.random(1, 4)
  for _ = 1, n do
    local len = #s
    local r = math.random(1, 7)
    local p = math.random(1, math.max(1, len))
    if r == 1 then -- flip a byte
      s = s:sub(1, p - 1) .. string.char(math.random(0, 255)) .. s:sub(p + 1)
    elseif r == 2 then -- delete a range
      s = s:sub(1, p - 1) .. s:sub(p + math.random(1, 40))
    elseif r == 3 then -- duplicate a range
      local q = math.min(len, p + math.random(1, 80))
      s = s:sub(1, q) .. s:sub(p, q) .. s:sub(q + 1)
    elseif r == 4 or r == 5 then -- insert a token
      s = s:sub(1, p - 1) .. tokens[math.random(#tokens)] .. s:sub(p)
    elseif r == 6 then -- replace a quoted string's content
      local a, b = s:find('"[^"\n]*"', p)
      if a then s = s:sub(1, a) .. tokens[math.random(#tokens)]:gsub('"', "") .. s:sub(b) end
    else -- truncate
      s = s:sub(1, p)
    end
  end
  return s
end

-- A random Lua data table (as source text), over the schema's field names.
local fields = { "name", "kind", "family", "summary", "ops", "rules", "axes", "kernels", "values", "c", "template",
  "config", "id", "message", "inputs", "outputs", "attrs", "allowed", "default", "type", "enum", "isas", "params",
  "required", "doc", "tf", "isa" }
local function random_value(depth)
  local r = math.random(1, depth > 2 and 6 or 9)
  if r == 1 then return string.format("%q", fields[math.random(#fields)])
  elseif r == 2 then return tostring(math.random(-3, 9))
  elseif r == 3 then return ({ "true", "false", "1.5", "1e309", "-0.0", "0/0", "\"\"", "\"${x}\"" })[math.random(8)]
  elseif r == 4 then return string.format("%q", string.char(math.random(32, 126)):rep(math.random(0, 5)))
  elseif r == 5 then return "nil"
  elseif r == 6 then return "\"bngrad\""
  else
    local parts = {}
    for _ = 1, math.random(0, 5) do
      local k = math.random(1, 3)
      if k == 1 then parts[#parts + 1] = random_value(depth + 1)
      elseif k == 2 then parts[#parts + 1] = fields[math.random(#fields)] .. " = " .. random_value(depth + 1)
      else parts[#parts + 1] = "[" .. random_value(depth + 1) .. "] = " .. random_value(depth + 1) end
    end
    return "{ " .. table.concat(parts, ", ") .. " }"
  end
end
local function random_table()
  local t = random_value(3)
  if math.random(4) == 1 then t = random_value(0) end
  return "return " .. t .. "\n"
end

-- ---------------------------------------------------------------- checks
-- A loader's error: a one-line string that names the file it was given.
local function located(err, file)
  if type(err) ~= "string" then return false, "error is a " .. type(err) .. ", not a string" end
  if err:find("\n") then return false, "error has several lines: " .. err:gsub("\n", "\\n"):sub(1, 200) end
  if err:find("traceback") then return false, "error is a traceback" end
  local f = err:match("^(.-):")
  if not f or (f ~= file and not file:find(f, 1, true)) then
    return false, "error does not start with the file name: " .. err:sub(1, 200)
  end
  return true
end

-- Calls loader(...) plainly; an error raised out of it is a finding.
local function call(loader, ...)
  local res = table.pack(xpcall(loader, debug.traceback, ...))
  if not res[1] then return "raised", res[2] end
  return "returned", res[2], res[3]
end

local function in_process(t, path, label)
  local how, v, e = call(spec.load_data, path)
  if how == "raised" then return check(false, label .. ": spec.load_data raised: " .. tostring(v):gsub("\n", " | "):sub(1, 300)) end
  if v == nil then
    local ok, why = located(e, path)
    check(ok, label .. ": spec.load_data error is located" .. (ok and "" or (": " .. why)))
  else
    check(type(v) == "table", label .. ": spec.load_data returns a table")
  end
  local loader, args
  if t.kind == "op" then loader, args = spec.load_op, { tmp .. "/specs", t.family }
  elseif t.kind == "set" then loader, args = spec.load_set, { tmp .. "/specs", path, { "bngrad", "dwbpi" } }
  else return end
  how, v, e = call(loader, table.unpack(args))
  local name = t.kind == "op" and "spec.load_op" or "spec.load_set"
  if how == "raised" then return check(false, label .. ": " .. name .. " raised: " .. tostring(v):gsub("\n", " | "):sub(1, 300)) end
  if v == nil then
    -- load_set may fail in an op spec it loads: any file of the copy is fine
    local ok, why = located(e, path)
    if not ok and t.kind == "set" then ok, why = located(e, tmp .. "/specs/ops/") end
    check(ok, label .. ": " .. name .. " error is located" .. (ok and "" or (": " .. why)))
  else
    check(type(v) == "table", label .. ": " .. name .. " returns a table")
  end
end

local function gen_subprocess(label)
  local errf = tmp .. "/gen.err"
  local function gen(limit)
    local cmd = string.format("cd %s && timeout %d lua5.4 generator/kforge-gen.lua --root %s --set %s --out %s --quiet 2>%s >/dev/null",
      sh_quote(root), limit, sh_quote(tmp), sh_quote(tmp .. "/specs/sets/default.lua"), sh_quote(tmp .. "/out"), sh_quote(errf))
    local c = run(cmd)
    run("rm -rf " .. sh_quote(tmp .. "/out"))
    return c
  end
  -- 20 s is 5x a normal run; on a saturated machine (the hour-long run of
  -- 2026-11-26 had 59 such timeouts, each under 9 s when re-run) a timeout
  -- is retried once with 120 s before it counts as a hang.
  local code = gen(20)
  if code == 124 then code = gen(120) end
  local err = read(errf) or ""
  if code == 124 then return check(false, label .. ": generator hung (20 s, then 120 s)") end
  if code == 0 then return check(err == "", label .. ": generator succeeded" .. (err == "" and "" or " but printed: " .. err:sub(1, 200))) end
  local ok, why = code == 1, "exit code " .. code
  local lines = 0
  for line in err:gmatch("[^\n]+") do
    lines = lines + 1
    local f = line:match("^kforge%-gen: (.-):")
    if not f then ok, why = false, "not a 'kforge-gen: <file>: ...' line: " .. line:sub(1, 200)
    elseif f:find("generator/", 1, true) or f:find("%[C%]") or line:find("traceback") then
      ok, why = false, "internal error, not located in a spec: " .. line:sub(1, 200)
    end
  end
  if lines == 0 then ok, why = false, "exit code " .. code .. " without a message" end
  check(ok, label .. ": generator fails with located one-line errors, exit 1" .. (ok and "" or (" (" .. why .. ")")))
end

-- ---------------------------------------------------------------- main loop
print(string.format("# fuzz_specs: seed %d, %s s, temp copy %s", opt.seed, tostring(opt.seconds), tmp))
-- The unmutated copy must generate (otherwise every check below is moot).
gen_subprocess("baseline (unmutated specs)")
local start, iter = os.time(), 0
local has_tuning = type(spec.load_tuning) == "function"
if not has_tuning then print("# no tuning-record loader (spec.load_tuning) in the generator yet: not fuzzed") end
while iter < opt.iterations and os.time() - start < opt.seconds do
  iter = iter + 1
  local t = targets[math.random(#targets)]
  local path = tmp .. "/" .. t.rel
  local text = math.random(5) == 1 and random_table() or mutate_text(t.text)
  write(path, text)
  local label = string.format("iteration %d (%s)", iter, t.rel)
  local failed_before = failed
  in_process(t, path, label)
  if has_tuning then
    local how, v, e = call(spec.load_tuning, path)
    if how == "raised" then check(false, label .. ": spec.load_tuning raised")
    elseif v == nil then check((located(e, path)), label .. ": spec.load_tuning error is located") end
  end
  if iter % opt.gen_every == 0 then gen_subprocess(label) end
  write(path, t.text) -- restore
  if failed > failed_before then -- keep the input that failed, to reproduce
    local keep = string.format("%s/kforge-fuzz-specs-%d-%d-%s", os.getenv("TMPDIR") or "/tmp", opt.seed, iter,
      t.rel:gsub("/", "_"))
    write(keep, text)
    print("#   failing input kept in " .. keep .. " (copy it over " .. t.rel .. " to reproduce)")
  end
end
cleanup()
print(string.format("# %d iterations", iter))
print(string.format("%d passed, %d failed", passed, failed))
os.exit(failed == 0 and 0 or 1)
