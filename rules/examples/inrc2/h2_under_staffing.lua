-- INRC-II H2, under-staffing (hard): on every day, for every shift type and skill, at least the
-- minimum number of nurses is assigned with that skill. Each missing nurse is one violation.
-- A whole-roster check: it runs in `shiftctl validate` (a roster being built is short by nature).
-- Demand entries are the requirements; a shift covers the skill in its `skill` attribute.
local inrc2 = require("lib.inrc2")

return rule {
  id = "inrc2_h2_under_staffing",
  summary = "INRC-II H2: every shift type and skill has its minimum number of nurses.",
  severity = "error",

  validate = function(schedule, report)
    local horizon = inrc2.horizon(schedule)
    if horizon == nil then return end
    for _, entry in ipairs(inrc2.demand(schedule, horizon)) do
      local have = inrc2.staffed(schedule, entry.date, entry.type, entry.skill)
      for missing = 1, entry.minimum - have do
        report{ message = ("%s: %d assigned, minimum %d (missing nurse %d of %d)")
                  :format(inrc2.slot(entry), have, entry.minimum, missing, entry.minimum - have),
                date = entry.date }
      end
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
  },
}
