return function(date, n, list, thing)
  local a, b = thing.n, thing.s
  local c = thing.o.o.n
  local t = thing.t
  t[1] = 9
  local ok = pcall(function() return thing.err end)
  local ok2 = pcall(function() return thing[1] end)
  local m = thing:m()
  return a, b, c, thing.t[1], ok, ok2, m, thing.missing, thing.missing, rawequal(thing.o, thing.o)
end
