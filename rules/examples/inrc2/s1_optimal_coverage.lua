-- INRC-II S1, insufficient staffing for optimal coverage (soft): each nurse missing from the
-- optimal number of a (day, shift type, skill) costs `weight` (30). Nurses missing below the
-- minimum are H2's (inrc2_h2_under_staffing), not S1's too: a slot below its minimum costs only
-- the gap from the minimum to the optimum, as the official validator counts it. A demand phase
-- (`validate_demand`): one demand entry on one day of the horizon, given the nurses staffing it;
-- dates outside the horizon cost nothing.
local inrc2 = require("lib.inrc2")

return rule {
  id = "inrc2_s1_optimal_coverage",
  summary = "INRC-II S1: each nurse missing from the optimal coverage costs a penalty.",
  severity = "penalty",
  params = { weight = 30 },

  validate_demand = function(entry, staffed, report, params)
    if not entry.in_period or entry.optimal <= 0 then return end
    local counted = math.max(staffed, entry.minimum)
    if counted < entry.optimal then
      local message = staffed < entry.minimum
        and ("%s: %d assigned, optimal %d (below the minimum %d, which H2 counts)")
              :format(inrc2.slot(entry), staffed, entry.optimal, entry.minimum)
        or ("%s: %d assigned, optimal %d"):format(inrc2.slot(entry), staffed, entry.optimal)
      report{ message = message, date = entry.date, type = entry.type, penalty = (entry.optimal - counted) * params.weight }
    end
  end,

  examples = {
    { name = "two nurses short of the optimum cost twice the weight", validate = true,
      given = { types = { Late = "all-day" }, people = { "Sara" },
                shifts = { { type = "Late", date = "2024-01-01", person = "Sara", attributes = { skill = "Nurse" } } },
                demand = { { type = "Late", date = "2024-01-01", skill = "Nurse", min = 1, optimal = 3 } } },
      expect = "penalty", count = 1, penalty = 60 },
    { name = "below the minimum only the gap from the minimum to the optimum costs (H2 counts the rest)", validate = true,
      given = { types = { Late = "all-day" }, people = { "Sara" },
                shifts = { { type = "Late", date = "2024-01-01", person = "Sara", attributes = { skill = "Nurse" } } },
                demand = { { type = "Late", date = "2024-01-01", skill = "Nurse", min = 3, optimal = 4 } } },
      expect = "penalty", count = 1, penalty = 30, message = "below the minimum 3, which H2 counts" },
    { name = "nobody assigned: still only the gap from the minimum to the optimum", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Late = "all-day" }, people = { "Sara" },
                demand = { { type = "Late", date = "2024-01-01", skill = "Nurse", min = 1, optimal = 3 } } },
      expect = "penalty", count = 1, penalty = 60 },
    { name = "a slot below a minimum equal to its optimum costs S1 nothing", validate = true,
      given = { types = { Late = "all-day" }, people = { "Sara" },
                shifts = { { type = "Late", date = "2024-01-01", person = "Sara", attributes = { skill = "Nurse" } } },
                demand = { { type = "Late", date = "2024-01-01", skill = "Nurse", min = 2, optimal = 2 } } },
      expect = "pass" },
    { name = "the optimum reached costs nothing", validate = true,
      given = { types = { Late = "all-day" }, people = { "Sara" },
                shifts = { { type = "Late", date = "2024-01-01", person = "Sara", attributes = { skill = "Nurse" } } },
                demand = { { type = "Late", date = "2024-01-01", skill = "Nurse", min = 0, optimal = 1 } } },
      expect = "pass" },
    { name = "each day of the horizon costs on its own, days outside it cost nothing", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Late = "all-day" }, people = { "Sara" },
                shifts = { { type = "Late", date = "2024-01-02", person = "Sara", attributes = { skill = "Nurse" } } },
                demand = { { type = "Late", date = "2024-01-02", skill = "Nurse", min = 0, optimal = 2 },
                           { type = "Late", date = "2024-01-03", skill = "Nurse", min = 0, optimal = 1 },
                           { type = "Late", date = "2024-01-09", skill = "Nurse", min = 0, optimal = 4 } } },
      expect = "penalty", count = 2, penalty = 60, message = "Late Nurse: 1 assigned, optimal 2" },
  },
}
