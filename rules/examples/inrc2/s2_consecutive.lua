-- INRC-II S2, consecutive assignments (soft), two parts reported together as the competition's
-- validator does:
--   * runs of one shift type: each day beyond the type's `max_consecutive` costs `shift_weight`
--     (15), each day short of its `min_consecutive` costs it too;
--   * runs of working days: the same against the person's `min_consecutive_work` and
--     `max_consecutive_work`, at `work_weight` (30).
-- Runs continue the history (`history_last_shift` with `history_consecutive_shifts`,
-- `history_consecutive_work`); a run still going on the horizon's last day is not short; a
-- history run that ends on the first day is charged then. A run too long is dated on its first
-- day past the maximum, any other on its first day (where the solver aims its moves). A person
-- phase (`validate_person`): runs in `shiftctl validate` and, for the people a move touches, in
-- `shiftctl solve`; it reads the runs from the person's timeline (`shifts.days`,
-- `shifts.types`), and keeps the horizon, the person's contract and history and the shift types'
-- bounds in its cache.
local inrc2 = require("lib.inrc2")

-- What the rule reads of each person (kept per catalog in the phase's cache).
local PERSON_FACTS = { "history_last_shift", "history_consecutive_shifts", "history_consecutive_work", "min_consecutive_work",
                       "max_consecutive_work" }

return rule {
  id = "inrc2_s2_consecutive",
  summary = "INRC-II S2: runs of one shift type and of working days stay within their bounds.",
  severity = "penalty",
  params = { shift_weight = 15, work_weight = 30 },

  validate_person = function(person, shifts, schedule, report, params, cache)
    local span = inrc2.span(schedule, cache)
    if span == nil then return end
    local facts = inrc2.facts(person, PERSON_FACTS, cache)
    local last = facts.history_last_shift
    local history_shifts = inrc2.int(facts, "history_consecutive_shifts") or 0
    local history_work = inrc2.int(facts, "history_consecutive_work") or 0

    local function charge(cost, weight, what, date)
      if cost > 0 then
        report{ message = ("%s: %s"):format(person.name, what), person = person, date = date, penalty = cost * weight }
      end
    end

    -- The bounds of each shift type, read once per catalog with the cache (once per call
    -- without).
    local bounds = inrc2.kept(cache, "bounds")
    local function bound(symbol)
      local b = bounds[symbol]
      if b == nil then
        local t = schedule:shift_type(symbol)
        if t == nil then
          b = false
        else
          b = { lo = inrc2.int_of(t, "min_consecutive"), hi = inrc2.int_of(t, "max_consecutive") }
        end
        bounds[symbol] = b
      end
      return b or nil
    end

    -- Runs of one shift type.
    local days, symbols = inrc2.worked_days(schedule, person, shifts, span, true)
    local first_symbol = (#days > 0 and days[1] == span.lo) and symbols[1] or nil
    if type(last) == "string" and last ~= first_symbol and bound(last) ~= nil then
      local b = bound(last)
      local cost = inrc2.run_cost(0, history_shifts, b.lo, b.hi, false)
      if cost > 0 then
        charge(cost, params.shift_weight,
               ("%d %s before the horizon, at least %d in a row"):format(history_shifts, last, b.lo or 0), span.first)
      end
    end
    inrc2.each_run(days, symbols, span, function(first, final, working, symbol)
      local b = working and bound(symbol)
      if not b then return end
      local length = final - first + 1
      local before = (first == span.lo and symbol == last) and history_shifts or 0
      local cost = inrc2.run_cost(length, before, b.lo, b.hi, final == span.hi)
      if cost > 0 then
        charge(cost, params.shift_weight, ("%d %s in a row from %s%s (%s..%s)"):format(length + before, symbol,
               inrc2.date(span, first), before > 0 and (" (%d before the horizon)"):format(before) or "", b.lo or "-",
               b.hi or "-"), inrc2.run_date(span, first, length, before, b.hi))
      end
    end)

    -- Runs of working days.
    local lo, hi = inrc2.int(facts, "min_consecutive_work"), inrc2.int(facts, "max_consecutive_work")
    if lo ~= nil or hi ~= nil then
      inrc2.charge_day_runs(days, true, history_work, lo, hi, span, "working day", "working days",
        function(cost, what, date) charge(cost, params.work_weight, what, date) end)
    end
  end,

  examples = {
    { name = "a run of one shift type too short costs per missing day", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Night = { time = "all-day", attributes = { min_consecutive = 4, max_consecutive = 5 } } },
                people = { "Sara" },
                shifts = { { "Night", "2024-01-02", "Sara" }, { "Night", "2024-01-03", "Sara" } } },
      expect = "penalty", count = 1, penalty = 30 },
    { name = "days beyond the maximum count, history included", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = { time = "all-day", attributes = { min_consecutive = 1, max_consecutive = 3 } } },
                people = { { name = "Sara", attributes = { history_last_shift = "Early", history_consecutive_shifts = 2,
                                                          history_consecutive_work = 2 } } },
                shifts = { { "Early", "2024-01-01", "Sara" }, { "Early", "2024-01-02", "Sara" }, { "Early", "2024-01-03", "Sara" } } },
      expect = "penalty", penalty = 30 },
    { name = "a run still going at the end of the horizon is not short", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Night = { time = "all-day", attributes = { min_consecutive = 4, max_consecutive = 5 } } },
                people = { { name = "Sara", attributes = { min_consecutive_work = 1, max_consecutive_work = 5 } } },
                shifts = { { "Night", "2024-01-07", "Sara" } } },
      expect = "pass" },
    { name = "too few working days in a row cost the work weight", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = "all-day" },
                people = { { name = "Sara", attributes = { min_consecutive_work = 3, max_consecutive_work = 5 } } },
                shifts = { { "Early", "2024-01-03", "Sara" } } },
      expect = "penalty", penalty = 60 },
    { name = "a day with two shifts takes the type of the first", validate = true,
      given = { settings = { ["horizon.first"] = "2024-01-01", ["horizon.last"] = "2024-01-07" },
                types = { Early = { time = "06:00-14:00", attributes = { min_consecutive = 2, max_consecutive = 5 } },
                          Late = { time = "14:00-22:00", attributes = { min_consecutive = 1, max_consecutive = 5 } } },
                people = { "Sara" },
                shifts = { { "Early", "2024-01-01", "Sara" }, { "Late", "2024-01-02", "Sara" }, { "Early", "2024-01-02", "Sara" },
                           { "Early", "2024-01-05", "Sara" } } },
      expect = "penalty", count = 1, penalty = 15, message = "Sara: 1 Early in a row from 2024-01-05 (2..5)" },
  },
}
