-- attack: package.loadlib
-- expect: global 'package'
local function attack(change, schedule, report, params)
  package.loadlib("/lib/x86_64-linux-gnu/libc.so.6", "system")
end
