-- attack: replacing a calendar helper
-- expect: read-only
local function attack(change, schedule, report, params)
  cal.weekday = function() return 0 end
end
