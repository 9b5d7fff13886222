-- no_double_booking: nobody works two overlapping shifts.
--
-- Shifts are compared by their real start and end instants in the store's time zone, as
-- half-open intervals: a shift ending at 14:00 and one starting at 14:00 do not overlap.
-- Overnight shifts (22:00-06:00) reach into the next day; all-day shifts cover the whole date.
-- `shiftctl validate` sweeps each person's shifts in time order (validate_person) and reports
-- each overlapping pair once, as the check would.
local util = require("lib.util")

return rule {
  id = "no_double_booking",
  summary = "Nobody works two overlapping shifts.",
  severity = "error",
  on = { "shift" },

  check = function(change, schedule, report)
    local s = change.after
    if s == nil or s.person == nil then return end
    for _, other in ipairs(schedule:shifts{ person = s.person, overlapping = s, exclude = s }) do
      report{
        message = ("%s already works %s"):format(s.person.name, util.when(other)),
        shift = s, related = other,
      }
    end
  end,

  validate_person = function(person, shifts, schedule, report)
    local n = shifts.n
    if n < 2 then return end
    local starts, ends = shifts.starts, shifts.ends
    for i = 1, n - 1 do
      local finish = ends[i]
      local j = i + 1
      -- Shifts are in order of start: the first one starting after this one ends ends the scan.
      while j <= n and starts[j] < finish do
        local other = shifts[j]
        report{ message = ("%s already works %s"):format(person.name, util.when(other)), shift = shifts[i], related = other }
        j = j + 1
      end
    end
  end,

  examples = {
    { name = "a second day shift on the same date is rejected",
      given = { types = { D = "07:00-19:00" }, people = { "Bob" }, shifts = { { "D", "2026-03-02", "Bob" } } },
      add = { "D", "2026-03-02", "Bob" }, expect = "error", count = 1, message = "Bob already works D 07:00-19:00 on 2026-03-02" },
    { name = "back to back shifts touch but do not overlap",
      given = { types = { E = "06:00-14:00", L = "14:00-22:00" }, people = { "Bob" }, shifts = { { "E", "2026-03-02", "Bob" } } },
      add = { "L", "2026-03-02", "Bob" }, expect = "pass" },
    { name = "a night shift overlaps the next morning",
      given = { types = { N = "22:00-06:00", E = "05:00-13:00" }, people = { "Bob" }, shifts = { { "N", "2026-03-02", "Bob" } } },
      add = { "E", "2026-03-03", "Bob" }, expect = "error" },
    { name = "a night shift ending at 06:00 leaves an early shift at 06:00 free",
      given = { types = { N = "22:00-06:00", E = "06:00-14:00" }, people = { "Bob" }, shifts = { { "N", "2026-03-02", "Bob" } } },
      add = { "E", "2026-03-03", "Bob" }, expect = "pass" },
    { name = "an all-day shift overlaps any shift on its date",
      given = { types = { V = "all-day", L = "14:00-22:00" }, people = { "Bob" }, shifts = { { "V", "2026-03-02", "Bob" } } },
      add = { "L", "2026-03-02", "Bob" }, expect = "error" },
    { name = "other people and open shifts do not count",
      given = { types = { D = "07:00-19:00" }, people = { "Bob", "Carol" },
                shifts = { { "D", "2026-03-02", "Carol" }, { type = "D", date = "2026-03-02" } } },
      add = { "D", "2026-03-02", "Bob" }, expect = "pass" },
    { name = "reassigning a shift onto someone already working is rejected",
      given = { types = { D = "07:00-19:00" }, people = { "Bob", "Carol" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-02", "Carol" } } },
      reassign = { 2, "Bob" }, expect = "error" },
    { name = "across the spring DST change the real hours count",
      given = { zone = "Europe/Berlin", types = { N = "22:00-07:00", E = "06:30-14:00" }, people = { "Bob" },
                shifts = { { "N", "2026-03-28", "Bob" } } },
      add = { "E", "2026-03-29", "Bob" }, expect = "error" },
    { name = "validate reports each overlapping pair of three once",
      given = { types = { D = "07:00-19:00", N = "18:00-06:00", L = "12:00-20:00" }, people = { "Bob", "Carol" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "N", "2026-03-02", "Bob" }, { "L", "2026-03-02", "Bob" }, { "D", "2026-03-02", "Carol" } } },
      validate = true, expect = "error", count = 3, message = "Bob already works N 18:00-06:00 on 2026-03-02" },
    { name = "validate reports each overlapping pair once",
      given = { types = { D = "07:00-19:00", N = "18:00-06:00" }, people = { "Bob" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "N", "2026-03-02", "Bob" } } },
      validate = true, expect = "error", count = 1 },
  },
}
