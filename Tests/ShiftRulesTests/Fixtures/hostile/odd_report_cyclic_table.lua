-- attack: a report table nested in itself, in a field the host reads and in one it ignores
-- expect: nested deeper|cyclic|'message' is required
-- expect-load: nil value
local function attack(change, schedule, report, params)
  local t = { message = "x" }
  t.self = t
  t.related = t
  report(t)
end
