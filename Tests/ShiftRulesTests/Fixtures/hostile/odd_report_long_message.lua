-- attack: a violation message of 100 000 characters (kept to 1000)
-- expect: rejected
-- expect-load: nil value
local function attack(change, schedule, report, params)
  report(string.rep("y", 100000))
end
