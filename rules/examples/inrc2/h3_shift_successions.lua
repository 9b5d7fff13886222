-- INRC-II H3, shift type successions (hard): a shift type listed in the previous day's type's
-- `forbidden_next` attribute may not follow it (e.g. no Early the day after a Night). On the
-- first day of the horizon the previous day is the person's `history_last_shift` attribute.
-- Checked on every change (`check`), both ways (a new shift before an existing one too). In
-- `shiftctl validate` and `shiftctl solve` the person phase (`validate_person`) reports instead
-- what the check reports for each of the person's shifts: each succession once, from its second
-- day.
local inrc2 = require("lib.inrc2")

--- The symbols `forbidden_next` lists after shift type `before` (a symbol) as a set, or false
--- when there is no such type.
local function successors(schedule, before)
  local previous = schedule:shift_type(before)
  if previous == nil then return false end
  local list = previous:attribute("forbidden_next")
  local set = {}
  if type(list) == "string" then
    set[list] = true
  elseif type(list) == "table" then
    for _, symbol in ipairs(list) do set[symbol] = true end
  end
  return set
end

local function forbidden(schedule, before, after)
  local set = successors(schedule, before)
  return set and set[after] == true
end

--- The validating check's finding for shift `s` of type `symbol`, after `previous` (a symbol or
--- nil) the day before.
local function succession(s, symbol, previous, forbidden_after, report)
  if previous ~= nil and forbidden_after(previous, symbol) then
    report{ message = ("%s works %s on %s after %s the day before"):format(s.person.name, symbol, s.date, previous), shift = s }
  end
end

--- What the person worked the day before shift `s`, as the check reads it: the history's last
--- shift on the horizon's first day, else the type of the first shift of the day before.
local function previous_of(schedule, s, horizon)
  if horizon ~= nil and s.date == horizon.first then
    return s.person:attribute("history_last_shift")
  end
  local shift = schedule:shifts{ person = s.person, date = cal.add_days(s.date, -1), limit = 1 }[1]
  return shift and shift.type.symbol
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
    local function forbidden_after(before, after) return forbidden(schedule, before, after) end
    succession(s, symbol, previous_of(schedule, s, schedule:horizon()), forbidden_after, report)
    if change.validating then return end
    local next_shift = schedule:shifts{ person = s.person, date = cal.add_days(s.date, 1), limit = 1 }[1]
    if next_shift ~= nil and forbidden(schedule, symbol, next_shift.type.symbol) then
      report{ message = ("%s would work %s on %s, the day after %s"):format(s.person.name, next_shift.type.symbol, next_shift.date, symbol),
              shift = s, related = next_shift }
    end
  end,

  -- One pass over the timeline: each day's shifts against the first shift of the day before
  -- (queried only when that day has several), the forbidden successors read once per type and
  -- call. A timeline out of date order, which the sort by start instant does not make, is
  -- checked shift by shift as the check does.
  validate_person = function(person, shifts, schedule, report, params, cache)
    local n = shifts.n
    if n == 0 then return end
    -- The horizon and each type's forbidden successors, kept per catalog in the cache.
    local span = inrc2.span(schedule, cache)
    local sets = inrc2.kept(cache, "successors")
    local function forbidden_after(before, after)
      local set = sets[before]
      if set == nil then
        set = successors(schedule, before)
        sets[before] = set
      end
      return set and set[after] == true
    end
    local days = shifts.days
    for i = 2, n do
      if days[i] < days[i - 1] then
        for k = 1, n do
          local s = shifts[k]
          succession(s, s.type.symbol, previous_of(schedule, s, span), forbidden_after, report)
        end
        return
      end
    end
    local types = shifts.types
    local first = span and span.lo
    local day_before, start_before, size_before
    local i = 1
    while i <= n do
      local d = days[i]
      local j = i
      while j < n and days[j + 1] == d do j = j + 1 end
      local previous
      if d == first then
        previous = person:attribute("history_last_shift")
      elseif day_before == d - 1 then
        if size_before == 1 then
          previous = types[start_before]
        else
          previous = schedule:shifts{ person = person, date = shifts[start_before].date, limit = 1 }[1].type.symbol
        end
      end
      if previous ~= nil then
        -- A shift's view is made only for a finding: a call that reads the columns alone is
        -- one `shiftctl solve` can answer from memory for the same days and types.
        for k = i, j do
          if forbidden_after(previous, types[k]) then succession(shifts[k], types[k], previous, forbidden_after, report) end
        end
      end
      day_before, start_before, size_before = d, i, j - i + 1
      i = j + 1
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
    { name = "validate counts each succession once, the history's included",
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Night = { time = "all-day", attributes = { forbidden_next = { "Early", "Late" } } }, Early = "all-day", Late = "all-day" },
                people = { { name = "Sara", attributes = { history_last_shift = "Night" } }, "Ines" },
                shifts = { { "Early", "2024-01-01", "Sara" }, { "Night", "2024-01-02", "Sara" }, { "Late", "2024-01-03", "Sara" },
                           { "Night", "2024-01-05", "Sara" }, { "Night", "2024-01-06", "Sara" }, { "Night", "2024-01-01", "Ines" },
                           { "Early", "2024-01-03", "Ines" } } },
      validate = true, expect = "error", count = 2, message = "Sara works Late on 2024-01-03 after Night the day before" },
    { name = "validate passes allowed successions and a day off in between",
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Night = { time = "all-day", attributes = { forbidden_next = { "Early" } } }, Early = "all-day" },
                people = { { name = "Sara", attributes = { history_last_shift = "Early" } } },
                shifts = { { "Early", "2024-01-01", "Sara" }, { "Night", "2024-01-02", "Sara" }, { "Early", "2024-01-04", "Sara" } } },
      validate = true, expect = "pass" },
  },
}
