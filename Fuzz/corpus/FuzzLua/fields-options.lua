return function(date, n, list, thing)
  local t = { a = date, b = thing, span = { x = n, y = list, z = 1 }, extra = true, [1] = 2 }
  t.span.self = t
  local a, b, strays, first, x, y = fields(t)
  local ok, err = pcall(fields, 5)
  local big = {}
  for i = 1, 200 do big["k" .. i] = i end
  return a, b, strays, first, x, y, ok, err, pcall(fields, big), pcall(fields, { span = 3 })
end
