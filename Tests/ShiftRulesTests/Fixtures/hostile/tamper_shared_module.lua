-- attack: replacing a function of a module other rules require
-- expect: read-only
local function attack(change, schedule, report, params)
  require("lib.guard").is_forbidden = function() return false end
end
