-- Continental: 4 teams on three 8-hour shifts (day, swing, night), a fast forward rotation over a
-- 28-day cycle, 42 h a week on average. Week 1: 2 days, 3 swings, 2 nights; week 2: 2 off,
-- 3 days, 2 swings; week 3: 2 nights, 3 off, 2 days; week 4: 2 swings, 3 nights, 2 off.
-- Source: https://www.snapschedule.com/blog/continental-shift-pattern/ ("Continental Shift Schedule").
-- Works 7 days in a row once a cycle: the stock max_consecutive_days (6) rejects it unless a store
-- raises it (`rules.param.max_consecutive_days.days = 7`).
return rotation {
  id = "continental",
  summary = "Continental: 4 teams, 3 x 8 h, fast forward rotation, 28-day cycle, 42 h/week.",
  source = "Continental shift schedule; snapschedule.com/blog/continental-shift-pattern",
  shifts = { D = { time = "06:00-14:00", title = "Day" }, S = { time = "14:00-22:00", title = "Swing" },
             N = { time = "22:00-06:00", title = "Night" } },
  team_order = { "A", "B", "C", "D" },
  teams = {
    A = "DDSSSNN--DDDSSNN---DDSSNNN--",
    B = "SSNNN--DDSSSNN--DDDSSNN---DD",
    C = "NN---DDSSNNN--DDSSSNN--DDDSS",
    D = "--DDDSSNN---DDSSNNN--DDSSSNN",
  },
}
