-- attack: recursion through pcall that swallows each stack overflow, then a loop
-- expect: instruction budget|time limit|stack overflow
local function attack(change, schedule, report, params)
  local function f() pcall(f) pcall(f) end
  f()
end
