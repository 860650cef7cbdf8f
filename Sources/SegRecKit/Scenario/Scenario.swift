/// A capture scenario (Docs/cameras.md, "Scenario files"): the front camera's configuration,
/// when the session starts and how long it runs, and timed events (aspect-ratio requests,
/// zoom changes, people counts for smart framing).
///
/// Seconds are decimal as written in the file; every exact time is derived by rounding the
/// decimal once to nanoseconds (`sessionStart`, `duration`, `hostTime(of:)`), never by
/// Double arithmetic. Decode files with ``decode(_:file:)`` / ``load(contentsOf:)``, which
/// also validate; a scenario built in code can be checked with `validate(file:)`.
public struct Scenario: Sendable, Hashable {
    /// The front camera's clock parameters (`device.clock`).
    package struct Clock: Sendable, Hashable {
        /// Device ticks per second, `1...Int32.max` (default 24_000_000).
        package var timescale: Int32
        /// Offset added to host seconds, in seconds (default 0).
        package var offsetSeconds: Double
        /// Drift in parts per million, `-1000...1000` (default 0).
        package var driftPPM: Double

        /// Creates clock parameters.
        package init(timescale: Int32 = 24_000_000, offsetSeconds: Double = 0, driftPPM: Double = 0) {
            self.timescale = timescale
            self.offsetSeconds = offsetSeconds
            self.driftPPM = driftPPM
        }
    }

    /// The front camera's configuration (`device`).
    package struct Device: Sendable, Hashable {
        /// The camera: the Center Stage front camera (`builtInUltraWideCamera`, the default)
        /// or an earlier front camera (`builtInWideAngleCamera`: fixed 4:3 formats, no dynamic
        /// aspect ratio, no Center Stage), the fallback the seeds ask apps to test.
        package var type: CaptureDevice.DeviceType = .builtInUltraWideCamera
        /// Square side of the active format: 1280, 1920, 3840 or 4032 (default 1920); for
        /// the earlier front camera the width of ``fixedFormat``.
        package var format: Int
        /// The earlier front camera's format, `"WxH"` (`1280x960` or `1920x1440`); nil for
        /// the Center Stage camera.
        package var fixedFormat: String? = nil
        /// Capture frame rate (default 30), at most the format's maximum.
        package var fps: FrameRate
        /// Ratio of frame 0 (default 9x16); must be supported by the format.
        package var initialAspectRatio: DynamicAspectRatio
        /// The device clock.
        package var clock: Clock
        /// Frame periods from a request to its first new-size frame, `0...1000` (default 2).
        package var changeLatencyFrames: Int64
        /// Frames from the first new-size frame to the completion, `-1000...1000` (default 0).
        package var completionDelayFrames: Int64
        /// Whether the smart framing monitor runs (4032 format only; default false).
        package var smartFraming: Bool
        /// `preferredVideoStabilizationMode`, or nil (not set: latency as given, default 2).
        package var preferredVideoStabilizationMode: VideoStabilizationMode? = nil
        /// Whether ``changeLatencyFrames`` was given (a decoded file that leaves it out takes
        /// the stabilization mode's default). True for scenarios built in code.
        package var isChangeLatencyExplicit = true
        /// The smart framing monitor's `enabledFramings` by name (`wide3x4`, `narrow3x4`,
        /// `wide4x3`, `narrow4x3`). Not given (nil): the app's `start()` enables every
        /// supported framing, as the seeds' code does; `[]`: none enabled, as a monitor is by
        /// default on iOS: it recommends nothing until framings are enabled.
        package var enabledFramings: [String]? = nil
        /// What the app does with smart framing recommendations (`smartFramingPolicy`:
        /// `"apply"`, the default, `"ignore"`, or an array of framings to apply).
        package var smartFramingPolicy: SmartFramingPolicy = .apply
        /// `depthDataDeliveryEnabled` at start (default false); Center Stage is inactive while on.
        package var depthDataDeliveryEnabled = false
        /// `geometricDistortionCorrectionEnabled` at start (default false); Center Stage is
        /// inactive while on.
        package var geometricDistortionCorrectionEnabled = false

        /// The change latency in effect: an explicit ``changeLatencyFrames`` wins, else the
        /// stabilization mode's default (off 1, lowLatency 1, standard 2, cinematic 3,
        /// cinematicExtended 4, cinematicExtendedEnhanced 5), else ``changeLatencyFrames``.
        package var effectiveChangeLatencyFrames: Int64 {
            Self.changeLatency(
                explicit: isChangeLatencyExplicit ? changeLatencyFrames : nil, mode: preferredVideoStabilizationMode, fallback: changeLatencyFrames)
        }

        /// The latency rule shared with `cameras` entries.
        static func changeLatency(explicit: Int64?, mode: VideoStabilizationMode?, fallback: Int64) -> Int64 {
            explicit ?? mode?.defaultChangeLatencyFrames ?? fallback
        }

        /// Creates a configuration; defaults as documented on each property.
        package init(
            format: Int = 1920, fps: FrameRate = Scenario.defaultFrameRate, initialAspectRatio: DynamicAspectRatio = .ratio9x16, clock: Clock = Clock(),
            changeLatencyFrames: Int64 = 2, completionDelayFrames: Int64 = 0, smartFraming: Bool = false
        ) {
            self.format = format
            self.fps = fps
            self.initialAspectRatio = initialAspectRatio
            self.clock = clock
            self.changeLatencyFrames = changeLatencyFrames
            self.completionDelayFrames = completionDelayFrames
            self.smartFraming = smartFraming
        }
    }

    /// What an event does: the capture session's own actions (one type, so a scenario
    /// event becomes a session event by placing it on the host clock). JSON:
    /// `{"setDynamicAspectRatio": "16x9"}`, `{"videoZoomFactor": 1.5}`, `{"peopleInFrame": 3}`.
    package typealias Action = CaptureSession.Action

    /// One timed event (`events[i]`).
    package struct Event: Sendable, Hashable {
        /// Session-clock seconds from session start, `0 ≤ atSeconds < durationSeconds`.
        package var atSeconds: Double
        /// What happens.
        package var action: Action

        /// Creates an event.
        package init(atSeconds: Double, action: Action) {
            self.atSeconds = atSeconds
            self.action = action
        }
    }

    /// The default frame rate, 30 fps.
    package static let defaultFrameRate: FrameRate = { do { return try FrameRate(30) } catch { preconditionFailure("\(error)") } }()

    /// A name for messages: the file name without extension, or the built-in's name.
    public var name: String
    /// Optional free text (`description` in the file).
    package var summary: String?
    /// The front camera.
    package var device: Device
    /// Host-clock time at which the session starts, seconds (default 1.0).
    package var sessionStartSeconds: Double
    /// How long the source runs, seconds (> 0).
    package var durationSeconds: Double
    /// Events in time order.
    package var events: [Event]
    /// Several cameras (iPhone Duo, Docs/cameras.md), or `nil` for the one camera of
    /// ``device``. With cameras, ``device`` holds only the top-level `initialAspectRatio`,
    /// `changeLatencyFrames` and `completionDelayFrames`.
    package var cameras: [Camera]? = nil
    /// With cameras: individual cameras (default) or the Virtual Front Camera.
    package var frontCamera: FrontCameraStrategy = .individual
    /// With cameras: the posture at session start (default `closed`).
    package var initialPosture: DevicePosture = .closed
    /// With cameras: the reconfiguration gap of a camera switch, seconds (default 0.25).
    package var switchGapSeconds: Double = 0.25
    /// With `"frontCamera": "virtual"`: the Virtual Front Camera's format, rate and clock.
    package var virtual: VirtualCamera? = nil
    /// With cameras: a discovery request (`discovery`) that chooses ``frontCamera`` (and the
    /// initial posture) instead of naming them; resolved when the file is decoded.
    package var discovery: DiscoveryRequest? = nil
    /// What the discovery found, for the manifest's `notes`; nil without `discovery`.
    package var discoveryNote: String? = nil
    /// With cameras: the app's views on the two displays (`views`), or nil for the one
    /// implicit view the posture places.
    package var views: [AppViews.View]? = nil
    /// The id of the view whose direction coordinator drives the recording (`drivingView`;
    /// default the first view).
    package var drivingView: String? = nil
    /// How the phone is held at session start (`initialDeviceOrientation`, default portrait).
    package var initialDeviceOrientation: DeviceOrientation = .portrait
    /// Center Stage's process-wide intent at session start (`centerStageEnabled`, default false).
    package var centerStageEnabled = false
    /// Who may turn Center Stage on or off (`centerStageControlMode`, default `user`).
    package var centerStageControlMode: CenterStageControl.ControlMode = .user
    /// The microphone (`microphone`, Docs/DESIGN.md "Audio"), or nil for a silent session.
    package var microphone: Microphone? = nil

    /// Creates a scenario (not validated: call ``validate(file:)``).
    package init(
        name: String, summary: String? = nil, device: Device = Device(), sessionStartSeconds: Double = 1.0, durationSeconds: Double, events: [Event] = []
    ) {
        self.name = name
        self.summary = summary
        self.device = device
        self.sessionStartSeconds = sessionStartSeconds
        self.durationSeconds = durationSeconds
        self.events = events
    }

    /// Session start on the host clock: `round(sessionStartSeconds · 1e9)` ns, rounded once
    /// from the decimal (half away from zero).
    package var sessionStart: MediaTime { Self.nanoseconds(sessionStartSeconds) }

    /// The duration: `round(durationSeconds · 1e9)` ns.
    package var duration: MediaTime { Self.nanoseconds(durationSeconds) }

    /// The host time of `event`: session start + `round(atSeconds · 1e9)` ns (exact).
    package func hostTime(of event: Event) -> MediaTime {
        let start = MediaClock.roundDecimal(sessionStartSeconds, scale: 9)
        let offset = MediaClock.roundDecimal(event.atSeconds, scale: 9)
        return MediaTime(value: start &+ offset, timescale: 1_000_000_000)
    }

    /// `round(seconds · 1e9)` nanoseconds, from the decimal text of `seconds`.
    static func nanoseconds(_ seconds: Double) -> MediaTime { MediaTime(value: MediaClock.roundDecimal(seconds, scale: 9), timescale: 1_000_000_000) }
}
