-- attack: assigning to a shift view
-- expect: read-only object
-- expect-load: nil value
local function attack(change, schedule, report, params)
  change.after.date = "2026-03-04"
end
