-- attack: table.concat of ten million strings
-- expect: memory limit|not enough memory|instruction budget|time limit
local function attack(change, schedule, report, params)
  local t = {}
  for i = 1, 1e7 do t[i] = "abcdefgh" .. i end
  local _ = table.concat(t)
end
