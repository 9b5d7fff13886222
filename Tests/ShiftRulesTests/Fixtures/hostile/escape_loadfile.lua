-- attack: loadfile
-- expect: global 'loadfile'
local function attack(change, schedule, report, params)
  loadfile("/etc/passwd")
end
