-- 4-on-4-off: 4 teams on 12-hour shifts, 16-day cycle, 42 h a week on average: 4 days on,
-- 4 off, 4 nights on, 4 off. Teams start 4 days apart, so one team works days and one nights.
-- Source: the "4 on 4 off" 12-hour rotation, e.g. https://www.bmscentral.com/learn-employee-scheduling/tag/rotating-shift/
return rotation {
  id = "four_on_four_off",
  summary = "4-on-4-off: 4 teams, 12 h, 4 days, 4 off, 4 nights, 4 off (16-day cycle), 42 h/week.",
  source = "4-on-4-off 12-hour rotating schedule; bmscentral.com/learn-employee-scheduling/tag/rotating-shift",
  shifts = { D = { time = "07:00-19:00", title = "Day" }, N = { time = "19:00-07:00", title = "Night" } },
  team_order = { "A", "B", "C", "D" },
  teams = {
    A = "DDDD----NNNN----",
    B = "----NNNN----DDDD",
    C = "NNNN----DDDD----",
    D = "----DDDD----NNNN",
  },
}
