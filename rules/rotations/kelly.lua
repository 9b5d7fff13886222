-- Kelly: 3 platoons on 24-hour shifts, 9-day cycle: on, off, on, off, on, then 4 days off;
-- 56 h a week on average (above the stock 48 h average: see 24_48.lua). Platoons start 3 days apart.
-- Source: https://rfd4.org/extinguish/your-question-why-do-firefighters-have-kelly-days.html
-- ("Kelly Shift Schedule: a 9-day cycle …").
-- 56 h a week on average exceeds the stock max_hours_per_week average (48 h): raise
-- `rules.param.max_hours_per_week.average_hours` (or people's `max_hours_per_week`) to use it.
return rotation {
  id = "kelly",
  summary = "Kelly: 3 platoons, 24 h shifts, on-off-on-off-on then 4 off, 9-day cycle, 56 h/week.",
  source = "Kelly shift schedule; rfd4.org (Kelly days)",
  shifts = { X = { time = "07:00-07:00", title = "24-hour" } },
  team_order = { "A", "B", "C" },
  teams = { A = "X-X-X----", B = "-X----X-X", C = "---X-X-X-" },
}
