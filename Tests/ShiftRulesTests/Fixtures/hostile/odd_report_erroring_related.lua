-- attack: a related list whose metamethods error
-- expect: 'related' must be
-- expect-load: nil value
local function attack(change, schedule, report, params)
  report{ message = "x", related = setmetatable({ 1 }, { __index = function() error("boom") end }) }
end
