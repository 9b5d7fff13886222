-- attack: an infinite loop in a gsub callback
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  string.gsub(string.rep("a", 10), "a", function() while true do end end)
end
