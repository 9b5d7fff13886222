-- attack: an error object whose __tostring loops (the host never calls it)
-- expect: error object is a table
local function attack(change, schedule, report, params)
  error(setmetatable({}, { __tostring = function() while true do end end }))
end
