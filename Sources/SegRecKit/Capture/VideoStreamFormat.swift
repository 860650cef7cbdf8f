/// The format of the frames that follow it in a capture output's event stream, announced
/// in-band (``CaptureOutputEvent/formatChanged(_:)``) before the first frame it describes and
/// again whenever any part of it changes: what GStreamer's CAPS event tells the elements
/// downstream, and what a `CMSampleBuffer`'s `CMFormatDescription` with its
/// `AVCaptureConnection` (`videoRotationAngle`, `isVideoMirrored`) tells an
/// `AVCaptureVideoDataOutputSampleBufferDelegate`.
///
/// The recorder takes the camera, the capture rate and the angle from here, never from a
/// frame; each frame's buffer still decides its dimensions (buffers win). Footage passed
/// through announces no format: its rate and rotation are the recording's configuration.
package struct VideoStreamFormat: Sendable, Hashable {
    /// The streaming camera of a several-camera session (Docs/cameras.md).
    package struct Camera: Sendable, Hashable {
        /// The streaming device's id: a camera of `cameras`, or `virtualFront`.
        package var id: String
        /// Where it faces.
        package var facing: CameraFacing
        /// The Virtual Front Camera's constituent that makes the pictures (`outer`, `inner`),
        /// nil for a physical camera.
        package var constituent: String?
        /// Whether buffers are flipped left-right (`AVCaptureConnection.isVideoMirrored`).
        package var isMirrored: Bool

        /// A streaming camera; see the properties.
        package init(id: String, facing: CameraFacing, constituent: String? = nil, isMirrored: Bool = false) {
            self.id = id
            self.facing = facing
            self.constituent = constituent
            self.isMirrored = isMirrored
        }
    }

    /// Width and height of the frames, pixels, as the camera produces them for the ratio in effect.
    package var dimensions: VideoDimensions
    /// Capture rate, frames per second (the reciprocal of `activeVideoMinFrameDuration`).
    /// Each segment is encoded at its first frame's rate.
    package var frameRate: FrameRate
    /// The streaming camera, or nil for a one-camera session.
    package var camera: Camera?
    /// The capture angle (`videoRotationAngleForHorizonLevelCapture`, degrees clockwise):
    /// a segment file's display matrix carries its first frame's angle.
    package var rotationAngle: VideoRotationAngle
    /// The streaming camera's active format, as a scenario spells it (`"1920"`, `"1920x1080"`).
    package var activeFormat: String
    /// Bumped on every `activeFormat` switch of the streaming camera (0 before any), so a
    /// switch back to the same format still reads as a switch.
    package var formatGeneration: Int
    /// Bumped whenever a camera the session switched to starts with a new size that the app's
    /// ratio, carried over, gave it and no request of its own (0 before any). It tells a
    /// recorder that the size change at that frame is announced by no completion: with the
    /// same camera as before (a switch cancelled before the new camera delivered a frame, the
    /// old camera resuming) the frame starts a `dimensionsChanged` segment that no later
    /// request may claim.
    package var carriedRatioChanges: Int

    /// A format; see the properties (pixels, frames per second).
    package init(
        dimensions: VideoDimensions, frameRate: FrameRate, camera: Camera? = nil, rotationAngle: VideoRotationAngle, activeFormat: String,
        formatGeneration: Int = 0, carriedRatioChanges: Int = 0
    ) {
        self.carriedRatioChanges = carriedRatioChanges
        self.dimensions = dimensions
        self.frameRate = frameRate
        self.camera = camera
        self.rotationAngle = rotationAngle
        self.activeFormat = activeFormat
        self.formatGeneration = formatGeneration
    }
}
