-- attack: reaching the metatable of a host object
-- expect: boolean value
-- expect-load: nil value
local function attack(change, schedule, report, params)
  getmetatable(change.after).__index = nil
end
