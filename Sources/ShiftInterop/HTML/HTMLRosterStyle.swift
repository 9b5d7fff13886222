/// The HTML roster's style sheet (the colour of each shift type is added per page).
///
/// The grid keeps a readable cell width: a long range scrolls sideways inside its box with the
/// names held at the left, instead of squeezing the days. The findings table has fixed columns
/// and wraps its messages, so it reads at 1024 px; printed, everything fits an A4 landscape page.
enum HTMLRosterStyle {
    static let css = """
        :root { --line: #d5d8dd; --weekend: #f1f3f6; --error: #c62828; --warning: #e68a00; --penalty: #5a6fd6; --month: #6b7280; }
        * { box-sizing: border-box; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; color: #1d1d1d; margin: 24px; background: #fff; }
        h1 { font-size: 22px; margin: 0 0 4px; }
        h2 { font-size: 16px; margin: 20px 0 8px; }
        .meta { color: #555; margin: 0; }
        .legend ul { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: 6px 18px; }
        .legend li { display: flex; align-items: center; gap: 6px; }
        .legend .time, .legend .where { color: #555; }
        table { border-collapse: collapse; }
        .scroll { overflow-x: auto; max-width: 100%; }
        table.roster { table-layout: fixed; width: 100%; }
        .roster th, .roster td { border: 1px solid var(--line); padding: 2px; text-align: center; vertical-align: middle; height: 30px; position: relative; }
        .roster thead th { font-weight: 600; font-size: 12px; background: #fafbfc; }
        .roster thead th .wd { display: block; color: #666; font-weight: 400; }
        .roster tr.months th.month { text-align: left; padding: 2px 6px; height: 22px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; color: var(--month); }
        .roster th.person { width: 9em; text-align: left; padding: 2px 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; position: sticky; left: 0; z-index: 1; background: #fff; }
        .roster thead th.person { background: #fafbfc; }
        .roster th.total, .roster td.total { width: 3.5em; font-variant-numeric: tabular-nums; }
        .roster td.total { font-weight: 600; background: #fafbfc; }
        .roster .month-start { border-left: 3px solid var(--month); }
        .roster .weekend { background: var(--weekend); }
        .shift { display: inline-block; min-width: 1.8em; padding: 1px 4px; margin: 1px; border-radius: 4px; font-weight: 700; font-size: 12px; line-height: 1.5; }
        td.violation { outline: 3px solid var(--error); outline-offset: -3px; background: #fdecea; }
        td.violation.warning { outline-color: var(--warning); background: #fff4e0; }
        td.violation.penalty { outline-color: var(--penalty); background: #eef0fc; }
        .flag { position: absolute; top: 0; right: 2px; font-size: 10px; font-weight: 800; color: var(--error); }
        td.warning .flag { color: var(--warning); }
        td.penalty .flag { color: var(--penalty); }
        .swatch-violation { display: inline-block; width: 1.8em; text-align: center; border-radius: 4px; outline: 3px solid var(--error); outline-offset: -3px; background: #fdecea; color: var(--error); font-weight: 800; }
        tbody.coverage tr.coverage-title th { text-align: left; font-size: 12px; font-weight: 600; color: #555; background: #fafbfc; padding: 4px 8px; height: auto; }
        tbody.coverage td.cov { font-size: 11px; font-variant-numeric: tabular-nums; color: #333; }
        tbody.coverage td.total { font-size: 11px; color: var(--error); }
        td.cov.short, .cov-key.short { background: #fdecea; color: var(--error); font-weight: 800; box-shadow: inset 0 -3px 0 var(--error); }
        td.cov.thin, .cov-key.thin { background: #fff4e0; color: #8a5200; font-weight: 700; }
        .cov-key { display: inline-block; min-width: 2.4em; text-align: center; border-radius: 4px; font-size: 11px; padding: 1px 4px; }
        .violations table { width: 100%; table-layout: fixed; }
        .violations col.c-date { width: 11em; }
        .violations col.c-person { width: 9em; }
        .violations col.c-type { width: 4em; }
        .violations col.c-severity { width: 5.5em; }
        .violations col.c-rule { width: 12em; }
        .violations col.c-count { width: 4em; }
        .violations th, .violations td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
        .violations td.count, .violations th.count { text-align: right; font-variant-numeric: tabular-nums; }
        .violations code { font-size: 12px; }
        .violations .more { color: #555; }
        .violations thead th { background: #fafbfc; }
        .violations tr.error .severity { color: var(--error); font-weight: 700; }
        .violations tr.warning .severity { color: var(--warning); font-weight: 700; }
        @media (max-width: 760px) {
          .violations col.c-person, .violations col.c-rule { width: 7em; }
          .violations col.c-date { width: 8em; }
        }
        @media print {
          @page { size: A4 landscape; margin: 10mm; }
          body { margin: 0; font-size: 10px; }
          h1 { font-size: 16px; }
          h2 { font-size: 12px; margin: 8px 0 4px; }
          .scroll { overflow: visible; }
          table.roster { min-width: 0 !important; }
          .roster th, .roster td { height: 22px; padding: 1px; }
          .roster th.person { width: 8em; position: static; }
          .shift { font-size: 9px; padding: 0 2px; min-width: 1.4em; }
          thead { display: table-header-group; }
          tr { break-inside: avoid; }
        }

        """
}
