-- INRC-II S3, consecutive days off (soft): runs of days off stay within the person's
-- `min_consecutive_off` and `max_consecutive_off`; each day beyond or short costs `weight` (30).
-- Runs continue the history (`history_consecutive_off`); a run still going on the horizon's last
-- day is not short. A person phase (`validate_person`): runs in `shiftctl validate` and, for the
-- people a move touches, in `shiftctl solve`; it reads the runs from the person's timeline
-- (`shifts.days`).
local inrc2 = require("lib.inrc2")

-- What the rule reads of each person (kept per catalog in the phase's cache).
local PERSON_FACTS = { "min_consecutive_off", "max_consecutive_off", "history_consecutive_off" }

return rule {
  id = "inrc2_s3_days_off",
  summary = "INRC-II S3: runs of days off stay within the contract's bounds.",
  severity = "penalty",
  params = { weight = 30 },

  validate_person = function(person, shifts, schedule, report, params, cache)
    local facts = inrc2.facts(person, PERSON_FACTS, cache)
    local lo, hi = inrc2.int(facts, "min_consecutive_off"), inrc2.int(facts, "max_consecutive_off")
    if lo == nil and hi == nil then return end
    local span = inrc2.span(schedule, cache)
    if span == nil then return end
    local history_off = inrc2.int(facts, "history_consecutive_off") or 0
    local list = inrc2.worked_days(schedule, person, shifts, span, false)
    inrc2.charge_day_runs(list, false, history_off, lo, hi, span, "day off", "days off", function(cost, what, date)
      report{ message = ("%s: %s"):format(person.name, what), person = person, date = date, penalty = cost * params.weight }
    end)
  end,

  examples = {
    { name = "one day off between working days, two wanted", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day" },
                people = { { name = "Sara", attributes = { min_consecutive_off = 2, max_consecutive_off = 3 } } },
                shifts = { { "Early", "2024-01-01", "Sara" }, { "Early", "2024-01-03", "Sara" }, { "Early", "2024-01-04", "Sara" },
                           { "Early", "2024-01-05", "Sara" }, { "Early", "2024-01-06", "Sara" }, { "Early", "2024-01-07", "Sara" } } },
      expect = "penalty", count = 1, penalty = 30 },
    { name = "too many days off, counted from the history", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day" },
                people = { { name = "Sara", attributes = { min_consecutive_off = 1, max_consecutive_off = 3, history_consecutive_off = 2 } } },
                shifts = { { "Early", "2024-01-03", "Sara" }, { "Early", "2024-01-04", "Sara" }, { "Early", "2024-01-05", "Sara" },
                           { "Early", "2024-01-06", "Sara" }, { "Early", "2024-01-07", "Sara" } } },
      expect = "penalty", penalty = 30 },
    { name = "days off within the bounds cost nothing", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day" },
                people = { { name = "Sara", attributes = { min_consecutive_off = 2, max_consecutive_off = 3 } } },
                shifts = { { "Early", "2024-01-01", "Sara" }, { "Early", "2024-01-04", "Sara" }, { "Early", "2024-01-05", "Sara" },
                           { "Early", "2024-01-06", "Sara" }, { "Early", "2024-01-07", "Sara" } } },
      expect = "pass" },
  },
}
