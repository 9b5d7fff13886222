-- person_in_use: someone with shifts from today on cannot be removed; past shifts do not block
-- (they become open shifts, and the change log keeps who worked them).
return rule {
  id = "person_in_use",
  summary = "A person with shifts from today on cannot be removed.",
  severity = "error",
  on = { "person" },

  check = function(change, schedule, report)
    if change.action ~= "removed" then return end
    local person = change.before
    local count = change.schedule_before:count{ person = person, from = cal.today() }
    if count == 0 then return end
    report{
      message = ("%s has %d shift%s from %s on; reassign or remove them first")
        :format(person.name, count, count == 1 and "" or "s", cal.today()),
      person = person,
    }
  end,

  examples = {
    { name = "someone with a future shift cannot be removed", today = "2026-03-01",
      given = { types = { D = "07:00-19:00" }, people = { "Bob" }, shifts = { { "D", "2026-03-02", "Bob" } } },
      remove_person = "Bob", expect = "error", message = "Bob has 1 shift from 2026-03-01 on" },
    { name = "past shifts do not block removal", today = "2026-04-01",
      given = { types = { D = "07:00-19:00" }, people = { "Bob" }, shifts = { { "D", "2026-03-02", "Bob" } } },
      remove_person = "Bob", expect = "pass" },
  },
}
