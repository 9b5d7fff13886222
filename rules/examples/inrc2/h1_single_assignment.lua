-- INRC-II H1, single assignment per day (hard): a nurse works at most one shift per day.
-- Checked on every change (`check`). In `shiftctl validate` and `shiftctl solve` the person phase
-- (`validate_person`) reports instead what the check reports for each of the person's shifts:
-- each shift beyond the first of a day is one violation, as the competition's validator counts
-- them.

-- The validating check's finding for shift `s` among `day`, the person's shifts on its date in
-- the query's order (the first one is not beyond the first).
local function second_shift(s, day, report)
  if #day < 2 or day[1].id == s.id then return end
  report{ message = ("%s has a second shift on %s (%s after %s)"):format(s.person.name, s.date, s.type.symbol, day[1].type.symbol),
          shift = s, related = day[1] }
end

return rule {
  id = "inrc2_h1_single_assignment",
  summary = "INRC-II H1: at most one shift per nurse and day.",
  severity = "error",
  on = { "shift" },

  check = function(change, schedule, report)
    local s = change.after
    if s == nil or s.person == nil then return end
    local day = schedule:shifts{ person = s.person, date = s.date }
    if #day < 2 then return end
    if change.validating then
      second_shift(s, day, report)
    else
      local others = {}
      for _, other in ipairs(day) do
        if other.id ~= s.id then others[#others + 1] = other end
      end
      report{ message = ("%s already works %s on %s"):format(s.person.name, others[1].type.symbol, s.date), shift = s, related = others }
    end
  end,

  -- One pass over the timeline's day numbers: only a date with two shifts or more is queried
  -- (a timeline out of date order, which the sort by start instant does not make, is checked
  -- shift by shift as the check does).
  validate_person = function(person, shifts, schedule, report)
    local n = shifts.n
    if n < 2 then return end
    local days = shifts.days
    local double = false
    for i = 2, n do
      local d, before = days[i], days[i - 1]
      if d < before then
        for k = 1, n do
          local s = shifts[k]
          second_shift(s, schedule:shifts{ person = person, date = s.date }, report)
        end
        return
      elseif d == before then
        double = true
      end
    end
    if not double then return end
    for i = 2, n do
      if days[i] == days[i - 1] and (i == 2 or days[i - 1] ~= days[i - 2]) then
        local day = schedule:shifts{ person = person, date = shifts[i].date }
        for k = 2, #day do second_shift(day[k], day, report) end
      end
    end
  end,

  examples = {
    { name = "a second shift on a day is rejected",
      given = { types = { Early = "all-day", Late = "all-day" }, people = { "Sara" },
                shifts = { { "Early", "2024-01-01", "Sara" } } },
      add = { "Late", "2024-01-01", "Sara" }, expect = "error", message = "Sara already works Early on 2024-01-01" },
    { name = "one shift a day is fine",
      given = { types = { Early = "all-day" }, people = { "Sara" }, shifts = { { "Early", "2024-01-01", "Sara" } } },
      add = { "Early", "2024-01-02", "Sara" }, expect = "pass" },
    { name = "validate counts each extra shift once",
      given = { types = { Early = "all-day", Late = "all-day", Night = "all-day" }, people = { "Sara" },
                shifts = { { "Early", "2024-01-01", "Sara" }, { "Late", "2024-01-01", "Sara" }, { "Night", "2024-01-01", "Sara" } } },
      validate = true, expect = "error", count = 2 },
    { name = "validate finds the second shift of a day among other days and people", validate = true,
      given = { types = { Early = "all-day", Late = "all-day" }, people = { "Sara", "Ines" },
                shifts = { { "Late", "2024-01-01", "Sara" }, { "Early", "2024-01-02", "Sara" }, { "Late", "2024-01-02", "Sara" },
                           { "Early", "2024-01-03", "Sara" }, { "Early", "2024-01-02", "Ines" } } },
      validate = true, expect = "error", count = 1, message = "Sara has a second shift on 2024-01-02" },
    { name = "validate passes one shift a day", validate = true,
      given = { types = { Early = "all-day", Late = "all-day" }, people = { "Sara", "Ines" },
                shifts = { { "Late", "2024-01-01", "Sara" }, { "Early", "2024-01-02", "Sara" }, { "Early", "2024-01-02", "Ines" } } },
      validate = true, expect = "pass" },
  },
}
