-- location_in_use: a location that shift types still use cannot be removed
-- (like the seed apps' LocationDeletionError.locationInUse(count:)).
return rule {
  id = "location_in_use",
  summary = "A location used by shift types cannot be removed.",
  severity = "error",
  on = { "location" },

  check = function(change, schedule, report)
    if change.action ~= "removed" then return end
    local location = change.before
    local types = change.schedule_before:shift_types{ location = location }
    if #types == 0 then return end
    local symbols = {}
    for _, t in ipairs(types) do symbols[#symbols + 1] = t.symbol end
    report{
      message = ("%s is used by %d shift type%s (%s); move them to another location or remove them first")
        :format(location.name, #types, #types == 1 and "" or "s", table.concat(symbols, ", ")),
    }
  end,

  examples = {
    { name = "a location in use cannot be removed",
      given = { locations = { "Ward 3" }, types = { D = { time = "07:00-19:00", location = "Ward 3" },
                                                   N = { time = "19:00-07:00", location = "Ward 3" } } },
      remove_location = "Ward 3", expect = "error", message = "Ward 3 is used by 2 shift types (D, N)" },
    { name = "an unused location can be removed",
      given = { locations = { "Ward 3", "Annex" }, types = { D = { time = "07:00-19:00", location = "Ward 3" } } },
      remove_location = "Annex", expect = "pass" },
  },
}
