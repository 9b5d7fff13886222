-- attack: require of a standard library module
-- expect: not found in the rule roots
local function attack(change, schedule, report, params)
  require("os")
end
