import Testing
import TrackIO
import _GeoWakeTestSupport

@Suite("Device columns")
struct DeviceColumnTests {
  @Test func csvNamesTheDeviceOfEachRowAndCountsChanges() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file(
      "fleet.csv",
      containing: "lat,device,lon,time\n1,a,2,10\n1,a,2,11\n1,\"b, 2\",2,10\n1,a,2,12\n91,c,2,0\n1,,2,0\n")
    var reader = try TrackFileReader(path: path)
    #expect(reader.namesDevices)
    var seen: [(String?, Int)] = []
    for _ in 0..<4 {
      _ = try reader.next()
      seen.append((reader.device, reader.deviceChanges))
    }
    #expect(seen.map(\.0) == ["a", "a", "b, 2", "a"])
    #expect(seen.map(\.1) == [1, 1, 2, 3])
    // A bad row still names its device, so that the error is the right device's.
    #expect(throws: TrackIOError.self) { try reader.next() }
    #expect(reader.device == "c" && reader.deviceChanges == 4)
    let empty = #expect(throws: TrackIOError.self) { try reader.next() }
    #expect(empty?.description.contains(":7:") == true && empty?.message.contains("device is empty") == true)
  }

  @Test func jsonLinesNameDevicesOnEveryLineOrNone() throws {
    let folder = try TemporaryFolder()
    let mixed = try folder.file("m.jsonl", containing: "{\"device\":7,\"time\":1,\"lat\":1,\"lon\":2}\n{\"time\":2,\"lat\":1,\"lon\":2}\n")
    var reader = try TrackFileReader(path: mixed)
    _ = try reader.next()
    #expect(reader.device == "7" && reader.namesDevices)
    let missing = #expect(throws: TrackIOError.self) { try reader.next() }
    #expect(missing?.line == 2 && missing?.message.contains("every line must") == true)

    let late = try folder.file("l.jsonl", containing: "{\"time\":1,\"lat\":1,\"lon\":2}\n{\"device\":\"x\",\"time\":2,\"lat\":1,\"lon\":2}\n")
    var second = try TrackFileReader(path: late)
    _ = try second.next()
    #expect(!second.namesDevices)
    let named = #expect(throws: TrackIOError.self) { try second.next() }
    #expect(named?.line == 2 && named?.message.contains("1 earlier fixes name none") == true)

    let plain = try folder.file("p.csv", containing: "time,lat,lon\n1,2,3\n")
    var third = try TrackFileReader(path: plain)
    _ = try third.next()
    #expect(!third.namesDevices && third.device == nil)
  }
}
