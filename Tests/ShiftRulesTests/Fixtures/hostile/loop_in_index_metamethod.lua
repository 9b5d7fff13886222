-- attack: an infinite loop in an __index metamethod
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  local t = setmetatable({}, { __index = function() while true do end end })
  local _ = t.x
end
