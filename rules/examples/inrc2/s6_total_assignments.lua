-- INRC-II S6, total assignments (soft): over the horizon plus the history's
-- `history_assignments`, each assignment below the person's `min_assignments` or above their
-- `max_assignments` costs `weight` (20). A person phase (`validate_person`): runs in
-- `shiftctl validate` and, for the people a move touches, in `shiftctl solve`; it counts the
-- shifts of the person's timeline inside the horizon (`shifts.days`).
local inrc2 = require("lib.inrc2")

-- What the rule reads of each person (kept per catalog in the phase's cache).
local PERSON_FACTS = { "min_assignments", "max_assignments", "history_assignments" }

return rule {
  id = "inrc2_s6_total_assignments",
  summary = "INRC-II S6: each person's total assignments stay within the contract's bounds.",
  severity = "penalty",
  params = { weight = 20 },

  validate_person = function(person, shifts, schedule, report, params, cache)
    local facts = inrc2.facts(person, PERSON_FACTS, cache)
    local lo, hi = inrc2.int(facts, "min_assignments"), inrc2.int(facts, "max_assignments")
    if lo == nil and hi == nil then return end
    local span = inrc2.span(schedule, cache)
    if span == nil then return end
    local days, first, last = shifts.days, span.lo, span.hi
    local count = 0
    for i = 1, shifts.n do
      local d = days[i]
      if d >= first and d <= last then count = count + 1 end
    end
    local total = (inrc2.int(facts, "history_assignments") or 0) + count
    if lo ~= nil and total < lo then
      report{ message = ("%s has %d assignments, at least %d wanted"):format(person.name, total, lo), person = person,
              penalty = (lo - total) * params.weight }
    elseif hi ~= nil and total > hi then
      report{ message = ("%s has %d assignments, at most %d wanted"):format(person.name, total, hi), person = person,
              penalty = (total - hi) * params.weight }
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
    { name = "shifts outside the horizon do not count", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day" },
                people = { { name = "Sara", attributes = { min_assignments = 0, max_assignments = 1 } } },
                shifts = { { "Early", "2023-12-31", "Sara" }, { "Early", "2024-01-03", "Sara" }, { "Early", "2024-01-07", "Sara" },
                           { "Early", "2024-01-08", "Sara" } } },
      expect = "penalty", count = 1, penalty = 20, message = "Sara has 2 assignments, at most 1 wanted" },
  },
}
