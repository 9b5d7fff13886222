-- attack: an infinite loop in a comparison metamethod
-- expect: instruction budget|time limit
local function attack(change, schedule, report, params)
  local mt = { __lt = function() while true do end end }
  local a, b = setmetatable({}, mt), setmetatable({}, mt)
  local _ = a < b
end
