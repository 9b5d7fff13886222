-- meets_demand: every staffing demand is met when the schedule is validated. Fewer assigned
-- shifts than the minimum is reported (a warning by default: an unfinished roster is normal while
-- editing, so this only runs in `shiftctl validate`); each person missing up to the optimal
-- costs `weight`. A demand with a skill counts shifts whose `skill` attribute names it, or whose
-- person has it in their `skills` attribute. Demand is judged on every day of the planning period
-- (the store's horizon.first..horizon.last, else the span of the shifts) and on every date a
-- dated demand entry names.
local util = require("lib.util")

local function staffed(schedule, date, entry)
  local count = 0
  for _, shift in ipairs(schedule:shifts{ date = date, type = entry.type }) do
    if shift.person ~= nil then
      local skill = shift:attribute("skill")
      if entry.skill == nil or skill == entry.skill or (skill == nil and util.has_skill(shift.person, entry.skill)) then
        count = count + 1
      end
    end
  end
  return count
end

return rule {
  id = "meets_demand",
  summary = "Demand is staffed: below minimum is reported, below optimal costs a penalty.",
  severity = "warning",
  params = { weight = 1 },

  -- A day phase: the solver re-checks only the days a move touches (docs/rules.md, "The day
  -- phase"). `validate` runs it for every day of the planning period and every dated demand.
  validate_day = function(date, schedule, report, params)
    for _, entry in ipairs(schedule:demand{ date = date }) do
      local count = staffed(schedule, date, entry)
      local who = entry.skill and (" " .. entry.skill) or ""
      if count < entry.minimum then
        report{ message = ("%s needs at least %d%s, has %d"):format(entry.type.symbol, entry.minimum, who, count),
                date = date, type = entry.type }
      end
      if count < entry.optimal then
        report{ message = ("%s is %d%s short of the optimal %d"):format(entry.type.symbol, entry.optimal - count, who, entry.optimal),
                date = date, type = entry.type, severity = "penalty", penalty = (entry.optimal - count) * params.weight }
      end
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
