-- attack: resuming a looping coroutine again and again, ignoring its errors
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  local co = coroutine.create(function() while true do end end)
  while true do coroutine.resume(co) end
end
