-- attack: rule{ … } whose check is a callable table that loops
-- expect: accepted
-- expect-load: check must be a function
local function attack(change, schedule, report, params)
  return rule{ id = "hostile", summary = "x", on = { "shift" }, check = setmetatable({}, { __call = function() while true do end end }) }
end
