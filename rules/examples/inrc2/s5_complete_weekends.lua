-- INRC-II S5, complete weekends (soft): a person whose `complete_weekends` attribute is true and
-- who works exactly one of Saturday and Sunday costs `weight` (30) per such weekend of the
-- horizon. Runs in `shiftctl validate`.
local inrc2 = require("lib.inrc2")

return rule {
  id = "inrc2_s5_complete_weekends",
  summary = "INRC-II S5: whoever must work complete weekends works both days or neither.",
  severity = "penalty",
  params = { weight = 30 },

  validate = function(schedule, report, params)
    local horizon = inrc2.horizon(schedule)
    if horizon == nil then return end
    for _, p in ipairs(schedule:people()) do
      if p.attributes.complete_weekends == true then
        local _, weekends = inrc2.weekends(schedule, p, horizon)
        for _, w in ipairs(weekends) do
          if w.sat ~= w.sun then
            report{ message = ("%s works only the %s of the weekend of %s"):format(p.name, w.sat and "Saturday" or "Sunday", w.saturday),
                    person = p, date = w.saturday, penalty = params.weight }
          end
        end
      end
    end
  end,

  examples = {
    { name = "half a weekend costs the weight", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-14" },
                types = { Early = "all-day" }, people = { { name = "Sara", attributes = { complete_weekends = true } } },
                shifts = { { "Early", "2024-01-06", "Sara" }, { "Early", "2024-01-13", "Sara" }, { "Early", "2024-01-14", "Sara" } } },
      expect = "penalty", count = 1, penalty = 30, message = "only the Saturday of the weekend of 2024-01-06" },
    { name = "no requirement, no cost", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day" }, people = { { name = "Sara", attributes = { complete_weekends = false } } },
                shifts = { { "Early", "2024-01-06", "Sara" } } },
      expect = "pass" },
  },
}
