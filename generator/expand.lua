-- expand.lua -- turns a kernel-set manifest into the sorted list of kernel
-- configurations to generate. A manifest entry gives, per axis of its
-- kernel kind, one value, a list of values, "*" (every value of the axis) or
-- "=other" (the same value as axis `other`, e.g. kw = "=kh").

local M = {}

local function axis_index(spec)
  local r = {}
  for i, a in ipairs(spec.axes) do r[a.name] = { axis = a, index = i } end
  return r
end

local function kind_of(spec, kind)
  for _, k in ipairs(spec.kernels) do if k.kind == kind then return k end end
end

-- Substitutes ${axis} in a spec pattern.
local function subst(pat, values)
  return (pat:gsub("%${([%w_]+)}", function(n) return tostring(values[n]) end))
end
M.subst = subst

local function contains(list, v)
  for _, x in ipairs(list) do if x == v then return true end end
  return false
end

local function has_value(axis, v)
  return contains(axis.values, v)
end

-- Whether the kind has an `isa` variant for these axis values (isa_only).
local function isa_fits(kind, isa, values)
  local only = kind.isa_only and kind.isa_only[isa]
  if not only then return true end
  for an, allowed in pairs(only) do
    if not contains(allowed, values[an]) then return false end
  end
  return true
end

-- Returns the list of kernel records or nil, err.
function M.expand(set, specs, set_file, dtypes, isas)
  local ok, r, err = pcall(M.expand_unsafe, set, specs, set_file, dtypes, isas)
  if ok then return r, err end
  return nil, tostring(r)
end

function M.expand_unsafe(set, specs, set_file, dtypes, isas)
  local out, seen = {}, {}
  for ei, e in ipairs(set.kernels) do
    local where = string.format("%s: field 'kernels[%d]", set_file, ei)
    local spec = specs[e.family]
    local kind = kind_of(spec, e.kind)
    if not kind then
      local ks = {}
      for i, k in ipairs(spec.kernels) do ks[i] = k.kind end
      return nil, string.format("%s.kind': family %s has no kernel kind %q (has: %s)",
        where, e.family, e.kind, table.concat(ks, ", "))
    end
    local ax = axis_index(spec)
    local listed = {}
    for _, an in ipairs(kind.axes) do listed[an] = true end
    local keys = {}
    for k in pairs(e) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do
      if k ~= "family" and k ~= "kind" and k ~= "isa" and k ~= "knobs" and not listed[k] then
        return nil, string.format("%s.%s': not an axis of %s %s kernels (axes: %s)",
          where, k, e.family, e.kind, table.concat(kind.axes, ", "))
      end
    end
    -- ISAs: the entry's choice (default all) among those the kind supports.
    local kind_isas = kind.isas or { "scalar" }
    local chosen_isas = {}
    local sel_isa = e.isa or "*"
    local wanted = sel_isa == "*" and kind_isas or (type(sel_isa) == "table" and sel_isa or { sel_isa })
    for _, w in ipairs(wanted) do
      local ok = false
      for _, ki in ipairs(kind_isas) do if ki == w then ok = true end end
      if not ok or not isas[w] then
        return nil, string.format("%s.isa': %s is not an ISA of %s %s kernels (ISAs: %s)",
          where, tostring(w), e.family, e.kind, table.concat(kind_isas, ", "))
      end
      chosen_isas[#chosen_isas + 1] = w
    end
    -- Knob variants (tuning candidates): each combination is its own kernel,
    -- its name tagged with the knob values, e.g. __avx512_b512.
    local knob_defs = {}
    for _, kd in ipairs(spec.knobs or {}) do knob_defs[kd.name] = kd end
    local knob_combos = { {} }
    local knames = {}
    for kn in pairs(e.knobs or {}) do knames[#knames + 1] = kn end
    table.sort(knames)
    for _, kn in ipairs(knames) do
      local kd = knob_defs[kn]
      if not kd then
        return nil, string.format("%s.knobs.%s': not a knob of %s (knobs: %s)", where, kn, e.family,
          (function() local t = {} for _, d in ipairs(spec.knobs or {}) do t[#t + 1] = d.name end
            return #t > 0 and table.concat(t, ", ") or "none" end)())
      end
      local vals = type(e.knobs[kn]) == "table" and e.knobs[kn] or { e.knobs[kn] }
      local nxt = {}
      for _, combo in ipairs(knob_combos) do
        for _, v in ipairs(vals) do
          local ok = false
          for _, x in ipairs(kd.values) do if x == v then ok = true end end
          if not ok then
            return nil, string.format("%s.knobs.%s': %s is not a value of the knob", where, kn, tostring(v))
          end
          local c = {}
          for a, b in pairs(combo) do c[a] = b end
          c[kn] = v
          nxt[#nxt + 1] = c
        end
      end
      knob_combos = nxt
    end
    local function knob_tag(combo)
      local t = ""
      for _, kd in ipairs(spec.knobs or {}) do
        if combo[kd.name] ~= nil then t = t .. "_" .. kd.tag .. tostring(combo[kd.name]) end
      end
      return t
    end
    -- Choices per axis, in the kind's axis order.
    local choices = {}
    for i, an in ipairs(kind.axes) do
      local sel, a = e[an], ax[an].axis
      if sel == nil then
        return nil, string.format("%s.%s': missing (a value of axis %s, a list, or \"*\")", where, an, an)
      end
      if sel == "*" then
        choices[i] = { values = a.values }
      elseif type(sel) == "string" and sel:sub(1, 1) == "=" then
        local other = sel:sub(2)
        local oi
        for j = 1, i - 1 do if kind.axes[j] == other then oi = j end end
        if not oi then
          return nil, string.format("%s.%s': %q must name an axis listed before %s", where, an, sel, an)
        end
        choices[i] = { tie = oi }
      else
        local list = type(sel) == "table" and sel or { sel }
        for _, v in ipairs(list) do
          if not has_value(a, v) then
            local vs = {}
            for j, x in ipairs(a.values) do vs[j] = tostring(x) end
            return nil, string.format("%s.%s': %s is not a value of axis %s (values: %s)",
              where, an, tostring(v), an, table.concat(vs, ", "))
          end
        end
        choices[i] = { values = list }
      end
    end
    -- Cartesian product.
    local function rec(i, chosen)
      if i > #kind.axes then
        local values = {}
        for j, an in ipairs(kind.axes) do values[an] = chosen[j] end
        for _, isa in ipairs(chosen_isas) do
        if isa_fits(kind, isa, values) then
        for _, combo in ipairs(knob_combos) do
        local name = "kfg_" .. subst(kind.name, values) .. "__" .. isa .. knob_tag(combo)
        if not name:match("^[%a_][%w_]*$") then
          error(string.format("%s: kernel kind %q: name pattern %q gives %q, not a C identifier",
            spec.file, kind.kind, kind.name, name), 0)
        end
        if values.T ~= nil and not dtypes[values.T] then
          error(string.format("%s: axis T: value %q is not a known dtype (generator/dtypes.lua)",
            spec.file, tostring(values.T)), 0)
        end
        if seen[name] and (seen[name].kind ~= kind.kind or seen[name].family ~= e.family) then
          error(string.format("%s: kernel name %s is produced by two kernel kinds (%s and %s): make the name patterns distinct",
            spec.file, name, seen[name].kind, kind.kind), 0)
        end
        if not seen[name] then
          local key, fixed = {}, 0
          for j, a in ipairs(spec.axes) do
            local v = values[a.name]
            if v == nil then
              key[j] = "KFI_ANY"
            else
              key[j] = a.c and a.c[v] or tostring(v)
              fixed = fixed + 1
            end
          end
          local k = {
            family = e.family, kind = e.kind, spec = spec, values = values, name = name,
            template = subst(kind.template, values),
            config = subst(kind.config or kind.name, values),
            key = key, fixed = fixed, isa = isa, isa_def = isas[isa], knobs = combo,
          }
          seen[name] = k
          out[#out + 1] = k
        end
        end
        end
        end
        return true
      end
      local c = choices[i]
      if c.tie then
        local v = chosen[c.tie]
        if not has_value(ax[kind.axes[i]].axis, v) then return true end
        chosen[i] = v
        return rec(i + 1, chosen)
      end
      for _, v in ipairs(c.values) do
        chosen[i] = v
        rec(i + 1, chosen)
      end
      chosen[i] = nil
      return true
    end
    rec(1, {})
  end
  if #out == 0 then error(set_file .. ": the manifest selects no kernel", 0) end
  -- Selection order: family, then most specific first, then by name.
  table.sort(out, function(a, b)
    if a.family ~= b.family then return a.family < b.family end
    if a.fixed ~= b.fixed then return a.fixed > b.fixed end
    if a.isa_def.rank ~= b.isa_def.rank then return a.isa_def.rank > b.isa_def.rank end
    return a.name < b.name
  end)
  return out
end

-- Template parameters of one kernel.
function M.params(k, dtypes)
  local p = {}
  for n, v in pairs(k.spec.params or {}) do p[n] = v end
  for n, v in pairs(k.values) do p[n] = v end
  for n, v in pairs(k.knobs or {}) do p[n] = v end
  p.KERNEL = k.name
  p.FAMILY = k.family
  p.ISA = k.isa
  p.ISA_RANK = k.isa_def.rank
  p.ISA_LANES = k.isa_def.lanes -- float lanes of a vector (1: scalar)
  p.ISA_VREGS = k.isa_def.vregs -- vector registers the templates budget for
  p.ISA_VBYTES = k.isa_def.vbytes -- bytes of a vector
  p.ISA_MASKS = k.isa_def.masks -- lane masks are cheap (masked vector rows)
  p.ISA_SWEEP = k.isa_def.sweep -- batch norm's whole-row cache sweep pays off
  p.ISA_SIMD = k.isa_def.simd -- the SIMD layer: runtime/kfi_simd_<ISA_SIMD>.h
  p.ISA_CACHED = k.isa_def.cached -- data caches: blocking reads the detected sizes; prefetch and wider code pay off
  p.ISA_MASKREGS = k.isa_def.maskregs -- lane masks are registers of their own (AVX-512 k)
  p.ISA_TCM = k.isa_def.tcm -- tightly coupled memory: no caches, strided walks cost nothing extra
  p.ISA_WORD = k.isa_def.word -- bits of the core's native integers (loop counters)
  if k.values.T then
    local d = dtypes[k.values.T]
    p.ctype, p.tf_type, p.acc = d.ctype, d.tf, d.acc
  end
  return p
end

return M
