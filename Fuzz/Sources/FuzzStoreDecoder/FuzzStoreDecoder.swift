// libFuzzer target: arbitrary bytes as a JSON store file. The decoder must return a schedule or
// throw a StorageError; any crash, hang or runaway allocation is a bug.
import ShiftStorage

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let (schedule, _) = try? StoreFileCodec.decode(bytes, path: "fuzz.json") {
        // What decodes must encode and decode to the same schedule.
        let again = try? StoreFileCodec.decode(StoreFileCodec.encode(schedule), path: "fuzz.json").schedule
        precondition(again == schedule, "a decoded store does not round-trip")
    }
    return 0
}
