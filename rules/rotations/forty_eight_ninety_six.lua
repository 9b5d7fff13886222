-- 48/96: 3 platoons, each works two 24-hour shifts in a row then has 96 hours off (6-day cycle),
-- 56 h a week on average (above the stock 48 h average: see 24_48.lua).
-- Source: https://rfd4.org/extinguish/your-question-why-do-firefighters-have-kelly-days.html
-- ("two consecutive twenty-four shifts on-duty, followed by four consecutive twenty-four hour shifts off-duty").
-- Also needs the stock min_rest_between_shifts relaxed for these people: the two 24-hour shifts
-- follow each other with no rest between them (`min_rest_hours = 0` on the people, or the rule's
-- `hours` parameter set to 0).
return rotation {
  id = "48_96",
  summary = "48/96: 3 platoons, two 24 h shifts then 4 days off, 6-day cycle, 56 h/week.",
  source = "48/96 firefighter schedule; rfd4.org (Kelly days)",
  shifts = { X = { time = "07:00-07:00", title = "24-hour" } },
  team_order = { "A", "B", "C" },
  teams = { A = "XX----", B = "--XX--", C = "----XX" },
}
