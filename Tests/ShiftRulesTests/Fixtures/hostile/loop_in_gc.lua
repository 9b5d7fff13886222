-- attack: a finalizer (__gc) that loops: finalizers run with hooks off, so they are refused
-- expect: __gc
local function attack(change, schedule, report, params)
  setmetatable({}, { __gc = function() while true do end end })
end
