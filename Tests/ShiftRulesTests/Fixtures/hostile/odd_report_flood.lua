-- attack: millions of reports
-- expect: too many reports|instruction budget|time limit|memory limit|not enough memory
-- expect-load: nil value
local function attack(change, schedule, report, params)
  for i = 1, 1e9 do report("flood " .. i) end
end
