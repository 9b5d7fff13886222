-- attack: an infinite loop inside a coroutine
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  local co = coroutine.wrap(function() while true do end end)
  co()
end
