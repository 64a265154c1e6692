-- schema.lua -- checks Lua data against a small declarative schema, so a
-- malformed spec, manifest or record is rejected with "file: field: expected
-- X, got Y" instead of a traceback later on.
--
-- A schema is one of:
--   "string" | "integer" | "number" | "boolean" | "any"
--   { oneof = {v1, v2, ...} }              a literal from the list
--   { list = S, min = n }                  an array (1..n, no holes) of S
--   { record = { field = S, ... }, required = { "field", ... } }
--   { map = S }                            string keys -> S
--   { alt = { S1, S2 } }                   the first that matches
--   { pattern = "^lua pattern$" }          a string matching the pattern

local M = {}

local function describe(v)
  local t = type(v)
  if t == "string" then return string.format("%q", v) end
  if t == "number" or t == "boolean" then return tostring(v) end
  return t
end

local function is_array(t)
  local n = 0
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 then return false end
    n = n + 1
  end
  return n == #t
end

local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  return ks
end
M.sorted_keys = sorted_keys

local check

local function expected(s)
  if type(s) == "string" then return s end
  if s.oneof then
    local vs = {}
    for i, v in ipairs(s.oneof) do vs[i] = describe(v) end
    return "one of " .. table.concat(vs, ", ")
  end
  if s.list then return "a list of " .. expected(s.list) end
  if s.record then return "a table" end
  if s.map then return "a table of named " .. expected(s.map) end
  if s.pattern then return "a string matching " .. s.pattern end
  if s.alt then
    local vs = {}
    for i, a in ipairs(s.alt) do vs[i] = expected(a) end
    return table.concat(vs, " or ")
  end
  return "?"
end
M.expected = expected

-- Returns nil when v matches s, else (path, message).
check = function(v, s, path)
  if type(s) == "string" then
    if s == "any" then return nil end
    if s == "integer" then
      if math.type(v) == "integer" then return nil end
    elseif type(v) == s then
      return nil
    end
    return path, "expected " .. s .. ", got " .. describe(v)
  end
  if s.oneof then
    for _, o in ipairs(s.oneof) do if v == o then return nil end end
    return path, "expected " .. expected(s) .. ", got " .. describe(v)
  end
  if s.pattern then
    if type(v) == "string" and v:match(s.pattern) then return nil end
    return path, "expected " .. expected(s) .. ", got " .. describe(v)
  end
  if s.alt then
    for _, a in ipairs(s.alt) do
      if check(v, a, path) == nil then return nil end
    end
    return path, "expected " .. expected(s) .. ", got " .. describe(v)
  end
  if type(v) ~= "table" then
    return path, "expected " .. expected(s) .. ", got " .. describe(v)
  end
  if s.list then
    if not is_array(v) then return path, "expected a list (array with no holes)" end
    if s.min and #v < s.min then
      return path, string.format("expected at least %d entries, got %d", s.min, #v)
    end
    for i, e in ipairs(v) do
      local p, m = check(e, s.list, path .. "[" .. i .. "]")
      if p then return p, m end
    end
    return nil
  end
  if s.map then
    for _, k in ipairs(sorted_keys(v)) do
      if type(k) ~= "string" then return path, "expected string keys, got " .. describe(k) end
      local p, m = check(v[k], s.map, path .. "." .. k)
      if p then return p, m end
    end
    return nil
  end
  if s.record then
    for _, k in ipairs(sorted_keys(v)) do
      if s.record[k] == nil then
        local known = sorted_keys(s.record)
        return path == "" and tostring(k) or path .. "." .. tostring(k),
          "unknown field (known: " .. table.concat(known, ", ") .. ")"
      end
    end
    for _, k in ipairs(s.required or {}) do
      if v[k] == nil then
        return path == "" and k or path .. "." .. k, "missing required field (" .. expected(s.record[k]) .. ")"
      end
    end
    for _, k in ipairs(sorted_keys(s.record)) do
      if v[k] ~= nil then
        local p, m = check(v[k], s.record[k], path == "" and k or path .. "." .. k)
        if p then return p, m end
      end
    end
    return nil
  end
  return path, "bad schema"
end

-- Returns true, or false and "file: field 'path': message".
function M.validate(v, s, file)
  local p, m = check(v, s, "")
  if p == nil then return true end
  if p == "" then return false, string.format("%s: %s", file, m) end
  return false, string.format("%s: field '%s': %s", file, p, m)
end

return M
