-- attack: io.open
-- expect: global 'io'
local function attack(change, schedule, report, params)
  io.open("/etc/passwd")
end
