-- claim_needs_skill: an open shift that needs a skill (the shift's `skill` attribute, else its
-- type's) is claimed only by someone who has it (their `skills` attribute: a list or one name).
local function needed(s)
  local skill = s:attribute("skill")
  if skill == nil then skill = s.type:attribute("skill") end
  if type(skill) == "string" then return skill end
  return nil
end

local function has(person, skill)
  local skills = person:attribute("skills")
  if skills == skill then return true end
  if type(skills) == "table" then
    for _, have in ipairs(skills) do
      if have == skill then return true end
    end
  end
  return false
end

return rule {
  id = "claim_needs_skill",
  summary = "A claim for a shift that needs a skill comes from someone who has it.",
  severity = "error",
  on = { "request" },

  check = function(change, schedule, report)
    local r = change.after
    if change.action ~= "added" or r.kind ~= "claim" or r.shift == nil then return end
    local skill = needed(r.shift)
    if skill ~= nil and not has(r.requester, skill) then
      report{
        message = ("%s claims %s on %s, which needs %s"):format(r.requester.name, r.shift.type.symbol, r.shift.date, skill),
        shift = r.shift,
      }
    end
  end,

  examples = {
    { name = "a nurse claims a nurse's shift",
      given = { types = { D = { time = "07:00-19:00", attributes = { skill = "nurse" } } },
                people = { { name = "Bob", attributes = { skills = { "nurse", "head" } } } },
                shifts = { { "D", "2026-03-02" } } },
      request = { kind = "claim", person = "Bob", shift = 1 },
      expect = "pass" },
    { name = "someone without the skill cannot claim it",
      given = { types = { D = { time = "07:00-19:00", attributes = { skill = "nurse" } } },
                people = { "Carol" },
                shifts = { { "D", "2026-03-02" } } },
      request = { kind = "claim", person = "Carol", shift = 1 },
      expect = "error", count = 1, message = "Carol claims D on 2026-03-02, which needs nurse" },
    { name = "the shift's own skill comes first",
      given = { types = { D = "07:00-19:00" },
                people = { { name = "Carol", attributes = { skills = "nurse" } } },
                shifts = { { type = "D", date = "2026-03-02", attributes = { skill = "midwife" } } } },
      request = { kind = "claim", person = "Carol", shift = 1 },
      expect = "error", message = "which needs midwife" },
  },
}
