-- attack: changing the rule's parameter table
-- expect: read-only
-- expect-load: nil value
local function attack(change, schedule, report, params)
  params.limit = 1
end
