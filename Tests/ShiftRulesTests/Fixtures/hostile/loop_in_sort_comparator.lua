-- attack: an infinite loop in a table.sort comparator
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  local t = {}
  for i = 1, 100 do t[i] = i end
  table.sort(t, function() while true do end end)
end
