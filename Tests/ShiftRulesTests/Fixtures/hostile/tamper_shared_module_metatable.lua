-- attack: giving a shared module's table a metatable that hides its entries
-- expect: protected metatable|read-only
local function attack(change, schedule, report, params)
  setmetatable(require("lib.guard").forbidden, { __index = function() return nil end })
end
