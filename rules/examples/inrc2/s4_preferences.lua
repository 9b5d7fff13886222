-- INRC-II S4, preferences (soft): a shift-off request — availability of kind "undesired", for one
-- shift type or for any — that is not met costs `weight` (10) times the entry's weight (default
-- 1), once per day it covers. A person phase (`validate_person`) over the person's own entries:
-- runs in `shiftctl validate` and, for the people a move touches, in `shiftctl solve`.
local inrc2 = require("lib.inrc2")

-- The person's shift-off requests (availability of kind "undesired") as plain tables `{ from,
-- to, weight, symbol }`, kept per catalog in the phase's cache (a view lasts one call only).
local function requests(schedule, person, cache)
  local kept = inrc2.kept(cache, "requests")
  local list = kept[person.id]
  if list == nil then
    list = {}
    for _, entry in ipairs(schedule:availability{ person = person }) do
      if entry.kind == "undesired" then
        list[#list + 1] = { from = entry.from, to = entry.to, weight = entry.weight, symbol = entry.type and entry.type.symbol }
      end
    end
    kept[person.id] = list
  end
  return list
end

return rule {
  id = "inrc2_s4_preferences",
  summary = "INRC-II S4: each shift-off request not met costs a penalty.",
  severity = "penalty",
  params = { weight = 10 },

  -- The person's entries only; for each, a binary search in the timeline's day numbers finds the
  -- shifts of the days it covers (a timeline out of date order, which the sort by start instant
  -- does not make, is queried day by day instead).
  validate_person = function(person, shifts, schedule, report, params, cache)
    local n = shifts.n
    if n == 0 then return end
    local entries = requests(schedule, person, cache)
    if #entries == 0 then return end
    local span
    local days, types, sorted
    local function charge(day, symbol, penalty)
      report{ message = ("%s asked for no %s on %s"):format(person.name, symbol or "shift", day),
              person = person, date = day, penalty = penalty }
    end
    for _, entry in ipairs(entries) do
      if span == nil then
        span = inrc2.span(schedule, cache)
        if span == nil then return end
        days, sorted = shifts.days, true
        for i = 2, n do
          if days[i] < days[i - 1] then sorted = false; break end
        end
      end
      local from = entry.from > span.first and entry.from or span.first
      local to = entry.to < span.last and entry.to or span.last
      if from <= to then
        local penalty = params.weight * (entry.weight or 1)
        local symbol = entry.symbol
        if sorted then
          local lo = inrc2.day_number(from)
          local hi = from == to and lo or lo + cal.days_between(from, to)
          local a, b = 1, n + 1
          while a < b do
            local m = (a + b) // 2
            if days[m] < lo then a = m + 1 else b = m end
          end
          if symbol ~= nil and types == nil then types = shifts.types end
          local charged
          for i = a, n do
            local d = days[i]
            if d > hi then break end
            if d ~= charged and (symbol == nil or types[i] == symbol) then
              charge(d == lo and from or cal.add_days(from, d - lo), symbol, penalty)
              charged = d
            end
          end
        else
          local day = from
          while day <= to do
            if schedule:count{ person = person, date = day, type = symbol, limit = 1 } > 0 then charge(day, symbol, penalty) end
            day = cal.add_days(day, 1)
          end
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
    { name = "a request over several days costs each day worked inside the horizon", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day", Late = "all-day" }, people = { "Sara", "Ines" },
                shifts = { { "Early", "2024-01-04", "Sara" }, { "Late", "2024-01-05", "Sara" }, { "Late", "2024-01-07", "Sara" },
                           { "Late", "2024-01-06", "Ines" } },
                availability = { { person = "Sara", from = "2023-12-30", to = "2024-01-09", kind = "undesired", type = "Late", weight = 2 },
                                 { person = "Sara", from = "2024-01-04", kind = "undesired" },
                                 { person = "Ines", from = "2024-01-06", kind = "unavailable" } } },
      expect = "penalty", count = 3, penalty = 50, message = "Sara asked for no Late on 2024-01-07" },
  },
}
