-- 24/48: 3 platoons, each works one 24-hour shift then has 48 hours off (3-day cycle), 56 h a
-- week on average. Note: 56 h exceeds the stock max_hours_per_week average of 48 h; raise
-- `rules.param.max_hours_per_week.average_hours` (or a person's `max_hours_per_week`) where
-- this schedule is allowed.
-- Source: https://www.bogeymedic.com/firefighting-schedules ("24/48").
return rotation {
  id = "24_48",
  summary = "24/48: 3 platoons, 24 h on and 48 h off, 3-day cycle, 56 h/week.",
  source = "24/48 firefighter schedule; bogeymedic.com/firefighting-schedules",
  shifts = { X = { time = "07:00-07:00", title = "24-hour" } },
  team_order = { "A", "B", "C" },
  teams = { A = "X--", B = "-X-", C = "--X" },
}
