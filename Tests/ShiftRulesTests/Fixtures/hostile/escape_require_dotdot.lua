-- attack: require with ../
-- expect: invalid module name
local function attack(change, schedule, report, params)
  require("../../../etc/passwd")
end
