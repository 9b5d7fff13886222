-- attack: a catastrophic pattern (.-.-.-.-x over 100k characters): the time is spent in C
-- expect: pattern too complex|instruction budget|time limit
local function attack(change, schedule, report, params)
  string.find(string.rep("a", 100000), ".-.-.-.-x")
end
