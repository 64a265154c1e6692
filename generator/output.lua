-- output.lua -- commits a generated tree to disk: everything was rendered in
-- memory first, so an error anywhere means nothing is written; files are
-- rewritten only when their bytes change (ninja's restat keeps builds
-- incremental), and files a previous run generated but this one did not are
-- removed (they are listed in FILES).

local M = {}

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end
M.read = read

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function mkdirs(dir, made)
  if made[dir] then return true end
  local ok = os.execute("mkdir -p " .. shell_quote(dir))
  if not ok then return nil, "cannot create directory " .. dir end
  made[dir] = true
  return true
end

-- files: list of { path = relative path, text = content }, written under root.
-- Returns the number of files written, or nil, err.
function M.commit(root, files)
  local made, written = {}, 0
  local keep = {}
  table.sort(files, function(a, b) return a.path < b.path end)
  local list = {}
  for _, f in ipairs(files) do
    keep[f.path] = true
    list[#list + 1] = f.path
  end
  list[#list + 1] = "FILES"
  files[#files + 1] = { path = "FILES", text = table.concat(list, "\n") .. "\n" }
  local old = read(root .. "/FILES")
  for _, f in ipairs(files) do
    local path = root .. "/" .. f.path
    if read(path) ~= f.text then
      local dir = path:match("^(.*)/[^/]*$")
      if dir then
        local ok, err = mkdirs(dir, made)
        if not ok then return nil, err end
      end
      local tmp = path .. ".tmp"
      local h, err = io.open(tmp, "wb")
      if not h then return nil, "cannot write " .. tmp .. ": " .. tostring(err) end
      h:write(f.text)
      h:close()
      local ok, rerr = os.rename(tmp, path)
      if not ok then return nil, "cannot rename " .. tmp .. ": " .. tostring(rerr) end
      written = written + 1
    end
  end
  if old then
    for p in old:gmatch("[^\n]+") do
      if not keep[p] and p ~= "FILES" and not p:find("%.%.") then
        os.remove(root .. "/" .. p)
        local dir = p:match("^(.*)/[^/]*$")
        if dir then os.remove(root .. "/" .. dir) end -- only succeeds when empty
      end
    end
  end
  return written
end

return M
