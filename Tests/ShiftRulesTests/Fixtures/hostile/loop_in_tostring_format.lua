-- attack: string.format calling a looping __tostring
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  local _ = string.format("%s", setmetatable({}, { __tostring = function() while true do end end }))
end
