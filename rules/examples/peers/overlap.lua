-- overlap: nobody works two shifts at once, counted as the roster-validation peers count it
-- (benchmarks/peers, docs/peers.md): per person, shifts in order of start (then id); each
-- consecutive pair whose second shift starts before the first ends is one violation, with a
-- penalty of the minutes they share: min(first end, second end) - second start.
--
-- `shiftctl validate` runs the person phase below: one sweep over each person's timeline.
-- On a change, `check` rejects any overlap with the new shift.
return rule {
  id = "overlap",
  summary = "Nobody works two overlapping shifts (consecutive pairs, penalty in minutes).",
  severity = "error",
  on = { "shift" },

  check = function(change, schedule, report)
    local s = change.after
    if s == nil or s.person == nil then return end
    local starts, ends = s.starts_at, s.ends_at
    for _, other in ipairs(schedule:shifts{ person = s.person, overlapping = s, exclude = s }) do
      local from = math.max(starts, other.starts_at)
      local to = math.min(ends, other.ends_at)
      local minutes = (to - from) // 60
      report{
        message = ("%s works %s %s and %s %s at once (%d min)"):format(
          s.person.name, other.date, other.type.symbol, s.date, s.type.symbol, minutes),
        shift = s, related = other, penalty = minutes,
      }
    end
  end,

  validate_person = function(person, shifts, schedule, report)
    local n = shifts.n
    if n < 2 then return end
    local starts, ends = shifts.starts, shifts.ends
    local previous_end = ends[1]
    for i = 2, n do
      local start, finish = starts[i], ends[i]
      if start < previous_end then
        local minutes = ((finish < previous_end and finish or previous_end) - start) // 60
        local previous, shift = shifts[i - 1], shifts[i]
        report{
          message = ("%s works %s %s and %s %s at once (%d min)"):format(
            person.name, previous.date, previous.type.symbol, shift.date, shift.type.symbol, minutes),
          shift = shift, related = previous, penalty = minutes,
        }
      end
      previous_end = finish
    end
  end,

  examples = {
    { name = "a double booking into the same shift is rejected",
      given = { types = { E = "06:00-14:00" }, people = { "P1" }, shifts = { { "E", "2025-01-01", "P1" } } },
      add = { "E", "2025-01-01", "P1" }, expect = "error", count = 1, penalty = 480,
      message = "P1 works 2025-01-01 E and 2025-01-01 E at once (480 min)" },
    { name = "a night into an early shift overlaps by the hours they share",
      given = { types = { N = "22:00-06:00", X = "04:00-12:00" }, people = { "P1" }, shifts = { { "N", "2025-01-01", "P1" } } },
      add = { "X", "2025-01-02", "P1" }, expect = "error", penalty = 120 },
    { name = "back to back shifts do not overlap",
      given = { types = { E = "06:00-14:00", L = "14:00-22:00" }, people = { "P1" }, shifts = { { "E", "2025-01-01", "P1" } } },
      add = { "L", "2025-01-01", "P1" }, expect = "pass" },
    { name = "validate counts consecutive pairs: three shifts at once are two pairs",
      given = { types = { E = "06:00-14:00" }, people = { "P1" },
                shifts = { { "E", "2025-01-01", "P1" }, { "E", "2025-01-01", "P1" }, { "E", "2025-01-01", "P1" } } },
      validate = true, expect = "error", count = 2, penalty = 960 },
    { name = "validate: a long shift covering two others counts each pair with its neighbour",
      given = { types = { D = "06:00-22:00", E = "07:00-09:00", L = "12:00-13:00" }, people = { "P1" },
                shifts = { { "D", "2025-01-01", "P1" }, { "E", "2025-01-01", "P1" }, { "L", "2025-01-01", "P1" } } },
      -- (D, E) share 120 min; (E, L) do not overlap: E ends before L starts.
      validate = true, expect = "error", count = 1, penalty = 120 },
    { name = "validate: other people's shifts and open shifts do not count",
      given = { types = { E = "06:00-14:00" }, people = { "P1", "P2" },
                shifts = { { "E", "2025-01-01", "P1" }, { "E", "2025-01-01", "P2" }, { type = "E", date = "2025-01-01" } } },
      validate = true, expect = "pass" },
  },
}
