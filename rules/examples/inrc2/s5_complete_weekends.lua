-- INRC-II S5, complete weekends (soft): a person whose `complete_weekends` attribute is true and
-- who works exactly one of Saturday and Sunday costs `weight` (30) per such weekend of the
-- horizon. A person phase (`validate_person`): runs in `shiftctl validate` and, for the people a
-- move touches, in `shiftctl solve`; it reads the weekends from the person's timeline
-- (`shifts.days`).
local inrc2 = require("lib.inrc2")

-- What the rule reads of each person (kept per catalog in the phase's cache).
local PERSON_FACTS = { "complete_weekends" }

return rule {
  id = "inrc2_s5_complete_weekends",
  summary = "INRC-II S5: whoever must work complete weekends works both days or neither.",
  severity = "penalty",
  params = { weight = 30 },

  validate_person = function(person, shifts, schedule, report, params, cache)
    if shifts.n == 0 or inrc2.facts(person, PERSON_FACTS, cache).complete_weekends ~= true then return end
    local span = inrc2.span(schedule, cache)
    if span == nil then return end
    local count, worked = inrc2.worked_weekends(shifts, span)
    if count == 0 then return end
    local saturdays = {}
    for saturday, days in pairs(worked) do
      if days ~= 3 then saturdays[#saturdays + 1] = saturday end
    end
    table.sort(saturdays)
    for _, saturday in ipairs(saturdays) do
      -- Dated on the day worked alone: the solver aims moves at a finding's date.
      local alone = worked[saturday] == 1 and saturday or saturday + 1
      report{ message = ("%s works only the %s of the weekend of %s"):format(person.name, alone == saturday and "Saturday" or "Sunday",
                                                                               inrc2.date(span, saturday)),
              person = person, date = inrc2.date(span, alone), penalty = params.weight }
    end
  end,

  examples = {
    { name = "half a weekend costs the weight", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-14" },
                types = { Early = "all-day" }, people = { { name = "Sara", attributes = { complete_weekends = true } } },
                shifts = { { "Early", "2024-01-06", "Sara" }, { "Early", "2024-01-13", "Sara" }, { "Early", "2024-01-14", "Sara" } } },
      expect = "penalty", count = 1, penalty = 30, message = "only the Saturday of the weekend of 2024-01-06" },
    { name = "no requirement, no cost", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day" }, people = { { name = "Sara", attributes = { complete_weekends = false } } },
                shifts = { { "Early", "2024-01-06", "Sara" } } },
      expect = "pass" },
    { name = "each half weekend costs, a weekend cut by the horizon does not", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-07", ["horizon.last"] = "2024-01-27" },
                types = { Early = "all-day" }, people = { { name = "Sara", attributes = { complete_weekends = true } } },
                shifts = { { "Early", "2024-01-07", "Sara" }, { "Early", "2024-01-14", "Sara" }, { "Early", "2024-01-20", "Sara" },
                           { "Early", "2024-01-21", "Sara" }, { "Early", "2024-01-27", "Sara" } } },
      expect = "penalty", count = 1, penalty = 30, message = "only the Sunday of the weekend of 2024-01-13" },
  },
}
