-- attack: a function as the message of a report
-- expect: 'message' is required
-- expect-load: nil value
local function attack(change, schedule, report, params)
  report{ message = function() end }
end
