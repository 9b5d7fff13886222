-- attack: a table whose metamethods error, returned
-- expect: accepted
-- expect-load: without rule
local function attack(change, schedule, report, params)
  return setmetatable({}, { __index = function() error("boom") end, __len = function() error("boom") end, __pairs = function() error("boom") end })
end
