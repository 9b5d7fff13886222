-- attack: millions of live coroutines
-- expect: memory limit|not enough memory|instruction budget|time limit
local function attack(change, schedule, report, params)
  local t = {}
  for i = 1, 1e8 do t[i] = coroutine.create(print) end
end
