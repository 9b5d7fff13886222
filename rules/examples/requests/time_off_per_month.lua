-- time_off_per_month: a person makes at most `per_month` (2) time-off requests in a calendar
-- month; requests that were cancelled or declined do not count.
return rule {
  id = "time_off_per_month",
  summary = "At most two time-off requests a month per person.",
  severity = "error",
  on = { "request" },
  params = { per_month = 2 },

  check = function(change, schedule, report, params)
    local r = change.after
    if change.action ~= "added" or r.kind ~= "time_off" then return end
    local month = cal.month(cal.date_of(r.made_at))
    local count = 0
    for _, other in ipairs(schedule:requests{ person = r.requester, kind = "time_off", from = month .. "-01" }) do
      if cal.month(cal.date_of(other.made_at)) == month and other.state ~= "cancelled" and other.state ~= "declined" then
        count = count + 1
      end
    end
    if count > params.per_month then
      report{
        message = ("%s asks for time off a %s time in %s; at most %d requests a month"):format(
          r.requester.name, count == 3 and "third" or (count .. "th"), month, params.per_month),
        person = r.requester, date = r.from,
      }
    end
  end,

  examples = {
    { name = "a second request in a month is fine",
      today = "2026-03-20",
      given = { people = { "Bob" },
                requests = { { kind = "time_off", person = "Bob", from = "2026-04-01", made = "2026-03-02" } } },
      request = { kind = "time_off", person = "Bob", from = "2026-04-10", to = "2026-04-12" },
      expect = "pass" },
    { name = "a third request in a month is refused",
      today = "2026-03-20",
      given = { people = { "Bob", "Carol" },
                requests = { { kind = "time_off", person = "Bob", from = "2026-04-01", made = "2026-03-02" },
                             { kind = "time_off", person = "Bob", from = "2026-04-05", made = "2026-03-10" },
                             { kind = "time_off", person = "Carol", from = "2026-04-05", made = "2026-03-10" } } },
      request = { kind = "time_off", person = "Bob", from = "2026-04-10" },
      expect = "error", count = 1, message = "a third time in 2026-03" },
    { name = "last month's and cancelled requests do not count",
      today = "2026-03-20",
      given = { people = { "Bob" },
                requests = { { kind = "time_off", person = "Bob", from = "2026-03-01", made = "2026-02-20" },
                             { kind = "time_off", person = "Bob", from = "2026-04-01", made = "2026-03-02", state = "cancelled" },
                             { kind = "time_off", person = "Bob", from = "2026-04-05", made = "2026-03-10" } } },
      request = { kind = "time_off", person = "Bob", from = "2026-04-10" },
      expect = "pass" },
  },
}
