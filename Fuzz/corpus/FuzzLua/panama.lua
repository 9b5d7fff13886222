-- Panama (2-2-3), rotating: 4 teams on 12-hour day and night shifts, 28-day cycle, 42 h a week on
-- average. Each team works the 14-day 2-2-3 pattern (2 on, 2 off, 3 on, 2 off, 2 on, 3 off) on
-- days, then the same pattern on nights; every day one team works days and one works nights.
-- Source: the rotating variant of the 2-2-3 / Pitman schedule, e.g.
-- https://teami.io/time-tracking-glossary/the-pitman-work-schedule ("Rotating Pitman schedule").
return rotation {
  id = "panama",
  summary = "Panama 2-2-3: 4 teams, 12 h days and nights, 28-day cycle, 42 h/week on average.",
  source = "Rotating 2-2-3 (Panama/rotating Pitman); teami.io/time-tracking-glossary/the-pitman-work-schedule",
  shifts = { D = { time = "07:00-19:00", title = "Day" }, N = { time = "19:00-07:00", title = "Night" } },
  team_order = { "A", "B", "C", "D" },
  teams = {
    A = "DD--DDD--DD---NN--NNN--NN---",
    B = "--DD---DD--DDD--NN---NN--NNN",
    C = "NN--NNN--NN---DD--DDD--DD---",
    D = "--NN---NN--NNN--DD---DD--DDD",
  },
}
