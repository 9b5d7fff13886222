-- attack: string.dump
-- expect: dump
local function attack(change, schedule, report, params)
  string.dump(function() end)
end
