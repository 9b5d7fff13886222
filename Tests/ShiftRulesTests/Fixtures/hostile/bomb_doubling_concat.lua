-- attack: a string doubled 64 times
-- expect: memory limit|not enough memory
local function attack(change, schedule, report, params)
  local s = "x"
  for _ = 1, 64 do s = s .. s end
end
