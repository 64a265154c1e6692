-- tune_mcu.lua -- tunes a model's kernel set for a microcontroller target
-- by instruction count under qemu (-icount: deterministic, no noise), then
-- verifies the tuned image.
--   lua5.4 tools/tune_mcu.lua MODEL TARGET [--knobs K1,K2] [--max-candidates N]
--       [--restarts N] [--out FILE]
-- Per family of the set it searches the knobs (or --knobs) jointly with
-- tools/tune.lua's search (tools/tune/search.lua: coordinate descent, from
-- the spec defaults, --restarts more descents, at most --max-candidates
-- images per family). Each point builds and runs the model
-- (tools/build-model.sh --tuning, all outputs still checked against the
-- host: bit-exact, or within tools/model/compare.c's tolerance for vector
-- kernels) and attributes each call's count to its kernel; each kernel
-- keeps the point with its lowest total, written as the record (default
-- specs/tuning/<cpu>.<model>.lua)
-- and rebuilds with it: the tuned image must not count more instructions.
-- Prints "ok/FAIL" checks and "N passed, M failed".
package.path = "generator/?.lua;tools/tune/?.lua;" .. package.path
local spec = require "spec"
local search = require "search"

local model, target = arg[1], arg[2]
assert(model and target, "usage: lua5.4 tools/tune_mcu.lua MODEL TARGET [--knobs K1,K2] [--max-candidates N] " ..
  "[--restarts N] [--out FILE]")
local only, out_file
local max_cand, restarts = math.huge, 0
local i = 3
while i <= #arg do
  if arg[i] == "--knobs" then only = {}; for k in arg[i + 1]:gmatch("[^,]+") do only[k] = true end; i = i + 1
  elseif arg[i] == "--max-candidates" then max_cand = tonumber(arg[i + 1]); i = i + 1
  elseif arg[i] == "--restarts" then restarts = tonumber(arg[i + 1]); i = i + 1
  elseif arg[i] == "--out" then out_file = arg[i + 1]; i = i + 1
  else error("unknown argument " .. arg[i]) end
  i = i + 1
end

local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local o = p:read("a")
  local ok = p:close()
  return ok, o
end
local function writef(p, s) local f = assert(io.open(p, "wb")); f:write(s); f:close() end
local passed, failed = 0, 0
local function check(ok, what) if ok then passed = passed + 1 else failed = failed + 1 end
  print((ok and "ok - " or "FAIL - ") .. what) end

local t = dofile("specs/targets/" .. target .. ".lua")
local cpu = assert(t.mcu and t.mcu.cpu, "not a microcontroller target with a cpu key")
local fp = select(2, sh("lua5.4 generator/kforge-gen.lua --fingerprint --cc " .. t.cc)):gsub("%s+$", "")
-- Instructions per counter tick (SysTick on Arm, minstret on RISC-V), as
-- tools/build-model.sh takes it from the spec (tools/model/target_env.lua).
local per_tick = tonumber(select(2, sh("lua5.4 tools/model/target_env.lua specs/targets/" .. target .. ".lua"))
  :match("t_insn_per_tick=([%d.]+)"))
assert(per_tick, "no instruction counter for target " .. target)
-- ticks to instructions, rounded (a tick is a fraction of one on the M55)
local function insns(ticks) return math.floor(ticks * per_tick + 0.5) end

-- Builds and runs the model; returns per-instance {kernel, ticks} or nil, output.
local function run(tag, record)
  local cmd = string.format("sh tools/build-model.sh %s %s --run --tag %s%s", model, target, tag,
    record and (" --tuning " .. record) or "")
  local ok, o = sh(cmd)
  if not ok then return nil, o end
  local f = io.open(string.format("build/models/%s/%s-%s/mcu-run.txt", model, target, tag))
  local res = {}
  for line in f:lines() do
    local idx, kernel, ticks = line:match("^(%d+) (%S+) %x+ ticks (%d+)")
    if idx then res[#res + 1] = { kernel = kernel, ticks = tonumber(ticks) } end
  end
  f:close()
  return res
end
local function per_kernel(res)
  local s = {}
  for _, r in ipairs(res) do s[r.kernel] = (s[r.kernel] or 0) + r.ticks end
  return s
end

local base, err = run("tune-default")
check(base ~= nil, model .. " on " .. target .. ": the default image runs" .. (base and "" or (": " .. err)))
if not base then print(string.format("%d passed, %d failed", passed, failed)); os.exit(1) end
local def = per_kernel(base)
local kernels = {}
for k in pairs(def) do kernels[#kernels + 1] = k end
table.sort(kernels)

-- Knobs per family. A kernel's family: the folder the generator wrote it
-- to (gen/FILES lists <family>/<kernel>.c), never read from its name.
local family_of = {}
do
  local f = assert(io.open(string.format("build/models/%s/%s-tune-default/gen/FILES", model, target)))
  for line in f:lines() do
    local fam, k = line:match("^([^/]+)/([^/]+)%.c$")
    if fam then family_of[k] = fam end
  end
  f:close()
end
local fams = {}
for _, k in ipairs(kernels) do fams[assert(family_of[k], "no family for kernel " .. k)] = true end
local calls = {}
for _, r in ipairs(base) do calls[r.kernel] = (calls[r.kernel] or 0) + 1 end
-- Per family, the joint search of tools/tune/search.lua over its knobs (or
-- --knobs): one image per point, all of the family's kernels at that point;
-- the search follows the family's total. A count is exact to one counter
-- tick per call (Arm SysTick: 5 instructions; RISC-V minstret: 1): the
-- noise given to the search is half a tick per call, so a move must save
-- more than a tick per call. Every image counts every kernel, so each
-- kernel then keeps the best point any image measured for it.
local best = {} -- kernel -> { knobs, ticks }
local tried = 0
local fam_list = {}
for fam in pairs(fams) do fam_list[#fam_list + 1] = fam end
table.sort(fam_list)
for _, fam in ipairs(fam_list) do
  local s = assert(spec.load_op("specs", fam))
  local grid, start, tag_of = {}, {}, {}
  for _, kd in ipairs(s.knobs or {}) do
    if not only or only[kd.name] then
      grid[#grid + 1] = { name = kd.name, values = kd.values }
      start[kd.name] = s.params[kd.name]
      tag_of[kd.name] = kd.tag
    end
  end
  local mine = {}
  for _, k in ipairs(kernels) do if family_of[k] == fam then mine[#mine + 1] = k end end
  local fam_def, fam_calls = 0, 0
  for _, k in ipairs(mine) do fam_def, fam_calls = fam_def + def[k], fam_calls + calls[k] end
  local function nondefault(p)
    local kn, tag, parts = {}, "", {}
    for _, g in ipairs(grid) do
      if p[g.name] ~= start[g.name] then
        kn[g.name] = p[g.name]; tag = tag .. tag_of[g.name] .. p[g.name]
        parts[#parts + 1] = g.name .. " = " .. p[g.name]
      end
    end
    return kn, tag, parts
  end
  if #grid > 0 then
    search.run {
      knobs = grid, start = start, max_evals = max_cand, restarts = restarts,
      cost = function(points)
        local costs = {}
        for j, p in ipairs(points) do
          local kn, tag, parts = nondefault(p)
          if tag == "" then
            costs[j] = { value = fam_def, noise = fam_calls / 2 } -- the default image, run above
          else
            local rec = string.format("build/models/%s/tune-%s-%s.lua", model, target, tag)
            local lines = { string.format("return {\n  cpu = %q,\n  fingerprint = %q,\n  records = {\n", cpu, fp) }
            for _, k in ipairs(mine) do
              lines[#lines + 1] = string.format("    { kernel = %q, knobs = { %s } },\n", k, table.concat(parts, ", "))
            end
            lines[#lines + 1] = "  },\n}\n"
            writef(rec, table.concat(lines))
            local res, rerr = run("tune-" .. tag, rec)
            tried = tried + 1
            check(res ~= nil, string.format("%s: builds, runs, outputs match the host%s", table.concat(parts, ","),
              res and "" or (": " .. (rerr or ""):sub(-300))))
            if res then
              local pk, total = per_kernel(res), 0
              for _, k in ipairs(mine) do
                local n = pk[k] or math.huge
                total = total + n
                if n + calls[k] < (best[k] and best[k].ticks or def[k]) then best[k] = { knobs = kn, ticks = n } end
              end
              costs[j] = { value = total, noise = fam_calls / 2 }
            end
          end
        end
        return costs
      end,
    }
  end
end

-- The record and its verification.
local function label(kn, eq, sep)
  local t = {}
  for a, v in pairs(kn) do t[#t + 1] = a .. eq .. v end
  table.sort(t)
  return table.concat(t, sep)
end
out_file = out_file or string.format("specs/tuning/%s.%s.lua", cpu:gsub("[:+]", "-"), model)
local lines = { string.format("-- Tuning record for %s on %s by instruction count under qemu (tools/tune_mcu.lua).\n" ..
  "return {\n  cpu = %q,\n  fingerprint = %q,\n  compiler = %q,\n  tool = \"tools/tune_mcu.lua\",\n  records = {\n",
  model, target, cpu, fp, t.cc) }
for _, k in ipairs(kernels) do
  local b = best[k]
  lines[#lines + 1] = string.format("    { kernel = %q, knobs = { %s}, metric = \"instructions\", ns = %d, default_ns = %d },\n",
    k, b and (label(b.knobs, " = ", ", ") .. " ") or "", insns(b and b.ticks or def[k]), insns(def[k]))
end
lines[#lines + 1] = "  },\n}\n"
writef(out_file, table.concat(lines))
local tuned, terr = run("tuned", out_file)
check(tuned ~= nil, "the tuned image runs, outputs match the host" .. (tuned and "" or (": " .. (terr or ""):sub(-300))))
local d_total, t_total = 0, 0
for _, r in ipairs(base) do d_total = d_total + r.ticks end
for _, r in ipairs(tuned or {}) do t_total = t_total + r.ticks end
print("| kernel | tuned knob | default instructions | tuned instructions |")
print("|---|---|---|---|")
local tk = per_kernel(tuned or {})
for _, k in ipairs(kernels) do
  local b = best[k]
  print(string.format("| %s | %s | %d | %d |", k, b and label(b.knobs, "=", ",") or "(default)", insns(def[k]),
    insns(tk[k] or 0)))
end
print(string.format("| total (%d candidates tried) | | %d | %d |", tried, insns(d_total), insns(t_total)))
check(tuned and t_total <= d_total, string.format("tuning does not raise the count (%d -> %d instructions)",
  insns(d_total), insns(t_total)))
check(tuned and (t_total < d_total or not next(best)), string.format(
  "tuning lowers the instruction count where a knob helps (%.1f%% fewer)", 100 * (1 - t_total / d_total)))
print("record: " .. out_file)
print(string.format("%d passed, %d failed", passed, failed))
os.exit(failed == 0 and 0 or 1)
