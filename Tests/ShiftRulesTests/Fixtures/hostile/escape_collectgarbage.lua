-- attack: collectgarbage beyond count
-- expect: collectgarbage
local function attack(change, schedule, report, params)
  collectgarbage("collect")
end
