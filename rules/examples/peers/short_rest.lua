-- short_rest: at least `hours` (10) between the end of one shift and the start of the next,
-- counted as the roster-validation peers count it (benchmarks/peers, docs/peers.md): per person,
-- shifts in order of start (then id); each consecutive pair with 0 <= gap < 10 h is one
-- violation, with a penalty of the minutes missing: 600 - gap minutes. Overlapping pairs (a
-- negative gap) are left to `overlap`.
return rule {
  id = "short_rest",
  summary = "At least 10 h between consecutive shifts of a person (penalty: minutes short).",
  severity = "error",
  on = { "shift" },
  params = { hours = 10 },

  check = function(change, schedule, report, params)
    local s = change.after
    if s == nil or s.person == nil then return end
    local rest = params.hours * 3600
    local nearby = schedule:shifts{
      person = s.person, overlapping = { starts_at = s.starts_at - rest, ends_at = s.ends_at + rest }, exclude = s,
    }
    for _, other in ipairs(nearby) do
      local gap
      if other.ends_at <= s.starts_at then gap = s.starts_at - other.ends_at
      elseif other.starts_at >= s.ends_at then gap = other.starts_at - s.ends_at end
      if gap ~= nil and gap < rest then
        local first, second = other, s
        if other.starts_at > s.starts_at then first, second = s, other end
        local short = (rest - gap) // 60
        report{
          message = ("%s rests %d min between %s %s and %s %s (%d min short)"):format(
            s.person.name, gap // 60, first.date, first.type.symbol, second.date, second.type.symbol, short),
          shift = s, related = other, penalty = short,
        }
      end
    end
  end,

  validate_person = function(person, shifts, schedule, report, params)
    local n = shifts.n
    if n < 2 then return end
    local rest = params.hours * 3600
    local starts, ends = shifts.starts, shifts.ends
    local previous_end = ends[1]
    for i = 2, n do
      local gap = starts[i] - previous_end
      if gap < rest and gap >= 0 then -- most gaps are long: one comparison
        local short = (rest - gap) // 60
        local previous, shift = shifts[i - 1], shifts[i]
        report{
          message = ("%s rests %d min between %s %s and %s %s (%d min short)"):format(
            person.name, gap // 60, previous.date, previous.type.symbol, shift.date, shift.type.symbol, short),
          shift = shift, related = previous, penalty = short,
        }
      end
      previous_end = ends[i]
    end
  end,

  examples = {
    { name = "a late then an early shift leaves 8 h: 120 min short",
      given = { types = { L = "14:00-22:00", E = "06:00-14:00" }, people = { "P1" }, shifts = { { "L", "2025-01-01", "P1" } } },
      add = { "E", "2025-01-02", "P1" }, expect = "error", count = 1, penalty = 120,
      message = "P1 rests 480 min between 2025-01-01 L and 2025-01-02 E (120 min short)" },
    { name = "the check looks backwards too",
      given = { types = { L = "14:00-22:00", E = "06:00-14:00" }, people = { "P1" }, shifts = { { "E", "2025-01-02", "P1" } } },
      add = { "L", "2025-01-01", "P1" }, expect = "error", penalty = 120 },
    { name = "10 h exactly is enough",
      given = { types = { L = "14:00-22:00", D = "08:00-16:00" }, people = { "P1" }, shifts = { { "L", "2025-01-01", "P1" } } },
      add = { "D", "2025-01-02", "P1" }, expect = "pass" },
    { name = "back to back shifts have no rest at all: 600 min short",
      given = { types = { E = "06:00-14:00", L = "14:00-22:00" }, people = { "P1" }, shifts = { { "E", "2025-01-01", "P1" } } },
      add = { "L", "2025-01-01", "P1" }, expect = "error", penalty = 600 },
    { name = "validate counts consecutive pairs only",
      given = { types = { E = "06:00-14:00", L = "14:00-22:00", N = "22:00-06:00" }, people = { "P1" },
                shifts = { { "E", "2025-01-01", "P1" }, { "L", "2025-01-01", "P1" }, { "N", "2025-01-01", "P1" } } },
      -- (E, L) and (L, N) touch: 600 min short each; (E, N) is not a consecutive pair.
      validate = true, expect = "error", count = 2, penalty = 1200 },
    { name = "validate leaves overlapping pairs to the overlap rule",
      given = { types = { E = "06:00-14:00" }, people = { "P1" }, shifts = { { "E", "2025-01-01", "P1" }, { "E", "2025-01-01", "P1" } } },
      validate = true, expect = "pass" },
    { name = "the store can change the hours", params = { hours = 8 },
      given = { types = { L = "14:00-22:00", E = "06:00-14:00" }, people = { "P1" }, shifts = { { "L", "2025-01-01", "P1" } } },
      add = { "E", "2025-01-02", "P1" }, expect = "pass" },
  },
}
