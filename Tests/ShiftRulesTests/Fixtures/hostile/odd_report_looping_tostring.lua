-- attack: a table with a looping __tostring as the message
-- expect: 'message' is required
-- expect-load: nil value
local function attack(change, schedule, report, params)
  report{ message = setmetatable({}, { __tostring = function() while true do end end }) }
end
