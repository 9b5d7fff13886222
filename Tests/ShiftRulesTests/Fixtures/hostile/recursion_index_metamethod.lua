-- attack: recursion through __index metamethods
-- expect: stack overflow|memory limit|not enough memory|instruction budget|time limit
local function attack(change, schedule, report, params)
  local t = setmetatable({}, { __index = function(t, k) return t[k .. "x"] end })
  local _ = t.x
end
