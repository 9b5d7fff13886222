-- attack: an infinite loop whose unwinding runs a looping __close
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  local guard <close> = setmetatable({}, { __close = function() while true do end end })
  while true do end
end
