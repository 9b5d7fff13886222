-- swap_notice: a swap is asked for at least `hours` (48) hours before each shift it moves
-- starts, so that the scheduler and the colleague have time to answer.
return rule {
  id = "swap_notice",
  summary = "A swap is asked for at least 48 hours before its shifts start.",
  severity = "error",
  on = { "request" },
  params = { hours = 48 },

  check = function(change, schedule, report, params)
    local r = change.after
    if change.action ~= "added" or r.kind ~= "swap" then return end
    for _, s in ipairs({ r.shift, r.colleague_shift }) do
      local left = cal.hours_between(r.made_at, s.starts_at)
      if left < params.hours then
        report{
          message = ("%s asks to swap %s on %s %.0f h before it starts; a swap needs %d h notice"):format(
            r.requester.name, s.type.symbol, s.date, left, params.hours),
          shift = s,
        }
      end
    end
  end,

  examples = {
    { name = "four days ahead is enough",
      today = "2026-03-01",
      given = { types = { D = "07:00-19:00" }, people = { "Bob", "Carol" },
                shifts = { { "D", "2026-03-05", "Bob" } } },
      request = { kind = "swap", person = "Bob", shift = 1, with = "Carol" },
      expect = "pass" },
    { name = "the next morning is too late",
      today = "2026-03-01",
      given = { types = { D = "07:00-19:00" }, people = { "Bob", "Carol" },
                shifts = { { "D", "2026-03-02", "Bob" } } },
      request = { kind = "swap", person = "Bob", shift = 1, with = "Carol" },
      expect = "error", count = 1, message = "19 h before it starts" },
    { name = "the colleague's shift in an exchange counts too",
      today = "2026-03-01",
      given = { types = { D = "07:00-19:00" }, people = { "Bob", "Carol" },
                shifts = { { "D", "2026-03-09", "Bob" }, { "D", "2026-03-02", "Carol" } } },
      request = { kind = "swap", person = "Bob", shift = 1, with = "Carol", ["for"] = 2 },
      expect = "error", count = 1, message = "swap D on 2026-03-02" },
    { name = "other kinds of request are not swaps",
      today = "2026-03-01",
      given = { types = { D = "07:00-19:00" }, people = { "Bob" }, shifts = { { "D", "2026-03-02", "Bob" } } },
      request = { kind = "offer", person = "Bob", shift = 1 },
      expect = "pass" },
  },
}
