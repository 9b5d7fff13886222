-- respects_availability: nobody is scheduled when they are unavailable (an error), and shifts
-- they would rather not work cost a penalty (the entry's weight, default 1). Entries may name a
-- shift type; then only that type is affected. "desired" entries are for generators and scoring.
return rule {
  id = "respects_availability",
  summary = "Unavailable people are not scheduled; undesired shifts cost a penalty.",
  severity = "error",
  on = { "shift" },

  check = function(change, schedule, report)
    local s = change.after
    if s == nil or s.person == nil then return end
    for _, entry in ipairs(schedule:availability{ person = s.person, date = s.date }) do
      if entry.type == nil or entry.type.id == s.type.id then
        local what = entry.type and (entry.type.symbol .. " shifts") or "work"
        if entry.kind == "unavailable" then
          report{ message = ("%s is unavailable for %s on %s"):format(s.person.name, what, s.date), shift = s }
        elseif entry.kind == "undesired" then
          report{ message = ("%s would rather not %s on %s"):format(s.person.name, entry.type and ("work " .. what) or "work", s.date),
                  shift = s, severity = "penalty", penalty = entry.weight or 1 }
        end
      end
    end
  end,

  examples = {
    { name = "an unavailable day is rejected",
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                availability = { { person = "Bob", from = "2026-03-01", to = "2026-03-07", kind = "unavailable" } } },
      add = { "D", "2026-03-02", "Bob" }, expect = "error", message = "Bob is unavailable for work on 2026-03-02" },
    { name = "an undesired shift type costs its weight",
      given = { types = { D = "07:00-19:00", N = "19:00-07:00" }, people = { "Bob" },
                availability = { { person = "Bob", from = "2026-03-02", type = "N", kind = "undesired", weight = 5 } } },
      add = { "N", "2026-03-02", "Bob" }, expect = "penalty", penalty = 5 },
    { name = "another type on that day is fine",
      given = { types = { D = "07:00-19:00", N = "19:00-07:00" }, people = { "Bob" },
                availability = { { person = "Bob", from = "2026-03-02", type = "N", kind = "unavailable" } } },
      add = { "D", "2026-03-02", "Bob" }, expect = "pass" },
    { name = "a desired shift is fine",
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                availability = { { person = "Bob", from = "2026-03-02", kind = "desired" } } },
      add = { "D", "2026-03-02", "Bob" }, expect = "pass" },
  },
}
