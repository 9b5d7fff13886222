-- attack: a report table nested in itself
-- expect: nested deeper|cyclic|'message' is required
-- expect-load: nil value
local function attack(change, schedule, report, params)
  local t = { message = "x" }
  t.self = t
  report(t)
end
