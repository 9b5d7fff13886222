-- INRC-II H3, shift type successions (hard): a shift type listed in the previous day's type's
-- `forbidden_next` attribute may not follow it (e.g. no Early the day after a Night). On the
-- first day of the horizon the previous day is the person's `history_last_shift` attribute.
-- Checked on every change, both ways (a new shift before an existing one too); in
-- `shiftctl validate` each succession is counted once, from its second day.
local inrc2 = require("lib.inrc2")

local function forbidden(schedule, before, after)
  local previous = schedule:shift_type(before)
  if previous == nil then return false end
  local list = previous.attributes.forbidden_next
  if type(list) == "string" then return list == after end
  if type(list) ~= "table" then return false end
  for _, symbol in ipairs(list) do
    if symbol == after then return true end
  end
  return false
end

return rule {
  id = "inrc2_h3_shift_successions",
  summary = "INRC-II H3: no forbidden shift type the day after another (history included).",
  severity = "error",
  on = { "shift" },

  check = function(change, schedule, report)
    local s = change.after
    if s == nil or s.person == nil then return end
    local symbol = s.type.symbol
    local horizon = schedule:horizon()
    local previous
    if horizon ~= nil and s.date == horizon.first then
      previous = s.person.attributes.history_last_shift
    else
      local shift = schedule:shifts{ person = s.person, date = cal.add_days(s.date, -1), limit = 1 }[1]
      previous = shift and shift.type.symbol
    end
    if previous ~= nil and forbidden(schedule, previous, symbol) then
      report{ message = ("%s works %s on %s after %s the day before"):format(s.person.name, symbol, s.date, previous), shift = s }
    end
    if change.validating then return end
    local next_shift = schedule:shifts{ person = s.person, date = cal.add_days(s.date, 1), limit = 1 }[1]
    if next_shift ~= nil and forbidden(schedule, symbol, next_shift.type.symbol) then
      report{ message = ("%s would work %s on %s, the day after %s"):format(s.person.name, next_shift.type.symbol, next_shift.date, symbol),
              shift = s, related = next_shift }
    end
  end,

  examples = {
    { name = "an Early after a Night is rejected",
      given = { types = { Night = { time = "all-day", attributes = { forbidden_next = { "Early", "Late" } } }, Early = "all-day" },
                people = { "Sara" }, shifts = { { "Night", "2024-01-01", "Sara" } } },
      add = { "Early", "2024-01-02", "Sara" }, expect = "error", message = "Sara works Early on 2024-01-02 after Night" },
    { name = "a Night before an existing Early is rejected too",
      given = { types = { Night = { time = "all-day", attributes = { forbidden_next = { "Early" } } }, Early = "all-day" },
                people = { "Sara" }, shifts = { { "Early", "2024-01-02", "Sara" } } },
      add = { "Night", "2024-01-01", "Sara" }, expect = "error", message = "the day after Night" },
    { name = "the history's last shift counts on the first day",
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-28" },
                types = { Night = { time = "all-day", attributes = { forbidden_next = { "Early" } } }, Early = "all-day" },
                people = { { name = "Sara", attributes = { history_last_shift = "Night" } } } },
      add = { "Early", "2024-01-01", "Sara" }, expect = "error" },
    { name = "an allowed succession is fine",
      given = { types = { Night = { time = "all-day", attributes = { forbidden_next = { "Early" } } }, Early = "all-day" },
                people = { "Sara" }, shifts = { { "Early", "2024-01-01", "Sara" } } },
      add = { "Night", "2024-01-02", "Sara" }, expect = "pass" },
  },
}
