-- Helpers shared by the INRC-II rules: `local inrc2 = require("lib.inrc2")`.
--
-- The rules read everything from the store: the horizon from the settings `horizon.first` and
-- `horizon.last` (schedule:horizon()), contracts and history from person attributes, the
-- consecutive bounds and forbidden successors from shift-type attributes. docs/inrc2.md lists
-- them; `shiftctl inrc2 import` writes them.
--
-- Every rule runs in a scoped phase, so that a search (`shiftctl solve`) re-evaluates only what a
-- move touches: H1, H3, H4 and S2–S7 in the person phase (`validate_person`, one person's
-- timeline), H2 and S1 in the day phase (`validate_day`, one date's demand). The person-phase
-- helpers below read the timeline's columns (`shifts.days`, `shifts.types`) and work in day
-- numbers (days since 1970-01-01, as `shifts.days`), turning a number back into a date only for
-- a finding. What comes from the catalog alone (the horizon, contracts, history, shift-type
-- bounds) is kept in the phase's `cache` (its last argument: a table of the rule's own that lasts
-- while people, shift types and settings do, docs/rules.md), so a search reads it once; nothing
-- about shifts is kept.
local inrc2 = {}

--- The planning horizon `{ first, last, days }`, or nil when the store has neither a horizon nor
--- shifts.
function inrc2.horizon(schedule)
  return schedule:horizon()
end

--- The day number (days since 1970-01-01, as a timeline's `shifts.days`) of a date.
function inrc2.day_number(date)
  return cal.days_between("1970-01-01", date)
end

--- The horizon in day numbers, for a person phase: `{ first, last, lo, hi }` with the dates
--- `first` and `last` and their day numbers `lo` and `hi`; nil without a horizon. With the
--- phase's `cache`, made once per catalog (do not change it; `inrc2.date` keeps the dates it
--- makes in it).
function inrc2.span(schedule, cache)
  local span = cache and cache.span
  if span == nil then
    local horizon = schedule:horizon()
    if horizon ~= nil then
      local lo = cal.days_between("1970-01-01", horizon.first)
      span = { first = horizon.first, last = horizon.last, lo = lo, hi = lo + horizon.days - 1 }
    end
    if cache then cache.span = span or false end
  end
  return span or nil
end

--- The table `name` of a phase's `cache`, made empty on first use; without a cache, a new
--- table (then what a rule keeps in it lasts one call).
function inrc2.kept(cache, name)
  if cache == nil then return {} end
  local kept = cache[name]
  if kept == nil then
    kept = {}
    cache[name] = kept
  end
  return kept
end

--- The attributes `names` (a list) of a person as one table, name → value, false where the
--- person has none (`inrc2.int(facts, name)` reads a whole number from it). With the phase's
--- `cache`, read once per catalog and person (do not change the table).
function inrc2.facts(person, names, cache)
  local kept = inrc2.kept(cache, "facts")
  local facts = kept[person.id]
  if facts == nil then
    facts = {}
    for i = 1, #names do
      local value = person:attribute(names[i])
      if value == nil then value = false end
      facts[names[i]] = value
    end
    kept[person.id] = facts
  end
  return facts
end

--- The date of day number `day` of a span (for messages and report fields). Each date is made
--- once per span (kept in it, so once per catalog with the phase's cache): a search dates the
--- same few findings again and again.
function inrc2.date(span, day)
  if day == span.lo then return span.first end
  local dates = span.dates
  if dates == nil then
    dates = {}
    span.dates = dates
  end
  local date = dates[day]
  if date == nil then
    date = cal.add_days(span.first, day - span.lo)
    dates[day] = date
  end
  return date
end

--- A whole number from an attribute table, or nil.
function inrc2.int(attributes, key)
  local value = attributes[key]
  if type(value) == "number" then return math.tointeger(value) or value end
  return nil
end

--- The same from one attribute of a view (a person, a shift type): `entity:attribute(key)`
--- reads the one value without making a table of them all.
function inrc2.int_of(entity, key)
  local value = entity:attribute(key)
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

--- The days a person works inside a span, from their timeline: a sorted list of day numbers,
--- each once, and with `by_type` a list of the symbol of each day's first shift (as
--- `schedule:runs{ by = "type" }` takes it). The timeline gives both in one pass; a day with
--- several shifts (by type) or a timeline out of date order is read with `schedule:runs` instead,
--- so the first shift of a day is exactly the one the query orders first.
function inrc2.worked_days(schedule, person, shifts, span, by_type)
  local list, symbols = {}, by_type and {} or nil
  local n = shifts.n
  if n == 0 then return list, symbols end
  local days = shifts.days
  local types = by_type and shifts.types or nil
  local lo, hi = span.lo, span.hi
  local count, previous, exact = 0, nil, true
  for i = 1, n do
    local d = days[i]
    if d >= lo and d <= hi then
      if d == previous then
        if by_type then exact = false; break end
      elseif previous ~= nil and d < previous then
        exact = false; break
      else
        count = count + 1
        list[count] = d
        if by_type then symbols[count] = types[i] end
        previous = d
      end
    end
  end
  if exact then return list, symbols end
  list, symbols, count = {}, by_type and {} or nil, 0
  for _, run in ipairs(schedule:runs{ person = person, from = span.first, to = span.last, by = by_type and "type" or "work" }) do
    if run.working then
      local first = cal.days_between("1970-01-01", run.first)
      local symbol = by_type and run.type.symbol or nil
      for d = first, first + run.days - 1 do
        count = count + 1
        list[count] = d
        if by_type then symbols[count] = symbol end
      end
    end
  end
  return list, symbols
end

--- Visits the runs of a span, as `schedule:runs` cuts them, from `inrc2.worked_days`: runs of
--- worked days and of days off in order, `visit(first, last, working, symbol)` with day numbers;
--- with `symbols` a worked run is one shift type (`symbol`), without them any worked days (and
--- `symbol` is nil). No table is made per run: a search calls this for every move it weighs.
function inrc2.each_run(list, symbols, span, visit)
  local day, i, n = span.lo, 1, #list
  while i <= n do
    local d = list[i]
    if d > day then visit(day, d - 1, false, nil) end
    local j = i
    local symbol = symbols and symbols[i]
    while j < n and list[j + 1] == list[j] + 1 and (symbols == nil or symbols[j + 1] == symbol) do j = j + 1 end
    visit(d, list[j], true, symbol)
    day, i = list[j] + 1, j + 1
  end
  if day <= span.hi then visit(day, span.hi, false, nil) end
end

--- The date a run's cost is reported on, where a change would mend it: for a run too long
--- (`days` in the horizon from day number `first`, after `before` days from the history, beyond
--- `hi`) its first day past the maximum, else its first day. The solver aims moves at the dates
--- of findings (docs/solve.md).
function inrc2.run_date(span, first, days, before, hi)
  if hi ~= nil and days + before > hi then return inrc2.date(span, first + math.max(0, hi - before)) end
  return inrc2.date(span, first)
end

local function count_days(n, one, many)
  return ("%d %s"):format(n, n == 1 and one or many)
end

--- Charges one person's runs (of `list`, from `inrc2.worked_days`) of worked days (`working`
--- true) or of days off (false) against bounds lo..hi, the first run continuing `history` days
--- of the same kind. Calls `charge(days, message, date)` for each run that costs (dated as
--- `inrc2.run_date`), including a history run of that kind that ended on the horizon's first day
--- (dated then). `one`/`many` name a day ("day off", "days off").
function inrc2.charge_day_runs(list, working, history, lo, hi, span, one, many, charge)
  local starts_working = #list > 0 and list[1] == span.lo
  if history > 0 and starts_working ~= working then
    local cost = inrc2.run_cost(0, history, lo, hi, false)
    if cost > 0 then
      charge(cost, ("%s before the horizon, at least %d in a row"):format(count_days(history, one, many), lo or 0), span.first)
    end
  end
  inrc2.each_run(list, nil, span, function(first, last, worked)
    if worked ~= working then return end
    local days = last - first + 1
    local before = first == span.lo and history or 0
    local cost = inrc2.run_cost(days, before, lo, hi, last == span.hi)
    if cost > 0 then
      charge(cost, ("%s in a row from %s%s (%s..%s)"):format(count_days(days + before, one, many), inrc2.date(span, first),
             before > 0 and (" (%d before the horizon)"):format(before) or "", lo or "-", hi or "-"),
             inrc2.run_date(span, first, days, before, hi))
    end
  end)
end

--- The weekends of a span a person works, from their timeline: a weekend counts when its
--- Saturday and Sunday both lie in the span and she works either. Returns how many, and a table
--- from each one's Saturday (day number) to 1 (Saturday worked), 2 (Sunday) or 3 (both).
function inrc2.worked_weekends(shifts, span)
  local worked, count = {}, 0
  local n = shifts.n
  if n == 0 then return 0, worked end
  local days = shifts.days
  local lo, hi = span.lo, span.hi
  for i = 1, n do
    local d = days[i]
    if d >= lo and d <= hi then
      local weekday = (d + 3) % 7             -- 0 Monday … 5 Saturday, 6 Sunday (day 0 was a Thursday)
      if weekday >= 5 then
        local saturday = d - weekday + 5
        if saturday >= lo and saturday < hi then
          local bit = weekday == 5 and 1 or 2
          local had = worked[saturday]
          if had == nil then
            worked[saturday] = bit
            count = count + 1
          elseif had ~= bit then
            worked[saturday] = 3
          end
        end
      end
    end
  end
  return count, worked
end

--- "Early HeadNurse" or "Early" for messages.
function inrc2.slot(entry)
  return entry.skill and (entry.type.symbol .. " " .. entry.skill) or entry.type.symbol
end

return inrc2
