-- attack: a table of a billion tables
-- expect: memory limit|not enough memory
local function attack(change, schedule, report, params)
  local t = {}
  for i = 1, 1e9 do t[i] = { i } end
end
