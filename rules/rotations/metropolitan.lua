-- Metropolitan (2-2-2-2): 4 teams on three 8-hour shifts, 8-day cycle, 42 h a week on average:
-- 2 days, 2 swings, 2 nights, 2 off. Teams start 2 days apart.
-- Source: the issue's definition (2D 2S 2N 2O), the metropolitan rota of continuous 8-hour
-- systems (see https://oem.bmj.com, "8h (2-2-2) advancing continuous").
return rotation {
  id = "metropolitan",
  summary = "Metropolitan: 4 teams, 3 x 8 h, 2 days, 2 swings, 2 nights, 2 off (8-day cycle), 42 h/week.",
  source = "2D 2S 2N 2O (2-2-2 advancing continuous)",
  shifts = { D = { time = "06:00-14:00", title = "Day" }, S = { time = "14:00-22:00", title = "Swing" },
             N = { time = "22:00-06:00", title = "Night" } },
  team_order = { "A", "B", "C", "D" },
  teams = { A = "DDSSNN--", B = "SSNN--DD", C = "NN--DDSS", D = "--DDSSNN" },
}
