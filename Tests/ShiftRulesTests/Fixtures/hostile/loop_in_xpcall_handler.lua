-- attack: a loop in both the body and the message handler of xpcall
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  while true do xpcall(function() while true do end end, function() while true do end end) end
end
