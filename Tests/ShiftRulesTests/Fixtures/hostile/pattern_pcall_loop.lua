-- attack: a catastrophic pattern retried forever inside pcall
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  local s = string.rep("a", 3000)
  while true do pcall(string.find, s, ".-.-.-x") end
end
