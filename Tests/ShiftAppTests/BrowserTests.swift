import Foundation
import TestSupport
import Testing

/// The exported HTML roster in a real browser (issue 35, item 12): Debian's `chromium`, headless,
/// renders the page `shiftctl export --format html` writes; the grid, the coverage rows and the
/// findings must be in the rendered page, nothing may fail while it loads, and the findings must
/// read at 1024 px. `.ci/run` installs chromium; elsewhere the test is skipped without it.
@Suite struct BrowserTests {
    /// `chromium` (Debian's package) on the usual paths, nil when it is not installed.
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/snap/bin/chromium"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// A team over the turn of a month: shifts, a daily demand the roster falls short of (the
    /// findings and the coverage row's shortfalls), and the page exported from it.
    func exportedRoster() throws -> Sandbox {
        let sandbox = try Sandbox.withTeam()
        for (date, type, person) in [("2026-03-30", "D", "Alice"), ("2026-03-31", "N", "Bob"), ("2026-04-01", "D", "Bobby"),
                                     ("2026-04-02", "D", "Alice")] {
            let result = try sandbox.run("schedule", "add", "--type", type, "--date", date, "--person", person)
            #expect(result.status == 0, "\(result.stderr)")
        }
        for day in ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] {
            #expect(try sandbox.run("demand", "add", "--type", "D", "--weekday", day, "--min", "2", "--optimal", "3").status == 0)
        }
        let export = try sandbox.run("export", "--format", "html", "--from", "2026-03-28", "--to", "2026-04-04", "-o", "roster.html")
        #expect(export.status == 0, "\(export.stderr)")
        return sandbox
    }

    @Test(.enabled(if: chromium != nil || isCI, "needs Debian's chromium (apt-get install chromium; .ci/run installs it)"))
    func theRosterRendersInChromiumWithItsGridCoverageAndFindings() throws {
        guard let chromium = Self.chromium else {
            Issue.record("CI=true but no chromium: install it with apt-get install chromium (as .ci/run does)")
            return
        }
        let sandbox = try exportedRoster()
        let page = sandbox.path + "/roster.html"
        let dom = try Self.run(chromium, Self.flags(sandbox) + ["--dump-dom", "file://" + page])
        #expect(dom.status == 0, "\(dom.stderr)")
        #expect(dom.stdout.contains("<table class=\"roster\""), "the grid")
        #expect(dom.stdout.contains(">March 2026</th>") && dom.stdout.contains(">April 2026</th>"), "one grid, the months marked")
        #expect(dom.stdout.contains("<tr class=\"coverage\" data-type=\"D\">"), "the coverage row")
        #expect(dom.stdout.contains("class=\"cov short\"") || dom.stdout.contains("class=\"cov weekend short\""), "shortfalls marked")
        #expect(dom.stdout.contains("<section class=\"violations\"") && dom.stdout.contains("<code>meets_demand</code>"), "the findings")
        #expect(dom.stdout.contains("<td class=\"total shifts\">2</td>"), "Alice's totals")
        let console = dom.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }
        #expect(console.isEmpty, "console messages while loading: \(console)")
    }

    @Test(.enabled(if: chromium != nil || isCI, "needs Debian's chromium (apt-get install chromium; .ci/run installs it)"))
    func theRosterLoadsWithoutErrorsAndItsFindingsReadAt1024Pixels() throws {
        guard let chromium = Self.chromium else {
            Issue.record("CI=true but no chromium: install it with apt-get install chromium (as .ci/run does)")
            return
        }
        let sandbox = try exportedRoster()
        // A copy of the page with a probe: any error while loading (a script, a resource) is
        // written into the document, and the layout at the window's width is measured there.
        let html = String(decoding: try #require(sandbox.bytes("roster.html")), as: UTF8.self)
        let probe = html
            .replacingOccurrences(of: "<head>\n", with: "<head>\n<script>" + Self.errorProbe + "</script>\n")
            .replacingOccurrences(of: "</body>", with: "<script>" + Self.layoutProbe + "</script>\n</body>")
        try sandbox.write(probe, to: "probe.html")
        let dom = try Self.run(chromium, Self.flags(sandbox) + ["--dump-dom", "file://" + sandbox.path + "/probe.html"])
        #expect(dom.status == 0, "\(dom.stderr)")
        #expect(!dom.stdout.contains("data-errors="), "errors while loading: \(dom.stdout.prefix(400))")
        let layout = try #require(dom.stdout.firstMatch(of: /data-layout="(\d+) (\d+) (\d+) (\d+)"/), "the probe ran")
        let (page, window, table, message) = (Int(layout.1)!, Int(layout.2)!, Int(layout.3)!, Int(layout.4)!)
        #expect(window == 1024)
        #expect(page <= window, "nothing wider than the window: \(page) px")
        #expect(table <= window - 40, "the findings table fits beside the margins: \(table) px")
        #expect(message >= 300, "the message column is wide enough to read: \(message) px")

        let shot = sandbox.path + "/roster.png"
        let screenshot = try Self.run(chromium, Self.flags(sandbox) + ["--screenshot=" + shot, "file://" + sandbox.path + "/roster.html"])
        #expect(screenshot.status == 0, "\(screenshot.stderr)")
        let png = try #require(FileManager.default.contents(atPath: shot))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
        #expect(png.count > 10_000, "a page with something on it (\(png.count) bytes)")
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1024)
    }

    /// Marks the document with every error event (scripts, and resources in the capture phase).
    static let errorProbe = """
        addEventListener('error', function (e) { var d = document.documentElement; \
        d.setAttribute('data-errors', (d.getAttribute('data-errors') || '') + (e.message || e.target.outerHTML) + ';'); }, true);
        """

    /// Writes `page window findings-table message-column` widths (px) into the document.
    static let layoutProbe = """
        (function () { var t = document.querySelector('.violations table'); \
        var m = t.querySelector('tbody tr td:last-child'); \
        document.documentElement.setAttribute('data-layout', [document.documentElement.scrollWidth, window.innerWidth, \
        Math.round(t.getBoundingClientRect().width), Math.round(m.getBoundingClientRect().width)].join(' ')); })();
        """

    /// Headless, as root in a container (no sandbox, no GPU, no /dev/shm), a window of 1024 px,
    /// console messages on stderr, its profile in the test's folder.
    static func flags(_ sandbox: Sandbox) -> [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
         "--window-size=1024,1400", "--enable-logging=stderr", "--v=0", "--user-data-dir=" + sandbox.path + "/.chromium"]
    }

    /// Runs a program with a time limit and collects its output.
    static func run(_ program: String, _ arguments: [String]) throws -> CLIResult {
        let result = try runProgram("/usr/bin/timeout", ["120", program] + arguments)
        return CLIResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}
