-- max_hours_per_week: average working hours per week over a reference period stay within
-- `average_hours` (default 48 h over 17 weeks, as in the EU Working Time Directive). A single
-- week may be longer (a Panama rotation's 60-hour week is allowed) as long as the average holds.
--
-- Reference periods are consecutive blocks of `reference_weeks` weeks counted from
-- `reference_start` (aligned to the store's week start). Hours are the real length of each shift
-- (daylight saving changes included), counted in the week of the date the shift starts on.
-- A person's `max_hours_per_week` attribute overrides `average_hours`. `max_week_hours` (off by
-- default) adds a hard cap for any single week.
-- `shiftctl validate` adds up each person's periods in one pass over their shifts (validate_person)
-- and reports each period over the limit once, from its first shift.
local util = require("lib.util")

local function first_of_period(schedule, person, from, to, shift)
  local first = schedule:shifts{ person = person, from = from, to = to, limit = 1 }[1]
  return first ~= nil and first.id == shift.id
end

return rule {
  id = "max_hours_per_week",
  summary = "Average weekly hours over the reference period stay within the limit.",
  severity = "error",
  on = { "shift" },
  params = { average_hours = 48, reference_weeks = 17, reference_start = "2024-01-01", max_week_hours = false },

  check = function(change, schedule, report, params)
    local s = change.after
    if s == nil or s.person == nil then return end
    local average = util.number(s.person, "max_hours_per_week", params.average_hours)
    local weeks = params.reference_weeks
    local origin = cal.week_start(params.reference_start)
    local period = math.floor(cal.days_between(origin, s.date) / (7 * weeks))
    local from = cal.add_days(origin, period * 7 * weeks)
    local to = cal.add_days(from, 7 * weeks - 1)
    local minutes = schedule:minutes{ person = s.person, from = from, to = to }
    if minutes > average * weeks * 60 and (not change.validating or first_of_period(schedule, s.person, from, to, s)) then
      report{
        message = ("%s averages %.1f h a week from %s to %s (at most %g)")
          :format(s.person.name, minutes / 60 / weeks, from, to, average),
        shift = s,
      }
    end
    if params.max_week_hours then
      local week_from = cal.week_start(s.date)
      local week_to = cal.add_days(week_from, 6)
      local week_minutes = schedule:minutes{ person = s.person, from = week_from, to = week_to }
      if week_minutes > params.max_week_hours * 60
        and (not change.validating or first_of_period(schedule, s.person, week_from, week_to, s)) then
        report{
          message = ("%s works %.1f h in the week of %s (at most %g)")
            :format(s.person.name, week_minutes / 60, week_from, params.max_week_hours),
          shift = s,
        }
      end
    end
  end,

  validate_person = function(person, shifts, schedule, report, params)
    local n = shifts.n
    if n == 0 then return end
    local average = util.number(person, "max_hours_per_week", params.average_hours)
    local weeks = params.reference_weeks
    local origin = cal.week_start(params.reference_start)
    local origin_day = cal.days_between("1970-01-01", origin)
    local days, minutes = shifts.days, shifts.minutes
    local length = 7 * weeks
    local i = 1
    while i <= n do
      local period = (days[i] - origin_day) // length
      local total, j = 0, i
      while j <= n and (days[j] - origin_day) // length == period do
        total = total + minutes[j]
        j = j + 1
      end
      if total > average * weeks * 60 then
        local from = cal.add_days(origin, period * length)
        report{
          message = ("%s averages %.1f h a week from %s to %s (at most %g)")
            :format(person.name, total / 60 / weeks, from, cal.add_days(from, length - 1), average),
          shift = shifts[i],
        }
      end
      i = j
    end
    if params.max_week_hours then
      i = 1
      while i <= n do
        local first = shifts[i]
        local week_from = cal.week_start(first.date)
        local next_week = cal.days_between("1970-01-01", week_from) + 7
        local total, j = 0, i
        while j <= n and days[j] < next_week do
          total = total + minutes[j]
          j = j + 1
        end
        if total > params.max_week_hours * 60 then
          report{
            message = ("%s works %.1f h in the week of %s (at most %g)"):format(person.name, total / 60, week_from, params.max_week_hours),
            shift = first,
          }
        end
        i = j
      end
    end
  end,

  examples = {
    { name = "a 60-hour week is fine when the two-week average is 42 h (Panama)",
      params = { reference_weeks = 2, reference_start = "2026-03-02" },
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Bob" }, { "D", "2026-03-06", "Bob" },
                           { "D", "2026-03-07", "Bob" }, { "D", "2026-03-11", "Bob" }, { "D", "2026-03-12", "Bob" } } },
      add = { "D", "2026-03-08", "Bob" }, expect = "pass" },
    { name = "the same 60-hour week breaks a one-week average", params = { reference_weeks = 1 },
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Bob" }, { "D", "2026-03-06", "Bob" },
                           { "D", "2026-03-07", "Bob" } } },
      add = { "D", "2026-03-08", "Bob" }, expect = "error", message = "Bob averages 60.0 h a week from 2026-03-02 to 2026-03-08" },
    { name = "an optional cap limits any single week", params = { reference_weeks = 2, max_week_hours = 50 },
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Bob" }, { "D", "2026-03-06", "Bob" },
                           { "D", "2026-03-07", "Bob" } } },
      add = { "D", "2026-03-08", "Bob" }, expect = "error", message = "works 60.0 h in the week of 2026-03-02" },
    { name = "validate reports each period over the limit once", params = { reference_weeks = 1, reference_start = "2026-03-02", max_week_hours = 50 },
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Bob" }, { "D", "2026-03-04", "Bob" },
                           { "D", "2026-03-05", "Bob" }, { "D", "2026-03-06", "Bob" }, { "D", "2026-03-10", "Bob" } } },
      validate = true, expect = "error", count = 2, message = "Bob averages 60.0 h a week from 2026-03-02 to 2026-03-08" },
    { name = "a person's own limit applies", params = { reference_weeks = 1 },
      given = { types = { D = "07:00-19:00" }, people = { { name = "Bob", attributes = { max_hours_per_week = 20 } } },
                shifts = { { "D", "2026-03-02", "Bob" } } },
      add = { "D", "2026-03-03", "Bob" }, expect = "error" },
  },
}
