import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Every temporary folder the tests make lives under one root per test process,
/// `segrec-tests-<pid>` in the system's temporary folder, which is removed when the process
/// exits; roots left by test processes that died (killed, crashed) are removed on the next
/// run's first use. Roots of test processes still running are left alone.
enum TestTemporaryDirectories {
    static let prefix = "segrec-tests-"

    /// This process's root, made (and its removal at exit registered) on first use.
    static let root: URL = {
        let base = FileManager.default.temporaryDirectory
        removeRootsOfDeadProcesses(in: base)
        let url = base.appendingPathComponent("\(prefix)\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestTemporaryDirectories.root) }
        return url
    }()

    /// A fresh empty folder `<label>-<uuid>` under ``root``.
    static func make(_ label: String) throws -> URL {
        let url = root.appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static func removeRootsOfDeadProcesses(in base: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(at: base.appendingPathComponent(name)) }
        }
    }
}
