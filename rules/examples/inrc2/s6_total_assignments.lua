-- INRC-II S6, total assignments (soft): over the horizon plus the history's
-- `history_assignments`, each assignment below the person's `min_assignments` or above their
-- `max_assignments` costs `weight` (20). Runs in `shiftctl validate`.
local inrc2 = require("lib.inrc2")

return rule {
  id = "inrc2_s6_total_assignments",
  summary = "INRC-II S6: each person's total assignments stay within the contract's bounds.",
  severity = "penalty",
  params = { weight = 20 },

  validate = function(schedule, report, params)
    local horizon = inrc2.horizon(schedule)
    if horizon == nil then return end
    for _, p in ipairs(schedule:people()) do
      local a = p.attributes
      local lo, hi = inrc2.int(a, "min_assignments"), inrc2.int(a, "max_assignments")
      if lo ~= nil or hi ~= nil then
        local total = (inrc2.int(a, "history_assignments") or 0)
                      + schedule:count{ person = p, from = horizon.first, to = horizon.last }
        if lo ~= nil and total < lo then
          report{ message = ("%s has %d assignments, at least %d wanted"):format(p.name, total, lo), person = p,
                  penalty = (lo - total) * params.weight }
        elseif hi ~= nil and total > hi then
          report{ message = ("%s has %d assignments, at most %d wanted"):format(p.name, total, hi), person = p,
                  penalty = (total - hi) * params.weight }
        end
      end
    end
  end,

  examples = {
    { name = "assignments above the maximum cost per assignment", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day" },
                people = { { name = "Sara", attributes = { min_assignments = 0, max_assignments = 1, history_assignments = 1 } } },
                shifts = { { "Early", "2024-01-01", "Sara" }, { "Early", "2024-01-02", "Sara" } } },
      expect = "penalty", penalty = 40, message = "Sara has 3 assignments, at most 1" },
    { name = "too few assignments cost too", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day" },
                people = { { name = "Sara", attributes = { min_assignments = 3, max_assignments = 5 } } },
                shifts = { { "Early", "2024-01-01", "Sara" } } },
      expect = "penalty", penalty = 40 },
    { name = "within the bounds is fine", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day" },
                people = { { name = "Sara", attributes = { min_assignments = 1, max_assignments = 5 } } },
                shifts = { { "Early", "2024-01-01", "Sara" } } },
      expect = "pass" },
  },
}
