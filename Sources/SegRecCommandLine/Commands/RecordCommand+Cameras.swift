import Foundation
import SegRecKit

/// `segrec record --scenario FILE` with a `cameras` scenario (iPhone Duo): the session
/// switches cameras by posture; `--source PATH` feeds every camera, `--camera-source ID=PATH`
/// one camera; `--mirror` flips buffers.
extension RecordCommand {
    static let cameraOptions: [OptionSpec] = [
        .option("mirror", "MODE", help: "Flip buffers left-right (isVideoMirrored): off (default), on, or auto (while the streaming camera faces the user).",
                allowed: MirrorMode.allCases.map(\.rawValue)),
        .option("camera-source", "ID=PATH", help: "With a cameras scenario: footage as camera ID's sensor image (repeatable, one per camera); other cameras use --source."),
        .flag("split-on-rotation", help: "Start a segment (startReason rotationChanged) at the first frame captured with a new capture angle; default: the angle applies from the next segment. Segment mode only."),
    ]

    /// `--mirror`, default off.
    static func mirrorMode(_ parsed: ParsedArguments) -> MirrorMode {
        parsed.value("mirror").flatMap(MirrorMode.init(rawValue:)) ?? .off
    }

    /// The scenario given with `--scenario` when it has `cameras`, else nil.
    /// - Throws: the scenario's errors (65), a missing file (66).
    static func camerasScenario(_ parsed: ParsedArguments) throws -> Scenario? {
        guard let path = parsed.value("scenario") else { return nil }
        let scenario = try loadScenario(path)
        return scenario.cameras == nil ? nil : scenario
    }

    /// The session and muxer configuration for a cameras scenario.
    /// - Throws: usage errors (64) for a `--camera-source` without `=`, for an unknown camera
    ///   id (naming the ids), for a camera id given twice, or for raw-video options; scenario errors (65); footage errors.
    static func camerasSource(_ parsed: ParsedArguments, scenario: Scenario, source: String, mode: RecordingMode,
                              outputURL: URL, pool: PixelBufferPool) throws -> (CaptureSession, SegmentMuxer.Configuration) {
        let file = parsed.value("scenario") ?? scenario.name
        let options = try sourceOptions(parsed, source: source)
        let cameras = scenario.cameras ?? []
        var clips: [String: String] = [:]
        for item in parsed.values("camera-source") {
            guard let equals = item.firstIndex(of: "="), equals != item.startIndex, item.index(after: equals) != item.endIndex else {
                throw CommandLineError("record: --camera-source: '\(Excerpt.of(item))' is not ID=PATH, e.g. inner=clip.mp4", exitCode: .usage)
            }
            let id = String(item[..<equals]), path = String(item[item.index(after: equals)...])
            guard cameras.contains(where: { $0.id == id }) else {
                throw CommandLineError("record: --camera-source: \(file) has no camera '\(Excerpt.of(id))'; allowed: \(cameras.map(\.id).joined(separator: ", "))", exitCode: .usage)
            }
            guard clips[id] == nil else {
                throw CommandLineError("record: --camera-source: camera '\(Excerpt.of(id))' is given twice; give each camera id once", exitCode: .usage)
            }
            clips[id] = path
        }
        let stdinReaders = cameras.filter { (clips[$0.id] ?? source) == "-" }.map(\.id)
        if stdinReaders.count > 1 {
            throw CommandLineError("record: standard input can feed one camera only, but cameras \(stdinReaders.joined(separator: ", ")) would read it; give the others a clip with --camera-source ID=PATH", exitCode: .usage)
        }
        let virtualSide = scenario.frontCamera == .virtual ? scenario.virtual?.format : nil
        var sources: [any SensorImageSource] = []
        var notes: [String] = []
        for (position, camera) in cameras.enumerated() {
            let path = clips[camera.id] ?? (source == "synthetic" ? nil : source)
            guard let path else {
                sources.append(SyntheticSensor(pixelBufferPool: pool, pattern: position + 1))
                continue
            }
            let side = virtualSide ?? camera.activeFormat?.squareSide ?? 1920
            let sensor = try DecodedClipSensor(squareSide: side, canReopen: path != "-", pixelBufferPool: pool,
                                               appliesDisplayRotation: true) {
                try VideoFileDecoder(path: path, options: options, pixelBufferPool: pool, stopRequest: .process)
            }
            sources.append(sensor)
            notes += clipNotes(sensor, sensorImage: "sensor image from \(path), each picture centre-cropped to a square, scaled to \(side)x\(side) and cropped to the active size; the camera's device clock stamps the frames",
                               camera: camera.id)
        }
        let mirror = mirrorMode(parsed)
        if mirror != .off {
            notes.append("--mirror \(mirror.rawValue): buffers are flipped left-right\(mirror == .auto ? " while the streaming camera faces the user" : "") before the frame stamp is drawn")
        }
        let stamp = parsed.flag("stamp-frame-index") || sources.contains { $0.stampsFrameIndex }
        let session: CaptureSession
        do {
            session = try CaptureSession(scenario: scenario, sources: sources, stampFrameIndex: stamp,
                                         mirrorMode: mirror, pixelBufferPool: pool)
        } catch {
            throw ScenarioError(file: file, key: error.scenarioKey, problem: "\(error)",
                                allowed: "values the camera model can represent (see DESIGN.md, \"Cameras\")")
        }
        let settings = try encoderSettings(parsed, frameRate: session.device.frameRate)
        try checkNotInterrupted()
        let output = try OutputDirectory(preparing: outputURL, force: parsed.flag("force"))
        var configuration = SegmentMuxer.Configuration(
            output: output, settings: settings, policy: SplitPolicy(mode),
            devices: session.devices.map(\.clock),
            frameIndexStamp: stamp, pixelBufferPool: pool, notes: notes)
        configuration.recordsSessionEvents = true
        configuration.deviceControls = scenario.deviceControls
        configuration.splitOnRotation = parsed.flag("split-on-rotation")
        return (session, configuration)
    }
}
