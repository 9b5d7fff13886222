-- attack: reaching the shared base environment through _ENV's metatable
-- expect: boolean value
local function attack(change, schedule, report, params)
  getmetatable(_ENV).__index.pairs = nil
end
