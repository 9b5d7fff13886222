-- INRC-II H4, missing required skill (hard): a shift's `skill` attribute (the skill the nurse
-- covers) must be one of the person's `skills`. Shifts without a skill are not checked.
-- Checked on every change of a shift or a person (`check`). In `shiftctl validate` and
-- `shiftctl solve` the person phase (`validate_person`) reports instead what the check reports
-- for each of the person's shifts.

local inrc2 = require("lib.inrc2")

--- The check's finding for shift `s`: one when it covers a skill its person lacks.
local function check_shift(s, report)
  if s.person == nil then return end
  local skill = s:attribute("skill")
  if skill == nil then return end
  local skills = s.person:attribute("skills")
  if type(skills) == "string" then skills = { skills } end
  for _, have in ipairs(skills or {}) do
    if have == skill then return end
  end
  report{ message = ("%s covers %s on %s without the skill (has %s)")
            :format(s.person.name, skill, s.date, table.concat(skills or {}, ", ")), shift = s }
end

return rule {
  id = "inrc2_h4_missing_skill",
  summary = "INRC-II H4: a nurse only covers a skill she has.",
  severity = "error",
  on = { "shift", "person" },

  check = function(change, schedule, report)
    if change.entity == "shift" then
      if change.after ~= nil then check_shift(change.after, report) end
    elseif change.after ~= nil and change.action == "updated" then
      -- A person losing a skill: every shift of theirs that covers it.
      for _, s in ipairs(schedule:shifts{ person = change.after }) do check_shift(s, report) end
    end
  end,

  -- Each shift's `skill` from the timeline's attribute columns, against her skills read once; a
  -- view only for a shift it reports.
  validate_person = function(person, shifts, schedule, report, params, cache)
    if shifts.n == 0 then return end
    local covers = shifts.attributes.skill
    if covers == nil then return end
    -- The person's skills, as listed and as a set, kept per catalog in the cache.
    local skills = inrc2.kept(cache, "skills")
    local kept = skills[person.id]
    if kept == nil then
      local listed = person:attribute("skills")
      if type(listed) == "string" then listed = { listed } end
      listed = listed or {}
      local have = {}
      for _, skill in ipairs(listed) do
        if skill == skill then have[skill] = true end
      end
      kept = { listed = listed, have = have }
      skills[person.id] = kept
    end
    local listed, have = kept.listed, kept.have
    for i = 1, shifts.n do
      local skill = covers[i]
      if skill ~= nil and (skill ~= skill or not have[skill]) then
        local s = shifts[i]
        report{ message = ("%s covers %s on %s without the skill (has %s)")
                  :format(person.name, skill, s.date, table.concat(listed, ", ")), shift = s }
      end
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
    { name = "validate reports each shift covering a missing skill", validate = true,
      given = { types = { Early = "all-day", Late = "all-day" },
                people = { { name = "Sara", attributes = { skills = { "Nurse", "Trainee" } } }, { name = "Ines", attributes = { skills = "HeadNurse" } } },
                shifts = { { type = "Early", date = "2024-01-01", person = "Sara", attributes = { skill = "HeadNurse" } },
                           { type = "Late", date = "2024-01-02", person = "Sara", attributes = { skill = "Nurse" } },
                           { type = "Late", date = "2024-01-03", person = "Sara" },
                           { type = "Early", date = "2024-01-01", person = "Ines", attributes = { skill = "HeadNurse" } },
                           { type = "Early", date = "2024-01-02", person = "Ines", attributes = { skill = "Nurse" } } } },
      expect = "error", count = 2, message = "Sara covers HeadNurse on 2024-01-01 without the skill (has Nurse, Trainee)" },
    { name = "validate passes shifts within the nurses' skills", validate = true,
      given = { types = { Early = "all-day" },
                people = { { name = "Sara", attributes = { skills = { "Nurse", "HeadNurse" } } }, { name = "Ines", attributes = { skills = "Nurse" } } },
                shifts = { { type = "Early", date = "2024-01-01", person = "Sara", attributes = { skill = "HeadNurse" } },
                           { type = "Early", date = "2024-01-02", person = "Sara", attributes = { skill = "Nurse" } },
                           { type = "Early", date = "2024-01-01", person = "Ines", attributes = { skill = "Nurse" } } } },
      expect = "pass" },
  },
}
