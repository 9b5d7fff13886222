-- meets_demand: every staffing demand is met when the schedule is validated. Fewer assigned
-- shifts than the minimum is reported (a warning by default: an unfinished roster is normal while
-- editing, so this only runs in `shiftctl validate`); each person missing up to the optimal
-- costs `weight`. A demand with a skill counts shifts whose `skill` attribute names it, or whose
-- person has it in their `skills` attribute. Demand is judged on every day of the planning period
-- (the store's horizon.first..horizon.last, else the span of the shifts) and on every date a
-- dated demand entry names.

return rule {
  id = "meets_demand",
  summary = "Demand is staffed: below minimum is reported, below optimal costs a penalty.",
  severity = "warning",
  params = { weight = 1 },

  -- A demand phase: called with one demand entry on one day and the number of people staffing
  -- it (docs/rules.md, "The demand phase"); the solver asks again only when that number changes.
  validate_demand = function(entry, staffed, report, params)
    local who = entry.skill and (" " .. entry.skill) or ""
    if staffed < entry.minimum then
      report{ message = ("%s needs at least %d%s, has %d"):format(entry.type.symbol, entry.minimum, who, staffed), date = entry.date, type = entry.type }
    end
    if staffed < entry.optimal then
      report{ message = ("%s is %d%s short of the optimal %d"):format(entry.type.symbol, entry.optimal - staffed, who, entry.optimal),
              date = entry.date, type = entry.type, severity = "penalty", penalty = (entry.optimal - staffed) * params.weight }
    end
  end,

  examples = {
    { name = "a day of the planning period without any shift is understaffed too", validate = true,
      given = { settings = { ["horizon.first"] = "2026-03-02", ["horizon.last"] = "2026-03-08" },
                types = { D = "07:00-19:00" }, people = { "Bob" }, shifts = { { "D", "2026-03-02", "Bob" } },
                demand = { { type = "D", weekday = "tuesday", min = 1, optimal = 1 } } },
      expect = "warning", count = 1, message = "D needs at least 1, has 0" },
    { name = "an understaffed day is reported", validate = true,
      given = { types = { D = "07:00-19:00" }, people = { "Bob" }, shifts = { { "D", "2026-03-02", "Bob" } },
                demand = { { type = "D", date = "2026-03-02", min = 2, optimal = 2 } } },
      expect = "warning", message = "D needs at least 2, has 1" },
    { name = "below optimal costs a penalty per missing person", validate = true,
      given = { types = { D = "07:00-19:00" }, people = { "Bob" }, shifts = { { "D", "2026-03-02", "Bob" } },
                demand = { { type = "D", date = "2026-03-02", min = 1, optimal = 3 } } },
      expect = "penalty", penalty = 2 },
    { name = "skills count only matching people", validate = true,
      given = { types = { D = "07:00-19:00" },
                people = { { name = "Bob", attributes = { skills = { "nurse" } } }, "Carol" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-02", "Carol" } },
                demand = { { type = "D", date = "2026-03-02", skill = "nurse", min = 2, optimal = 2 } } },
      expect = "warning", message = "needs at least 2 nurse, has 1" },
    { name = "weekday demand applies to every such day in the schedule", validate = true,
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-09", "Bob" } },
                demand = { { type = "D", weekday = "monday", min = 1, optimal = 1 } } },
      expect = "pass" },
  },
}
