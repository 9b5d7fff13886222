-- attack: require of an absolute path
-- expect: invalid module name
local function attack(change, schedule, report, params)
  require("/etc/passwd")
end
