-- search.lua -- the joint knob search shared by tools/tune.lua (time on the
-- host) and tools/tune_mcu.lua (instruction count under qemu): coordinate
-- descent with restarts over a grid of knob values, within a budget.
--
--   local search = require "search"
--   local r = search.run {
--     knobs = { { name = "A", values = { 1, 2, 4 } }, ... },
--     start = { A = 2, ... },           -- the defaults: the first descent starts here
--     cost = function(points) ... end,  -- a batch of points -> a list of costs
--     max_evals = 40, budget_s = 60, restarts = 2, seed = 1,
--     clock = os.time,                  -- seconds; tests pass a fake one
--   }
--   -- r.best, r.cost, r.evals, r.stopped ("converged" | "candidates" | "time"), r.trace
--
-- A cost is a number, or { value = ns, noise = ns }: a move is taken only
-- when it beats the current point by more than twice the larger noise, so
-- the search never walks on noise. A point is costed once (cached). Each
-- step costs one line: every value of one knob, the others fixed; the
-- caller gets the line as one batch (the host tuner builds it in one go).
-- Budgets: never more than max_evals distinct points (a line is cut to what
-- is left); no batch starts once budget_s has passed, so the overrun is at
-- most one line's cost. Restarts start from grid points drawn by a fixed
-- LCG (seed): the same inputs give the same search.
local M = {}

local function key(knobs, p)
  local t = {}
  for i, kd in ipairs(knobs) do t[i] = kd.name .. "=" .. tostring(p[kd.name]) end
  return table.concat(t, " ")
end
M.key = key

local function val(c) return type(c) == "table" and c.value or c end
local function noise(c) return type(c) == "table" and (c.noise or 0) or 0 end
-- a beats b beyond noise
function M.better(a, b)
  if b == nil then return a ~= nil end
  if a == nil then return false end
  return val(a) < val(b) - 2 * math.max(noise(a), noise(b))
end

function M.run(o)
  local knobs, clock = o.knobs, o.clock or os.time
  local max_evals, budget = o.max_evals or math.huge, o.budget_s or math.huge
  local t0 = clock()
  local cache, evals, trace = {}, 0, {}
  local stopped
  local state = o.seed or 1
  local function rand(n) -- 1..n, a fixed LCG (Lua's math.random differs between builds)
    state = (state * 1103515245 + 12345) % 2147483648
    return state % n + 1
  end
  local function copy(p) local c = {} for k, v in pairs(p) do c[k] = v end return c end

  -- Costs the points not yet costed, within the budgets; returns false
  -- when a budget stopped it (some points may then stay uncosted).
  local function cost_points(points)
    local todo, seen = {}, {}
    for _, p in ipairs(points) do
      local k = key(knobs, p)
      if cache[k] == nil and not seen[k] then seen[k] = true; todo[#todo + 1] = p end
    end
    if #todo == 0 then return true end
    if clock() - t0 >= budget then stopped = "time"; return false end
    local cut = false
    if evals + #todo > max_evals then
      for j = #todo, max_evals - evals + 1, -1 do todo[j] = nil end
      cut = true
    end
    if #todo > 0 then
      local cs = o.cost(todo)
      for j, p in ipairs(todo) do
        local k = key(knobs, p)
        cache[k] = cs[j] == nil and false or cs[j] -- false: invalid (failed to build, or wrong)
        evals = evals + 1
        trace[#trace + 1] = { point = copy(p), cost = cs[j] }
      end
    end
    if cut then stopped = "candidates"; return false end
    return true
  end
  local function c_of(p) local c = cache[key(knobs, p)]; return c or nil end

  local best, best_c
  local function descend(p)
    if not cost_points({ p }) then return end
    local cur, cur_c = p, c_of(p)
    local improved = true
    while improved do
      improved = false
      for _, kd in ipairs(knobs) do
        local line = {}
        for _, v in ipairs(kd.values) do
          local q = copy(cur); q[kd.name] = v; line[#line + 1] = q
        end
        local ok = cost_points(line)
        for _, q in ipairs(line) do
          local c = c_of(q)
          if c and M.better(c, cur_c) then cur, cur_c, improved = q, c, true end
        end
        if not ok then break end
      end
      if stopped then break end
    end
    if cur_c and M.better(cur_c, best_c) then best, best_c = cur, cur_c end
  end

  descend(copy(o.start))
  for _ = 1, o.restarts or 0 do
    if stopped then break end
    -- a start not costed yet, if the draw finds one in a few tries
    local p
    for _ = 1, 16 do
      p = {}
      for _, kd in ipairs(knobs) do p[kd.name] = kd.values[rand(#kd.values)] end
      if cache[key(knobs, p)] == nil then break end
    end
    descend(p)
  end
  if not best then best, best_c = copy(o.start), c_of(o.start) end
  return { best = best, cost = best_c, evals = evals, stopped = stopped or "converged", trace = trace,
    seconds = clock() - t0 }
end

return M
