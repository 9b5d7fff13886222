import ArgumentParser
import ShiftApp

/// `--format` of `import` and `export`: the output format (`text`, `json`). It used to pick the
/// file format, so `csv`, `ics` and `html` are still read as that, with a note to use
/// `--file-format`.
enum FileOrOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, csv, ics, html

    /// Help and completion offer the output formats only.
    static var allValueStrings: [String] { [text.rawValue, json.rawValue] }

    /// The file format this value names (`csv`, `ics`, `html`), nil for an output format.
    var legacyFileFormat: ExchangeFormat? {
        self == .text || self == .json ? nil : ExchangeFormat(rawValue: rawValue)
    }

    /// Fails when `--format` names another file format than `--file-format`.
    func check(fileFormat: ExchangeFormat?) throws {
        guard let legacy = legacyFileFormat, let fileFormat, fileFormat != legacy else { return }
        throw ValidationError("--format \(rawValue) and --file-format \(fileFormat.rawValue) disagree: --format is the output format (text or json); give the file format with --file-format only")
    }

    /// The output format and the file format (nil: from the extension); old usage gets a note.
    func resolve(fileFormat: ExchangeFormat?) -> (OutputFormat, ExchangeFormat?) {
        guard let legacy = legacyFileFormat else { return (self == .json ? .json : .text, fileFormat) }
        Console.note("--format \(rawValue) names a file format; use --file-format \(rawValue) (--format is the output format: text or json)")
        return (.text, legacy)
    }
}
