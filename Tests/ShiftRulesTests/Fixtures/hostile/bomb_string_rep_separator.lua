-- attack: string.rep with a megabyte separator a million times
-- expect: too large|memory limit|not enough memory
local function attack(change, schedule, report, params)
  local _ = string.rep("x", 2^20, string.rep("y", 2^20))
end
