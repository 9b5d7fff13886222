-- attack: a tail call to itself: a loop without stack growth
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  local function f() return f() end
  return f()
end
