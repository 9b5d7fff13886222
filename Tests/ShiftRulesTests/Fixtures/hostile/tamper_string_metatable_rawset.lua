-- attack: rawset on the string metatable stand-in
-- expect: read-only
local function attack(change, schedule, report, params)
  rawset(getmetatable(""), "__index", {})
end
