-- INRC-II H1, single assignment per day (hard): a nurse works at most one shift per day.
-- Checked on every change; in `shiftctl validate` each shift beyond the first of a day is one
-- violation, as the competition's validator counts them.
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
      if day[1].id == s.id then return end
      report{ message = ("%s has a second shift on %s (%s after %s)"):format(s.person.name, s.date, s.type.symbol, day[1].type.symbol),
              shift = s, related = day[1] }
    else
      local others = {}
      for _, other in ipairs(day) do
        if other.id ~= s.id then others[#others + 1] = other end
      end
      report{ message = ("%s already works %s on %s"):format(s.person.name, others[1].type.symbol, s.date), shift = s, related = others }
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
  },
}
