-- Helpers shared by the stock rules: `local util = require("lib.util")`.
local util = {}

--- A number from a person's (or shift type's) attributes, else the rule's parameter.
--- (`entity:attribute(key)` reads the one value; `entity.attributes` would make the whole table.)
function util.number(entity, key, default)
  if entity ~= nil then
    local value = entity:attribute(key)
    if type(value) == "number" then return value end
  end
  return default
end

--- True when a person's `skills` attribute (a list or a single string) holds `skill`.
function util.has_skill(person, skill)
  if person == nil then return false end
  local skills = person:attribute("skills")
  if type(skills) == "string" then return skills == skill end
  if type(skills) ~= "table" then return false end
  for _, value in ipairs(skills) do
    if value == skill then return true end
  end
  return false
end

--- "Bob" or "nobody".
function util.name(person)
  if person == nil then return "nobody" end
  return person.name
end

--- "D 07:00-19:00 on 2026-03-02" for messages. (One concatenation: a messy roster's report
--- asks for this a million times, and `..` of strings costs half a string.format.)
function util.when(shift)
  return shift.type.symbol .. " " .. cal.time_of(shift.starts_at) .. "-" .. cal.time_of(shift.ends_at) .. " on " .. shift.date
end

return util
