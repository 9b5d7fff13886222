-- shifts_per_day: at most one shift per person per day, counted as the roster-validation peers
-- count it (benchmarks/peers, docs/peers.md): each (person, start date) holding more than one
-- shift is one violation with a penalty of 1, however many shifts it holds. A shift belongs to
-- the date it starts on.
return rule {
  id = "shifts_per_day",
  summary = "At most one shift per person and start date (one violation per crowded day).",
  severity = "error",
  on = { "shift" },

  check = function(change, schedule, report)
    local s = change.after
    if s == nil or s.person == nil then return end
    local others = schedule:shifts{ person = s.person, date = s.date, exclude = s }
    if #others == 0 then return end
    report{
      message = ("%s has %d shifts starting on %s"):format(s.person.name, #others + 1, s.date),
      shift = s, related = others, penalty = 1,
    }
  end,

  validate_person = function(person, shifts, schedule, report)
    local n = shifts.n
    if n < 2 then return end
    local days = shifts.days
    -- One comparison per shift; a crowded day is reported when its second shift is met, and
    -- the rest of its shifts are skipped (`done`).
    local previous, done = days[1], 1
    for i = 2, n do
      local day = days[i]
      if day == previous and i > done then
        local last = i
        while last < n and days[last + 1] == day do last = last + 1 end
        local first, others = shifts[i - 1], {}
        for j = i, last do others[#others + 1] = shifts[j] end
        report{
          message = ("%s has %d shifts starting on %s"):format(person.name, last - i + 2, first.date),
          shift = first, related = others, penalty = 1,
        }
        done = last
      end
      previous = day
    end
  end,

  examples = {
    { name = "a second shift on one day is rejected",
      given = { types = { E = "06:00-14:00", N = "22:00-06:00" }, people = { "P1" }, shifts = { { "E", "2025-01-01", "P1" } } },
      add = { "N", "2025-01-01", "P1" }, expect = "error", count = 1, message = "P1 has 2 shifts starting on 2025-01-01" },
    { name = "a night shift belongs to the day it starts",
      given = { types = { E = "06:00-14:00", N = "22:00-06:00" }, people = { "P1" }, shifts = { { "N", "2025-01-01", "P1" } } },
      add = { "E", "2025-01-02", "P1" }, expect = "pass" },
    { name = "validate counts a crowded day once, however many shifts it holds",
      given = { types = { E = "06:00-14:00", L = "14:00-22:00", N = "22:00-06:00" }, people = { "P1" },
                shifts = { { "E", "2025-01-01", "P1" }, { "L", "2025-01-01", "P1" }, { "N", "2025-01-01", "P1" },
                           { "E", "2025-01-03", "P1" }, { "E", "2025-01-03", "P1" } } },
      validate = true, expect = "error", count = 2, penalty = 2, message = "P1 has 3 shifts starting on 2025-01-01" },
    { name = "validate: one shift a day is fine",
      given = { types = { E = "06:00-14:00" }, people = { "P1" },
                shifts = { { "E", "2025-01-01", "P1" }, { "E", "2025-01-02", "P1" } } },
      validate = true, expect = "pass" },
  },
}
