-- attack: string.format with an enormous width
-- expect: invalid conversion
local function attack(change, schedule, report, params)
  local _ = string.format("%99999999d", 1)
end
