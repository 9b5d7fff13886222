-- attack: an error message with line breaks and terminal escape sequences (clear screen, set title)
-- expect: line one
local function attack(change, schedule, report, params)
  error("line one\n\27[2J\27]0;pwned\7\nline two")
end
