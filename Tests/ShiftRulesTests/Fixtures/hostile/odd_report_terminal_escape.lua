-- attack: a violation message with line breaks and terminal escape sequences
-- expect: rejected
-- expect-load: nil value
local function attack(change, schedule, report, params)
  report("\27[2J\27[31mred\nsecond line\r\27]0;pwned\7")
end
