-- template.lua -- kforge's C template language (see docs/templates.md).
--
-- A template is C text with two additions:
--   * a line whose first non-blank character is `$` (not `${`, not `$$`)
--     is a Lua statement: `$for i = 0, CT-1 do`, `$if TRAIN then`, `$end`;
--   * `${expr}` anywhere in a text line inserts the value of a Lua
--     expression; `$$` is a literal `$`.
-- Each template line compiles to exactly one line of the Lua chunk, whose
-- name is the template's path, so every error (syntax, runtime, undefined
-- variable) reports the template's own file and line.
-- Values: strings as they are, integers in decimal; any other number is an
-- error (use f32()/f64() for float literals), as are nil and booleans.

local M = {}

-- Formats one `${}` value for C text.
local function value_text(v, where)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" then
    local i = math.tointeger(v)
    if i then return string.format("%d", i) end
    error(where .. "non-integer number " .. tostring(v) .. " in ${}: use f32() or f64()", 0)
  end
  error(where .. "cannot insert a " .. t .. " value in ${}", 0)
end

-- Exactly-rounded C literals for floating constants.
local function literal(x, digits, what)
  if type(x) ~= "number" then error(what .. ": expected a number, got " .. type(x), 3) end
  if x ~= x or x == math.huge or x == -math.huge then error(what .. ": non-finite literal", 3) end
  local s = string.format(digits, x)
  if not s:find("[%.eEn]") then s = s .. ".0" end
  return s
end
function M.f64(x)
  local s = literal(x, "%.17g", "f64") -- not a tail call: errors name the template line
  return s
end
-- Rounded to float first (once), then printed with enough digits to round-trip.
function M.f32(x)
  local ok = type(x) == "number" and x == x and x ~= math.huge and x ~= -math.huge
  local v = ok and string.unpack("<f", string.pack("<f", x)) or x
  local s = literal(v, "%.9g", "f32")
  return s .. "f"
end

-- Splits a text line into Lua expression pieces; returns the code of one
-- statement that emits the line (with its newline).
local function text_line(line, nl)
  local parts, pos = {}, 1
  while true do
    local s = line:find("$", pos, true)
    if not s then break end
    local nxt = line:sub(s + 1, s + 1)
    if nxt == "$" then
      parts[#parts + 1] = string.format("%q", line:sub(pos, s))
      pos = s + 2
    elseif nxt == "{" then
      if s > pos then parts[#parts + 1] = string.format("%q", line:sub(pos, s - 1)) end
      local depth, j = 1, s + 2
      while j <= #line and depth > 0 do
        local c = line:sub(j, j)
        if c == "{" then depth = depth + 1 elseif c == "}" then depth = depth - 1 end
        j = j + 1
      end
      if depth > 0 then
        return nil, "unterminated ${ in text line"
      end
      local expr = line:sub(s + 2, j - 2)
      if expr:match("^%s*$") then return nil, "empty ${}" end
      parts[#parts + 1] = "_v(" .. expr .. ")"
      pos = j
    else
      parts[#parts + 1] = string.format("%q", line:sub(pos, s))
      pos = s + 1
    end
  end
  if pos <= #line then parts[#parts + 1] = string.format("%q", line:sub(pos)) end
  if nl then parts[#parts + 1] = '"\\n"' end
  if #parts == 0 then return "" end
  return "_o(" .. table.concat(parts, ",") .. ")"
end

-- Compiles template source into a Lua function(env) -> text.
-- name is the template's path as reported in errors.
function M.compile(src, name)
  local code = {}
  local n = 0
  local ends_nl = src:sub(-1) == "\n"
  local body = ends_nl and src:sub(1, -2) or src
  for line in (body .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    local stmt = line:match("^%s*%$([^{$].*)$") or (line:match("^%s*%$$") and "")
    if stmt then
      code[n] = stmt
    else
      local c, err = text_line(line, true)
      if not c then return nil, string.format("%s:%d: %s", name, n, err) end
      code[n] = c
    end
  end
  local chunk = "local _o, _v = ...; " .. table.concat(code, "\n")
  -- The environment is bound per render through _ENV upvalue replacement.
  local fn, err = load(chunk, "@" .. name, "t", {})
  if not fn then return nil, err end
  return { fn = fn, name = name }
end

-- Renders a compiled template with params (read-only; unknown names are
-- errors). helpers are extra functions visible to the template.
function M.render(tpl, params, helpers)
  local out = {}
  local function emit(...)
    local t = table.pack(...)
    for i = 1, t.n do out[#out + 1] = t[i] end
  end
  local env = setmetatable({}, {
    __index = function(_, k)
      local v = params[k]
      if v == nil and helpers then v = helpers[k] end
      if v == nil then v = M.lua_builtins[k] end
      if v == nil then error("undefined template variable '" .. tostring(k) .. "'", 2) end
      return v
    end,
  })
  local fn = tpl.fn
  debug.setupvalue(fn, 1, env) -- _ENV of the main chunk
  local function fmt(v)
    local info = debug.getinfo(2, "l")
    local where = tpl.name .. ":" .. (info and info.currentline or 0) .. ": "
    return value_text(v, where)
  end
  local ok, err = pcall(fn, emit, fmt)
  if not ok then return nil, tostring(err) end
  local text = table.concat(out)
  text = text:gsub("[ \t]+\n", "\n"):gsub("\n\n\n+", "\n\n")
  return text
end

-- Integer arithmetic on C text and compile-time integer constants, folded
-- where a constant makes it a no-op, so that generated code holds no `* 1`,
-- `/ 1`, `% 1`, `+ 0`, `- 0` or `0 *` (docs/templates.md). Text operands
-- must bind at least as tightly as the operator (an identifier, a call, a
-- parenthesized expression; for add/sub/sum also a multiplicative one):
-- par(e) parenthesizes e where it has an operator.
local function const(k)
  return math.type(k) == "integer" or (type(k) == "number" and math.tointeger(k) ~= nil)
end
local function text(x) return const(x) and string.format("%d", math.tointeger(x)) or x end
function M.par(e)
  e = text(e)
  if e:find("[%s%+%-%*/%%?<>=&|]") and not e:match("^%b()$") then return "(" .. e .. ")" end
  return e
end
function M.mul(a, b) -- a * b, either may be a constant
  if const(a) and const(b) then return text(a * b) end
  if const(a) then
    if a == 0 then return "0" end
    if a == 1 then return b end
  elseif const(b) then
    if b == 0 then return "0" end
    if b == 1 then return a end
  end
  return text(a) .. " * " .. text(b)
end
function M.div(e, k) -- e / k, k a positive constant
  if k == 1 then return text(e) end
  return text(e) .. " / " .. text(k)
end
function M.mod(e, k) -- e % k, k a positive constant
  if k == 1 then return "0" end
  return text(e) .. " % " .. text(k)
end
function M.add(e, k) -- e + k, k a constant
  if k == 0 then return text(e) end
  if k < 0 then return text(e) .. " - " .. text(-k) end
  return text(e) .. " + " .. text(k)
end
function M.sub(e, k) -- e - k, k a constant
  if k == 0 then return text(e) end
  if k < 0 then return text(e) .. " + " .. text(-k) end
  return text(e) .. " - " .. text(k)
end
function M.sum(...) -- the terms joined with " + ", zero terms left out ("0" if none)
  local t = {}
  for i = 1, select("#", ...) do
    local x = select(i, ...)
    if x ~= 0 and x ~= "0" then t[#t + 1] = text(x) end
  end
  return #t > 0 and table.concat(t, " + ") or "0"
end

-- require(cond, msg) in a template: a precondition; when cond is false or
-- nil the render stops with msg at the template's own file:line.
function M.require(cond, msg)
  if not cond then error(tostring(msg or "template precondition failed"), 2) end
  return cond
end

M.lua_builtins = {
  math = math, string = string, table = table, ipairs = ipairs, -- no pairs: its order is not deterministic
  tostring = tostring, tonumber = tonumber, type = type, error = error,
  assert = assert, select = select, require = M.require,
  f32 = M.f32, f64 = M.f64,
  mul = M.mul, div = M.div, mod = M.mod, add = M.add, sub = M.sub, sum = M.sum, par = M.par,
}

return M
