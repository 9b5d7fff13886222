-- attack: dofile
-- expect: global 'dofile'
local function attack(change, schedule, report, params)
  dofile("/etc/passwd")
end
