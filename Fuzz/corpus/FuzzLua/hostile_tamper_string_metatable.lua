-- attack: replacing the string metatable's __index
-- expect: read-only
local function attack(change, schedule, report, params)
  getmetatable("").__index = {}
end
