-- fill_open_demand: staffs every open demand slot in a date range from a list of volunteers.
--
--   shiftctl run rules/scripts/fill_open_demand.lua FIRST_DATE LAST_DATE VOLUNTEER [VOLUNTEER…]
--
--   FIRST_DATE, LAST_DATE  the range, inclusive (YYYY-MM-DD)
--   VOLUNTEER…             people by display name (or id), in order of preference
--
-- For each date and each demand entry that applies to it (`shiftctl demand add`), the script
-- counts the people already on that shift type (with the entry's skill, if it names one) and fills
-- the gap up to the entry's optimal staffing: first by giving open (unassigned) shifts of that type
-- to volunteers, then by scheduling new shifts. Volunteers who are unavailable or would rather not
-- work (availability entries), who lack the skill, or who already work that day are skipped; among
-- the others, whoever has the fewest shifts in the range goes first.
--
-- Each slot is checked on its own with ops.commit(): when the rules refuse a volunteer (rest time,
-- weekly hours…), that change is rolled back and the next volunteer is tried (a volunteer refused
-- for a shift type on a date is not tried again for it). Every filled slot is therefore written as
-- its own batch; a slot nobody can fill is reported and left open.
return script {
  id = "fill_open_demand",
  summary = "Fill every open demand slot in a date range from a list of volunteers, trying the next one when the rules object.",

  run = function(ctx, schedule, ops)
    local args = ctx.args
    if #args < 3 then
      error("usage: shiftctl run fill_open_demand.lua FIRST_DATE LAST_DATE VOLUNTEER [VOLUNTEER…]")
    end
    local first, last = args[1], args[2]
    for _, d in ipairs{ first, last } do
      if not cal.is_date(d) then error(("'%s' is not a date (YYYY-MM-DD)"):format(d)) end
    end
    if last < first then error(("LAST_DATE %s is before FIRST_DATE %s"):format(last, first)) end
    local volunteers = {}
    for i = 3, #args do
      volunteers[#volunteers + 1] = schedule:person(args[i]) or error("no person '" .. args[i] .. "'")
    end

    local function has_skill(person, skill)
      if skill == nil then return true end
      local skills = person.attributes.skills
      if type(skills) == "string" then return skills == skill end
      for _, value in ipairs(type(skills) == "table" and skills or {}) do
        if value == skill then return true end
      end
      return false
    end

    local function available(person, date, shift_type)
      for _, entry in ipairs(schedule:availability{ person = person, date = date }) do
        if (entry.type == nil or entry.type == shift_type) and entry.kind ~= "desired" then return false end
      end
      return true
    end

    -- refused[date .. symbol][person id]: the rules refused this volunteer for this slot.
    local refused = {}

    -- Volunteers who could take this slot, fewest shifts in the range first (ties: argument order).
    local function candidates(date, shift_type, skill)
      local list = {}
      local slot_refused = refused[date .. shift_type.symbol] or {}
      for order, person in ipairs(volunteers) do
        if not slot_refused[person.id] and has_skill(person, skill) and available(person, date, shift_type)
            and schedule:count{ person = person, date = date } == 0 then
          list[#list + 1] = { person = person, order = order,
                              load = schedule:count{ person = person, from = first, to = last } }
        end
      end
      table.sort(list, function(a, b)
        if a.load ~= b.load then return a.load < b.load end
        return a.order < b.order
      end)
      return list
    end

    -- Staff one slot: an open shift if there is one, else a new shift. True when the rules accept someone.
    local function fill_one(date, shift_type, skill)
      local open = schedule:shifts{ type = shift_type, date = date, unassigned = true, limit = 1 }[1]
      for _, candidate in ipairs(candidates(date, shift_type, skill)) do
        if open then
          ops.reassign(open, candidate.person, "filled from volunteers by fill_open_demand")
        else
          ops.schedule{ type = shift_type, date = date, person = candidate.person }
        end
        local ok, violations = ops.commit()
        if ok then return true end
        local key = date .. shift_type.symbol
        refused[key] = refused[key] or {}
        refused[key][candidate.person.id] = true
        print(("%s %s: %s cannot take it: %s (%s)"):format(
          date, shift_type.symbol, candidate.person.name, violations[1].message, violations[1].rule))
      end
      return false
    end

    local filled, left_open = 0, 0
    local date = first
    while date <= last do
      for _, entry in ipairs(schedule:demand{ date = date }) do
        local staffed = 0
        for _, s in ipairs(schedule:shifts{ type = entry.type, date = date }) do
          if s.person ~= nil and has_skill(s.person, entry.skill) then staffed = staffed + 1 end
        end
        for _ = staffed + 1, entry.optimal do
          if fill_one(date, entry.type, entry.skill) then
            filled = filled + 1
          else
            left_open = left_open + 1
            print(("%s %s: no volunteer can take this slot; it stays open"):format(date, entry.type.symbol))
            break
          end
        end
      end
      date = cal.add_days(date, 1)
    end
    print(("filled %d slot%s, %d left open"):format(filled, filled == 1 and "" or "s", left_open))
  end,
}
