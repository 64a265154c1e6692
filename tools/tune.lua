-- tune.lua -- the auto-tuner: times the knob variants of every tunable
-- kernel of a kernel set on this CPU and writes the winners as a tuning
-- record the generator consumes (docs/tuning.md).
--
--   lua5.4 tools/tune.lua [--set specs/sets/default.lua] [--only PATTERN]
--       [--budget-seconds 600] [--max-candidates 200] [--reps 9]
--       [--out FILE] [--resume] [--cc clang]
--
-- Per configuration it takes the best ISA this CPU runs, varies one knob at
-- a time around the spec defaults (each value is a kernel of its own, all
-- built in parallel by ninja into one harness), checks every candidate's
-- outputs against the default variant's, times them interleaved (median of
-- --reps runs, best of three rounds; noise = median absolute deviation),
-- keeps a candidate only when it beats the default by more than the noise,
-- and writes the winners. Then it verifies: it generates the tuned set from
-- the record (as a user's build would), builds it, and times each tuned
-- kernel against the default build's, alternating between the two binaries.
-- Progress is saved after every configuration (--resume continues);
-- --budget-seconds and --max-candidates bound the search.
package.path = "generator/?.lua;" .. package.path
local spec = require "spec"
local expand = require "expand"
local dtypes = require "dtypes"

local opt = { set = "specs/sets/default.lua", budget = 600, max = 200, reps = 9, cc = "clang" }
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "--resume" then opt.resume = true
  elseif a == "--set" then opt.set = arg[i + 1]; i = i + 1
  elseif a == "--only" then opt.only = arg[i + 1]; i = i + 1
  elseif a == "--budget-seconds" then opt.budget = tonumber(arg[i + 1]); i = i + 1
  elseif a == "--max-candidates" then opt.max = tonumber(arg[i + 1]); i = i + 1
  elseif a == "--reps" then opt.reps = tonumber(arg[i + 1]); i = i + 1
  elseif a == "--out" then opt.out = arg[i + 1]; i = i + 1
  elseif a == "--cc" then opt.cc = arg[i + 1]; i = i + 1
  else io.stderr:write("tune: unknown argument " .. a .. "\n"); os.exit(2) end
  i = i + 1
end

local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local out = p:read("a")
  local ok = p:close()
  return ok, out
end
local function die(msg) io.stderr:write("tune: " .. msg .. "\n"); os.exit(1) end
local function writef(p, s) local f = assert(io.open(p, "wb")); f:write(s); f:close() end
local t_start = os.time()
local W = "build/tune"
sh("mkdir -p " .. W)

-- 1. This CPU, from the default build's runtime.
local ok, out = sh("ninja -f build.ninja lib")
if not ok then die("ninja lib failed:\n" .. out) end
ok, out = sh(opt.cc .. " -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Iruntime -Igenerated tools/tune/tune_bench.c build/libkforge.a -lm -o " ..
  W .. "/cpukey")
if not ok then die("cannot build the CPU probe:\n" .. out) end
local cpu = select(2, sh(W .. "/cpukey cpu")):gsub("%s+$", "")
local cpu_isas = {}
for isa in (cpu:match("^[^:]+:([^:]+):") or ""):gmatch("[^+]+") do cpu_isas[isa] = true end
local fingerprint = select(2, sh("lua5.4 generator/kforge-gen.lua --set " .. opt.set .. " --fingerprint --cc " .. opt.cc))
  :gsub("%s+$", "")
local compiler = select(2, sh(opt.cc .. " --version")):match("^[^\n]*")
io.stderr:write(string.format("tune: cpu %s, fingerprint %s, %s\n", cpu, fingerprint, compiler))

-- 2. The tunable configurations: best ISA of each, knobs declared.
local families = spec.load_data("specs/families.lua")
local set, specs = spec.load_set("specs", opt.set, families)
if not set then die(specs) end
local isa_list = spec.load_data("specs/isas.lua")
local isas = {}
for _, d in ipairs(isa_list) do isas[d.name] = d end
local kernels = expand.expand(set, specs, opt.set, dtypes, isas)
local best = {} -- config name (without ISA) -> kernel
for _, k in ipairs(kernels) do
  if k.spec.knobs and k.kind ~= "generic" and cpu_isas[k.isa] and (not opt.only or k.name:find(opt.only)) then
    local ks = {}
    for an, av in pairs(k.values) do ks[#ks + 1] = an .. "=" .. tostring(av) end
    table.sort(ks)
    local base = k.family .. " " .. k.kind .. " " .. table.concat(ks, " ") -- the configuration, any ISA
    if not best[base] or isas[best[base].isa].rank < k.isa_def.rank then best[base] = k end
  end
end
local configs = {}
for _, k in pairs(best) do configs[#configs + 1] = k end
table.sort(configs, function(a, b) return a.name < b.name end)
if #configs == 0 then die("nothing to tune: no kernel of the set declares knobs (or --only matched none)") end

-- Shapes: one representative call per configuration (the benchmark's), from
-- the family's case file tools/tune/cases/<family>.lua: the op, its attrs
-- and inputs, as tune_bench (and `kforge plan`) take them. A new op family
-- adds its case file; nothing here names one.
local sizes = { uint16_t = 2, float = 4, double = 8 }
local cases = {}
local function case_of(k)
  if not cases[k.family] then
    local f, err = loadfile("tools/tune/cases/" .. k.family .. ".lua", "t", { math = math, string = string })
    if not f then die("no tuning case for family " .. k.family .. ": " .. tostring(err)) end
    cases[k.family] = f()
  end
  local d = dtypes[k.values.T]
  return cases[k.family](k.values, { dtype = d.tf, size = sizes[d.ctype] })
end
local function list(t)
  local r = {}
  for i, x in ipairs(t) do r[i] = tostring(x) end
  return table.concat(r, ",")
end
local function shape_args(k)
  local c = case_of(k)
  local a = { string.format("%.17g", c.work), c.op }
  for _, kv in ipairs(c.attrs) do a[#a + 1] = "--attr " .. kv[1] .. "=" .. kv[2] end
  for _, t in ipairs(c.inputs) do
    a[#a + 1] = string.format("--input %s=%s:%s", t[1], t[2], list(t[3]))
    if t[4] then a[#a + 1] = string.format("--values %s=%s", t[1], list(t[4])) end
  end
  for _, n in ipairs(c.positive or {}) do a[#a + 1] = "--positive " .. n end
  return table.concat(a, " ")
end

-- 3. Candidates: one knob at a time around the defaults, within the budget.
local entries, per_config, ncand = {}, {}, 0
for _, k in ipairs(configs) do
  local e = { family = k.family, kind = k.kind, isa = k.isa }
  for an, av in pairs(k.values) do e[an] = av end
  entries[#entries + 1] = e -- the default variant (untagged)
  local list = {}
  for _, kd in ipairs(k.spec.knobs) do
    local vals = {}
    for _, v in ipairs(kd.values) do
      if v ~= k.spec.params[kd.name] and ncand < opt.max then
        vals[#vals + 1] = v
        ncand = ncand + 1
        list[#list + 1] = { name = k.name .. "_" .. kd.tag .. v, knob = kd.name, value = v }
      end
    end
    if #vals > 0 then
      local c = {}
      for a, b in pairs(e) do c[a] = b end
      c.knobs = { [kd.name] = vals }
      entries[#entries + 1] = c
    end
  end
  per_config[k.name] = list
end
local lines = { "-- Tuning candidates (tools/tune.lua). Generated.\nreturn {\n  name = \"tune\",\n  summary = \"candidates\",\n  kernels = {\n" }
local function lua_value(v)
  if type(v) == "table" then
    local parts = {}
    local ks = {}
    for kk in pairs(v) do ks[#ks + 1] = kk end
    table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
    for _, kk in ipairs(ks) do
      parts[#parts + 1] = (type(kk) == "number" and "" or (kk .. " = ")) .. lua_value(v[kk])
    end
    return "{ " .. table.concat(parts, ", ") .. " }"
  end
  return type(v) == "string" and string.format("%q", v) or tostring(v)
end
for _, e in ipairs(entries) do lines[#lines + 1] = "    " .. lua_value(e) .. ",\n" end
lines[#lines + 1] = "  },\n}\n"
writef(W .. "/candidates.lua", table.concat(lines))
io.stderr:write(string.format("tune: %d configurations, %d candidates; generating and building...\n", #configs, ncand))
ok, out = sh("lua5.4 generator/kforge-gen.lua --quiet --set " .. W .. "/candidates.lua --out " .. W .. "/gen")
if not ok then die(out) end
writef(W .. "/build.ninja", table.concat({
  "builddir = " .. W .. "/obj", "gen = " .. W .. "/gen", "cc = " .. opt.cc, "target_cflags = -O2",
  "target_ldflags = -lm", "include ninja/model.ninja",
  "build " .. W .. "/obj/tune_bench.o: cc tools/tune/tune_bench.c",
  "build " .. W .. "/tune_bench: link " .. W .. "/obj/tune_bench.o " .. W .. "/obj/libkforge.a", "" }, "\n"))
ok, out = sh("ninja -f " .. W .. "/build.ninja")
if not ok then die("building the candidates failed:\n" .. out) end

-- 4. Time.
local progress_file = W .. "/progress.lua"
local done = {}
if opt.resume then
  local f = loadfile(progress_file, "t", {})
  if f then done = f() or {} end
end
local function save_progress()
  local t = { "return {\n" }
  local ks = {}
  for kk in pairs(done) do ks[#ks + 1] = kk end
  table.sort(ks)
  for _, kk in ipairs(ks) do t[#t + 1] = "  [" .. string.format("%q", kk) .. "] = " .. lua_value(done[kk]) .. ",\n" end
  t[#t + 1] = "}\n"
  writef(progress_file, table.concat(t))
end

local function time(kernel, ref, args)
  local bestm, noise, work, err = math.huge, 0, 0, 0
  for _ = 1, 3 do
    local okk, o = sh(string.format("%s/tune_bench %s %s %d %s", W, kernel, ref, opt.reps, args))
    if not okk then return nil, o end
    local m, d, wk, e = o:match("([%d.]+) ([%d.]+) ([%d.e+]+) ([%d.e+-]+)")
    m, d, wk, e = tonumber(m), tonumber(d), tonumber(wk), tonumber(e)
    if not m then return nil, o end
    if m < bestm then bestm, noise = m, d end
    work, err = wk, math.max(err, e)
  end
  return { ns = bestm, noise = noise, work = work, err = err }
end

local function tol(k) return ({ f16 = 5e-3, bf16 = 3e-2, f32 = 2e-5, f64 = 1e-10 })[k.values.T] end
local function bar(n, total, what)
  local w = 30
  local f = math.floor(w * n / total)
  io.stderr:write(string.format("\r[%s%s] %d/%d %-60s", string.rep("#", f), string.rep(".", w - f), n, total,
    what:sub(1, 60)))
end

local over_budget = false
for n, k in ipairs(configs) do
  bar(n - 1, #configs, k.name)
  if not done[k.name] then
    if os.time() - t_start > opt.budget then over_budget = true; break end
    local args = shape_args(k)
    local res = { shape = args, candidates = {} }
    local def, derr = time(k.name, k.name, args)
    if not def then die("timing " .. k.name .. ": " .. derr) end
    res.default = def
    local winners = {}
    for _, c in ipairs(per_config[k.name]) do
      local r = time(c.name, k.name, args)
      if r then
        r.name, r.knob, r.value = c.name, c.knob, c.value
        r.valid = r.err <= tol(k)
        res.candidates[#res.candidates + 1] = r
        local w = winners[c.knob]
        if r.valid and r.ns < def.ns - 2 * math.max(def.noise, r.noise) and (not w or r.ns < w.ns) then
          winners[c.knob] = r
        end
      end
    end
    -- The record keeps the single best candidate: exactly the code that was
    -- timed (per-knob winners are not assumed to combine).
    res.knobs, res.ns = {}, def.ns
    for kn, w in pairs(winners) do
      if w.ns < res.ns then res.knobs, res.ns = { [kn] = w.value }, w.ns end
    end
    done[k.name] = res
    save_progress()
  end
end
bar(#configs, #configs, over_budget and "budget reached" or "done")
io.stderr:write("\n")

-- 5. The record, and the report.
local cpu_tag = cpu:gsub("[:+]", "-")
local out_file = opt.out or ("specs/tuning/" .. cpu_tag .. ".lua")
local rec = { "-- Tuning record for " .. cpu .. ", written by tools/tune.lua on this CPU. The generator\n" ..
  "-- applies it with --tuning (docs/tuning.md); it is ignored for other CPUs and when stale.\n" ..
  "return {\n  cpu = " .. string.format("%q", cpu) .. ",\n  fingerprint = " .. string.format("%q", fingerprint) ..
  ",\n  compiler = " .. string.format("%q", compiler) .. ",\n  tool = \"tools/tune.lua\",\n  records = {\n" }
local report = { "| kernel | knob | ns (median) | noise | " .. "throughput | vs default | valid |", "|---|---|---|---|---|---|---|" }
local svg_rows = {}
for _, k in ipairs(configs) do
  local r = done[k.name]
  if r then
    rec[#rec + 1] = string.format("    { kernel = %q, knobs = %s, shape = %q, ns = %d, default_ns = %d, noise = %.4f, " ..
      "candidates = %d },\n", k.name, lua_value(r.knobs), r.shape, math.floor(r.ns), math.floor(r.default.ns),
      r.default.noise / r.default.ns, #r.candidates)
    local unit = case_of(k).unit or "work/ns"
    report[#report + 1] = string.format("| %s | (default) | %.0f | %.1f%% | %.1f %s | 1.00x | yes |", k.name, r.default.ns,
      100 * r.default.noise / r.default.ns, r.default.work / r.default.ns, unit)
    for _, c in ipairs(r.candidates) do
      report[#report + 1] = string.format("| | %s=%d | %.0f | %.1f%% | %.1f %s | %.2fx | %s |", c.knob, c.value, c.ns,
        100 * c.noise / c.ns, c.work / c.ns, unit, r.default.ns / c.ns, c.valid and "yes" or "NO")
      svg_rows[#svg_rows + 1] = { k.name .. " " .. c.knob .. "=" .. c.value, r.default.ns / c.ns }
    end
  end
end
rec[#rec + 1] = "  },\n}\n"
sh("mkdir -p " .. out_file:match("^(.*)/[^/]*$"))
writef(out_file, table.concat(rec))
writef(W .. "/report.md", table.concat(report, "\n") .. "\n")
-- An SVG bar chart of every candidate's speedup over the default.
local h = 18 * #svg_rows + 40
local svg = { string.format('<svg xmlns="http://www.w3.org/2000/svg" width="900" height="%d" font-family="monospace" ' ..
  'font-size="11">\n<text x="10" y="16">speedup over the spec default (1.0 = line)</text>\n', h) }
for n, r in ipairs(svg_rows) do
  local y = 24 + 18 * (n - 1)
  local w = math.min(400, 200 * r[2])
  svg[#svg + 1] = string.format('<text x="10" y="%d">%s</text><rect x="480" y="%d" width="%.1f" height="12" fill="%s"/>' ..
    '<text x="%.1f" y="%d">%.2fx</text>\n', y + 10, r[1]:gsub("&", "&amp;"):sub(1, 75), y, w,
    r[2] >= 1 and "#3a7" or "#c55", 484 + w, y + 10, r[2])
end
svg[#svg + 1] = string.format('<line x1="680" y1="20" x2="680" y2="%d" stroke="black"/>\n</svg>\n', h)
writef(W .. "/report.svg", table.concat(svg))
-- 6. Verify: the tuned build (generated from the record) against the default build.
local tuned_cfgs, tset = {}, { "return {\n  name = \"tuned\",\n  summary = \"tuned\",\n  kernels = {\n" }
for _, k in ipairs(configs) do
  local r = done[k.name]
  if r and next(r.knobs) then
    local e = { family = k.family, kind = k.kind, isa = k.isa }
    for an, av in pairs(k.values) do e[an] = av end
    tset[#tset + 1] = "    " .. lua_value(e) .. ",\n"
    tuned_cfgs[#tuned_cfgs + 1] = k
  end
end
tset[#tset + 1] = "  },\n}\n"
local verify = { "", "| kernel | tuned knobs | default build ns | tuned build ns | speedup |", "|---|---|---|---|---|" }
if #tuned_cfgs > 0 then
  writef(W .. "/tuned_set.lua", table.concat(tset))
  ok, out = sh("lua5.4 generator/kforge-gen.lua --quiet --set " .. W .. "/tuned_set.lua --tuning " .. out_file ..
    " --cpu '" .. cpu .. "' --cc " .. opt.cc .. " --out " .. W .. "/tuned/gen")
  if not ok then die("generating the tuned set: " .. out) end
  writef(W .. "/tuned/build.ninja", table.concat({
    "builddir = " .. W .. "/tuned/obj", "gen = " .. W .. "/tuned/gen", "cc = " .. opt.cc, "target_cflags = -O2",
    "target_ldflags = -lm", "include ninja/model.ninja",
    "build " .. W .. "/tuned/obj/tune_bench.o: cc tools/tune/tune_bench.c",
    "build " .. W .. "/tuned/tune_bench: link " .. W .. "/tuned/obj/tune_bench.o " .. W .. "/tuned/obj/libkforge.a",
    "" }, "\n"))
  ok, out = sh("ninja -f " .. W .. "/tuned/build.ninja")
  if not ok then die("building the tuned set: " .. out) end
  for _, k in ipairs(tuned_cfgs) do
    local d, t = math.huge, math.huge
    for _ = 1, 3 do
      local _, o1 = sh(string.format("%s/tune_bench %s %s %d %s", W, k.name, k.name, opt.reps, done[k.name].shape))
      local _, o2 = sh(string.format("%s/tuned/tune_bench %s %s %d %s", W, k.name, k.name, opt.reps, done[k.name].shape))
      d = math.min(d, tonumber(o1:match("^([%d.]+)")) or math.huge)
      t = math.min(t, tonumber(o2:match("^([%d.]+)")) or math.huge)
    end
    local kn = {}
    for a, b in pairs(done[k.name].knobs) do kn[#kn + 1] = a .. "=" .. b end
    table.sort(kn)
    -- A tuned kernel that is slower in the tuned build than in the default
    -- build (beyond 3% noise) is not kept: its record reverts to the defaults.
    local keep = t <= d * 1.03
    verify[#verify + 1] = string.format("| %s | %s | %.0f | %.0f | %.2fx%s |", k.name, table.concat(kn, ","), d, t,
      d / t, keep and "" or " (reverted to the defaults)")
    if not keep then done[k.name].knobs = {} end
  end
  -- Rewrite the record with the reverts.
  local rec2 = { rec[1] }
  for _, k in ipairs(configs) do
    local r = done[k.name]
    if r then
      rec2[#rec2 + 1] = string.format("    { kernel = %q, knobs = %s, shape = %q, ns = %d, default_ns = %d, " ..
        "noise = %.4f, candidates = %d },\n", k.name, lua_value(r.knobs), r.shape,
        math.floor(next(r.knobs) and r.ns or r.default.ns), math.floor(r.default.ns), r.default.noise / r.default.ns,
        #r.candidates)
    end
  end
  rec2[#rec2 + 1] = "  },\n}\n"
  writef(out_file, table.concat(rec2))
else
  verify[#verify + 1] = "| (no knob beat the defaults beyond noise: the tuned build is the default build) | | | | |"
end
report[#report + 1] = table.concat(verify, "\n")
writef(W .. "/report.md", table.concat(report, "\n") .. "\n")
print(table.concat(report, "\n"))
print(string.format("tune: record %s, report %s/report.md and %s/report.svg%s", out_file, W, W,
  over_budget and " (budget reached: rerun with --resume to continue)" or ""))
