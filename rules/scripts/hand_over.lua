-- hand_over: moves every shift of one person between two dates to another person, with a reason
-- in the change log.
--
--   shiftctl run rules/scripts/hand_over.lua FROM_PERSON TO_PERSON FIRST_DATE LAST_DATE [REASON…]
--
--   FROM_PERSON, TO_PERSON  people by display name (or id)
--   FIRST_DATE, LAST_DATE   the range, inclusive (YYYY-MM-DD)
--   REASON…                 the change log's reason (the rest of the arguments, joined by spaces;
--                           default "handed over from <FROM_PERSON> to <TO_PERSON>")
--
-- The whole hand-over is one batch: if the rules refuse any of it (TO_PERSON already works that
-- day, would break the rest time…), nothing is moved and every violation is listed.
return script {
  id = "hand_over",
  summary = "Move all of one person's shifts in a date range to another person, with a reason.",

  run = function(ctx, schedule, ops)
    local args = ctx.args
    if #args < 4 then
      error("usage: shiftctl run hand_over.lua FROM_PERSON TO_PERSON FIRST_DATE LAST_DATE [REASON…]")
    end
    local from_person = schedule:person(args[1]) or error("no person '" .. args[1] .. "'")
    local to_person = schedule:person(args[2]) or error("no person '" .. args[2] .. "'")
    if from_person == to_person then error("FROM_PERSON and TO_PERSON are the same person") end
    for i = 3, 4 do
      if not cal.is_date(args[i]) then error(("'%s' is not a date (YYYY-MM-DD)"):format(args[i])) end
    end
    local first, last = args[3], args[4]
    if last < first then error(("LAST_DATE %s is before FIRST_DATE %s"):format(last, first)) end
    local reason = #args > 4 and table.concat(args, " ", 5)
      or ("handed over from %s to %s"):format(from_person.name, to_person.name)

    local shifts = schedule:shifts{ person = from_person, from = first, to = last }
    for _, s in ipairs(shifts) do
      ops.reassign(s, to_person, reason)
    end
    print(("%d shift%s of %s from %s to %s go to %s"):format(
      #shifts, #shifts == 1 and "" or "s", from_person.name, first, last, to_person.name))
  end,
}
