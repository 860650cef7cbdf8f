/// Recorders that take notes and warnings for their manifest: how a source reports what it
/// noticed about its input (ignored streams, derived timestamps, crops) while recording.
public protocol ManifestAnnotating: AnyObject {
    /// Adds a free-form note.
    func addNote(_ note: String)
    /// Adds a warning.
    func addWarning(_ warning: String)
}

extension SegmentingRecorder: ManifestAnnotating {}
extension MovieFileRecorder: ManifestAnnotating {}
