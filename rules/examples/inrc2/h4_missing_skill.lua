-- INRC-II H4, missing required skill (hard): a shift's `skill` attribute (the skill the nurse
-- covers) must be one of the person's `skills`. Shifts without a skill are not checked.
return rule {
  id = "inrc2_h4_missing_skill",
  summary = "INRC-II H4: a nurse only covers a skill she has.",
  severity = "error",
  on = { "shift", "person" },

  check = function(change, schedule, report)
    local function check_shift(s)
      if s.person == nil then return end
      local skill = s.attributes.skill
      if skill == nil then return end
      local skills = s.person.attributes.skills
      if type(skills) == "string" then skills = { skills } end
      for _, have in ipairs(skills or {}) do
        if have == skill then return end
      end
      report{ message = ("%s covers %s on %s without the skill (has %s)")
                :format(s.person.name, skill, s.date, table.concat(skills or {}, ", ")), shift = s }
    end
    if change.entity == "shift" then
      if change.after ~= nil then check_shift(change.after) end
    elseif change.after ~= nil and change.action == "updated" then
      -- A person losing a skill: every shift of theirs that covers it.
      for _, s in ipairs(schedule:shifts{ person = change.after }) do check_shift(s) end
    end
  end,

  examples = {
    { name = "covering a skill the nurse lacks is rejected",
      given = { types = { Early = "all-day" }, people = { { name = "Sara", attributes = { skills = { "Nurse" } } } } },
      add = { type = "Early", date = "2024-01-01", person = "Sara", attributes = { skill = "HeadNurse" } },
      expect = "error", message = "Sara covers HeadNurse on 2024-01-01 without the skill" },
    { name = "covering one of her skills is fine",
      given = { types = { Early = "all-day" }, people = { { name = "Sara", attributes = { skills = { "HeadNurse", "Nurse" } } } } },
      add = { type = "Early", date = "2024-01-01", person = "Sara", attributes = { skill = "Nurse" } },
      expect = "pass" },
  },
}
