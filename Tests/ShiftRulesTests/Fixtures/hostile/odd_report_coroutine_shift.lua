-- attack: a coroutine as the shift of a report
-- expect: 'shift' must be a shift view
-- expect-load: nil value
local function attack(change, schedule, report, params)
  report{ message = "x", shift = coroutine.create(print) }
end
