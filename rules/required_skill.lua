-- required_skill: a shift that needs a skill goes to someone who has it. A shift needs the skill
-- in its `skill` attribute (what `shiftctl solve` gives the shifts it makes for a demand with a
-- skill), else the one in its shift type's `skill` attribute; a person has the skills in their
-- `skills` attribute (a list, or one name). Changing a person's skills or a type's skill is
-- checked against their shifts too. `shiftctl validate` checks each person's shifts in one pass.
local util = require("lib.util")

local function needed(s)
  local skill = s:attribute("skill")
  if skill == nil then skill = s.type:attribute("skill") end
  if type(skill) == "string" then return skill end
  return nil
end

local function check_shift(s, report)
  if s.person == nil then return end
  local skill = needed(s)
  if skill ~= nil and not util.has_skill(s.person, skill) then
    report{ message = ("%s works %s on %s, which needs %s"):format(s.person.name, s.type.symbol, s.date, skill), shift = s }
  end
end

return rule {
  id = "required_skill",
  summary = "A shift that needs a skill goes to someone who has it.",
  severity = "error",
  on = { "shift", "person", "shift_type" },

  check = function(change, schedule, report)
    local after = change.after
    if after == nil then return end
    if change.entity == "shift" then
      check_shift(after, report)
    elseif change.action == "updated" then
      -- A person who lost a skill, or a type that now needs one: their shifts from now on.
      local filter = { from = cal.today() }
      if change.entity == "person" then filter.person = after else filter.type = after end
      for _, s in ipairs(schedule:shifts(filter)) do check_shift(s, report) end
    end
  end,

  validate_person = function(person, shifts, schedule, report)
    for i = 1, shifts.n do check_shift(shifts[i], report) end
  end,

  examples = {
    { name = "a shift marked with a skill needs someone who has it",
      given = { types = { D = "07:00-19:00" }, people = { "Bob" },
                shifts = { { type = "D", date = "2026-03-02", attributes = { skill = "nurse" } } } },
      reassign = { 1, "Bob" }, expect = "error", message = "Bob works D on 2026-03-02, which needs nurse" },
    { name = "a person with the skill is fine",
      given = { types = { D = "07:00-19:00" }, people = { { name = "Bob", attributes = { skills = { "nurse", "lead" } } } },
                shifts = { { type = "D", date = "2026-03-02", attributes = { skill = "lead" } } } },
      reassign = { 1, "Bob" }, expect = "pass" },
    { name = "a shift type can need a skill for all its shifts",
      given = { types = { N = { time = "19:00-07:00", attributes = { skill = "nurse" } } },
                people = { "Carol", { name = "Bob", attributes = { skills = "nurse" } } } },
      add = { { "N", "2026-03-02", "Bob" }, { "N", "2026-03-03", "Carol" } }, expect = "error", count = 1,
      message = "Carol works N on 2026-03-03, which needs nurse" },
    { name = "validate finds every shift without its skill", validate = true,
      given = { types = { D = { time = "07:00-19:00", attributes = { skill = "nurse" } } }, people = { "Carol" },
                shifts = { { "D", "2026-03-02", "Carol" }, { "D", "2026-03-03", "Carol" } } },
      expect = "error", count = 2 },
  },
}
