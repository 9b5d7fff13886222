-- attack: a function returned instead of rule{ … }
-- expect: accepted
-- expect-load: it returned a function
local function attack(change, schedule, report, params)
  return function() end
end
