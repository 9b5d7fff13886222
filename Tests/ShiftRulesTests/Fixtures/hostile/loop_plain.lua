-- attack: a plain infinite loop
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  while true do end
end
