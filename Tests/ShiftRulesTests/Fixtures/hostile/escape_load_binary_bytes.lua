-- attack: load of bytes that start like a precompiled chunk
-- expect: binary
local function attack(change, schedule, report, params)
  assert(load("\27LuaT\0\25\147\r\n\26\n"))
end
