-- balanced_workload: the work of the planning period is shared fairly. Each person's hours in the
-- planning period (the store's horizon.first..horizon.last, else the span of the shifts) are
-- compared with the average of everyone's; each hour more than `tolerance_hours` away from it,
-- above or below, costs `weight`. People whose `balance` attribute is false (a part-timer on a
-- contract of their own, an agency worker) are left out of the average and the count. A person's
-- `fte` attribute (1 = full time, 0.5 = half time) scales their share.
-- A whole-schedule rule (it compares people with each other), so `shiftctl solve` evaluates it
-- in full on every move: it costs about a microsecond per person.
return rule {
  id = "balanced_workload",
  summary = "Hours over the planning period are shared evenly (soft).",
  severity = "penalty",
  params = { weight = 1, tolerance_hours = 8 },

  validate = function(schedule, report, params)
    local horizon = schedule:horizon()
    if horizon == nil then return end
    local people, hours, shares = {}, {}, {}
    local total, share_total = 0, 0
    for _, p in ipairs(schedule:people()) do
      if p:attribute("balance") ~= false then
        local fte = p:attribute("fte")
        if type(fte) ~= "number" or fte < 0 then fte = 1 end
        local h = schedule:minutes{ person = p, from = horizon.first, to = horizon.last } / 60
        people[#people + 1], hours[#people + 1], shares[#people + 1] = p, h, fte
        total, share_total = total + h, share_total + fte
      end
    end
    if #people < 2 or share_total == 0 then return end
    for i, p in ipairs(people) do
      local fair = total * shares[i] / share_total
      local off = math.abs(hours[i] - fair) - params.tolerance_hours
      if off > 0 then
        report{ message = ("%s works %.1f h, %s than a fair share of %.1f h"):format(
                  p.name, hours[i], hours[i] > fair and "more" or "less", fair),
                person = p, penalty = off * params.weight }
      end
    end
  end,

  examples = {
    { name = "one person doing all the work costs the hours beyond the tolerance", validate = true,
      given = { types = { D = "08:00-16:00" }, people = { "Bob", "Carol" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Bob" }, { "D", "2026-03-04", "Bob" },
                           { "D", "2026-03-05", "Bob" } } },
      -- 32 h against a fair 16 h each: 16 - 8 over for Bob, 16 - 8 under for Carol.
      expect = "penalty", count = 2, penalty = 16, message = "Bob works 32.0 h, more than a fair share of 16.0 h" },
    { name = "an even split costs nothing", validate = true,
      given = { types = { D = "08:00-16:00" }, people = { "Bob", "Carol" },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Carol" } } },
      expect = "pass" },
    { name = "a half-timer's share is half", validate = true,
      given = { types = { D = "08:00-16:00" }, people = { "Bob", { name = "Carol", attributes = { fte = 0.5 } } },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Bob" }, { "D", "2026-03-04", "Carol" } } },
      expect = "pass" },
    { name = "people outside the balance are left out", params = { tolerance_hours = 0 }, validate = true,
      given = { types = { D = "08:00-16:00" }, people = { "Bob", "Carol", { name = "Agency", attributes = { balance = false } } },
                shifts = { { "D", "2026-03-02", "Bob" }, { "D", "2026-03-03", "Carol" } } },
      expect = "pass" },
  },
}
