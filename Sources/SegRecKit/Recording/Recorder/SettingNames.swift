/// How messages and manifest notes name the settings a user chose: by default the fields of
/// ``RecordingConfiguration`` (`force`, `fragmentInterval`), as an app knows them; the
/// command line sets its own option spellings (`--force`), so each room speaks its own
/// language and the library never names a command-line option itself.
package struct SettingNames: Sendable, Hashable {
    /// The setting that replaces an earlier recording (``RecordingConfiguration/force``).
    package var force = "force"
    /// The setting that writes each file whole at its end (``RecordingConfiguration/fragmentInterval`` nil).
    package var noFragments = "fragmentInterval nil"
    /// The setting that records no sound (``RecordingConfiguration/recordsAudio`` false).
    package var noAudio = "recordsAudio false"
    /// The mirroring setting (``RecordingConfiguration/mirror``), followed by its value.
    package var mirror = "mirror"

    /// The configuration's field names.
    package init() {}
}
