-- attack: emptying a table inside a module other rules require
-- expect: read-only
local function attack(change, schedule, report, params)
  require("lib.guard").forbidden["2026-03-04"] = nil
end
