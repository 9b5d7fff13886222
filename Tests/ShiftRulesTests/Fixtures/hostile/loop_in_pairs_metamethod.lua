-- attack: a __pairs metamethod that loops
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  for _ in pairs(setmetatable({}, { __pairs = function() while true do end end })) do end
end
