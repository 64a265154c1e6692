-- tune.lua -- the offline auto-tuner: searches the knobs of every tunable
-- kernel of a kernel set jointly on this CPU, on the calls each kernel
-- serves in the traced models, and writes the winners as a tuning record
-- the generator consumes, plus wisdom for the plan-time choices
-- (docs/tuning.md).
--
--   lua5.4 tools/tune.lua [--set specs/sets/default.lua] [--only PATTERN]
--       [--manifest specs/models/X.lua]... [--max-shapes 6]
--       [--budget-seconds 600] [--max-candidates 200] [--restarts 1]
--       [--reps 9] [--out FILE] [--wisdom FILE] [--resume] [--cc clang]
--
-- Per configuration it takes the best ISA this CPU runs and searches the
-- grid of its knob values by coordinate descent with restarts
-- (tools/tune/search.lua): each step builds one line of candidates (every
-- value of one knob, the others fixed; each is a kernel of its own, built
-- by ninja into one harness), checks every candidate's outputs against the
-- default variant's, and times it on the configuration's shapes (median of
-- --reps runs, best of three rounds; noise = median absolute deviation). A
-- move is taken only beyond twice the noise. The shapes: with --manifest,
-- the calls of those models that this build plans onto the kernel (the
-- --max-shapes largest distinct ones, each weighted by how often the model
-- calls it); without, the family's benchmark case (tools/tune/cases/).
-- Budgets, for the whole run: --budget-seconds (no new line of candidates
-- starts after it) and --max-candidates (points timed, defaults included).
-- Then it verifies: it generates the tuned set from the record (as a user's
-- build would), builds it, and times each tuned kernel against the default
-- build's. With --manifest it also writes wisdom for the plan-time choices
-- (variants, plan-time parameters) by `build/kforge tune --manifest`:
-- default build/tune/tuned.wisdom; it applies without rebuilding.
-- Progress is saved after every configuration (--resume continues).
package.path = "generator/?.lua;tools/tune/?.lua;" .. package.path
local spec = require "spec"
local expand = require "expand"
local dtypes = require "dtypes"
local search = require "search"

local opt = { set = "specs/sets/default.lua", budget = 600, max = 200, reps = 9, cc = "clang", restarts = 1,
  max_shapes = 6, manifests = {} }
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "--resume" then opt.resume = true
  elseif a == "--set" then opt.set = arg[i + 1]; i = i + 1
  elseif a == "--only" then opt.only = arg[i + 1]; i = i + 1
  elseif a == "--manifest" then opt.manifests[#opt.manifests + 1] = arg[i + 1]; i = i + 1
  elseif a == "--max-shapes" then opt.max_shapes = tonumber(arg[i + 1]); i = i + 1
  elseif a == "--budget-seconds" then opt.budget = tonumber(arg[i + 1]); i = i + 1
  elseif a == "--max-candidates" then opt.max = tonumber(arg[i + 1]); i = i + 1
  elseif a == "--restarts" then opt.restarts = tonumber(arg[i + 1]); i = i + 1
  elseif a == "--reps" then opt.reps = tonumber(arg[i + 1]); i = i + 1
  elseif a == "--out" then opt.out = arg[i + 1]; i = i + 1
  elseif a == "--wisdom" then opt.wisdom = arg[i + 1]; i = i + 1
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

-- 3. The shapes of each configuration: with --manifest, the models' calls
-- this build plans onto its kernel; without, the family's benchmark case.
local op_defs = {}
for _, s in pairs(specs) do for _, od in ipairs(s.ops or {}) do op_defs[od.name] = od end end
local shapes_of = {} -- kernel name -> { { args, count, work, name }, ... }
if #opt.manifests > 0 then
  ok, out = sh("ninja build/kforge")
  if not ok then die("ninja build/kforge failed:\n" .. out) end
  -- the manifests' one reader is generator/model.lua: its plan_args are
  -- the calls' `kforge plan` (and tune_bench) arguments
  local model = require "model"
  local calls, lines = {}, {}
  for _, mf in ipairs(opt.manifests) do
    local m, err = spec.load_data(mf)
    if not m then die("manifest " .. tostring(err)) end
    for _, inst in ipairs(m.instances or {}) do
      local od = op_defs[inst.op]
      if od then
        local work, positive = 0, {}
        for _, d in ipairs(od.inputs) do
          local dims = (inst.inputs or {})[d.name] or {}
          local dt = (d.type == "T" or d.type == "U") and ((inst.attrs or {})[d.type] or "float") or d.type
          if d.range and d.range[1] > 0 then positive[#positive + 1] = "--positive " .. d.name end
          local n = 1
          for _, x in ipairs(dims) do n = n * x end
          work = work + n * (({ bfloat16 = 2, half = 2, double = 8 })[dt] or 4)
        end
        local args = model.plan_args(od, inst)
        calls[#calls + 1] = { args = args, work = work, name = (m.name or mf) .. "/" .. inst.name,
          positive = table.concat(positive, " ") }
        lines[#lines + 1] = args
      end
    end
  end
  writef(W .. "/calls.txt", table.concat(lines, "\n") .. "\n")
  local _, planned = sh("build/kforge plan --batch < " .. W .. "/calls.txt")
  local n = 0
  local by_args = {} -- distinct shapes per kernel, with their call counts
  for line in planned:gmatch("[^\n]+") do
    n = n + 1
    local c, kn = calls[n], line:match('kernel = "([^"]+)"')
    if c and kn then
      by_args[kn] = by_args[kn] or {}
      local e = by_args[kn][c.args]
      if e then e.count = e.count + 1
      else
        e = { args = string.format("%.17g ", c.work) .. c.args .. (c.positive ~= "" and (" " .. c.positive) or ""),
          count = 1, work = c.work, name = c.name }
        by_args[kn][c.args] = e
      end
    end
  end
  for kn, t in pairs(by_args) do
    local l = {}
    for _, e in pairs(t) do l[#l + 1] = e end
    -- the largest calls dominate a step: keep --max-shapes of them
    table.sort(l, function(x, y) if x.work * x.count ~= y.work * y.count then return x.work * x.count > y.work * y.count end
      return x.args < y.args end)
    for j = #l, opt.max_shapes + 1, -1 do l[j] = nil end
    shapes_of[kn] = l
  end
  local kept = {}
  for _, k in ipairs(configs) do if shapes_of[k.name] then kept[#kept + 1] = k end end
  configs = kept
  if #configs == 0 then die("no tunable kernel serves a call of " .. table.concat(opt.manifests, ", ")) end
else
  for _, k in ipairs(configs) do
    shapes_of[k.name] = { { args = shape_args(k), count = 1, work = case_of(k).work, name = "case" } }
  end
end

-- 4. Candidates: every point of a configuration's knob grid is a kernel,
-- named by its non-default knob values; the set grows by one line of the
-- search at a time and is rebuilt incrementally (ninja).
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
local entries, in_set = {}, {}
local function entry(k, knobs)
  local e = { family = k.family, kind = k.kind, isa = k.isa }
  for an, av in pairs(k.values) do e[an] = av end
  if knobs and next(knobs) then e.knobs = knobs end
  return e
end
local function nondefault(k, point)
  local kn = {}
  for _, kd in ipairs(k.spec.knobs) do
    if point[kd.name] ~= k.spec.params[kd.name] then kn[kd.name] = point[kd.name] end
  end
  return kn
end
local function kernel_of(k, point)
  local t, kn = "", nondefault(k, point)
  for _, kd in ipairs(k.spec.knobs) do if kn[kd.name] ~= nil then t = t .. "_" .. kd.tag .. tostring(kn[kd.name]) end end
  return k.name .. t
end
for _, k in ipairs(configs) do entries[#entries + 1] = entry(k); in_set[k.name] = true end
local function build()
  local lines = { "-- Tuning candidates (tools/tune.lua). Generated.\nreturn {\n  name = \"tune\",\n  summary = \"candidates\",\n  kernels = {\n" }
  for _, e in ipairs(entries) do lines[#lines + 1] = "    " .. lua_value(e) .. ",\n" end
  lines[#lines + 1] = "  },\n}\n"
  writef(W .. "/candidates.lua", table.concat(lines))
  local okk, o = sh("lua5.4 generator/kforge-gen.lua --quiet --set " .. W .. "/candidates.lua --out " .. W .. "/gen")
  if not okk then return false, o end
  writef(W .. "/build.ninja", table.concat({
    "builddir = " .. W .. "/obj", "gen = " .. W .. "/gen", "cc = " .. opt.cc, "target_cflags = -O2",
    "target_ldflags = -lm", "include ninja/model.ninja",
    "build " .. W .. "/obj/tune_bench.o: cc tools/tune/tune_bench.c",
    "build " .. W .. "/tune_bench: link " .. W .. "/obj/tune_bench.o " .. W .. "/obj/libkforge.a", "" }, "\n"))
  return sh("ninja -f " .. W .. "/build.ninja")
end
io.stderr:write(string.format("tune: %d configurations; building the defaults...\n", #configs))
ok, out = build()
if not ok then die("building the candidates failed:\n" .. out) end

-- 5. Time.
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
-- A point on all of its configuration's shapes: the weighted sums.
local function time_shapes(kernel, k)
  local r = { ns = 0, noise = 0, work = 0, err = 0, per = {} }
  for j, s in ipairs(shapes_of[k.name]) do
    local t, terr = time(kernel, k.name, s.args)
    if not t then return nil, terr end
    r.ns, r.noise, r.work = r.ns + s.count * t.ns, r.noise + s.count * t.noise, r.work + s.count * t.work
    r.err, r.per[j] = math.max(r.err, t.err), t.ns
  end
  return r
end

local function tol(k) return ({ f16 = 5e-3, bf16 = 3e-2, f32 = 2e-5, f64 = 1e-10 })[k.values.T] end
local function bar(n, total, what)
  local w = 30
  local f = math.floor(w * n / total)
  io.stderr:write(string.format("\r[%s%s] %d/%d %-60s", string.rep("#", f), string.rep(".", w - f), n, total,
    what:sub(1, 60)))
end
local function label(kn)
  local t = {}
  for a, b in pairs(kn) do t[#t + 1] = a .. "=" .. tostring(b) end
  table.sort(t)
  return #t > 0 and table.concat(t, ",") or "(default)"
end

local over_budget, used = false, 0
for _, r in pairs(done) do used = used + (r.evals or 0) end
for n, k in ipairs(configs) do
  bar(n - 1, #configs, k.name)
  if not done[k.name] then
    local left_s, left_c = opt.budget - (os.time() - t_start), opt.max - used
    if left_s <= 0 or left_c <= 0 then over_budget = true; break end
    local res = { shapes = shapes_of[k.name], candidates = {} }
    local start, grid = {}, {}
    for _, kd in ipairs(k.spec.knobs) do
      start[kd.name] = k.spec.params[kd.name]
      grid[#grid + 1] = { name = kd.name, values = kd.values }
    end
    local by_name = {}
    local sr = search.run {
      knobs = grid, start = start, max_evals = left_c, budget_s = left_s, restarts = opt.restarts, seed = n,
      cost = function(points)
        local fresh = false
        for _, p in ipairs(points) do
          local kn = kernel_of(k, p)
          if not in_set[kn] then
            in_set[kn] = true; fresh = true
            entries[#entries + 1] = entry(k, nondefault(k, p))
          end
        end
        if fresh then
          local okb, ob = build()
          if not okb then io.stderr:write("\ntune: building a line failed:\n" .. ob .. "\n"); return {} end
        end
        local costs = {}
        for j, p in ipairs(points) do
          local kn = kernel_of(k, p)
          local r = time_shapes(kn, k)
          if r then
            r.name, r.knobs = kn, nondefault(k, p)
            r.valid = r.err <= tol(k)
            by_name[kn] = r
            if kn == k.name then res.default = r else res.candidates[#res.candidates + 1] = r end
            if r.valid then costs[j] = { value = r.ns, noise = r.noise } end
          end
        end
        return costs
      end,
    }
    used = used + sr.evals
    if not res.default then over_budget = true; break end
    local b = by_name[kernel_of(k, sr.best)]
    res.knobs, res.ns = b and b.knobs or {}, b and b.ns or res.default.ns
    res.best_per = b and b.per or res.default.per
    res.evals, res.stopped = sr.evals, sr.stopped
    if sr.stopped ~= "converged" then over_budget = true end
    done[k.name] = res
    save_progress()
  end
end
bar(#configs, #configs, over_budget and "budget reached" or "done")
io.stderr:write("\n")

-- Every point the search timed (its picks among them), as a kernel set
-- with each family's generic kernels, so the correctness suite can run the
-- references against it (tests/tuning/test_tuning.sh).
do
  local t = { "-- The points the tuner timed (tools/tune.lua). Generated.\nreturn {\n  name = \"searched\",\n" ..
    "  summary = \"every knob point the search timed\",\n  kernels = {\n" }
  local fams = {}
  for _, k in ipairs(configs) do
    t[#t + 1] = "    " .. lua_value(entry(k)) .. ",\n"
    for _, c in ipairs(done[k.name] and done[k.name].candidates or {}) do
      t[#t + 1] = "    " .. lua_value(entry(k, c.knobs)) .. ",\n"
    end
    if not fams[k.family] then
      fams[k.family] = true
      t[#t + 1] = string.format("    { family = %q, kind = \"generic\", T = \"*\" },\n", k.family)
    end
  end
  t[#t + 1] = "  },\n}\n"
  writef(W .. "/searched_set.lua", table.concat(t))
end

-- 6. The record, and the report.
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
      "candidates = %d },\n", k.name, lua_value(r.knobs), r.shapes[1].args, math.floor(r.ns), math.floor(r.default.ns),
      r.default.noise / r.default.ns, #r.candidates)
    local unit = #opt.manifests > 0 and "input GB/s" or (case_of(k).unit or "work/ns")
    report[#report + 1] = string.format("| %s | (default) | %.0f | %.1f%% | %.1f %s | 1.00x | yes |", k.name, r.default.ns,
      100 * r.default.noise / r.default.ns, r.default.work / r.default.ns, unit)
    for _, c in ipairs(r.candidates) do
      report[#report + 1] = string.format("| | %s | %.0f | %.1f%% | %.1f %s | %.2fx | %s |", label(c.knobs), c.ns,
        100 * c.noise / c.ns, c.work / c.ns, unit, r.default.ns / c.ns, c.valid and "yes" or "NO")
      svg_rows[#svg_rows + 1] = { k.name .. " " .. label(c.knobs), r.default.ns / c.ns }
    end
  end
end
-- Per shape (the calls a kernel serves, weighted by how often a step makes
-- them) and in aggregate: the searched choice against the defaults.
local shape_rows = { "", "| kernel | chosen knobs | shape (call) | calls | default ns | chosen ns | speedup |",
  "|---|---|---|---|---|---|---|" }
local agg_d, agg_t = 0, 0
for _, k in ipairs(configs) do
  local r = done[k.name]
  if r then
    for j, s in ipairs(r.shapes) do
      local d, t = r.default.per[j], r.best_per[j]
      shape_rows[#shape_rows + 1] = string.format("| %s | %s | %s | %d | %.0f | %.0f | %.2fx |", j == 1 and k.name or "",
        j == 1 and label(r.knobs) or "", s.name, s.count, d, t, d / t)
    end
    agg_d, agg_t = agg_d + r.default.ns, agg_t + r.ns
    shape_rows[#shape_rows + 1] = string.format("| | | search: %d points, stopped: %s | | %.0f | %.0f | %.2fx |",
      r.evals or 0, r.stopped or "?", r.default.ns, r.ns, r.default.ns / r.ns)
  end
end
shape_rows[#shape_rows + 1] = string.format("| aggregate (all shapes, weighted) | | | | %.0f | %.0f | %.2fx |", agg_d, agg_t,
  agg_t > 0 and agg_d / agg_t or 1)
report[#report + 1] = table.concat(shape_rows, "\n")
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
-- 7. Verify: the tuned build (generated from the record) against the default build.
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
      local d1, t1 = 0, 0
      for _, s in ipairs(done[k.name].shapes) do
        local _, o1 = sh(string.format("%s/tune_bench %s %s %d %s", W, k.name, k.name, opt.reps, s.args))
        local _, o2 = sh(string.format("%s/tuned/tune_bench %s %s %d %s", W, k.name, k.name, opt.reps, s.args))
        d1 = d1 + s.count * (tonumber(o1:match("^([%d.]+)")) or math.huge)
        t1 = t1 + s.count * (tonumber(o2:match("^([%d.]+)")) or math.huge)
      end
      d, t = math.min(d, d1), math.min(t, t1)
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
        "noise = %.4f, candidates = %d },\n", k.name, lua_value(r.knobs), r.shapes[1].args,
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
-- 8. Wisdom: the plan-time choices (variant, plan-time parameters of
-- runtime/kf_choice.c) for the manifests' calls, measured by the runtime
-- itself with the calls' own alignments; they apply without rebuilding.
-- kforge tune imports the file first, so the manifests merge into one.
local wisdom
if #opt.manifests > 0 then
  wisdom = opt.wisdom or (W .. "/tuned.wisdom")
  for _, mf in ipairs(opt.manifests) do
    local okw, ow = sh("build/kforge tune --manifest " .. mf .. " --out " .. wisdom)
    if not okw then die("kforge tune --manifest " .. mf .. ": " .. ow) end
    report[#report + 1] = "\nwisdom for " .. mf .. ":\n" .. ow:gsub("%s+$", "")
  end
end
writef(W .. "/report.md", table.concat(report, "\n") .. "\n")
print(table.concat(report, "\n"))
print(string.format("tune: record %s, report %s/report.md and %s/report.svg%s%s", out_file, W, W,
  wisdom and (", wisdom " .. wisdom .. " (use it: KFORGE_WISDOM=" .. wisdom .. ")") or "",
  over_budget and " (budget reached: rerun with --resume to continue)" or ""))
