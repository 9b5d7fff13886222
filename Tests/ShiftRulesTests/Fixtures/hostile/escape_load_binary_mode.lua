-- attack: load of a binary chunk with mode 'b'
-- expect: binary|text chunk
local function attack(change, schedule, report, params)
  assert(load("\27Lua", "x", "b"))
end
