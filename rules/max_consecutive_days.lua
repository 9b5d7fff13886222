-- max_consecutive_days: nobody works more than `days` days in a row (default 6). A shift counts
-- for the date it starts on. A person's `max_consecutive_days` attribute overrides the parameter.
-- `shiftctl validate` walks each person's dates once (validate_person) and reports each long run
-- once, from its first shift, in the check's words (a run longer than days + 1 is "at least").
local util = require("lib.util")

return rule {
  id = "max_consecutive_days",
  summary = "Nobody works too many days in a row.",
  severity = "error",
  on = { "shift" },
  params = { days = 6 },

  check = function(change, schedule, report, params)
    local s = change.after
    if s == nil or s.person == nil then return end
    local limit = util.number(s.person, "max_consecutive_days", params.days)
    -- The run of worked days around this shift, looked up in the person's index; walking
    -- limit + 1 days each way is enough to tell whether the run is too long.
    local span = schedule:work_run{ person = s.person, date = s.date, limit = limit + 1 }
    local first, run = span.first, span.days
    if run <= limit then return end
    if change.validating then
      -- In a whole-schedule pass, report each run once: from its first shift.
      if first ~= s.date then return end
      local earliest = schedule:shifts{ person = s.person, date = s.date, limit = 1 }[1]
      if earliest.id ~= s.id then return end
    end
    report{
      message = ("%s works %s%d days in a row from %s (at most %d)")
        :format(s.person.name, (cal.days_between(first, s.date) > limit or cal.days_between(s.date, span.last) > limit)
                and "at least " or "", run, first, limit),
      shift = s,
    }
  end,

  validate_person = function(person, shifts, schedule, report, params)
    local n = shifts.n
    if n == 0 then return end
    local limit = util.number(person, "max_consecutive_days", params.days)
    local days = shifts.days
    local i = 1
    while i <= n do
      -- The run of consecutive dates that starts with shift i (several shifts a day count once).
      local j, last = i, days[i]
      while j < n and days[j + 1] - last <= 1 do
        j = j + 1
        last = days[j]
      end
      local run = last - days[i] + 1
      if run > limit then
        local s = shifts[i]
        local long = run >= limit + 2
        report{
          message = ("%s works %s%d days in a row from %s (at most %d)")
            :format(person.name, long and "at least " or "", long and limit + 2 or run, s.date, limit),
          shift = s,
        }
      end
      i = j + 1
    end
  end,

  examples = {
    { name = "a seventh day in a row is rejected",
      given = { types = { D = "07:00-15:00" }, people = { "Bob" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Bob" }, { "D", "2026-03-04", "Bob" },
                           { "D", "2026-03-05", "Bob" }, { "D", "2026-03-06", "Bob" }, { "D", "2026-03-07", "Bob" } } },
      add = { "D", "2026-03-08", "Bob" }, expect = "error", message = "Bob works 7 days in a row from 2026-03-02" },
    { name = "six days are fine",
      given = { types = { D = "07:00-15:00" }, people = { "Bob" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Bob" }, { "D", "2026-03-04", "Bob" },
                           { "D", "2026-03-05", "Bob" }, { "D", "2026-03-06", "Bob" } } },
      add = { "D", "2026-03-07", "Bob" }, expect = "pass" },
    { name = "filling a gap joins two runs",
      given = { types = { D = "07:00-15:00" }, people = { "Bob" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Bob" }, { "D", "2026-03-04", "Bob" },
                           { "D", "2026-03-06", "Bob" }, { "D", "2026-03-07", "Bob" }, { "D", "2026-03-08", "Bob" } } },
      add = { "D", "2026-03-05", "Bob" }, expect = "error" },
    { name = "a person's attribute lowers the limit",
      given = { types = { D = "07:00-15:00" }, people = { { name = "Bob", attributes = { max_consecutive_days = 2 } } },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Bob" } } },
      add = { "D", "2026-03-04", "Bob" }, expect = "error" },
    { name = "validate reports a long run once",
      given = { types = { D = "07:00-15:00" }, people = { "Bob" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Bob" }, { "D", "2026-03-04", "Bob" },
                           { "D", "2026-03-05", "Bob" }, { "D", "2026-03-06", "Bob" }, { "D", "2026-03-07", "Bob" },
                           { "D", "2026-03-08", "Bob" }, { "D", "2026-03-09", "Bob" } } },
      validate = true, expect = "error", count = 1 },
  },
}
