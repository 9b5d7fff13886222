-- INRC-II S7, total working weekends (soft): a weekend counts as worked when Saturday or Sunday
-- is; over the horizon plus the history's `history_working_weekends`, each working weekend above
-- the person's `max_working_weekends` costs `weight` (30). A person phase (`validate_person`):
-- runs in `shiftctl validate` and, for the people a move touches, in `shiftctl solve`; it reads
-- the weekends from the person's timeline (`shifts.days`).
local inrc2 = require("lib.inrc2")

-- What the rule reads of each person (kept per catalog in the phase's cache).
local PERSON_FACTS = { "max_working_weekends", "history_working_weekends" }

return rule {
  id = "inrc2_s7_working_weekends",
  summary = "INRC-II S7: nobody works more weekends than the contract allows.",
  severity = "penalty",
  params = { weight = 30 },

  validate_person = function(person, shifts, schedule, report, params, cache)
    local facts = inrc2.facts(person, PERSON_FACTS, cache)
    local limit = inrc2.int(facts, "max_working_weekends")
    if limit == nil then return end
    local span = inrc2.span(schedule, cache)
    if span == nil then return end
    local worked = inrc2.worked_weekends(shifts, span) + (inrc2.int(facts, "history_working_weekends") or 0)
    if worked > limit then
      report{ message = ("%s works %d weekends, at most %d"):format(person.name, worked, limit), person = person,
              penalty = (worked - limit) * params.weight }
    end
  end,

  examples = {
    { name = "weekends above the maximum cost per weekend", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-21" },
                types = { Early = "all-day" },
                people = { { name = "Sara", attributes = { max_working_weekends = 1, history_working_weekends = 1 } } },
                shifts = { { "Early", "2024-01-06", "Sara" }, { "Early", "2024-01-14", "Sara" } } },
      expect = "penalty", penalty = 60, message = "Sara works 3 weekends, at most 1" },
    { name = "within the maximum is fine", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-21" },
                types = { Early = "all-day" },
                people = { { name = "Sara", attributes = { max_working_weekends = 2 } } },
                shifts = { { "Early", "2024-01-06", "Sara" }, { "Early", "2024-01-07", "Sara" } } },
      expect = "pass" },
    { name = "a weekend counts once, and only inside the horizon", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-07", ["horizon.last"] = "2024-01-27" },
                types = { Early = "all-day", Late = "all-day" },
                people = { { name = "Sara", attributes = { max_working_weekends = 0 } } },
                shifts = { { "Early", "2024-01-07", "Sara" }, { "Early", "2024-01-13", "Sara" }, { "Late", "2024-01-13", "Sara" },
                           { "Early", "2024-01-14", "Sara" }, { "Early", "2024-01-27", "Sara" } } },
      expect = "penalty", count = 1, penalty = 30, message = "Sara works 1 weekends, at most 0" },
  },
}
