-- attack: an error message of a megabyte (the host shows at most 1000 characters)
-- expect: xxxxxxxxxx…
local function attack(change, schedule, report, params)
  error(string.rep("x", 2^20))
end
