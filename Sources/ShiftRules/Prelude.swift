/// Lua code every plugin sees in its (read-only) base environment: the constructors that mark
/// what a plugin file returns.
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
    return { rule = marker("rule"), rotation = marker("rotation"), script = marker("script") }
    """#
}
