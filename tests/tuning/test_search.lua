-- test_search.lua -- the tuner's joint search (tools/tune/search.lua) on
-- deterministic fake cost functions: it finds the grid optimum (checked by
-- exhaustive enumeration) of a separable and of a non-separable 2-knob
-- function, restarts are what escape a local minimum, and both budgets
-- (candidates, seconds) hold. Run from the repository root:
--   lua5.4 tests/tuning/test_search.lua
package.path = "tools/tune/?.lua;" .. package.path
local search = require "search"
local passed, failed = 0, 0
local function check(ok, what)
  if ok then passed = passed + 1 else failed = failed + 1 end
  print((ok and "ok - " or "FAIL - ") .. what)
end

local vals = { 1, 2, 3, 4, 5, 6, 7, 8 }
local knobs = { { name = "A", values = vals }, { name = "B", values = vals } }
local function batch(f, counter)
  return function(points)
    local r = {}
    for i, p in ipairs(points) do
      r[i] = f(p.A, p.B)
      if counter then counter.n = counter.n + 1 end
    end
    return r
  end
end
local function exhaustive(f)
  local ba, bb, bc = nil, nil, math.huge
  for _, a in ipairs(vals) do
    for _, b in ipairs(vals) do
      if f(a, b) < bc then ba, bb, bc = a, b, f(a, b) end
    end
  end
  return ba, bb, bc
end

-- 1. Separable: one sweep per knob suffices.
local sep = function(a, b) return (a - 3) ^ 2 + 2 * (b - 6) ^ 2 end
local ea, eb = exhaustive(sep)
local r = search.run { knobs = knobs, start = { A = 8, B = 1 }, cost = batch(sep) }
check(r.best.A == ea and r.best.B == eb and r.stopped == "converged",
  string.format("separable: finds the optimum A=%d B=%d (got A=%s B=%s, %d evaluations)", ea, eb, r.best.A, r.best.B, r.evals))
check(r.evals < #vals * #vals, string.format("separable: fewer evaluations than the grid (%d < %d)", r.evals, #vals * #vals))

-- 2. Non-separable, two basins: from (1,1) no single-knob move helps (a
-- local minimum), the global one is at (6,6).
local two = function(a, b) return math.min((a - 1) ^ 2 + (b - 1) ^ 2 + 5, (a - 6) ^ 2 + (b - 6) ^ 2) end
ea, eb = exhaustive(two)
r = search.run { knobs = knobs, start = { A = 1, B = 1 }, cost = batch(two), restarts = 0 }
check(r.best.A == 1 and r.best.B == 1, "non-separable: without restarts the descent stays in the local minimum (1,1)")
r = search.run { knobs = knobs, start = { A = 1, B = 1 }, cost = batch(two), restarts = 3, seed = 7 }
check(r.best.A == ea and r.best.B == eb, string.format("non-separable: restarts find the optimum A=%d B=%d (got A=%s B=%s)",
  ea, eb, r.best.A, r.best.B))

-- 3. Non-separable, coupled: the optimum lies on a curve a*b = 12.
local coupled = function(a, b) return (a * b - 12) ^ 2 + 0.5 * a end
ea, eb = exhaustive(coupled)
r = search.run { knobs = knobs, start = { A = 8, B = 8 }, cost = batch(coupled), restarts = 4, seed = 3 }
check(r.best.A == ea and r.best.B == eb, string.format("coupled: finds the optimum A=%d B=%d (got A=%s B=%s)",
  ea, eb, r.best.A, r.best.B))

-- 4. Deterministic: the same inputs, the same trace.
local r2 = search.run { knobs = knobs, start = { A = 8, B = 8 }, cost = batch(coupled), restarts = 4, seed = 3 }
local same = #r.trace == #r2.trace
for i = 1, math.min(#r.trace, #r2.trace) do
  same = same and search.key(knobs, r.trace[i].point) == search.key(knobs, r2.trace[i].point)
end
check(same, "deterministic: two runs evaluate the same points in the same order")

-- 5. The candidate budget: never more evaluations than allowed.
local cnt = { n = 0 }
r = search.run { knobs = knobs, start = { A = 1, B = 1 }, cost = batch(two, cnt), restarts = 10, max_evals = 10 }
check(cnt.n <= 10 and r.evals == cnt.n and r.stopped == "candidates",
  string.format("candidate budget 10: %d evaluations, stopped by %s", cnt.n, r.stopped))

-- 6. The time budget: a fake clock that advances one second per point; no
-- batch starts after the budget, so the overrun is under one line (8 points).
local t = 0
local timed = function(points)
  t = t + #points
  return batch(two)(points)
end
r = search.run { knobs = knobs, start = { A = 1, B = 1 }, cost = timed, restarts = 10, budget_s = 5,
  clock = function() return t end }
check(r.stopped == "time" and t < 5 + #vals, string.format("time budget 5 s: stopped by %s after %d s", r.stopped, t))

-- 7. Noise: a move within twice the noise is not taken.
local noisy = function(points)
  local out = {}
  for i, p in ipairs(points) do out[i] = { value = 100 - p.A, noise = 10 } end
  return out
end
r = search.run { knobs = { { name = "A", values = { 1, 2, 3 } } }, start = { A = 1 }, cost = noisy }
check(r.best.A == 1, "noise: a 2% gain under 10% noise does not move the search")

-- 8. Invalid points (nil cost: failed or wrong) are never chosen.
local inval = function(points)
  local out = {}
  for i, p in ipairs(points) do out[i] = (p.A ~= 3) and sep(p.A, p.B) or nil end
  return out
end
r = search.run { knobs = knobs, start = { A = 8, B = 1 }, cost = inval, restarts = 2 }
check(r.best.A ~= 3 and r.cost ~= nil, string.format("invalid candidates are skipped (best A=%s B=%s)", r.best.A, r.best.B))

print(string.format("%d passed, %d failed", passed, failed))
os.exit(failed == 0 and 0 or 1)
