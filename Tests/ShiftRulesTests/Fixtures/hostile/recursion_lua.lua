-- attack: unbounded Lua recursion
-- expect: stack overflow|memory limit|not enough memory|time limit exceeded
local function attack(change, schedule, report, params)
  local function f() return 1 + f() end
  f()
end
