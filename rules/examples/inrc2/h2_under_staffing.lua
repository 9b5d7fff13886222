-- INRC-II H2, under-staffing (hard): on every day, for every shift type and skill, at least the
-- minimum number of nurses is assigned with that skill. Each missing nurse is one violation.
-- A whole-roster check, not run on each edit (a roster being built is short by nature): its
-- demand phase (`validate_demand`) judges one demand entry on one day of the horizon, given the
-- nurses staffing it, in `shiftctl validate` and in `shiftctl solve` (which asks again only when
-- that number changes); dates outside the horizon report nothing. A shift covers the skill in
-- its `skill` attribute.
local inrc2 = require("lib.inrc2")

return rule {
  id = "inrc2_h2_under_staffing",
  summary = "INRC-II H2: every shift type and skill has its minimum number of nurses.",
  severity = "error",

  validate_demand = function(entry, staffed, report)
    if not entry.in_period then return end
    for missing = 1, entry.minimum - staffed do
      report{ message = ("%s: %d assigned, minimum %d (missing nurse %d of %d)")
                :format(inrc2.slot(entry), staffed, entry.minimum, missing, entry.minimum - staffed),
              date = entry.date, type = entry.type }
    end
  end,

  examples = {
    { name = "each missing nurse is a violation", validate = true,
      given = { types = { Early = "all-day" }, people = { "Sara" },
                shifts = { { type = "Early", date = "2024-01-01", person = "Sara", attributes = { skill = "Nurse" } } },
                demand = { { type = "Early", date = "2024-01-01", skill = "Nurse", min = 3, optimal = 3 } } },
      expect = "error", count = 2, message = "Early Nurse: 1 assigned, minimum 3" },
    { name = "only the required skill counts", validate = true,
      given = { types = { Early = "all-day" }, people = { "Sara" },
                shifts = { { type = "Early", date = "2024-01-01", person = "Sara", attributes = { skill = "Nurse" } } },
                demand = { { type = "Early", date = "2024-01-01", skill = "HeadNurse", min = 1, optimal = 1 } } },
      expect = "error", count = 1 },
    { name = "the minimum met is fine", validate = true,
      given = { types = { Early = "all-day" }, people = { "Sara" },
                shifts = { { type = "Early", date = "2024-01-01", person = "Sara", attributes = { skill = "Nurse" } } },
                demand = { { type = "Early", date = "2024-01-01", skill = "Nurse", min = 1, optimal = 2 } } },
      expect = "pass" },
    { name = "an open shift does not count", validate = true,
      given = { types = { Early = "all-day" }, people = { "Sara" },
                shifts = { { type = "Early", date = "2024-01-01", person = "Sara", attributes = { skill = "Nurse" } },
                           { type = "Early", date = "2024-01-01", attributes = { skill = "Nurse" } } },
                demand = { { type = "Early", date = "2024-01-01", skill = "Nurse", min = 2, optimal = 2 } } },
      expect = "error", count = 1, message = "Early Nurse: 1 assigned, minimum 2 (missing nurse 1 of 1)" },
    { name = "each day of the horizon is checked, days outside it are not", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day" }, people = { "Sara" },
                demand = { { type = "Early", date = "2024-01-03", skill = "Nurse", min = 1, optimal = 1 },
                           { type = "Early", date = "2024-01-08", skill = "Nurse", min = 2, optimal = 2 },
                           { type = "Early", weekday = "monday", min = 1, optimal = 1 } } },
      expect = "error", count = 2, message = "Early: 0 assigned, minimum 1" },
  },
}
