-- attack: a coroutine returned (from the file at load time, from check at run time)
-- expect: accepted
-- expect-load: it returned a thread
local function attack(change, schedule, report, params)
  return coroutine.create(print)
end
