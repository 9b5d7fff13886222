-- attack: tampering attempts swallowed by pcall, then own globals: nothing another rule sees may change
-- expect: accepted
local function attack(change, schedule, report, params)
  pcall(function() string.format = nil end)
  pcall(function() getmetatable("").__index = {} end)
  pcall(function() require("lib.guard").is_forbidden = function() return false end end)
  pcall(function() cal.weekday = nil end)
  _G.rule = nil
  rule = nil
  pairs = nil
  cal = nil
  require = nil
end
