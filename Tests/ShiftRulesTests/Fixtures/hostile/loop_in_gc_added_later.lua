-- attack: a __gc field added after setmetatable, then garbage made to run the collector (Lua ignores it: no finalizer runs)
-- expect: accepted
local function attack(change, schedule, report, params)
  local mt = {}
  setmetatable({}, mt)
  mt.__gc = function() while true do end end
  for i = 1, 20000 do local _ = { i } end
end
