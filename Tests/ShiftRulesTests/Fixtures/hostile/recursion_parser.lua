-- attack: a chunk nested 100 000 levels deep handed to load
-- expect: syntax levels|overflow|too many
local function attack(change, schedule, report, params)
  assert(load(string.rep("(", 100000) .. "1" .. string.rep(")", 100000)))
end
