-- attack: rewriting a field a view remembers (read it, then rawset it on the view) so the sentinel reads the new date
-- expect: table expected
-- expect-load: nil value
local function attack(change, schedule, report, params)
  local _ = change.after.date
  rawset(change.after, "date", "2026-03-04")
end
