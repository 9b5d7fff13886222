-- one_shift_per_day: at most `max` shifts per person on one date (default 1). A shift counts for
-- the date it starts on. Set `max` higher (or disable the rule) where split shifts are normal.
-- `shiftctl validate` reports each crowded day once (validate_person), naming its shifts.
return rule {
  id = "one_shift_per_day",
  summary = "At most one shift per person per day (configurable).",
  severity = "error",
  on = { "shift" },
  params = { max = 1 },

  check = function(change, schedule, report, params)
    local s = change.after
    if s == nil or s.person == nil then return end
    local same_day = schedule:shifts{ person = s.person, date = s.date, exclude = s }
    if #same_day + 1 <= params.max then return end
    report{
      message = ("%s has %d shifts on %s (at most %d)"):format(s.person.name, #same_day + 1, s.date, params.max),
      shift = s, related = same_day,
    }
  end,

  validate_person = function(person, shifts, schedule, report, params)
    local n = shifts.n
    local days = shifts.days
    local i = 1
    while i <= n do
      local last = i
      while last < n and days[last + 1] == days[i] do last = last + 1 end
      local count = last - i + 1
      if count > params.max then
        local first, others = shifts[i], {}
        for j = i + 1, last do others[#others + 1] = shifts[j] end
        report{
          message = ("%s has %d shifts on %s (at most %d)"):format(person.name, count, first.date, params.max),
          shift = first, related = others,
        }
      end
      i = last + 1
    end
  end,

  examples = {
    { name = "two shifts on one day are rejected",
      given = { types = { E = "06:00-10:00", L = "16:00-20:00" }, people = { "Bob" }, shifts = { { "E", "2026-03-02", "Bob" } } },
      add = { "L", "2026-03-02", "Bob" }, expect = "error", message = "Bob has 2 shifts on 2026-03-02" },
    { name = "a night shift belongs to the day it starts",
      given = { types = { N = "22:00-06:00", L = "16:00-20:00" }, people = { "Bob" }, shifts = { { "N", "2026-03-02", "Bob" } } },
      add = { "L", "2026-03-03", "Bob" }, expect = "pass" },
    { name = "validate reports a crowded day once",
      given = { types = { E = "06:00-10:00", L = "16:00-20:00", N = "22:00-06:00" }, people = { "Bob" },
                shifts = { { "E", "2026-03-02", "Bob" }, { "L", "2026-03-02", "Bob" }, { "N", "2026-03-02", "Bob" }, { "E", "2026-03-03", "Bob" } } },
      validate = true, expect = "error", count = 1, message = "Bob has 3 shifts on 2026-03-02 (at most 1)" },
    { name = "split shifts are allowed when max is 2", params = { max = 2 },
      given = { types = { E = "06:00-10:00", L = "16:00-20:00" }, people = { "Bob" }, shifts = { { "E", "2026-03-02", "Bob" } } },
      add = { "L", "2026-03-02", "Bob" }, expect = "pass" },
  },
}
