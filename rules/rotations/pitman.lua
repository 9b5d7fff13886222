-- Pitman (fixed): 4 teams on 12-hour shifts, 14-day cycle, 42 h a week on average. Two teams
-- always work days and two always work nights, each on 2 on, 2 off, 3 on, 2 off, 2 on, 3 off.
-- Source: https://community.bmscentral.com/learnss/show.php/ZC/c4tf12-1 ("Pitman fixed shift schedule").
return rotation {
  id = "pitman",
  summary = "Pitman (fixed): 4 teams, 12 h, two on days and two on nights, 14-day cycle, 42 h/week.",
  source = "Pitman fixed shift schedule; community.bmscentral.com/learnss/show.php/ZC/c4tf12-1",
  shifts = { D = { time = "07:00-19:00", title = "Day" }, N = { time = "19:00-07:00", title = "Night" } },
  team_order = { "A", "B", "C", "D" },
  teams = {
    A = "DD--DDD--DD---",
    B = "--DD---DD--DDD",
    C = "NN--NNN--NN---",
    D = "--NN---NN--NNN",
  },
}
