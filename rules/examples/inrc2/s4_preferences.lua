-- INRC-II S4, preferences (soft): a shift-off request — availability of kind "undesired", for one
-- shift type or for any — that is not met costs `weight` (10) times the entry's weight (default
-- 1), once per day it covers. Runs in `shiftctl validate`.
local inrc2 = require("lib.inrc2")

return rule {
  id = "inrc2_s4_preferences",
  summary = "INRC-II S4: each shift-off request not met costs a penalty.",
  severity = "penalty",
  params = { weight = 10 },

  validate = function(schedule, report, params)
    local horizon = inrc2.horizon(schedule)
    if horizon == nil then return end
    for _, entry in ipairs(schedule:availability()) do
      if entry.kind == "undesired" then
        local day = entry.from > horizon.first and entry.from or horizon.first
        local last = entry.to < horizon.last and entry.to or horizon.last
        while day <= last do
          local worked = schedule:count{ person = entry.person, date = day, type = entry.type, limit = 1 }
          if worked > 0 then
            report{ message = ("%s asked for no %s on %s"):format(entry.person.name, entry.type and entry.type.symbol or "shift", day),
                    person = entry.person, date = day, penalty = params.weight * (entry.weight or 1) }
          end
          day = cal.add_days(day, 1)
        end
      end
    end
  end,

  examples = {
    { name = "working on a day asked off costs the weight", validate = true,
      given = { types = { Early = "all-day" }, people = { "Andrea" },
                shifts = { { "Early", "2024-01-02", "Andrea" } },
                availability = { { person = "Andrea", from = "2024-01-02", kind = "undesired" } } },
      expect = "penalty", penalty = 10, message = "Andrea asked for no shift on 2024-01-02" },
    { name = "a request for one shift type is met by another type", validate = true,
      given = { types = { Early = "all-day", Late = "all-day" }, people = { "Sara" },
                shifts = { { "Early", "2024-01-06", "Sara" } },
                availability = { { person = "Sara", from = "2024-01-06", kind = "undesired", type = "Late" } } },
      expect = "pass" },
  },
}
