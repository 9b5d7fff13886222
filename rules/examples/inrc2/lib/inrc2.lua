-- Helpers shared by the INRC-II rules: `local inrc2 = require("lib.inrc2")`.
--
-- The rules read everything from the store: the horizon from the settings `horizon.first` and
-- `horizon.last` (schedule:horizon()), contracts and history from person attributes, the
-- consecutive bounds and forbidden successors from shift-type attributes. docs/inrc2.md lists
-- them; `shiftctl inrc2 import` writes them.
local inrc2 = {}

--- The planning horizon `{ first, last, days }`, or nil when the store has neither a horizon nor
--- shifts.
function inrc2.horizon(schedule)
  return schedule:horizon()
end

--- A whole number from an attribute table, or nil.
function inrc2.int(attributes, key)
  local value = attributes[key]
  if type(value) == "number" then return math.tointeger(value) or value end
  return nil
end

--- The cost, in days, of one run of consecutive days with bounds lo..hi.
---   days:   its days inside the horizon
---   before: the days it had already run before the horizon (from the history), 0 otherwise
---   open:   true when it is still running on the horizon's last day
--- Each day beyond the maximum counts on the day it is reached (days before the horizon were
--- counted then); a run that ends short of the minimum counts the missing days once, when it
--- ends; a run still going at the end of the horizon is never short.
function inrc2.run_cost(days, before, lo, hi, open)
  local total = days + before
  local cost = 0
  if hi ~= nil and total > hi then cost = cost + math.min(days, total - hi) end
  if lo ~= nil and not open and total < lo then cost = cost + (lo - total) end
  return cost
end

--- Charges one person's runs of worked days (`working` true) or of days off (false) against
--- bounds lo..hi, the first run continuing `history` days of the same kind. Calls
--- `charge(days, message, first_date)` for each run that costs, including a history run of that
--- kind that ended on the horizon's first day. `one`/`many` name a day ("day off", "days off").
function inrc2.charge_day_runs(runs, working, history, lo, hi, horizon, one, many, charge)
  local function days(n) return ("%d %s"):format(n, n == 1 and one or many) end
  if history > 0 and runs[1].working ~= working then
    local cost = inrc2.run_cost(0, history, lo, hi, false)
    if cost > 0 then
      charge(cost, ("%s before the horizon, at least %d in a row"):format(days(history), lo or 0), horizon.first)
    end
  end
  for i, run in ipairs(runs) do
    if run.working == working then
      local before = i == 1 and history or 0
      local cost = inrc2.run_cost(run.days, before, lo, hi, run.last == horizon.last)
      if cost > 0 then
        charge(cost, ("%s in a row from %s%s (%s..%s)"):format(days(run.days + before), run.first,
               before > 0 and (" (%d before the horizon)"):format(before) or "", lo or "-", hi or "-"), run.first)
      end
    end
  end
end

--- The working weekends of a person inside the horizon: a weekend counts when Saturday or Sunday
--- is worked. Returns the count and the list of weekends `{ saturday, sunday, sat, sun }`, where
--- sat and sun say whether each day is worked.
function inrc2.weekends(schedule, person, horizon)
  local worked, list = 0, {}
  for _, weekend in ipairs(cal.weekends(horizon.first, horizon.last)) do
    if weekend.saturday >= horizon.first and weekend.sunday <= horizon.last then
      local sat = schedule:count{ person = person, date = weekend.saturday, limit = 1 } > 0
      local sun = schedule:count{ person = person, date = weekend.sunday, limit = 1 } > 0
      if sat or sun then worked = worked + 1 end
      list[#list + 1] = { saturday = weekend.saturday, sunday = weekend.sunday, sat = sat, sun = sun }
    end
  end
  return worked, list
end

--- How many people work shift type `type` on `date` covering `skill` (the shift's `skill`
--- attribute; any skill when nil). Open shifts do not count.
function inrc2.staffed(schedule, date, type, skill)
  local filter = { date = date, type = type }
  if skill ~= nil then filter.attributes = { skill = skill } end
  local all = schedule:count(filter)
  filter.unassigned = true
  return all - schedule:count(filter)
end

--- The demand entries dated inside the horizon (weekday entries apply to each such day).
function inrc2.demand(schedule, horizon)
  local list = {}
  for _, entry in ipairs(schedule:demand()) do
    if entry.date ~= nil then
      if entry.date >= horizon.first and entry.date <= horizon.last then list[#list + 1] = entry end
    else
      local day = horizon.first
      while day <= horizon.last do
        if cal.weekday(day) == entry.weekday then
          list[#list + 1] = { type = entry.type, skill = entry.skill, minimum = entry.minimum, optimal = entry.optimal, date = day }
        end
        day = cal.add_days(day, 1)
      end
    end
  end
  return list
end

--- "Early HeadNurse" or "Early" for messages.
function inrc2.slot(entry)
  return entry.skill and (entry.type.symbol .. " " .. entry.skill) or entry.type.symbol
end

return inrc2
