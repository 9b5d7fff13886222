-- attack: coroutines nested inside coroutines
-- expect: stack overflow|memory limit|not enough memory
local function attack(change, schedule, report, params)
  local function f() coroutine.wrap(f)() end
  f()
end
