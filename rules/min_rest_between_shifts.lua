-- min_rest_between_shifts: at least `hours` of rest between the end of one shift and the start
-- of the next for the same person (default 11 h, the EU Working Time Directive's daily rest).
--
-- A person's `min_rest_hours` attribute overrides the parameter. Overlapping shifts are left to
-- no_double_booking; shifts that touch (one ends 14:00, the next starts 14:00) have 0 h of rest.
-- `shiftctl validate` sweeps each person's shifts in time order (validate_person) and reports
-- each pair too close together once, as the check would.
local util = require("lib.util")

return rule {
  id = "min_rest_between_shifts",
  summary = "Enough rest between two shifts of the same person.",
  severity = "error",
  on = { "shift" },
  params = { hours = 11 },

  check = function(change, schedule, report, params)
    local s = change.after
    if s == nil or s.person == nil then return end
    local hours = util.number(s.person, "min_rest_hours", params.hours)
    local rest = hours * 3600
    -- Only shifts closer than the rest period come back (usually none), so a check stays cheap.
    local close = schedule:shifts{
      person = s.person, overlapping = { starts_at = s.starts_at - rest, ends_at = s.ends_at + rest }, exclude = s,
    }
    for _, other in ipairs(close) do
      local gap
      if other.ends_at <= s.starts_at then
        gap = s.starts_at - other.ends_at
      elseif other.starts_at >= s.ends_at then
        gap = other.starts_at - s.ends_at
      end
      if gap ~= nil and gap < rest then
        local first, second = s, other
        if other.starts_at < s.starts_at then first, second = other, s end
        report{
          message = ("%s gets %.1f h of rest between %s and %s (at least %g h)")
            :format(s.person.name, gap / 3600, util.when(first), util.when(second), hours),
          shift = s, related = other,
        }
      end
    end
  end,

  validate_person = function(person, shifts, schedule, report, params)
    local n = shifts.n
    if n < 2 then return end
    local hours = util.number(person, "min_rest_hours", params.hours)
    local rest = hours * 3600
    local starts, ends = shifts.starts, shifts.ends
    for i = 1, n - 1 do
      local finish = ends[i]
      local j = i + 1
      -- In order of start: once a shift starts `rest` after this one ends, so do the rest.
      while j <= n and starts[j] < finish + rest do
        local gap = starts[j] - finish
        if gap >= 0 then
          local first, second = shifts[i], shifts[j]
          report{
            message = ("%s gets %.1f h of rest between %s and %s (at least %g h)")
              :format(person.name, gap / 3600, util.when(first), util.when(second), hours),
            shift = first, related = second,
          }
        end
        j = j + 1
      end
    end
  end,

  examples = {
    { name = "a late then an early shift leaves 8 h",
      given = { types = { L = "14:00-22:00", E = "06:00-14:00" }, people = { "Bob" }, shifts = { { "L", "2026-03-02", "Bob" } } },
      add = { "E", "2026-03-03", "Bob" }, expect = "error", message = "8.0 h of rest" },
    { name = "a night then a late shift leaves 8 h",
      given = { types = { N = "22:00-06:00", L = "14:00-22:00" }, people = { "Bob" }, shifts = { { "N", "2026-03-02", "Bob" } } },
      add = { "L", "2026-03-03", "Bob" }, expect = "error" },
    { name = "11 h exactly is enough",
      given = { types = { L = "14:00-22:00", D = "09:00-17:00" }, people = { "Bob" }, shifts = { { "L", "2026-03-02", "Bob" } } },
      add = { "D", "2026-03-03", "Bob" }, expect = "pass" },
    { name = "the check looks backwards too",
      given = { types = { L = "14:00-22:00", E = "06:00-14:00" }, people = { "Bob" }, shifts = { { "E", "2026-03-03", "Bob" } } },
      add = { "L", "2026-03-02", "Bob" }, expect = "error" },
    { name = "a person's min_rest_hours attribute overrides the default",
      given = { types = { L = "14:00-22:00", E = "06:00-14:00" }, people = { { name = "Bob", attributes = { min_rest_hours = 8 } } },
                shifts = { { "L", "2026-03-02", "Bob" } } },
      add = { "E", "2026-03-03", "Bob" }, expect = "pass" },
    { name = "the store can lower the parameter", params = { hours = 7 },
      given = { types = { L = "14:00-22:00", E = "06:00-14:00" }, people = { "Bob" }, shifts = { { "L", "2026-03-02", "Bob" } } },
      add = { "E", "2026-03-03", "Bob" }, expect = "pass" },
    { name = "validate reports each short rest once, also between shifts that are not neighbours",
      given = { types = { L = "14:00-22:00", E = "06:00-14:00", X = "06:00-08:00" }, people = { "Bob" },
                shifts = { { "L", "2026-03-02", "Bob" }, { "X", "2026-03-03", "Bob" }, { "E", "2026-03-03", "Bob" } } },
      -- L-X and L-E leave 8 h each; X and E overlap (no_double_booking's business).
      validate = true, expect = "error", count = 2, message = "Bob gets 8.0 h of rest between L 14:00-22:00 on 2026-03-02 and E 06:00-14:00 on 2026-03-03" },
    { name = "across the autumn DST change 22:00 to 06:00 is 9 h",
      given = { zone = "Europe/Berlin", types = { L = "14:00-22:00", E = "06:00-14:00" }, people = { "Bob" },
                shifts = { { "L", "2026-10-24", "Bob" } } },
      params = { hours = 9 }, add = { "E", "2026-10-25", "Bob" }, expect = "pass" },
  },
}
