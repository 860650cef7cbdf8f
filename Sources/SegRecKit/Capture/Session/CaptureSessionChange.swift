/// Something a ``CaptureSession`` did or saw, as an app observes it on AVFoundation: a
/// key-value observation (`activeFormat`, `videoZoomFactor`, `isCenterStageActive`, the
/// rotation coordinator's `videoRotationAngleForHorizonLevelCapture`, …), a completion
/// handler that failed, a smart framing recommendation, or the posture a direction
/// coordinator reports. It rides the stream as ``CaptureOutputEvent/sessionEvent(_:)``;
/// the recording side turns it into the manifest's ``SessionEventRecord``.
///
/// Cameras are named by their `uniqueID`. Changes applied at a scheduled event carry its
/// host time; changes seen in the pictures carry the ``Frame`` they start at.
package enum CaptureSessionChange: Sendable, Hashable {
    /// The direction coordinator's device posture changed at a host time.
    case postureChanged(from: DevicePosture, to: DevicePosture, at: MediaTime)
    /// `camera`'s facing relative to the app's display changed (`from` is nil when it had none).
    case facingChanged(camera: String, from: CameraFacing?, to: CameraFacing, at: MediaTime)
    /// The app's view `view` moved from one display to the other at a host time.
    case viewMoved(view: String, from: AppViews.Display, to: AppViews.Display, at: MediaTime)
    /// The app let view `to`'s direction coordinator drive the recording instead of `from`'s.
    case drivingViewChanged(from: String, to: String, at: MediaTime)
    /// `camera`'s facing relative to view `view` (on `display`), which does not drive the
    /// recording, changed: what that view's own coordinator reports.
    case viewFacingChanged(view: String, display: AppViews.Display, camera: String, from: CameraFacing?, to: CameraFacing, at: MediaTime)
    /// `UIDevice.orientation` changed at a host time.
    case deviceOrientationChanged(from: DeviceOrientation, to: DeviceOrientation, at: MediaTime)
    /// The session streams from `to` instead of `from` (individual cameras) from `frame`.
    case cameraSwitched(from: String, to: String, frame: Frame)
    /// The Virtual Front Camera `camera` shows constituent `to` instead of `from` from `frame`.
    case constituentSwapped(camera: String, from: String, to: String, frame: Frame)
    /// The connection's `isVideoMirrored` changed from `frame` (which has no device time here).
    case videoMirroredChanged(camera: String, from: Bool, to: Bool, frame: Frame)
    /// `setDynamicAspectRatio` failed on `camera` at a host time; `message` is the warning
    /// the app logs (what failed and why the recording goes on).
    case dynamicAspectRatioRequestFailed(DynamicAspectRatio, camera: String, at: MediaTime, message: String)
    /// `startMonitoring()` or `stopMonitoring()` on `camera`'s smart framing monitor took
    /// effect; `message` says what a stop cancelled, if anything.
    case smartFramingMonitoringChanged(camera: String, action: SmartFramingMonitor.Action, at: MediaTime, message: String?)
    /// The seeds' `start()` threw at a host time: `camera` has no format with smart framing;
    /// `message` is the warning the app logs (the recording goes on).
    case smartFramingStartFailed(camera: String, at: MediaTime, message: String)
    /// The smart framing monitor's `recommendedFraming` changed to `to` (`from`: the
    /// previous one) for `peopleInFrame` people, and what the app did with it.
    case smartFramingRecommended(camera: String, from: CaptureFraming?, to: CaptureFraming, peopleInFrame: Int, outcome: SmartFramingOutcome, at: MediaTime)
    /// The connection's `activeVideoStabilizationMode` changed at a format switch whose new
    /// format starts capturing at `at`; `reason` says why.
    case activeVideoStabilizationModeChanged(camera: String, from: VideoStabilizationMode, to: VideoStabilizationMode, at: MediaTime, reason: String)
    /// `camera`'s `activeFormat` (and rate) changed; `frame` is the new format's first;
    /// `reason` says what asked for it and what it does to the segments.
    case activeFormatChanged(camera: String, from: ActiveFormat, to: ActiveFormat, frame: Frame, reason: String)
    /// `isDepthDataDeliveryEnabled` or `isGeometricDistortionCorrectionEnabled` changed on
    /// `camera`; `centerStageEffect` says when it made Center Stage inactive or active again.
    case captureFeatureChanged(CameraControlState.CaptureFeature, camera: String, from: Bool, to: Bool, at: MediaTime, centerStageEffect: String?)
    /// `isCenterStageEnabled` changed, by the app or by the user (Control Center).
    case centerStageEnabledChanged(camera: String, from: Bool, to: Bool, by: CenterStageControl.Requester, at: MediaTime)
    /// The user's Control Center toggle (`requested`) was ignored: `controlMode` does not let the user.
    case centerStageToggleIgnored(camera: String, isEnabled: Bool, requested: Bool, controlMode: CenterStageControl.ControlMode, at: MediaTime)
    /// The rotation coordinator's `videoRotationAngleForHorizonLevelCapture` changed from `frame`.
    case videoRotationAngleChanged(camera: String, from: VideoRotationAngle, to: VideoRotationAngle, frame: Frame)
    /// The zoom drawn into the pictures (`videoZoomFactor`) changed from `frame`; `cause`
    /// says why (videoZoomFactor, smart framing, Center Stage).
    case videoZoomFactorChanged(camera: String, from: Double, to: Double, frame: Frame, cause: String)
    /// `camera`'s `isCenterStageActive` changed from `frame`.
    case centerStageActiveChanged(camera: String, from: Bool, to: Bool, frame: Frame)
    /// A live source (`source`, its URL) came back from `frame` on after an outage of
    /// `outage`; `message` says why it was gone and how many connections were tried.
    case liveSourceReconnected(source: String, frame: Frame, outage: Duration, message: String)

    /// The delivered frame a change starts at.
    package struct Frame: Sendable, Hashable {
        /// Its delivery sequence number (``VideoFrame/index``).
        package let index: Int64
        /// Its session time (host clock).
        package let sessionTime: MediaTime
        /// Its capture time on the camera's own clock.
        package let deviceTime: MediaTime

        /// A frame: delivery number, session time, device time.
        package init(index: Int64, sessionTime: MediaTime, deviceTime: MediaTime) {
            self.index = index
            self.sessionTime = sessionTime
            self.deviceTime = deviceTime
        }
    }

    /// A camera's `activeFormat` by name, with the rate it captures at.
    package struct ActiveFormat: Sendable, Hashable, CustomStringConvertible {
        /// The format's name (its square side, or the back camera's size).
        package let name: String
        /// The capture rate.
        package let frameRate: FrameRate

        /// A format name and rate.
        package init(name: String, frameRate: FrameRate) {
            self.name = name
            self.frameRate = frameRate
        }

        /// `"3840@30"`: name and rate.
        package var description: String { "\(name)@\(frameRate)" }
    }

    /// What the app did with a smart framing recommendation.
    package enum SmartFramingOutcome: Sendable, Hashable {
        /// It applied it: the aspect ratio, then the zoom.
        case applied
        /// The camera showed that framing already.
        case alreadyInEffect
        /// Its ``SmartFramingPolicy`` ignores that framing.
        case ignored(SmartFramingPolicy)
    }
}
