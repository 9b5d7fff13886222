-- attack: most of the memory cap kept in a global, then an error (the next change must still work)
-- expect: retained
local function attack(change, schedule, report, params)
  KEEP = {}
  for i = 1, 24 do KEEP[i] = string.rep("x", 2^20) .. i end
  error("retained")
end
