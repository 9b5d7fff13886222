-- DuPont: 4 teams on 12-hour shifts, 28-day cycle, 42 h a week on average: 4 nights, 3 off,
-- 3 days, 1 off, 3 nights, 3 off, 4 days, 7 off. Teams start a week apart.
-- Source: https://community.bmscentral.com/learnss/show.php/ZC/c4tr12-3 ("DuPont Schedule for 24/7 Shift Coverage").
return rotation {
  id = "dupont",
  summary = "DuPont: 4 teams, 12 h, 28-day cycle with 7 days off in a row, 42 h/week.",
  source = "DuPont 12-hour rotating schedule; community.bmscentral.com/learnss/show.php/ZC/c4tr12-3",
  shifts = { D = { time = "07:00-19:00", title = "Day" }, N = { time = "19:00-07:00", title = "Night" } },
  team_order = { "A", "B", "C", "D" },
  teams = {
    A = "NNNN---DDD-NNN---DDDD-------",
    B = "DDD-NNN---DDDD-------NNNN---",
    C = "---DDDD-------NNNN---DDD-NNN",
    D = "-------NNNN---DDD-NNN---DDDD",
  },
}
