/// Lua code every plugin sees in its (read-only) base environment: the constructors that mark
/// what a plugin file returns. `each` is the host's own driver (not given to plugins): it calls a
/// rule's check for a whole list of changes in one call into Lua; `each_rule` calls every rule's
/// check for one change in one call; `each_person` is the driver of the person phase, which wraps
/// each person's timeline (see LuaScheduleAPI+Timeline).
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
    -- mark(i) before each item gives its check a whole budget and time limit of its own, as if
    -- it had been called alone (a trial's time starts again too).
    -- cache: the rule's own table that lasts while the catalog does (the day phase's), or nil.
    local function each(check, changes, schedule, report, params, mark, cache)
      for i = 1, #changes do
        mark(i)
        check(changes[i], schedule, report, params, cache)
      end
    end
    -- One change checked by several rules in one call: rules is a flat list (check, params, …);
    -- mark(k) before the k-th rule records it (its reports and errors are its own) and gives it
    -- a whole budget of its own. mark is the host's, never a plugin's.
    local function each_rule(rules, change, schedule, report, mark)
      for i = 1, #rules, 2 do
        mark((i + 1) // 2)
        rules[i](change, schedule, report, rules[i + 1])
      end
    end
    -- people: a flat list (person view, timeline handle, shift count, …); make(handle, n) is the
    -- host's timeline (LuaScheduleAPI+Timeline): shifts[i] a view made on demand, a column made
    -- on its first read and kept with that rule's timeline.
    -- mark before each person, as in each.
    local function each_person(fn, people, schedule, report, params, make, mark, cache)
      for i = 1, #people, 3 do
        mark((i + 2) // 3)
        fn(people[i], make(people[i + 1], people[i + 2]), schedule, report, params, cache)
      end
    end
    return { rule = marker("rule"), rotation = marker("rotation"), script = marker("script"), each = each, each_rule = each_rule,
             each_person = each_person }
    """#
}
