-- attack: recursion through __tostring and tostring (C frames)
-- expect: stack overflow|memory limit|not enough memory
local function attack(change, schedule, report, params)
  local t
  t = setmetatable({}, { __tostring = function(s) return tostring(s) end })
  local _ = tostring(t)
end
