-- attack: gsub callbacks nested inside gsub
-- expect: stack overflow|memory limit|not enough memory
local function attack(change, schedule, report, params)
  local function f(s) return (string.gsub(s .. "a", ".", f)) end
  f("a")
end
