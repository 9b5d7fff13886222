-- shift_type_in_use: a shift type with scheduled shifts cannot be removed (removing it would
-- delete those shifts).
return rule {
  id = "shift_type_in_use",
  summary = "A shift type with scheduled shifts cannot be removed.",
  severity = "error",
  on = { "shift_type" },

  check = function(change, schedule, report)
    if change.action ~= "removed" then return end
    local t = change.before
    local count = change.schedule_before:count{ type = t }
    if count == 0 then return end
    report{
      message = ("%s (%s) has %d scheduled shift%s; remove or switch them first")
        :format(t.symbol, t.title, count, count == 1 and "" or "s"),
    }
  end,

  examples = {
    { name = "a type with shifts cannot be removed",
      given = { types = { D = "07:00-19:00" }, shifts = { { type = "D", date = "2026-03-02" }, { type = "D", date = "2026-03-03" } } },
      remove_type = "D", expect = "error", message = "D (D) has 2 scheduled shifts" },
    { name = "an unused type can be removed",
      given = { types = { D = "07:00-19:00", N = "19:00-07:00" }, shifts = { { type = "D", date = "2026-03-02" } } },
      remove_type = "N", expect = "pass" },
  },
}
