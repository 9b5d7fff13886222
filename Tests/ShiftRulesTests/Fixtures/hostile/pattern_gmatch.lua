-- attack: a catastrophic pattern in gmatch
-- expect: pattern too complex|instruction budget|time limit
local function attack(change, schedule, report, params)
  for _ in string.gmatch(string.rep("a", 100000), ".-.-.-x") do end
end
