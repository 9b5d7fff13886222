-- Fast 12 (2-2-4): 4 teams on 12-hour shifts, 8-day cycle, 42 h a week on average: 2 days,
-- 2 nights, 4 off. Teams start 2 days apart, so every day one team works days and one nights.
-- Source: the issue's definition (2D 2N 4O), a common fast 12-hour rotation.
return rotation {
  id = "fast_12",
  summary = "Fast 12: 4 teams, 12 h, 2 days, 2 nights, 4 off (8-day cycle), 42 h/week.",
  source = "2D 2N 4O fast 12-hour rotation",
  shifts = { D = { time = "07:00-19:00", title = "Day" }, N = { time = "19:00-07:00", title = "Night" } },
  team_order = { "A", "B", "C", "D" },
  teams = { A = "DDNN----", B = "NN----DD", C = "----DDNN", D = "--DDNN--" },
}
