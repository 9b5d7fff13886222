-- attack: a NaN penalty
-- expect: penalty must be a number
-- expect-load: nil value
local function attack(change, schedule, report, params)
  report{ message = "x", penalty = 0/0 }
end
