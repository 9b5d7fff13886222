-- attack: reports in a loop, each error from the report limit swallowed by pcall
-- expect: too many reports|instruction budget|time limit
-- expect-load: instruction budget|time limit
local function attack(change, schedule, report, params)
  local m = string.rep("z", 4096)
  for i = 1, 1e9 do pcall(report, m) end
end
