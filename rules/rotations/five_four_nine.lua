-- 5-4/9: a compressed work schedule for one team over a two-week pay period: week 1 is an 8-hour
-- Monday and 9-hour Tuesday to Friday, week 2 is 9-hour Monday to Thursday and Friday off;
-- 80 h in 9 days, 40 h a week. Anchor it on a Monday.
-- Source: https://www.aphis.usda.gov/aphis/ourfocus/business-services/Forms_Publications/HR_Desk_Guide/HRDG_4610/4610_sec_k_sub_a
-- ("5-4/9 Compressed Work Schedules").
return rotation {
  id = "5_4_9",
  summary = "5-4/9: one team, eight 9 h days and one 8 h day every two weeks, 40 h/week.",
  source = "5-4/9 compressed work schedule; USDA APHIS HR Desk Guide 4610 K(a)",
  shifts = { L = { time = "08:00-17:00", title = "9-hour day" }, E = { time = "08:00-16:00", title = "8-hour day" } },
  team_order = { "A" },
  teams = { A = "ELLLL--LLLL---" },
}
