-- attack: replacing a method of the schedule object
-- expect: read-only object
-- expect-load: nil value
local function attack(change, schedule, report, params)
  schedule.shifts = function() return {} end
end
