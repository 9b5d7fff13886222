-- attack: print with terminal escape sequences (the host's log gets them replaced)
-- expect: accepted
local function attack(change, schedule, report, params)
  print("\27[2J\27]0;pwned\7", setmetatable({}, { __name = "\27[31m" }))
end
