-- attack: two coroutines yielding to each other forever
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  local co = coroutine.wrap(function() while true do coroutine.yield() end end)
  while true do co() end
end
