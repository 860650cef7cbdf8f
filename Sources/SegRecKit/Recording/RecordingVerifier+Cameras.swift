/// What `segrec verify` expects of the camera code (stamp rows 16–31) in a several-camera
/// recording (Docs/cameras.md, "Which camera made each frame"): the manifest's `devices` list the cameras in
/// `cameras` order (then `virtualFront`), so a camera's code is its position there. A
/// segment from a physical camera holds only that camera's frames; a `virtualFront`
/// segment holds, from each `constituentSwapped` event's `frameIndex` on, the frames of its
/// `to` camera (before the first swap: its `from`, or the segment's own `constituent`).
struct CameraExpectation {
    private let positions: [String: UInt32]
    private let names: [UInt32: String]
    private let swaps: [(frame: Int64, from: String?, to: String?)]

    init(_ manifest: RecordingManifest) {
        var positions: [String: UInt32] = [:]
        var names: [UInt32: String] = [:]
        for (i, device) in manifest.devices.enumerated() where device.id != Scenario.virtualFrontID {
            positions[device.id] = UInt32(i)
            names[UInt32(i)] = device.id
        }
        self.positions = positions
        self.names = names
        swaps = (manifest.events ?? []).filter { $0.kind == .constituentSwapped }.compactMap { event in event.frameIndex.map { ($0, event.from, event.to) } }
    }

    /// The camera expected to have made frame `index` of `segment`, or nil when unknown.
    private func expected(_ index: Int64, in segment: SegmentRecord) -> String? {
        guard segment.camera == Scenario.virtualFrontID else { return segment.camera }
        if let swap = swaps.last(where: { $0.frame <= index }) { return swap.to }
        return segment.constituent ?? swaps.first?.from
    }

    /// The cameras read back (in order of appearance) and the problems: a code that names no
    /// camera, or a frame made by another camera than the manifest says.
    func check(_ segment: SegmentRecord, codes: [(index: Int64, code: UInt32?)]) -> ([String], [String]) {
        var producers: [String] = []
        var problems: [String] = []
        for (index, code) in codes {
            guard let code, let name = names[code] else {
                problems.append("frame \(index): camera code \(code.map(String.init) ?? "unreadable") names no camera of the manifest's devices")
                break
            }
            if producers.last != name { producers.append(name) }
            if let expected = expected(index, in: segment), expected != name {
                problems.append("frame \(index) was made by camera \(name) (code \(code)), the manifest says \(expected)")
                break
            }
        }
        if positions.isEmpty { problems.append("the manifest lists no camera devices") }
        return (producers, problems)
    }
}
