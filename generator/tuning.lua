-- tuning.lua -- tuning records (written by tools/tune.lua, read here): the
-- winning knob values per kernel for one CPU. A record names its CPU as
-- arch:isas:uarch and carries a fingerprint of what generated the timed
-- code (templates, generator, compiler); the generator applies a record
-- only when the fingerprint matches, looking up the exact CPU first, then
-- any record of the same arch and ISA set, else the spec defaults, and it
-- says which it used and why.

local schema = require "schema"

local M = {}

M.record_schema = {
  record = {
    cpu = { pattern = "^[%w_]+:[%w_+]+:[%w_%-]+$" },
    fingerprint = { pattern = "^%x+$" },
    compiler = "string",
    tool = "string",
    records = {
      list = {
        record = {
          kernel = { pattern = "^kfg_[%w_]+$" },
          knobs = { map = "integer" },
          shape = "string",
          ns = "number", default_ns = "number", noise = "number", candidates = "integer",
          metric = "string",
        },
        required = { "kernel", "knobs" },
      },
    },
  },
  required = { "cpu", "fingerprint", "records" },
}

-- FNV-1a, 64 bits (Lua integers wrap), as 16 hex digits.
function M.fnv(s, h)
  h = h or -3750763034362895579 -- 14695981039346656037 as a signed 64-bit integer
  for i = 1, #s do
    h = h ~ s:byte(i)
    h = h * 1099511628211
  end
  return h
end

-- What generated the code a record timed: the family's templates, the
-- generator, the ISA list and the compiler's identity.
function M.fingerprint(files, read, compiler)
  table.sort(files)
  local h
  for _, f in ipairs(files) do
    -- the last two path components name a file wherever the tree lives
    h = M.fnv((f:match("[^/]+/[^/]+$") or f) .. "\0" .. (read(f) or "") .. "\0", h)
  end
  h = M.fnv(compiler or "", h)
  return string.format("%016x", h)
end

-- Loads records (paths: list of files) and picks the one for cpu.
-- Returns map kernel -> knobs, and a line saying what was used.
function M.select(paths, cpu, fp, load_data)
  local exact, same_isa, stale, foreign = nil, nil, {}, {}
  local arch, isas = cpu:match("^([^:]+):([^:]+):")
  for _, p in ipairs(paths) do
    local r, err = load_data(p)
    if not r then return nil, err end
    local ok, verr = schema.validate(r, M.record_schema, p)
    if not ok then return nil, verr end
    local rarch, risas = r.cpu:match("^([^:]+):([^:]+):")
    if r.fingerprint ~= fp then
      stale[#stale + 1] = p
    elseif r.cpu == cpu then
      exact = { p, r }
    elseif rarch == arch and risas == isas then
      same_isa = same_isa or { p, r }
    else
      foreign[#foreign + 1] = p .. " (" .. r.cpu .. ")"
    end
  end
  local note = ""
  if #stale > 0 then note = note .. "; stale, not applied (fingerprint differs): " .. table.concat(stale, ", ") end
  if #foreign > 0 then note = note .. "; other CPUs, not applied: " .. table.concat(foreign, ", ") end
  local pick, how = exact, "exact CPU " .. cpu
  if not pick then pick, how = same_isa, "same ISA set " .. (arch or "?") .. ":" .. (isas or "?") end
  if not pick then return {}, "tuning: none applies to " .. cpu .. ", spec defaults" .. note end
  local map = {}
  for _, rec in ipairs(pick[2].records) do map[rec.kernel] = rec.knobs end
  return map, string.format("tuning: %s (%s, %d kernels)%s", pick[1], how, #pick[2].records, note)
end

return M
