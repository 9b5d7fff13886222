-- respects_availability: nobody is scheduled when they are unavailable (an error), and shifts
-- they would rather not work cost a penalty (the entry's weight, default 1). Entries may name a
-- shift type; then only that type is affected. "desired" entries are for generators and scoring.
-- `shiftctl validate` reads each person's entries once and matches them against their shifts
-- (validate_person), reporting what the check would for each shift.
local function entry_report(report, person, s, entry)
  local what = entry.type and (entry.type.symbol .. " shifts") or "work"
  if entry.kind == "unavailable" then
    report{ message = ("%s is unavailable for %s on %s"):format(person.name, what, s.date), shift = s }
  elseif entry.kind == "undesired" then
    report{ message = ("%s would rather not %s on %s"):format(person.name, entry.type and ("work " .. what) or "work", s.date),
            shift = s, severity = "penalty", penalty = entry.weight or 1 }
  end
end

return rule {
  id = "respects_availability",
  summary = "Unavailable people are not scheduled; undesired shifts cost a penalty.",
  severity = "error",
  on = { "shift" },

  check = function(change, schedule, report)
    local s = change.after
    if s == nil or s.person == nil then return end
    for _, entry in ipairs(schedule:availability{ person = s.person, date = s.date }) do
      if entry.type == nil or entry.type.id == s.type.id then entry_report(report, s.person, s, entry) end
    end
  end,

  validate_person = function(person, shifts, schedule, report)
    local n = shifts.n
    if n == 0 then return end
    local entries = schedule:availability{ person = person }
    if #entries == 0 then return end
    local days, types = shifts.days, shifts.types
    for _, entry in ipairs(entries) do
      if entry.kind == "unavailable" or entry.kind == "undesired" then
        local from = cal.days_between("1970-01-01", entry.from)
        local to = cal.days_between("1970-01-01", entry.to)
        local symbol = entry.type and entry.type.symbol
        for i = 1, n do
          local day = days[i]
          if day > to then break end
          if day >= from and (symbol == nil or types[i] == symbol) then entry_report(report, person, shifts[i], entry) end
        end
      end
    end
  end,

  examples = {
    { name = "an unavailable day is rejected",
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                availability = { { person = "Bob", from = "2026-03-01", to = "2026-03-07", kind = "unavailable" } } },
      add = { "D", "2026-03-02", "Bob" }, expect = "error", message = "Bob is unavailable for work on 2026-03-02" },
    { name = "an undesired shift type costs its weight",
      given = { types = { D = "07:00-19:00", N = "19:00-07:00" }, people = { "Bob" },
                availability = { { person = "Bob", from = "2026-03-02", type = "N", kind = "undesired", weight = 5 } } },
      add = { "N", "2026-03-02", "Bob" }, expect = "penalty", penalty = 5 },
    { name = "another type on that day is fine",
      given = { types = { D = "07:00-19:00", N = "19:00-07:00" }, people = { "Bob" },
                availability = { { person = "Bob", from = "2026-03-02", type = "N", kind = "unavailable" } } },
      add = { "D", "2026-03-02", "Bob" }, expect = "pass" },
    { name = "validate reports each shift in an entry's dates",
      given = { types = { D = "07:00-19:00", N = "19:00-07:00" }, people = { "Bob", "Carol" },
                shifts = { { "D", "2026-03-01", "Bob" }, { "D", "2026-03-02", "Bob" }, { "N", "2026-03-03", "Bob" },
                           { "D", "2026-03-05", "Bob" }, { "D", "2026-03-02", "Carol" } },
                availability = { { person = "Bob", from = "2026-03-02", to = "2026-03-04", kind = "unavailable" },
                                 { person = "Bob", from = "2026-03-03", type = "N", kind = "undesired", weight = 2 } } },
      validate = true, expect = "error", count = 2, message = "Bob is unavailable for work on 2026-03-03" },
    { name = "a desired shift is fine",
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                availability = { { person = "Bob", from = "2026-03-02", kind = "desired" } } },
      add = { "D", "2026-03-02", "Bob" }, expect = "pass" },
  },
}
