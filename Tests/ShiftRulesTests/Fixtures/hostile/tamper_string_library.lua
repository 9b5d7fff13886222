-- attack: replacing a function of the shared string library
-- expect: read-only
local function attack(change, schedule, report, params)
  string.format = function() return "" end
end
