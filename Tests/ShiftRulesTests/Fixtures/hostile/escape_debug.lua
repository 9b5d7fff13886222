-- attack: the debug library
-- expect: global 'debug'
local function attack(change, schedule, report, params)
  debug.getregistry()
end
