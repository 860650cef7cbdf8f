/// One entry of the manifest's top-level `events` list: something the capture session did,
/// in session order (Docs/manifest.md, `events`).
///
/// Generic on purpose: a ``Kind`` plus optional fields, so later kinds (rotation, active
/// format, smart framing, …) join the same list. JSON:
/// `{"kind": "cameraSwitched", "sessionTime": {…}, "sessionTimeSeconds": 3.27,
///   "deviceTime": {…}, "deviceClock": "inner", "camera": "inner", "from": "outer", "to": "inner",
///   "frameIndex": 140}`; absent fields are left out.
package struct SessionEventRecord: Codable, Sendable, Equatable {
    /// What happened.
    package enum Kind: String, Codable, Sendable, CaseIterable {
        /// The device posture changed (`from`/`to`: `closed`, `open`, `openOuterDisplay`);
        /// `sessionTime` is the event's host time.
        case postureChanged
        /// An app view moved between iPhone Duo's displays (`from`/`to`: `inner`, `outer`;
        /// `message` names the view); `sessionTime` is the event's host time.
        case viewMoved
        /// Another view's direction coordinator drives the recording (`from`/`to`: view ids).
        case drivingViewChanged
        /// A camera's facing relative to a view that does not drive the recording changed
        /// (`camera`, `from`/`to`: `user`, `away`; `message` names the view and its display).
        case viewFacingChanged
        /// The session switched cameras (individual cameras): `camera` (= `to`) delivers
        /// from `sessionTime`, its first frame, captured at `deviceTime` on its own clock;
        /// `from` is the previous camera.
        case cameraSwitched
        /// The Virtual Front Camera swapped its constituent (`from` → `to`) from its frame
        /// at `deviceTime` (the virtual device's clock); no new segment.
        case constituentSwapped
        /// `camera`'s facing changed (`from`/`to`: `user`, `away`).
        case facingChanged
        /// Buffer mirroring changed (`from`/`to`: `off`, `on`) under `--mirror auto`.
        case mirroringChanged
        /// A `setDynamicAspectRatio` reached a camera without dynamic aspect ratio (the back
        /// camera) and failed `unsupported` (`to`: the ratio asked for); recording goes on.
        case aspectRatioRequestFailed
        /// The phone's orientation changed (`from`/`to`: `portrait`, `landscapeLeft`,
        /// `portraitUpsideDown`, `landscapeRight`) at the event's host time.
        case deviceOrientationChanged
        /// The capture angle (`videoRotationAngleForHorizonLevelCapture`, clockwise degrees
        /// `from`/`to`) changed from frame `frameIndex` at `sessionTime`: it applies from the
        /// next segment (or starts one with `--split-on-rotation`).
        case rotationChanged
        /// `camera`'s active format changed (`from`/`to`: `"3840@30"`, format and rate);
        /// `sessionTime`/`deviceTime`/`frameIndex`: the new format's first frame.
        case activeFormatChanged
        /// The zoom drawn into the pictures changed (`from`/`to`: zoom factors) from frame
        /// `frameIndex`; `message` says why (videoZoomFactor, smart framing, Center Stage).
        case zoomChanged
        /// The smart framing monitor started (`to: "start"`) or stopped (`to: "stop"`);
        /// `message` says when a stop cancelled a pending recommendation's zoom.
        case smartFramingChanged
        /// `smartFraming` start failed (`to: "start"`): the camera has no format with smart
        /// framing; `message` is the warning (the app's `start()` threw; recording goes on).
        case smartFramingStartFailed
        /// The smart framing monitor recommended a framing (`to`: `narrow3x4`, …; `from`:
        /// the previous recommendation); `message` ends with what the app did: `applied` (a
        /// ratio then a zoom), `already in effect`, or `ignored (smartFramingPolicy …)`.
        case smartFramingRecommended
        /// `isCenterStageEnabled` changed (`from`/`to`: `false`/`true`); `message` says who
        /// changed it when it was the user (Control Center).
        case centerStageEnabledChanged
        /// The user's Control Center toggle (`to`: the state asked for) was ignored because
        /// `centerStageControlMode` is `app`; `message` says so.
        case centerStageToggleIgnored
        /// `camera`'s depth data delivery changed (`from`/`to`: `false`/`true`); `message`
        /// says when it made Center Stage inactive or active again.
        case depthDataDeliveryChanged
        /// `camera`'s geometric distortion correction changed (as for depth).
        case geometricDistortionCorrectionChanged
        /// The connection's `activeVideoStabilizationMode` changed at a format switch
        /// (`from`/`to`: the modes): the new format does not support the preferred mode (it
        /// falls back to `off`), or supports it again; `message` says which and the change
        /// latency that follows.
        case videoStabilizationModeChanged
        /// `camera`'s `isCenterStageActive` changed (`from`/`to`: `false`/`true`).
        case centerStageActiveChanged
        /// A live source came back after an outage: `sessionTime`/`deviceTime`/`frameIndex`
        /// are its new connection's first frame, `durationSeconds` the outage (from the
        /// moment the source was found gone to that frame), `camera` the source's URL,
        /// `message` why it was gone and how many connections were tried.
        case liveSourceReconnected
    }

    /// What happened.
    package var kind: Kind
    /// When, on the session clock (host nanoseconds).
    package var sessionTime: MediaTime
    /// `sessionTime` in seconds, for display only.
    package var sessionTimeSeconds: Double
    /// The device-clock time a camera reported for it (a switched-to camera's first frame),
    /// at that clock's timescale, when known.
    package var deviceTime: MediaTime?
    /// The id of the clock `deviceTime` is on.
    package var deviceClock: String?
    /// The camera the event concerns, when one does.
    package var camera: String?
    /// The value before (a posture, camera id, facing, mirroring).
    package var from: String?
    /// The value after.
    package var to: String?
    /// Delivery sequence number of the first frame the event affects, when it affects frames.
    package var frameIndex: Int64?
    /// A sentence for people (e.g. the error of a failed request).
    package var message: String?
    /// How long what the event reports lasted (`liveSourceReconnected`: the outage), in
    /// seconds, when it has a length.
    package var durationSeconds: Double?

    /// An event at `sessionTime` (host clock); the other fields are optional.
    package init(
        kind: Kind, sessionTime: MediaTime, deviceTime: MediaTime? = nil, deviceClock: String? = nil, camera: String? = nil, from: String? = nil,
        to: String? = nil, frameIndex: Int64? = nil, message: String? = nil
    ) {
        self.kind = kind
        self.sessionTime = sessionTime
        self.sessionTimeSeconds = sessionTime.seconds
        self.deviceTime = deviceTime
        self.deviceClock = deviceClock
        self.camera = camera
        self.from = from
        self.to = to
        self.frameIndex = frameIndex
        self.message = message
    }
}

extension SessionEventRecord {
    /// The event as a chapter title: its kind, what changed (`from → to`) and the camera,
    /// e.g. `postureChanged open → closed`, `cameraSwitched front → back (outer)`.
    /// The chapters of a file spanning `[start, end)` on the session clock, at their times
    /// less `origin` (the file's start): `start` titled by `startReason` unless an event is
    /// there, and each of `events` in the span, titled ``chapterTitle``.
    package static func chapters(of events: [SessionEventRecord], from start: MediaTime, to end: MediaTime, startReason: SegmentStartReason, origin: MediaTime)
        -> [MovieChapter]
    {
        let inside = events.filter { $0.sessionTime >= start && $0.sessionTime < end }
        var chapters = inside.compactMap { event in (try? event.sessionTime.subtracting(origin)).map { MovieChapter(start: $0, title: event.chapterTitle) } }
        if inside.first.map({ $0.sessionTime > start }) ?? true, let at = try? start.subtracting(origin) {
            chapters.insert(MovieChapter(start: at, title: startReason.rawValue), at: 0)
        }
        return chapters
    }

    package var chapterTitle: String {
        var title = kind.rawValue
        if from != nil || to != nil { title += " \(from ?? "–") → \(to ?? "–")" }
        if let camera { title += " (\(camera))" }
        return title
    }
}
