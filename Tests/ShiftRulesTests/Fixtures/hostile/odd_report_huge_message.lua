-- attack: a megabyte message reported again and again
-- expect: too many reports|too long|instruction budget|time limit|memory limit|not enough memory
-- expect-load: nil value
local function attack(change, schedule, report, params)
  local m = string.rep("x", 2^20)
  for i = 1, 1e9 do report(m) end
end
