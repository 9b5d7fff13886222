-- attack: rawset on the change object a rule is handed
-- expect: table expected
local function attack(change, schedule, report, params)
  rawset(change, "after", nil)
end
