-- attack: an infinite loop inside pcall, itself in a loop (pcall must not swallow the budget)
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  while true do pcall(function() while true do end end) end
end
