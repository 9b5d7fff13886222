-- attack: string.rep of two gigabytes
-- expect: too large|memory limit|not enough memory
local function attack(change, schedule, report, params)
  local _ = string.rep("x", 2^31)
end
