-- attack: a global hoard kept across calls until the memory cap
-- expect: memory limit|not enough memory
local function attack(change, schedule, report, params)
  HOARD = HOARD or {}
  for i = 1, 1e9 do HOARD[#HOARD + 1] = string.rep("x", 1024) .. i end
end
