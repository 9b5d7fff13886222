-- Southern Swing: 4 teams on three 8-hour shifts, 28-day cycle, 42 h a week on average: 7 days,
-- 2 off, 7 swings, 2 off, 7 nights, 3 off (a slow forward rotation). Teams are a week apart in the cycle.
-- Source: the rotating 7-on schedule described at http://everything2.com/title/rotating+shift+schedule
-- (known as the Southern Swing).
-- Works 7 days in a row: the stock max_consecutive_days (6) rejects it unless a store raises it
-- (`rules.param.max_consecutive_days.days = 7`).
return rotation {
  id = "southern_swing",
  summary = "Southern Swing: 4 teams, 3 x 8 h, 7 days on each shift, 28-day cycle, 42 h/week.",
  source = "Southern Swing (7-2-7-2-7-3); everything2.com/title/rotating+shift+schedule",
  shifts = { D = { time = "07:00-15:00", title = "Day" }, S = { time = "15:00-23:00", title = "Swing" },
             N = { time = "23:00-07:00", title = "Night" } },
  team_order = { "A", "B", "C", "D" },
  teams = {
    A = "DDDDDDD--SSSSSSS--NNNNNNN---",
    B = "--SSSSSSS--NNNNNNN---DDDDDDD",
    C = "SS--NNNNNNN---DDDDDDD--SSSSS",
    D = "NNNN---DDDDDDD--SSSSSSS--NNN",
  },
}
