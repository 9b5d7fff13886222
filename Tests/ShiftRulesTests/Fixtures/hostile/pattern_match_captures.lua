-- attack: a catastrophic pattern with captures
-- expect: pattern too complex|instruction budget|time limit
local function attack(change, schedule, report, params)
  string.match(string.rep("a", 100000), "(.-)(.-)(.-)(.-)x")
end
