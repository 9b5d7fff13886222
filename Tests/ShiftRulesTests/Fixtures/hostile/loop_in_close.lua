-- attack: a to-be-closed variable whose __close loops while an error unwinds
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  local guard <close> = setmetatable({}, { __close = function() while true do end end })
  error("boom")
end
