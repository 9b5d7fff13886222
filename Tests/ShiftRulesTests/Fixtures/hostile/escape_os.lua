-- attack: os.execute
-- expect: global 'os'
local function attack(change, schedule, report, params)
  os.execute("touch /tmp/pwned")
end
