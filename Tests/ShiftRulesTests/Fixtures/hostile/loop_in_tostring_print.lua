-- attack: print calling a looping __tostring
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  print(setmetatable({}, { __tostring = function() while true do end end }))
end
