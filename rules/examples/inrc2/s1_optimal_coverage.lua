-- INRC-II S1, insufficient staffing for optimal coverage (soft): each nurse missing from the
-- optimal number of a (day, shift type, skill) costs `weight` (30). Runs in `shiftctl validate`.
local inrc2 = require("lib.inrc2")

return rule {
  id = "inrc2_s1_optimal_coverage",
  summary = "INRC-II S1: each nurse missing from the optimal coverage costs a penalty.",
  severity = "penalty",
  params = { weight = 30 },

  validate = function(schedule, report, params)
    local horizon = inrc2.horizon(schedule)
    if horizon == nil then return end
    for _, entry in ipairs(inrc2.demand(schedule, horizon)) do
      local have = inrc2.staffed(schedule, entry.date, entry.type, entry.skill)
      if have < entry.optimal then
        report{ message = ("%s: %d assigned, optimal %d"):format(inrc2.slot(entry), have, entry.optimal),
                date = entry.date, penalty = (entry.optimal - have) * params.weight }
      end
    end
  end,

  examples = {
    { name = "two nurses short of the optimum cost twice the weight", validate = true,
      given = { types = { Late = "all-day" }, people = { "Sara" },
                shifts = { { type = "Late", date = "2024-01-01", person = "Sara", attributes = { skill = "Nurse" } } },
                demand = { { type = "Late", date = "2024-01-01", skill = "Nurse", min = 1, optimal = 3 } } },
      expect = "penalty", count = 1, penalty = 60 },
    { name = "the optimum reached costs nothing", validate = true,
      given = { types = { Late = "all-day" }, people = { "Sara" },
                shifts = { { type = "Late", date = "2024-01-01", person = "Sara", attributes = { skill = "Nurse" } } },
                demand = { { type = "Late", date = "2024-01-01", skill = "Nurse", min = 0, optimal = 1 } } },
      expect = "pass" },
  },
}
