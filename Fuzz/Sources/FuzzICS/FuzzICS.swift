// libFuzzer target: arbitrary UTF-8 text as a iCalendar import into a small schedule. The importer must
// return a plan or throw an ImportFailure naming a line.
import Foundation
import ShiftCore
import ShiftInterop

let schedule: Schedule = {
    let ward = Location(id: LocationID(UUID(uuidString: "F0000000-0000-4000-8000-000000000001")!), name: "Ward")
    let day = ShiftType(id: ShiftTypeID(UUID(uuidString: "F0000000-0000-4000-8000-000000000002")!), symbol: "D", title: "Day",
                        duration: ShiftDuration("07:00-19:00")!, locationID: ward.id)
    let night = ShiftType(id: ShiftTypeID(UUID(uuidString: "F0000000-0000-4000-8000-000000000003")!), symbol: "N", title: "Night",
                          duration: ShiftDuration("19:00-07:00")!)
    let bob = Person(id: PersonID(UUID(uuidString: "F0000000-0000-4000-8000-000000000004")!), displayName: "Bob")
    return try! Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"), locations: [ward],
                         shiftTypes: [day, night], people: [bob])
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, let text = String(validating: UnsafeBufferPointer(start: data, count: size), as: UTF8.self) else { return 0 }
    _ = try? ICalendarImporter().plan(text, into: schedule)
    return 0
}
