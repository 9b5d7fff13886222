import Foundation
import ShiftCore

/// Attributes as one compact JSON object, written and read exactly as the JSON store writes and
/// reads them (sorted keys, the same number format), for backends that keep them in a column.
package enum AttributesJSON {
    /// `{"beds": 24, "skills": ["nurse"]}`.
    package static func encode(_ attributes: Attributes) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.attributes(attributes)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Parses what `encode` wrote.
    ///
    /// - Parameter path: names the value in errors (`shifts 4f1c….attributes`).
    /// - Throws: `StorageError.corrupt` with the position in the text and the reason.
    package static func decode(_ text: String, path: String) throws(StorageError) -> Attributes {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer throws(StorageError) in
            var reader = JSONReader(bytes: buffer, path: path)
            let attributes = try EntityDecoder(version: StoreFileCodec.currentVersion).attributes(&reader, path)
            guard reader.atEnd() else { throw reader.error("unexpected \(reader.describeNext()) after the attributes") }
            return attributes
        }
    }
}
