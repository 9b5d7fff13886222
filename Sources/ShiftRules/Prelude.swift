/// Lua code every plugin sees in its (read-only) base environment: the constructors that mark
/// what a plugin file returns. `each` is the host's own driver (not given to plugins): it calls a
/// rule's check for a whole list of changes in one call into Lua.
enum Prelude {
    static let source = #"""
    local function marker(kind)
      return function(spec)
        if type(spec) ~= "table" then
          error(kind .. "{ ... } expects a table", 2)
        end
        rawset(spec, "__plugin", kind)
        return spec
      end
    end
    local function each(check, changes, schedule, report, params)
      for i = 1, #changes do
        check(changes[i], schedule, report, params)
      end
    end
    return { rule = marker("rule"), rotation = marker("rotation"), script = marker("script"), each = each }
    """#
}
