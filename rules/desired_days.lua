-- desired_days: a day someone asked to work (an availability entry of kind "desired", for any
-- shift or one shift type) that they do not work costs the entry's weight (default 1): the
-- reward for granting a wish, counted the other way round. Only days of the planning period count
-- (the store's horizon.first..horizon.last, else the span of the shifts), so wishes for days not
-- planned yet cost nothing. A soft rule for `shiftctl validate --score` and `shiftctl solve`.
return rule {
  id = "desired_days",
  summary = "Days people asked to work that they do not work cost a penalty.",
  severity = "penalty",

  validate_person = function(person, shifts, schedule, report)
    local entries = schedule:availability{ person = person }
    if #entries == 0 then return end
    local horizon = schedule:horizon()
    if horizon == nil then return end
    local first = cal.days_between("1970-01-01", horizon.first)
    local last = cal.days_between("1970-01-01", horizon.last)
    local days, types = shifts.days, nil
    for _, entry in ipairs(entries) do
      if entry.kind == "desired" then
        local from = math.max(first, cal.days_between("1970-01-01", entry.from))
        local to = math.min(last, cal.days_between("1970-01-01", entry.to))
        local symbol = entry.type and entry.type.symbol
        if symbol ~= nil and types == nil then types = shifts.types end
        for day = from, to do
          local worked = false
          for i = 1, shifts.n do
            if days[i] == day and (symbol == nil or types[i] == symbol) then
              worked = true
              break
            end
            if days[i] > day then break end
          end
          if not worked then
            local date = cal.add_days("1970-01-01", day)
            report{ message = ("%s asked to work %s on %s"):format(person.name, symbol and (symbol .. " shifts") or "a shift", date),
                    person = person, date = date, penalty = entry.weight or 1 }
          end
        end
      end
    end
  end,

  examples = {
    { name = "a desired day not worked costs its weight", validate = true,
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                settings = { ["horizon.first"] = "2026-03-02", ["horizon.last"] = "2026-03-08" },
                availability = { { person = "Bob", from = "2026-03-04", kind = "desired", weight = 3 } } },
      expect = "penalty", count = 1, penalty = 3, message = "Bob asked to work a shift on 2026-03-04" },
    { name = "a desired day worked costs nothing", validate = true,
      given = { types = { D = "07:00-19:00" }, people = { "Bob" }, shifts = { { "D", "2026-03-04", "Bob" } },
                settings = { ["horizon.first"] = "2026-03-02", ["horizon.last"] = "2026-03-08" },
                availability = { { person = "Bob", from = "2026-03-04", kind = "desired" } } },
      expect = "pass" },
    { name = "a desired shift type needs that type", validate = true,
      given = { types = { D = "07:00-19:00", N = "19:00-07:00" }, people = { "Bob" }, shifts = { { "N", "2026-03-04", "Bob" } },
                settings = { ["horizon.first"] = "2026-03-02", ["horizon.last"] = "2026-03-08" },
                availability = { { person = "Bob", from = "2026-03-04", to = "2026-03-05", type = "D", kind = "desired" } } },
      expect = "penalty", count = 2, penalty = 2 },
    { name = "days outside the planning period cost nothing", validate = true,
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                settings = { ["horizon.first"] = "2026-03-02", ["horizon.last"] = "2026-03-08" },
                availability = { { person = "Bob", from = "2026-03-10", to = "2026-03-20", kind = "desired" } } },
      expect = "pass" },
  },
}
